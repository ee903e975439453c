/* `tracekit dump` for UCIR: a per-instruction listing (address, code bytes
 * and disassembly when memory writes made them known, then the
 * instruction's effects), or with --json one object per record that also
 * names its instruction. The listing replays the trace to know the code
 * bytes, so its memory grows with the memory the trace touches (not with
 * its length); `--records raw` lists records without replaying. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/ucir_replay.h>

#include "core/select.h"
#include "core/strbuf.h"
#include "ucir/disasm.h"
#include "ucir/ucir_int.h"

#define CODE_MAX TK_UCIR_CODE_MAX
#define DATA_SHOWN 32    /* data bytes shown per memory op in the listing */
#define INDENT "        "

typedef struct dumper {
    tk_sink *s;
    const tk_ucir_header *h;
    tk_ucir_replay *rp;
    ucir_disasm *dis;
    int json;
    uint64_t skip, limit, shown;
    const tk_selection *sel; /* --range, --addr (never NULL) */
    uint64_t seen;         /* instructions selected so far (--skip counts them) */
    int pending;           /* the current instruction is selected, not yet listed */
    int listing;           /* the current instruction is being shown */
    uint64_t start_size;   /* size given by the record that started it (EXEC) */
    tk_strbuf line;
} dumper;

static void emit(dumper *d)
{
    if (d->line.oom)
        return;
    tk_sink_record_begin(d->s);
    tk_sink_cstr(d->s, "line", d->line.p ? d->line.p : "", TK_SINK_BARE);
    tk_sink_record_end(d->s);
    sb_reset(&d->line);
}

static void put_hex_bytes(tk_strbuf *b, const uint8_t *p, uint64_t n, uint64_t max)
{
    for (uint64_t i = 0; i < n && i < max; i++)
        sb_printf(b, "%02x", p[i]);
    if (n > max)
        sb_puts(b, "...");
}

static void list_instruction(dumper *d, uint64_t size, const tk_ucir_replay_info *in,
                             tk_error *err)
{
    uint8_t code[CODE_MAX];
    char text[160] = "";
    size_t n = in->pc_known
                   ? tk_ucir_disasm_code(d->dis, d->rp, in->pc, size, code, text, sizeof text, err)
                   : 0;
    sb_printf(&d->line, "%-7lld ", (long long)in->instruction);
    if (in->pc_known)
        sb_printf(&d->line, "0x%-10llx ", (unsigned long long)in->pc);
    else
        sb_puts(&d->line, "?            ");
    size_t w = d->line.len;
    put_hex_bytes(&d->line, code, n, CODE_MAX);
    sb_pad(&d->line, ' ', d->line.len < w + 24 ? w + 24 - d->line.len : 1);
    sb_puts(&d->line, text[0] ? text : n ? "(not decodable)" : "(code unknown)");
    emit(d);
}

static void list_effect(dumper *d, const tk_ucir_op *op)
{
    char name[24], prot[8];
    sb_puts(&d->line, INDENT);
    for (uint32_t i = 0; i < op->depth; i++)
        sb_puts(&d->line, "  ");
    switch (op->kind) {
    case TK_UCIR_REG_CHANGE:
        sb_printf(&d->line, "%s = 0x%llx",
                  tk_ucir_reg_label(d->h->arch, d->h->mode, op->reg, name, sizeof name),
                  (unsigned long long)op->value);
        break;
    case TK_UCIR_SPREG_CHANGE:
        sb_printf(&d->line, "%s = ",
                  tk_ucir_reg_label(d->h->arch, d->h->mode, op->reg, name, sizeof name));
        put_hex_bytes(&d->line, op->data, op->len, DATA_SHOWN);
        break;
    case TK_UCIR_MEM_READ:
    case TK_UCIR_MEM_WRITE:
        sb_printf(&d->line, "%s 0x%llx [%llu]", op->kind == TK_UCIR_MEM_READ ? "read " : "write",
                  (unsigned long long)op->addr, (unsigned long long)op->size);
        if (op->len) {
            sb_putc(&d->line, ' ');
            put_hex_bytes(&d->line, op->data, op->len, DATA_SHOWN);
        }
        break;
    case TK_UCIR_MEM_MAP:
    case TK_UCIR_MEM_PROT:
        sb_printf(&d->line, "%s 0x%llx +0x%llx %s", op->kind == TK_UCIR_MEM_MAP ? "map " : "prot",
                  (unsigned long long)op->addr, (unsigned long long)op->size,
                  ucir_prot_text(op->prot, prot));
        if (op->path_len)
            sb_printf(&d->line, " %.*s", (int)op->path_len, op->path);
        break;
    case TK_UCIR_MEM_UNMAP:
        sb_printf(&d->line, "unmap 0x%llx +0x%llx", (unsigned long long)op->addr,
                  (unsigned long long)op->size);
        break;
    case TK_UCIR_SYSCALL:
        sb_printf(&d->line, "syscall %u(", op->num);
        for (uint32_t i = 0; i < op->argc; i++)
            sb_printf(&d->line, "%s0x%llx", i ? ", " : "", (unsigned long long)op->args[i]);
        sb_printf(&d->line, ") = 0x%llx", (unsigned long long)op->ret);
        break;
    case TK_UCIR_JMP:
        sb_printf(&d->line, "jmp 0x%llx", (unsigned long long)op->addr);
        break;
    default:
        sb_puts(&d->line, tk_ucir_kind_name(op->kind));
        break;
    }
    emit(d);
}

