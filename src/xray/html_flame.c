/* XRay's HTML report: the call tree as stack --json lists it (the paths
 * of tk_xray_stacks_visit, depth first), as an icicle; and each thread's
 * top-level calls, its busy time. */
#include <stdlib.h>
#include <string.h>

#include "xray/html_int.h"

/* A thread's top-level calls: their total time and number. */
typedef struct busy_row {
    uint32_t tid;
    uint64_t ticks, calls;
} busy_row;

/* What the paths of one walk become. */
typedef struct reader {
    tk_xh *x;
    tk_html_flame *flame;  /* aggregate walk: the tree */
    uint32_t *chain;       /* the frame at each depth of the current path */
    size_t cap;
    int per_thread;        /* per-thread walk: into rows */
    busy_row *rows;        /* a thread's paths come together: one row each */
    size_t nrows, rows_cap;
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
    if (!r->nrows || r->rows[r->nrows - 1].tid != p->tid) {
        if (r->nrows == r->rows_cap) {
            size_t c = r->rows_cap ? r->rows_cap * 2 : 256;
            busy_row *v = realloc(r->rows, c * sizeof *v);
            if (!v) {
                r->bad = 1;
                return 1;
            }
            r->rows = v;
            r->rows_cap = c;
        }
        r->rows[r->nrows++] = (busy_row){p->tid, 0, 0};
    }
    r->rows[r->nrows - 1].ticks += p->total_ticks;
    r->rows[r->nrows - 1].calls += p->calls;
    return 0;
}

/* Walk the stacks into `r`: 0, or -1 when out of memory. */
static int read_stacks(tk_xh *x, reader *r, tk_xray_stacks_threads threads)
{
    tk_error err;
    tk_status st = tk_xray_stacks_visit(x->stacks, threads,
                                        r->per_thread ? busy_path : flame_path, r, &err);
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

/* Busy time and top-level calls per thread, from the per-thread print,
 * busiest first (ties by thread id). NULL when out of memory. */
static busy_row *thread_busy(tk_xh *x, size_t *n)
{
    reader r = {.x = x, .per_thread = 1};
    if (read_stacks(x, &r, TK_XRAY_STACKS_ALL_THREADS) != 0) {
        free(r.rows);
        return NULL;
    }
    *n = r.nrows;
    return r.rows ? r.rows : malloc(sizeof *r.rows);
}

static int busier(const void *a, const void *b)
{
    const busy_row *x = a, *y = b;
    if (x->ticks != y->ticks)
        return x->ticks < y->ticks ? 1 : -1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

static void thread_table(tk_html *h, tk_xh *x, const busy_row *b, size_t n)
{
    tk_html_value *tid = calloc(n ? n : 1, sizeof *tid), *t = calloc(n ? n : 1, sizeof *t);
    if (!tid || !t) {
        tk_html_para(h, "The threads' busy time could not be computed (out of memory).");
        free(tid);
        free(t);
        return;
    }
    for (size_t k = 0; k < n; k++) {
        tid[k] = tk_html_u64(b[k].tid);
        t[k] = tk_html_u64(b[k].ticks);
    }
    tk_html_series s[1] = {{"busy", "total_ticks", t}};
    tk_html_chart c = {
        .id = "thread-busy", .title = "Busy time per thread",
        .caption = "Time inside instrumented calls (each thread's top-level calls, as "
                   "stack --json lists them per thread).",
        .src = "stack_threads", .agg = "sum", .filter = "stack:1", .x_label = "thread",
        .x_key = "thread", .y_label = x->freq ? "busy time" : "busy ticks",
        .y_unit = tk_xh_unit(x), .y_scale = (double)x->freq};
    tk_html_bars(h, &c, tid, n, s, 1); /* the bars keep the first TK_HTML_MAX_BARS */
    free(tid);
    free(t);
    /* the calls column in the table too: a second, checked table */
    tk_html_column cols[3] = {
        {.label = "thread", .key = "thread", .flags = TK_HTML_COL_KEY},
        {.label = "busy", .key = "total_ticks", .unit = tk_xh_unit(x), .scale = (double)x->freq,
         .flags = TK_HTML_COL_HEAT | TK_HTML_COL_SUM},
        {.label = "top-level calls", .key = "calls", .flags = TK_HTML_COL_SUM}};
    tk_html_table_spec spec = {.id = "threads", .src = "stack_threads", .cols = cols,
                               .ncols = 3, .agg = "sum", .filter = "stack:1"};
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < n; i++)
        tk_html_table_row(h, (tk_html_value[3]){tk_html_u64(b[i].tid),
                                                tk_html_u64(b[i].ticks),
                                                tk_html_u64(b[i].calls)});
    tk_html_table_end(h);
}

void tk_xh_threads(tk_html *h, tk_xh *x)
{
    size_t n = 0;
    busy_row *b = thread_busy(x, &n);
    /* the last reader of the stacks: their memory goes before the table's */
    tk_xray_stacks_free(x->stacks);
    x->stacks = NULL;
    if (!b) {
        tk_html_para(h, "The threads' busy time could not be computed (out of memory).");
        return;
    }
    qsort(b, n, sizeof *b, busier); /* busiest first: the bars draw the first */
    thread_table(h, x, b, n);
    free(b);
}
