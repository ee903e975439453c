/* casemate behind the generic reader (src/core/reader_int.h): a text
 * format, so records are placed by line, not by byte offset. */
#include "core/reader_int.h"

static void *cm_open(tk_input *in, const tk_options *o, const tk_selection *sel,
                     tk_error *err)
{
    (void)o; /* casemate reads no option of its own */
    tk_casemate_reader *r = tk_casemate_reader_new(in, err);
    if (r && tk_casemate_reader_select(r, sel, err) != TK_OK) {
        tk_casemate_reader_free(r);
        r = NULL;
    }
    return r;
}

/* docs/json.md's spelling of tk_casemate_kind_name (which is the log's) */
static const char *const kinds[TK_CASEMATE_KIND_COUNT] = {
    "mem_write", "mem_read", "mem_init",     "mem_free", "mem_set", "sysreg_write",
    "barrier",   "tlbi",     "hint",         "lock",     "trylock", "unlock",
};

static int cm_next(tk_reader *r, tk_record *rec, tk_error *err)
{
    tk_casemate_record *c = &r->slot.casemate;
    int rc = tk_casemate_next(r->impl, c, err);
    if (rc <= 0)
        return tk_rd_ended(r, rc, err);
    unsigned k = (unsigned)c->kind;
    rec->format = TK_RECORD_CASEMATE;
    rec->kind = k < TK_CASEMATE_KIND_COUNT ? kinds[k] : "?";
    rec->index = tk_casemate_reader_index(r->impl);
    rec->offset = TK_NO_OFFSET;
    rec->line = tk_casemate_reader_line(r->impl);
    rec->has_thread = 1;
    rec->thread = c->tid;
    rec->has_time = 0;
    rec->time = 0;
    rec->as.casemate = c;
    return 1;
}

static void cm_free(void *impl) { tk_casemate_reader_free(impl); }

const tk_reader_ops tk_adapter_casemate = {
    .format = TK_RECORD_CASEMATE,
    .open = cm_open,
    .next = cm_next,
    .free = cm_free,
};