/* Records that are no effect of their own in the listing. */
static int silent(const tk_ucir_op *op)
{
    return op->kind == TK_UCIR_FRAME || op->kind == TK_UCIR_NOP ||
           op->kind == TK_UCIR_EXEC_ABS || op->kind == TK_UCIR_EXEC_REL ||
           op->kind == TK_UCIR_STEP;
}

/* The current instruction (instruction -1: the setup before the first)
 * enters the listing, once: as it starts, or with --addr at its first
 * access there. --skip and --limit count the instructions selected; the
 * setup is shown when none is skipped. */
static void begin(dumper *d, const tk_ucir_replay_info *in, tk_error *err)
{
    d->pending = 0;
    if (in->instruction < 0) {
        d->listing = d->skip == 0 && d->limit;
        if (d->listing && !d->json) {
            sb_puts(&d->line, "setup");
            emit(d);
        }
        return;
    }
    d->listing = d->seen++ >= d->skip && d->shown < d->limit;
    d->shown += d->listing;
    if (d->listing && !d->json)
        list_instruction(d, d->start_size, in, err);
}

/* An instruction starts: selected or not. */
static void start(dumper *d, const tk_ucir_op *op, const tk_ucir_replay_info *in, tk_error *err)
{
    d->start_size = op->kind == TK_UCIR_EXEC_ABS || op->kind == TK_UCIR_EXEC_REL ? op->size : 0;
    d->listing = 0;
    d->pending = ucir_in_window(d->sel, in->instruction);
    if (d->pending && !d->sel->naddrs)
        begin(d, in, err);
}

/* With --addr, only the accesses there are shown. */
static int shown_effect(const dumper *d, const tk_ucir_op *op)
{
    return !d->sel->naddrs || ucir_mem_selected(d->sel, op);
}

static void text_record(dumper *d, const tk_ucir_op *op, int starts, int applied, tk_error *err)
{
    if (!applied || op->kind == TK_UCIR_FRAME)
        return; /* later keyframes repeat the frame after them */
    tk_ucir_replay_info in;
    tk_ucir_replay_info_get(d->rp, &in);
    if (starts)
        start(d, op, &in, err);
    if (silent(op) || !shown_effect(d, op))
        return;
    if (d->pending)
        begin(d, &in, err);
    if (d->listing)
        list_effect(d, op);
}

static void json_record(dumper *d, const tk_ucir_op *op, const tk_ucir_pos *pos, int starts,
                        int applied, tk_error *err)
{
    tk_ucir_replay_info in;
    tk_ucir_replay_info_get(d->rp, &in);
    tk_sink *s = d->s;
    tk_sink_record_begin(s);
    tk_ucir_sink_op_fields(s, d->h, op, pos);
    if (applied && op->kind != TK_UCIR_FRAME && in.instruction >= 0)
        tk_sink_u64(s, "insn", (uint64_t)in.instruction, 0);
    else
        tk_sink_null(s, "insn");
    if (starts) {
        if (in.pc_known)
            tk_sink_u64(s, "pc", in.pc, TK_SINK_ADDR);
        else
            tk_sink_null(s, "pc");
        uint64_t size =
            op->kind == TK_UCIR_EXEC_ABS || op->kind == TK_UCIR_EXEC_REL ? op->size : 0;
        uint8_t code[CODE_MAX];
        char text[160] = "";
        if (in.pc_known)
            tk_ucir_disasm_code(d->dis, d->rp, in.pc, size, code, text, sizeof text, err);
        if (text[0])
            tk_sink_cstr(s, "disasm", text, 0);
        else
            tk_sink_null(s, "disasm");
    }
    tk_sink_record_end(s);
}

