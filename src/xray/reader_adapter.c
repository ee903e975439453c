/* XRay behind the generic reader (src/core/reader_int.h): the logical
 * records of `dump --records logical`, with the selection (a --func name
 * looked up in the "instr-map" map). */
#include <tracekit/xray_map.h>

#include "core/reader_int.h"
#include "xray/xray_int.h"

static void *xr_open(tk_input *in, const tk_options *o, const tk_selection *sel,
                     tk_error *err)
{
    const char *func = tk_options_get(o, "func");
    tk_xray_map *map = NULL;
    /* the map serves the lookup only; without "instr-map" (NULL and
     * TK_OK) the selection says that a name needs one */
    if (func && tk_xr_func_is_name(func) && !(map = tk_xr_open_map(o, err)) &&
        err->status != TK_OK)
        return NULL;
    tk_xray_reader *r = tk_xray_reader_new_selected(in, sel, map, err);
    tk_xray_map_free(map);
    return r;
}

/* docs/json.md's spelling of tk_xray_kind_name (llvm-xray's) */
static const char *const kinds[] = {"function_enter",     "function_exit",
                                    "function_tail_exit", "function_enter_arg",
                                    "custom_event",       "typed_event"};

static int xr_next(tk_reader *r, tk_record *rec, tk_error *err)
{
    tk_xray_record *x = &r->slot.xray;
    int rc = tk_xray_next(r->impl, x, err);
    if (rc <= 0)
        return tk_rd_ended(r, rc, err);
    unsigned k = (unsigned)x->kind;
    rec->format = TK_RECORD_XRAY;
    rec->kind = k < sizeof kinds / sizeof kinds[0] ? kinds[k] : "?";
    rec->index = tk_xray_reader_index(r->impl);
    rec->offset = tk_xray_reader_offset(r->impl); /* TK_NO_OFFSET in YAML */
    rec->line = 0;
    rec->has_thread = 1;
    rec->thread = x->tid;
    rec->has_time = 1;
    rec->time = x->tsc;
    rec->as.xray = x;
    return 1;
}

static void xr_free(void *impl) { tk_xray_reader_free(impl); }

const tk_reader_ops tk_adapter_xray = {
    .format = TK_RECORD_XRAY,
    .keys = (const char *const[]){"instr-map", "demangle", NULL},
    .records = "logical",
    .open = xr_open,
    .next = xr_next,
    .free = xr_free,
};
