/* XRay's HTML report: the call tree as stack --json lists it (the paths
 * of tk_xray_stacks_visit, depth first), as an icicle; and each thread's
 * top-level calls, its busy time. */
#include <stdlib.h>
#include <string.h>

#include "xray/html_int.h"

/* What the paths of one walk become. */
typedef struct reader {
    tk_xh *x;
    tk_html_flame *flame;  /* aggregate walk: the tree */
    uint32_t *chain;       /* the frame at each depth of the current path */
    size_t cap;
    tk_map *busy;          /* per-thread walk: tid -> busy[2] (ticks, calls) */
    int bad;               /* out of memory */
} reader;

static int flame_path(void *ctx, const tk_xray_stack_path *p)
{
    reader *r = ctx;
    if (p->depth > r->cap) {
        uint32_t *c = realloc(r->chain, (p->depth + 64) * sizeof *c);
        if (!c) {
            r->bad = 1;
            return 1;
        }
        r->chain = c;
        r->cap = p->depth + 64;
    }
    uint32_t parent = p->depth > 1 ? r->chain[p->depth - 2] : 0;
    const char *name = tk_xray_map_name(r->x->map, p->funcs[p->depth - 1]);
    r->chain[p->depth - 1] =
        tk_html_flame_add(r->flame, parent, name, p->total_ticks, p->self_ticks, p->calls);
    r->bad |= r->chain[p->depth - 1] == 0;
    return r->bad;
}

static int busy_path(void *ctx, const tk_xray_stack_path *p)
{
    reader *r = ctx;
    if (p->depth != 1)
        return 0;
    uint64_t *b = tk_map_u64(r->busy, p->tid);
    if (!b) {
        r->bad = 1;
        return 1;
    }
    b[0] += p->total_ticks;
    b[1] += p->calls;
    return 0;
}

/* Walk the stacks into `r`: 0, or -1 when out of memory. */
static int read_stacks(tk_xh *x, reader *r, tk_xray_stacks_threads threads)
{
    tk_error err;
    tk_status st = tk_xray_stacks_visit(x->stacks, threads, r->busy ? busy_path : flame_path,
                                        r, &err);
    free(r->chain);
    return st == TK_OK && !r->bad ? 0 : -1;
}

void tk_xh_flame(tk_html *h, tk_xh *x)
{
    tk_error err;
    reader r = {.x = x, .flame = tk_html_flame_new(&err)};
    if (!r.flame || read_stacks(x, &r, TK_XRAY_STACKS_AGGREGATE) != 0) {
        tk_html_para(h, "The call tree could not be built (out of memory).");
        tk_html_flame_free(r.flame);
        return;
    }
    tk_html_flame_spec s = {
        .id = "flame", .title = "Call tree",
        .caption = "Each frame is a call path (threads merged), as wide as its total time; "
                   "callees hang below. Click a frame to zoom in, the top bar to zoom out; "
                   "search to highlight a function.",
        .src = "stack", .path_key = "stack", .total_key = "total_ticks",
        .self_key = "self_ticks", .count_key = "calls", .unit = tk_xh_unit(x),
        .scale = (double)x->freq};
    tk_html_flame_write(h, r.flame, &s);
    tk_html_flame_free(r.flame);
}

/* Busy time and top-level calls per thread, from the per-thread print. */
static tk_map *thread_busy(tk_xh *x)
{
    tk_map *m = malloc(sizeof *m);
    if (!m)
        return NULL;
    tk_map_init(m, 2 * sizeof(uint64_t));
    reader r = {.x = x, .busy = m};
    if (read_stacks(x, &r, TK_XRAY_STACKS_ALL_THREADS) == 0)
        return m;
    tk_map_free(m);
    free(m);
    return NULL;
}

static int busier(const void *a, const void *b, void *ctx)
{
    const tk_map *m = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    uint64_t x = ((const uint64_t *)tk_map_value(m, i))[0];
    uint64_t y = ((const uint64_t *)tk_map_value(m, j))[0];
    return x != y ? (x < y ? 1 : -1) : (m->ukeys[i] > m->ukeys[j]) - (m->ukeys[i] < m->ukeys[j]);
}

static size_t *by_busy(const tk_map *m)
{
    size_t *idx = malloc((m->n ? m->n : 1) * sizeof *idx);
    for (size_t i = 0; idx && i < m->n; i++)
        idx[i] = i;
    if (idx)
        qsort_r(idx, m->n, sizeof *idx, busier, (void *)m);
    return idx;
}

void tk_xh_threads(tk_html *h, tk_xh *x)
{
    tk_map *m = thread_busy(x);
    size_t n = m ? m->n : 0;
    tk_html_value *tid = calloc(n ? n : 1, sizeof *tid), *t = calloc(n ? n : 1, sizeof *t);
    tk_html_value *calls = calloc(n ? n : 1, sizeof *calls);
    if (!m || !tid || !t || !calls) {
        tk_html_para(h, "The threads' busy time could not be computed (out of memory).");
    } else {
        /* busiest first: the bars keep the first TK_HTML_MAX_BARS */
        size_t *idx = by_busy(m);
        for (size_t k = 0; idx && k < n; k++) {
            size_t i = idx[k];
            const uint64_t *b = tk_map_value(m, i);
            tid[k] = tk_html_u64(m->ukeys[i]);
            t[k] = tk_html_u64(b[0]);
            calls[k] = tk_html_u64(b[1]);
        }
        free(idx);
        tk_html_series s[1] = {{"busy", "total_ticks", t}};
        tk_html_chart c = {
            .id = "thread-busy", .title = "Busy time per thread",
            .caption = "Time inside instrumented calls (each thread's top-level calls, as "
                       "stack --json lists them per thread).",
            .src = "stack_threads", .agg = "sum", .filter = "stack:1", .x_label = "thread",
            .x_key = "thread", .y_label = x->freq ? "busy time" : "busy ticks",
            .y_unit = tk_xh_unit(x), .y_scale = (double)x->freq};
        tk_html_bars(h, &c, tid, n, s, 1);
        /* the calls column in the table too: a second, checked table */
        tk_html_column cols[3] = {
            {.label = "thread", .key = "thread", .flags = TK_HTML_COL_KEY},
            {.label = "busy", .key = "total_ticks", .unit = tk_xh_unit(x),
             .scale = (double)x->freq, .flags = TK_HTML_COL_HEAT | TK_HTML_COL_SUM},
            {.label = "top-level calls", .key = "calls", .flags = TK_HTML_COL_SUM}};
        tk_html_table_spec spec = {.id = "threads", .src = "stack_threads", .cols = cols,
                                   .ncols = 3, .agg = "sum", .filter = "stack:1"};
        tk_html_table_begin(h, &spec);
        for (size_t i = 0; i < n; i++)
            tk_html_table_row(h, (tk_html_value[3]){tid[i], t[i], calls[i]});
        tk_html_table_end(h);
    }
    free(tid);
    free(t);
    free(calls);
    if (m)
        tk_map_free(m);
    free(m);
}
