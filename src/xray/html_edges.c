/* XRay's HTML report: the call graph's hottest edges. Taken from the graph
 * when the records are read, as much as the page shows: every edge's count
 * and sum (the table's "other" row sums the rest, in its order) and the
 * shown edges' statistics; the graph is then freed, before the sections
 * that need memory of their own (the call tree). */
#include <stdlib.h>
#include <string.h>

#include "xray/html_int.h"

static int hotter(const void *a, const void *b)
{
    const tk_xh_edge *x = a, *y = b;
    if (x->sum != y->sum)
        return x->sum < y->sum ? 1 : -1;
    return x->from != y->from ? (x->from > y->from) - (x->from < y->from)
                              : (x->to > y->to) - (x->to < y->to);
}

/* The shown edges: the hottest TK_XH_TOP_EDGES in order, with their graph
 * index (a sorted insertion; the full sort waits for the graph to go). */
typedef struct top {
    tk_xh_edge e[TK_XH_TOP_EDGES];
    size_t at[TK_XH_TOP_EDGES], n;
} top;

static void rank(top *t, const tk_xh_edge *e, size_t at)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (hotter(&t->e[mid], e) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == TK_XH_TOP_EDGES)
        return;
    size_t keep = t->n < TK_XH_TOP_EDGES ? t->n : TK_XH_TOP_EDGES - 1;
    memmove(&t->e[lo + 1], &t->e[lo], (keep - lo) * sizeof t->e[0]);
    memmove(&t->at[lo + 1], &t->at[lo], (keep - lo) * sizeof t->at[0]);
    t->e[lo] = *e;
    t->at[lo] = at;
    t->n = keep + 1;
}

tk_status tk_xh_take_edges(tk_xh *x, tk_error *err)
{
    size_t n = tk_xray_graph_edges(x->graph);
    top *t = calloc(1, sizeof *t);
    if (!t || !(x->edges = malloc((n ? n : 1) * sizeof *x->edges))) {
        free(t);
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        tk_xray_graph_stats st;
        tk_xh_edge *e = &x->edges[i];
        tk_xray_graph_edge(x->graph, i, &e->from, &e->to, &st);
        e->sum = st.sum;
        e->count = st.count;
        rank(t, e, i);
    }
    for (size_t i = 0; i < t->n; i++)
        tk_xray_graph_edge(x->graph, t->at[i], NULL, NULL, &x->top_edges[i]);
    free(t);
    x->nedges = n;
    tk_xray_graph_free(x->graph);
    x->graph = NULL;
    qsort(x->edges, n, sizeof *x->edges, hotter); /* its first rows are the top's */
    return TK_OK;
}

static tk_html_value stat(const tk_xh *x, double v)
{
    return x->freq ? tk_html_f64(v) : tk_html_null(); /* graph --json's seconds */
}

/* Row i of the table; past the shown rows only the summed columns count. */
static void edge_row(tk_xh *x, size_t i, tk_html_value row[8])
{
    const tk_xh_edge *e = &x->edges[i];
    int shown = i < TK_XH_TOP_EDGES;
    /* without a map, names come from a buffer that lasts 3 calls */
    const char *from = !shown ? "" : e->from ? tk_xray_map_name(x->map, e->from) : "(root)";
    const char *to = shown ? tk_xray_map_name(x->map, e->to) : "";
    row[0] = tk_html_i64(e->from);
    row[1] = tk_html_str(from);
    row[2] = tk_html_i64(e->to);
    row[3] = tk_html_str(to);
    row[4] = tk_html_u64(e->count);
    row[5] = stat(x, e->sum);
    row[6] = shown ? stat(x, x->top_edges[i].med) : tk_html_null();
    row[7] = shown ? stat(x, x->top_edges[i].max) : tk_html_null();
}

void tk_xh_edges(tk_html *h, tk_xh *x)
{
    tk_html_unit u = x->freq ? TK_HTML_SECONDS : TK_HTML_PLAIN;
    tk_html_column cols[8] = {
        {.label = "caller id", .key = "caller", .flags = TK_HTML_COL_KEY},
        {.label = "caller", .flags = TK_HTML_COL_MONO},
        {.label = "callee id", .key = "callee", .flags = TK_HTML_COL_KEY},
        {.label = "callee", .flags = TK_HTML_COL_MONO},
        {.label = "calls", .key = "count", .flags = TK_HTML_COL_SUM},
        {.label = "sum", .key = "sum_s", .unit = u, .flags = TK_HTML_COL_HEAT | TK_HTML_COL_SUM},
        {.label = "median", .key = "med_s", .unit = u},
        {.label = "max", .key = "max_s", .unit = u}};
    tk_html_table_spec spec = {
        .id = "edges", .src = "graph.edges", .cols = cols, .ncols = 8,
        .max_rows = TK_XH_TOP_EDGES,
        .caption = "Caller \xE2\x86\x92 callee edges by the callee's total time (as graph "
                   "--json; caller 0 is the root: calls made with an empty stack)"};
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < x->nedges; i++) {
        tk_html_value row[8];
        edge_row(x, i, row);
        tk_html_table_row(h, row);
    }
    tk_html_table_end(h);
}
