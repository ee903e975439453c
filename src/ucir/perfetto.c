/* UCIR (both layouts) on a Perfetto timeline: one pass over the records
 * with the replay's instruction clock (ucir/replay/clock.h) and its
 * program-counter rules, but none of its memory, so memory stays flat.
 * Time is the instruction index (1 ns each); the setup before instruction
 * 0 is at 0; later keyframes (summaries) are skipped as the replay skips
 * them. Tracks and counters: docs/formats/ucir.md, "Perfetto timeline". */
#include <stdio.h>
#include <string.h>

#include <tracekit/error.h>
#include <tracekit/format.h>
#include <tracekit/input.h>

#include "core/select.h"
#include "ucir/perfetto_int.h"
#include "ucir/replay/clock.h"

typedef struct pf {
    const tk_ucir_header *h;
    ucir_clock clk;
    tk_ucir_pf_events ev;
    tk_ucir_pf_code code;
    ucir_pc at;  /* the program counter, as the replay follows it */
    int pending; /* .uc: an instruction before its STEP */
} pf;

static uint64_t now(const pf *f) { return f->clk.instr < 0 ? 0 : (uint64_t)f->clk.instr; }

/* Instruction f->clk.instr starts: the previous one is complete (counted,
 * its syscall slice ended), and so is a window when it ends here. */
static tk_status start(pf *f, const tk_ucir_op *op, tk_error *err)
{
    uint64_t ts = now(f);
    if (f->pending && tk_ucir_pf_code_count(&f->code, f->at.pc_known, f->at.pc, err) != TK_OK)
        return err->status;
    f->pending = 0;
    if (tk_ucir_pf_syscall_end(&f->ev, ts, err) != TK_OK)
        return err->status;
    if (ts && ts % f->code.window == 0 && tk_ucir_pf_code_window(&f->code, ts, 0, err) != TK_OK)
        return err->status;
    if (f->clk.uc) { /* placed by its STEP */
        ucir_pc_uc_start(&f->at);
        f->pending = 1;
        return TK_OK;
    }
    ucir_pc_exec(&f->at, op);
    return tk_ucir_pf_code_count(&f->code, f->at.pc_known, f->at.pc, err);
}

/* .uc control flow: a STEP at depth 0 completes the pending instruction. */
static tk_status uc_flow(pf *f, const tk_ucir_op *op, tk_error *err)
{
    if (!ucir_pc_uc_flow(&f->at, &f->clk, op) || !f->pending || op->depth != 0)
        return TK_OK;
    f->pending = 0;
    return tk_ucir_pf_code_count(&f->code, f->at.pc_known, f->at.pc, err);
}

static tk_status record(pf *f, const tk_ucir_op *op, tk_error *err)
{
    switch (ucir_clock_step(&f->clk, op)) {
    case UCIR_CLK_FRAME:
    case UCIR_CLK_SKIPPED:
        return TK_OK;
    case UCIR_CLK_START:
        if (start(f, op, err) != TK_OK)
            return err->status;
        break;
    default:
        break;
    }
    size_t n;
    const char *label;
    switch (op->kind) {
    case TK_UCIR_SYSCALL:
        return tk_ucir_pf_syscall(&f->ev, now(f), op, f->at.pc_known, f->at.pc, err);
    case TK_UCIR_MEM_WRITE:
        tk_ucir_pf_code_written(&f->code, op->size);
        return TK_OK;
    case TK_UCIR_MEM_MAP:
        label = tk_ucir_pf_map_label(op, &n);
        if (tk_ucir_pf_code_map(&f->code, op->addr, op->size, op->prot, label, n, err) != TK_OK)
            return err->status;
        return tk_ucir_pf_mem(&f->ev, now(f), op, err);
    case TK_UCIR_MEM_UNMAP:
        if (tk_ucir_pf_code_unmap(&f->code, op->addr, op->size, err) != TK_OK)
            return err->status;
        return tk_ucir_pf_mem(&f->ev, now(f), op, err);
    case TK_UCIR_MEM_PROT:
        return tk_ucir_pf_mem(&f->ev, now(f), op, err);
    case TK_UCIR_JMP:
    case TK_UCIR_STEP:
        return uc_flow(f, op, err);
    default:
        return TK_OK;
    }
}