/* JSON counts instructions too: the records of the instructions the
 * listing shows (with --addr, their accesses there), and those before the
 * first instruction when none is skipped (the listing's "setup"). */
static void json_windowed(dumper *d, const tk_ucir_op *op, const tk_ucir_pos *pos, int starts,
                          int applied, tk_error *err)
{
    tk_ucir_replay_info in;
    tk_ucir_replay_info_get(d->rp, &in);
    if (starts)
        start(d, op, &in, err);
    if (!shown_effect(d, op))
        return;
    if (d->pending)
        begin(d, &in, err);
    if (d->listing)
        json_record(d, op, pos, starts, applied, err);
}

static tk_status raw_records(dumper *d, tk_ucir_reader *r, tk_error *err)
{
    tk_ucir_op op;
    tk_ucir_pos pos;
    int rc = 0;
    while (d->shown < d->limit && (rc = tk_ucir_next(r, &op, err)) > 0) {
        tk_ucir_reader_pos(r, &pos);
        if (d->seen++ < d->skip) /* counts the records selected */
            continue;
        tk_ucir_sink_op(d->s, d->h, &op, &pos);
        d->shown++;
    }
    return d->shown < d->limit && rc < 0 ? err->status : TK_OK;
}

/* Would the instruction starting now be past --range's window? */
static int past_window(const dumper *d)
{
    tk_ucir_replay_info in;
    tk_ucir_replay_info_get(d->rp, &in);
    return d->sel->has_range && in.instructions >= d->sel->to;
}

static tk_status replayed(dumper *d, tk_ucir_reader *r, tk_error *err)
{
    d->rp = tk_ucir_replay_new(d->h, err);
    if (!d->rp)
        return err->status;
    d->dis = ucir_disasm_new(d->h->arch, d->h->mode);
    d->pending = ucir_in_window(d->sel, -1);
    tk_ucir_op op;
    tk_ucir_pos pos;
    int rc = 0;
    tk_status st = TK_OK;
    /* both views count instructions (and end before the one after the last
     * shown) */
    while ((rc = tk_ucir_next(r, &op, err)) > 0) {
        tk_ucir_reader_pos(r, &pos);
        int starts = tk_ucir_replay_starts_instruction(d->rp, &op);
        if (starts && (d->shown >= d->limit || past_window(d)))
            break;
        int applied = tk_ucir_replay_apply(d->rp, &op, &pos, err);
        if (applied < 0) {
            st = err->status;
            break;
        }
        if (d->json)
            json_windowed(d, &op, &pos, starts, applied, err);
        else
            text_record(d, &op, starts, applied, err);
    }
    if (st == TK_OK && rc < 0)
        st = err->status;
    if (st == TK_OK && d->line.oom)
        st = tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    ucir_disasm_free(d->dis);
    tk_ucir_replay_free(d->rp);
    return st;
}

tk_status tk_ucir_dump(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err)
{
    dumper d = {.s = s, .json = tk_sink_get_style(s) == TK_SINK_JSON};
    const char *records = tk_options_get(o, "records");
    int raw = records && strcmp(records, "raw") == 0;
    if (records && !raw && strcmp(records, "instructions") != 0)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--records: UCIR traces have 'instructions' or 'raw', not '%s'",
                            records);
    if (tk_options_get_u64(o, "skip", 0, &d.skip, err) != TK_OK ||
        tk_options_get_u64(o, "limit", UINT64_MAX, &d.limit, err) != TK_OK)
        return err->status;
    tk_selection *sel = tk_selection_new(o, err);
    if (!sel || ucir_check_selection(sel, err) != TK_OK) {
        tk_selection_free(sel);
        return err->status;
    }
    d.sel = sel;
    tk_ucir_reader *r = NULL;
    tk_status st = TK_OK;
    if (d.limit == 0) /* nothing to show: not even the header is read */
        goto done;
    /* the raw view selects records; the listing replays them all */
    r = raw ? ucir_cmd_open_selected(in, o, TK_UCIR_SELECT_STOP, err)
            : tk_ucir_cmd_open(in, o, err);
    if (!r) {
        st = err->status;
        goto done;
    }
    d.h = tk_ucir_reader_header(r);
    st = raw ? raw_records(&d, r, err) : replayed(&d, r, err);
done:
    sb_free(&d.line);
    tk_ucir_reader_free(r);
    tk_selection_free(sel);
    return st;
}
