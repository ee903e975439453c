/* The call graph in bounded memory (tk_xray_graph_options.streaming).
 *
 * A returning call updates its edge and its callee at once, and its
 * duration goes into their latency lists (latency.c: exact, spilled to a
 * temporary file past the budget). Nothing is held per call, so memory is
 * per edge and vertex, whatever the trace's length. The sum is kept as an
 * integer and converted at the end: that equals llvm-xray's double sum,
 * whatever the order, while the total stays below 2^53 ticks. */
#include "xray/analysis/graph_int.h"

/* A duration of the calls `c` (statistics `s`). A single duration is kept
 * only as `lo`: the list starts with the second, so a million functions
 * called once hold no list. */
static int note(tk_lat_pool *p, tk_xg_calls *c, tstat *s, uint64_t timing)
{
    if (s->count == 1 && tk_lat_add(p, &c->lat, c->lo) != 0)
        return -1;
    if (s->count == 0 || timing < c->lo)
        c->lo = timing;
    if (s->count == 0 || timing > c->hi)
        c->hi = timing;
    if (timing > (uint64_t)INT64_MAX || c->total + timing < c->total)
        c->wrapped = 1;
    c->total += timing;
    tk_xg_update_stat(s, timing);
    return s->count == 1 ? 0 : tk_lat_add(p, &c->lat, timing);
}

int tk_xg_stream_event(tk_xray_graph *g, int32_t from, int32_t to, uint64_t timing)
{
    edge *e = tk_xg_edge_of(g, from, to);
    if (!e)
        return -1;
    vertex *v = g->edges_only ? NULL : tk_map_value(&g->vertices, e->to_vertex);
    return note(&g->pool, tk_xg_ecalls(e), &e->u.s, timing) != 0 ||
                   (v && note(&g->pool, tk_xg_vcalls(v), &v->u.s, timing) != 0)
               ? -1
               : 0;
}

void tk_xg_edges_only(tk_xray_graph *g) { g->edges_only = g->opt.streaming; }

/* med, p90, p99 (elements count/2, count*9/10, count*99/100 of the sorted
 * durations, as graph.c's order_stats) and the exact sum. */
static int finish_calls(tk_lat_pool *p, tk_xg_calls *c, tstat *s)
{
    uint64_t n = (uint64_t)s->count, q[3] = {c->lo, c->lo, c->lo};
    if (n == 0)
        return 0;
    uint64_t k[3] = {n / 2, n * 9 / 10 < n ? n * 9 / 10 : n - 1,
                     n * 99 / 100 < n ? n * 99 / 100 : n - 1};
    int rc = n > 1 ? tk_lat_select(p, &c->lat, k, c->lo, c->hi, q) : 0;
    tk_lat_list_free(p, &c->lat);
    if (rc != 0)
        return -1;
    s->med = (double)q[0];
    s->p90 = (double)q[1];
    s->p99 = (double)q[2];
    if (!c->wrapped)
        s->sum = (double)c->total;
    return 0;
}

tk_status tk_xg_stream_finish(tk_xray_graph *g)
{
    for (size_t i = 0; i < g->edges.n; i++) {
        edge *e = tk_map_value(&g->edges, i);
        if (finish_calls(&g->pool, tk_xg_ecalls(e), &e->u.s) != 0)
            return TK_ENOMEM;
        tk_xg_update_max(&e->u.s, &g->edge_max);
    }
    for (size_t i = 1; i < g->vertices.n; i++) { /* entry 0 is the root */
        vertex *v = tk_map_value(&g->vertices, i);
        if (finish_calls(&g->pool, tk_xg_vcalls(v), &v->u.s) != 0)
            return TK_ENOMEM;
        tk_xg_update_max(&v->u.s, &g->vertex_max);
    }
    return TK_OK;
}
