/* Selections on UCIR traces (docs/formats/ucir.md, "Selection"): --range
 * counts instructions as the replay does (clock.h), --addr keeps memory
 * reads and writes. */
#include "core/select.h"
#include "ucir/replay/clock.h"
#include "ucir/ucir_int.h"

tk_status ucir_check_selection(const tk_selection *s, tk_error *err)
{
    if (s->nthreads || s->func)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "%s does not apply to ucir traces (they have one thread)",
                            s->nthreads ? "--thread" : "--func");
    return tk_sel_check_counts(s, "ucir", "instruction indexes", err);
}

int ucir_in_window(const tk_selection *s, int64_t instr)
{
    if (!s->has_range)
        return 1;
    return instr < 0 ? s->from == 0 : (uint64_t)instr >= s->from && (uint64_t)instr < s->to;
}

int ucir_mem_selected(const tk_selection *s, const tk_ucir_op *op)
{
    return (op->kind == TK_UCIR_MEM_READ || op->kind == TK_UCIR_MEM_WRITE) &&
           tk_sel_addr(s, op->addr, op->size);
}

int ucir_select(const tk_selection *s, ucir_clock *k, const tk_ucir_op *op)
{
    int c = ucir_clock_step(k, op);
    if (s->has_range) {
        if (c == UCIR_CLK_FRAME || c == UCIR_CLK_SKIPPED) /* no instruction's */
            return UCIR_SEL_DROP;
        if (k->instr >= 0 && (uint64_t)k->instr >= s->to)
            return UCIR_SEL_END;
        if (!ucir_in_window(s, k->instr))
            return UCIR_SEL_DROP;
    }
    return !s->naddrs || ucir_mem_selected(s, op) ? UCIR_SEL_KEEP : UCIR_SEL_DROP;
}

tk_ucir_reader *ucir_cmd_open_selected(tk_input *in, const tk_options *o, unsigned flags,
                                       tk_error *err)
{
    tk_selection *sel = tk_selection_new(o, err);
    tk_ucir_reader *r = sel ? tk_ucir_cmd_open(in, o, err) : NULL;
    if (r && tk_ucir_reader_select(r, sel, flags, err) != TK_OK) {
        tk_ucir_reader_free(r);
        r = NULL;
    }
    tk_selection_free(sel);
    return r;
}
