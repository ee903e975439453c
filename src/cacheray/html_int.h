/* Cacheray's HTML report (report --html): what the pass over the records
 * gathers (html_collect.c) for the page's sections (html.c, html_levels.c,
 * html_tables.c, html_sharing.c, html_reuse.c). */
#ifndef TK_CACHERAY_HTML_INT_H
#define TK_CACHERAY_HTML_INT_H

#include <tracekit/cachesim.h>

#include "export/html/html.h"

/* Windows of the miss rate over the trace: at most this many, the first
 * TK_CRH_FIRST_WIDTH records wide; when they are all used, pairs merge
 * and the width doubles, so they cover any trace. */
#define TK_CRH_WINDOWS 256
#define TK_CRH_FIRST_WIDTH 16
/* Lines of the false-sharing cards (report --json lists as many). */
#define TK_CRH_SHARING_TOP 20
/* Struct types with a per-field table, by accesses. */
#define TK_CRH_FIELD_TABLES 20

/* Line accesses and misses of every level in one window. */
typedef struct tk_crh_window {
    uint64_t acc[TK_CACHESIM_MAX_LEVELS], miss[TK_CACHESIM_MAX_LEVELS];
} tk_crh_window;

typedef struct tk_crh {
    tk_cachesim *sim;
    size_t nlevels;
    const char *debug_info; /* -g, or NULL */
    /* the selected RTTA records: the RTTA records outside a selection
     * still go to the simulator (accesses keep their types) but, as in
     * cachesim, are not counted */
    uint64_t rtta_add, rtta_remove;
    /* windows of record indexes: window i is [origin + i * width, + width);
     * `cur` is open and ends at `end` */
    int started;
    uint64_t origin, width, end, last;
    size_t cur;
    uint64_t seen_acc[TK_CACHESIM_MAX_LEVELS], seen_miss[TK_CACHESIM_MAX_LEVELS];
    tk_crh_window win[TK_CRH_WINDOWS];
    /* type indexes in the order report --json lists them (by accesses,
     * "(untyped)" left out when it has none) */
    size_t *order, ntypes;
} tk_crh;

/* Run the simulator of `cfg` over the trace with the selection of `o`
 * (html_collect.c). TK_OK, or the reader's or the simulator's error. */
tk_status tk_crh_collect(tk_crh *c, tk_input *in, const tk_options *o,
                         const tk_cachesim_config *cfg, tk_error *err);
void tk_crh_free(tk_crh *c);

/* The level's name, for column headers and legends. */
const char *tk_crh_level_name(const tk_crh *c, size_t k);

/* The sections. */
void tk_crh_levels(tk_html *h, tk_crh *c);
void tk_crh_windows(tk_html *h, tk_crh *c);
void tk_crh_types(tk_html *h, tk_crh *c);
void tk_crh_fields(tk_html *h, tk_crh *c);
void tk_crh_threads(tk_html *h, tk_crh *c);
void tk_crh_false_sharing(tk_html *h, tk_crh *c);
void tk_crh_reuse(tk_html *h, tk_crh *c);

/* Per-level miss columns ("L1 misses", heat; report --json has them as
 * the array `misses`, checked by tests/html/cacheray_check.py): appended
 * to `cols` from index `at`, labels in `names` (TK_CACHESIM_NAME_MAX + 8
 * each). Returns the columns now. */
size_t tk_crh_miss_columns(const tk_crh *c, tk_html_column *cols, size_t at,
                           char (*names)[TK_CACHESIM_NAME_MAX + 8]);

#endif
