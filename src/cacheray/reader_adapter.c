/* Cacheray behind the generic reader (src/core/reader_int.h): the byte
 * order from "endian", the selection as dump applies it. */
#include <string.h>

#include "core/reader_int.h"

static tk_status endian_option(const tk_options *o, tk_endian *e, tk_error *err)
{
    const char *v = tk_options_get(o, "endian");
    *e = TK_ENDIAN_AUTO;
    if (!v || strcmp(v, "auto") == 0)
        return TK_OK;
    if (strcmp(v, "little") == 0 || strcmp(v, "le") == 0)
        *e = TK_ENDIAN_LITTLE;
    else if (strcmp(v, "big") == 0 || strcmp(v, "be") == 0)
        *e = TK_ENDIAN_BIG;
    else
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--endian: expected little, big or auto, not '%s'", v);
    return TK_OK;
}

static void *cr_open(tk_input *in, const tk_options *o, const tk_selection *sel,
                     tk_error *err)
{
    tk_endian e;
    if (endian_option(o, &e, err) != TK_OK)
        return NULL;
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, e, err);
    /* STOP: dump's reading, which ends at the window's end */
    if (r && tk_cacheray_reader_select(r, sel, TK_CACHERAY_SELECT_STOP, err) != TK_OK) {
        tk_cacheray_reader_free(r);
        r = NULL;
    }
    return r;
}

static int cr_next(tk_reader *r, tk_record *rec, tk_error *err)
{
    /* the tags' own names are docs/json.md's already */
    static const char *const kinds[] = {"read", "write", "rtta_add", "rtta_remove"};
    tk_cacheray_record *c = &r->slot.cacheray;
    int rc = tk_cacheray_next(r->impl, c, err);
    if (rc <= 0)
        return tk_rd_ended(r, rc, err);
    rec->format = TK_RECORD_CACHERAY;
    rec->kind = kinds[c->type & 3];
    rec->index = tk_cacheray_reader_index(r->impl);
    rec->offset = tk_cacheray_reader_offset(r->impl);
    rec->line = 0;
    rec->has_thread = 1;
    rec->thread = c->thread;
    rec->has_time = 0;
    rec->time = 0;
    rec->as.cacheray = c;
    return 1;
}

static void cr_free(void *impl) { tk_cacheray_reader_free(impl); }

const tk_reader_ops tk_adapter_cacheray = {
    .format = TK_RECORD_CACHERAY,
    .keys = (const char *const[]){"endian", NULL},
    .open = cr_open,
    .next = cr_next,
    .free = cr_free,
};
