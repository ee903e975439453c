/* UCIR, both flavours (the spec's and usercorn's .uc), behind the generic
 * reader (src/core/reader_int.h): the records of `dump --records raw`,
 * with its options (threads, max-frame) and selection. */
#include "core/reader_int.h"
#include "ucir/ucir_int.h"

static void *uc_open(tk_input *in, const tk_options *o, const tk_selection *sel,
                     tk_error *err)
{
    tk_ucir_reader_options ro;
    /* usage before the header, in dump's order */
    if (tk_ucir_cmd_options(o, &ro, err) != TK_OK ||
        (!tk_selection_empty(sel) && ucir_check_selection(sel, err) != TK_OK))
        return NULL;
    tk_ucir_reader *r = tk_ucir_reader_new(in, &ro, err);
    if (r && tk_ucir_reader_select(r, sel, TK_UCIR_SELECT_STOP, err) != TK_OK) {
        tk_ucir_reader_free(r);
        r = NULL;
    }
    return r;
}

static int uc_next(tk_reader *r, tk_record *rec, tk_error *err)
{
    tk_ucir_op *op = &r->slot.ucir;
    int rc = tk_ucir_next(r->impl, op, err);
    if (rc <= 0)
        return tk_rd_ended(r, rc, err);
    tk_ucir_pos pos;
    tk_ucir_reader_pos(r->impl, &pos);
    rec->format = TK_RECORD_UCIR;
    rec->kind = tk_ucir_kind_name(op->kind); /* snake_case already */
    rec->index = pos.record;
    rec->offset = pos.frame_offset;
    rec->line = 0;
    rec->has_thread = 0; /* one emulated thread */
    rec->thread = 0;
    rec->has_time = 0;
    rec->time = 0;
    rec->as.ucir = op;
    return 1;
}

static void uc_free(void *impl) { tk_ucir_reader_free(impl); }

const tk_reader_ops tk_adapter_ucir = {
    .format = TK_RECORD_UCIR,
    .keys = (const char *const[]){"threads", "max-frame", NULL},
    .records = "raw",
    .open = uc_open,
    .next = uc_next,
    .free = uc_free,
};