/* The trace ends after instruction clk.instr: complete it at its end. */
static tk_status finish(pf *f, tk_error *err)
{
    uint64_t end = (uint64_t)(f->clk.instr + 1);
    if (f->pending && tk_ucir_pf_code_count(&f->code, f->at.pc_known, f->at.pc, err) != TK_OK)
        return err->status;
    f->pending = 0;
    if (tk_ucir_pf_syscall_end(&f->ev, end, err) != TK_OK)
        return err->status;
    return tk_ucir_pf_code_window(&f->code, end, 1, err);
}

/* The program's track and its children that always exist. */
static tk_status tracks(tk_perfetto_seq *s, tk_input *in, const tk_ucir_header *h,
                        tk_error *err)
{
    char name[160];
    const char *arch = h->arch_name[0] ? h->arch_name : tk_ucir_arch_name(h->arch);
    snprintf(name, sizeof name, "%s (%s %s%s%s)", tk_input_name(in),
             h->variant == TK_UCIR_SPEC ? "ucir" : "usercorn", arch ? arch : "unknown",
             h->os[0] ? " " : "", h->os);
    if (tk_perfetto_track(s, TK_UCIR_PF_ROOT, 0, name, err) != TK_OK ||
        tk_perfetto_track(s, TK_UCIR_PF_SYSCALLS, TK_UCIR_PF_ROOT, "syscalls", err) != TK_OK ||
        tk_perfetto_track(s, TK_UCIR_PF_MEMMAP, TK_UCIR_PF_ROOT, "memory map", err) != TK_OK)
        return err->status;
    return TK_OK;
}

static tk_status run(pf *f, tk_ucir_reader *r, tk_perfetto *p, tk_input *in, uint64_t window,
                     tk_error *err)
{
    tk_perfetto_seq *s = tk_perfetto_seq_new(p, err);
    if (!s)
        return err->status;
    f->h = tk_ucir_reader_header(r);
    ucir_clock_init(&f->clk, f->h->variant == TK_UCIR_USERCORN);
    tk_ucir_pf_code_init(&f->code, s, window);
    if (tk_ucir_pf_events_init(&f->ev, p, s, f->h, err) != TK_OK ||
        tracks(s, in, f->h, err) != TK_OK)
        return err->status;
    tk_ucir_op op;
    int rc;
    while ((rc = tk_ucir_next(r, &op, err)) > 0)
        if (record(f, &op, err) != TK_OK)
            return err->status;
    return rc < 0 ? err->status : finish(f, err);
}

static tk_status options(const tk_options *o, uint64_t *window, tk_error *err)
{
    const char *sel = tk_sel_option_given(o);
    if (sel)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "%s does not apply to --to perfetto, which shows the whole trace",
                            sel);
    if (tk_options_get_u64(o, "window", TK_UCIR_PF_DEFAULT_WINDOW, window, err) != TK_OK)
        return err->status;
    if (*window == 0 || *window > ((uint64_t)1 << 48))
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--window: 1 to 2^48 instructions");
    return TK_OK;
}

tk_status tk_ucir_perfetto(tk_input *in, const tk_options *o, FILE *out, tk_error *err)
{
    uint64_t window;
    if (options(o, &window, err) != TK_OK)
        return err->status;
    tk_ucir_reader *r = tk_ucir_cmd_open(in, o, err);
    if (!r)
        return err->status;
    tk_perfetto *p = tk_perfetto_new(out, err);
    pf f;
    memset(&f, 0, sizeof f);
    tk_status st = p ? run(&f, r, p, in, window, err) : err->status;
    tk_ucir_pf_code_free(&f.code);
    tk_ucir_reader_free(r);
    if (st == TK_OK)
        return tk_perfetto_finish(p, err);
    tk_perfetto_free(p);
    return st;
}
