/* `tracekit report` for Usercorn traces: a full replay, then the facts a
 * reader wants first: architecture, counts, code coverage, syscalls by
 * number, the final memory map and registers. The pass is shared with
 * the HTML report (report_int.h), which hooks into it. */
#include <stdlib.h>
#include <string.h>

#include "core/select.h"
#include "ucir/report_int.h"

typedef tk_ucir_rep report;

const char *tk_ucir_rep_arch(const tk_ucir_header *h)
{
    const char *arch = tk_ucir_arch_name(h->arch);
    return h->arch_name[0] ? h->arch_name : arch ? arch : "unknown";
}

static void put_summary(tk_sink *s, tk_input *in, const tk_ucir_header *h,
                        tk_ucir_replay *rp, const report *rep)
{
    tk_ucir_replay_info info;
    tk_ucir_replay_info_get(rp, &info);
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "file", tk_input_name(in), 0);
    tk_sink_cstr(s, "format", h->variant == TK_UCIR_SPEC ? "ucir" : "usercorn", 0);
    tk_sink_cstr(s, "arch", tk_ucir_rep_arch(h), 0);
    tk_sink_cstr(s, "os", h->os, 0);
    tk_sink_u64(s, "instructions", info.instructions, 0);
    tk_sink_u64(s, "records", info.records, 0);
    tk_sink_u64(s, "frames", info.frames, 0);
    tk_sink_u64(s, "skipped_keyframe_records", info.skipped_records, 0);
    tk_sink_u64(s, "unique_code_addresses", rep->pcs.n, 0);
    tk_sink_bool(s, "exited", info.exited);
    tk_sink_array_begin(s, "by_kind");
    for (int k = 0; k < TK_UCIR_KIND_COUNT; k++) {
        if (!rep->kinds[k])
            continue;
        tk_sink_object_begin(s, NULL);
        tk_sink_cstr(s, "kind", tk_ucir_kind_name((tk_ucir_kind)k), TK_SINK_ENUM);
        tk_sink_u64(s, "count", rep->kinds[k], 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_array_begin(s, "syscalls");
    for (size_t i = 0; i < rep->syscalls.n; i++) {
        tk_sink_object_begin(s, NULL);
        tk_sink_u64(s, "num", rep->syscalls.ukeys[i], 0);
        tk_sink_u64(s, "count", *(uint64_t *)tk_map_value(&rep->syscalls, i), 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_array_begin(s, "maps");
    for (uint32_t k = tk_ucir_atree_first(&rp->map_tree); k;
         k = tk_ucir_atree_next(&rp->map_tree, k)) {
        const tk_ucir_map *m = &rp->maps[k];
        char p[4] = {m->prot & 1 ? 'r' : '-', m->prot & 2 ? 'w' : '-', m->prot & 4 ? 'x' : '-', 0};
        tk_sink_object_begin(s, NULL);
        tk_sink_u64(s, "addr", m->addr, TK_SINK_ADDR);
        tk_sink_u64(s, "size", m->size, TK_SINK_HEX);
        tk_sink_u64(s, "prot", m->prot, 0);
        tk_sink_cstr(s, "perms", p, 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_array_begin(s, "registers");
    for (uint32_t w = 0; w < RP_NREGS / 64; w++)
        for (uint64_t bits = rp->have[w]; bits; bits &= bits - 1) {
            uint32_t num = w * 64 + (uint32_t)__builtin_ctzll(bits);
            char buf[24];
            tk_sink_object_begin(s, NULL);
            tk_sink_cstr(s, "reg", tk_ucir_reg_label(h->arch, h->mode, num, buf, sizeof buf),
                         0);
            tk_sink_u64(s, "value", rp->regs[num], TK_SINK_HEX);
            tk_sink_object_end(s);
        }
    tk_sink_array_end(s);
    tk_sink_object_end(s);
}

/* Count a record in; placed: it fixed the instruction's address. */
static int count(report *rep, tk_ucir_replay *rp, const tk_ucir_op *op, int placed)
{
    rep->kinds[op->kind]++;
    if (op->kind == TK_UCIR_SYSCALL) {
        uint64_t *c = tk_map_u64(&rep->syscalls, op->num);
        if (!c)
            return -1;
        ++*c;
    }
    if (!placed || !rp->pc_known)
        return 0;
    tk_ucir_rep_pc *pc = tk_map_u64(&rep->pcs, rp->pc);
    if (!pc)
        return -1;
    pc->count++;
    if (op->kind == TK_UCIR_EXEC_ABS || op->kind == TK_UCIR_EXEC_REL)
        pc->size = op->size;
    return 0;
}

void tk_ucir_rep_free(tk_ucir_rep *rep)
{
    tk_map_free(&rep->pcs);
    tk_map_free(&rep->syscalls);
    tk_ucir_replay_free(rep->rp);
    tk_ucir_reader_free(rep->r);
    memset(rep, 0, sizeof *rep);
}

static tk_status replay_all(tk_ucir_rep *rep, tk_ucir_rep_hook hook, void *ctx, tk_error *err)
{
    tk_ucir_op op;
    tk_ucir_pos pos;
    int rc;
    while ((rc = tk_ucir_next(rep->r, &op, err)) > 0) {
        tk_ucir_reader_pos(rep->r, &pos);
        int starts = tk_ucir_replay_starts_instruction(rep->rp, &op);
        int applied = tk_ucir_replay_apply(rep->rp, &op, &pos, err);
        if (applied < 0)
            return err->status;
        int placed = rp_placed(rep->rp, &op, starts);
        if (count(rep, rep->rp, &op, placed) != 0)
            return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        if (hook && hook(ctx, rep, &op, &pos, applied, placed, err) != TK_OK)
            return err->status;
    }
    return rc < 0 ? err->status : TK_OK;
}

tk_status tk_ucir_rep_run(tk_ucir_rep *rep, tk_input *in, const tk_options *o,
                          tk_ucir_rep_hook hook, void *ctx, tk_error *err)
{
    memset(rep, 0, sizeof *rep);
    tk_map_init(&rep->pcs, sizeof(tk_ucir_rep_pc));
    tk_map_init(&rep->syscalls, sizeof(uint64_t));
    const char *sel = tk_sel_option_given(o); /* the final state is the whole replay's */
    if (sel)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "UCIR's report summarises the whole replay: %s does not apply "
                            "(dump, info and convert select)",
                            sel);
    if (!(rep->r = tk_ucir_cmd_open(in, o, err)))
        return err->status;
    rep->h = tk_ucir_reader_header(rep->r);
    if (!(rep->rp = tk_ucir_replay_new(rep->h, err)))
        return err->status;
    return replay_all(rep, hook, ctx, err);
}

tk_status tk_ucir_report(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err)
{
    tk_ucir_rep rep;
    tk_status st = tk_ucir_rep_run(&rep, in, o, NULL, NULL, err);
    if (st == TK_OK)
        put_summary(s, in, rep.h, rep.rp, &rep);
    tk_ucir_rep_free(&rep);
    return st;
}
