/* The call graph's state (graph.c: llvm-xray's replay order;
 * graph_stream.c: the bounded-memory mode, tk_xray_graph_options.streaming). */
#ifndef TK_XRAY_GRAPH_INT_H
#define TK_XRAY_GRAPH_INT_H

#include <tracekit/xray_graph.h>

#include "core/hashmap.h"
#include "xray/analysis/latency.h"
#include "xray/xray_int.h"

/* Streaming mode: what an edge or a vertex keeps of its calls beyond
 * llvm-xray's statistics. */
typedef struct tk_xg_calls {
    tk_lat_list lat;  /* their durations */
    uint64_t lo, hi;  /* their true extremes */
    uint64_t total;   /* their sum (wraps: see `wrapped`) */
    int wrapped;      /* total overflowed or a duration > INT64_MAX */
} tk_xg_calls;

/* llvm-xray's GraphRenderer::TimeStat. */
typedef struct tstat {
    int64_t count;
    double min, med, p90, p99, max, sum;
} tstat;

typedef struct frame {
    int32_t func;
    uint64_t tsc;
} frame;

typedef struct thread {
    frame *stack;
    uint32_t depth, cap;
    tk_xr_clock clock; /* largest TSC seen: the ordering key */
} thread;

/* A vertex's or edge's statistics, and its first call (in llvm-xray's
 * order: key, then arrival) in place of med and p90 until the output order
 * is fixed, and an edge's timings in place of p99 until its order
 * statistics: those are computed after (a million functions cost 24 bytes
 * less each). */
typedef union tk_xg_stat_first {
    tstat s;
    struct {
        int64_t count_;
        double min_;
        uint64_t key, seq; /* over med, p90 */
        uint64_t off;      /* over p99: its timings in g->timings; a single
                              call's, itself */
    } first;
} tk_xg_stat_first;

/* The function is the map key (tk_xg_vertex_func). */
typedef struct vertex {
    tk_xg_stat_first u; /* first: its first entry */
} vertex;           /* streaming: a tk_xg_calls follows (tk_xg_vcalls) */

typedef struct event {
    uint64_t key;    /* the thread's clock at the return */
    uint64_t timing; /* ticks */
    int32_t from, to;
} event;

/* A vertex's or edge's first call in llvm-xray's order: its key, then its
 * arrival; `entry` is its map entry. */
typedef struct tk_xg_first {
    uint64_t key, seq;
    size_t entry;
} tk_xg_first;

/* from and to are the map key (tk_xg_edge_from, tk_xg_edge_to). */
typedef struct edge {
    tk_xg_stat_first u; /* s.count: its calls; first: its first call (not
                           kept in streaming mode: edges come in order) */
    uint32_t to_vertex;
} edge;             /* streaming: a tk_xg_calls follows (tk_xg_ecalls) */

/* A streaming graph's durations of a vertex or edge: the map entries are
 * that much bigger only in streaming mode (a million functions). */
static inline tk_xg_calls *tk_xg_vcalls(vertex *v)
{
    _Static_assert(sizeof(vertex) % _Alignof(tk_xg_calls) == 0, "aligned");
    return (tk_xg_calls *)(void *)(v + 1);
}
static inline tk_xg_calls *tk_xg_ecalls(edge *e)
{
    _Static_assert(sizeof(edge) % _Alignof(tk_xg_calls) == 0, "aligned");
    return (tk_xg_calls *)(void *)(e + 1);
}

struct tk_xray_graph {
    tk_xray_graph_options opt;
    tk_map threads;  /* tid -> thread */
    tk_map vertices; /* (uint32_t)func -> vertex; entry 0 is the root */
    event *ev;
    size_t nev, evcap;
    uint64_t seq;    /* records fed */
    uint64_t total;  /* the durations' sum, saturated at UINT64_MAX */
    int zero_timing; /* a call took 0 ticks */
    int have_last;
    uint32_t last_tid;
    size_t last_thread;
    /* after finish */
    int edges_only; /* streaming, no vertices (tk_xg_edges_only) */
    int finished;
    int broken; /* finishing ran out of memory: the graph is unusable */
    tk_map edges;    /* from << 32 | to -> edge, in llvm-xray's creation order
                        (streaming: in the order the calls returned) */
    tk_lat_pool pool; /* streaming: the edges' and vertices' durations */
    uint64_t *timings;
    uint32_t *vorder;        /* vertex entries in output order, root excluded */
    size_t nvorder;
    size_t root_at;          /* the root's place among them in llvm-xray's order */
    uint32_t *eorder;        /* edge entries in output order */
    tstat edge_max, vertex_max;
};

/* Shared by both modes (graph.c). */
size_t tk_xg_entry_index(const tk_map *m, const void *v);
/* The function of vertex entry i. */
static inline int32_t tk_xg_vertex_func(const tk_xray_graph *g, size_t i)
{
    return (int32_t)(uint32_t)g->vertices.ukeys[i];
}
/* The caller and callee of edge entry i (tk_xg_edge_key). */
static inline int32_t tk_xg_edge_from(const tk_xray_graph *g, size_t i)
{
    return (int32_t)(uint32_t)(g->edges.ukeys[i] >> 32);
}
static inline int32_t tk_xg_edge_to(const tk_xray_graph *g, size_t i)
{
    return (int32_t)(uint32_t)g->edges.ukeys[i];
}
uint64_t tk_xg_edge_key(int32_t from, int32_t to);
/* The edge from -> to, created (with its callee's vertex) when new; NULL
 * when out of memory. */
edge *tk_xg_edge_of(tk_xray_graph *g, int32_t from, int32_t to);
void tk_xg_update_stat(tstat *s, uint64_t d);
/* Divide by the frequency (when not 0; the orders are fixed before): 0. */
int tk_xg_finish_common(tk_xray_graph *g, uint64_t cycle_frequency);
void tk_xg_update_max(const tstat *s, tstat *m);
/* Statistic `t` of a set of calls (count as a double). */
double tk_xg_stat(const tk_xray_graph_stats *s, tk_xray_graph_stat t);
/* A colour of scheme `map` (n colours over [lo, hi], interpolated in HSV
 * as llvm-xray's ColorHelper; `below`/`above` outside) as "#RRGGBB". */
void tk_xg_color(const unsigned char (*map)[3], size_t n, double lo, double hi,
                 const unsigned char *below, const unsigned char *above, double point,
                 char buf[8]);

/* Streaming mode (graph_stream.c): a call from -> to returned after
 * `timing` ticks (-1: out of memory); the order statistics at the end
 * (TK_OK or TK_ENOMEM). */
int tk_xg_stream_event(tk_xray_graph *g, int32_t from, int32_t to, uint64_t timing);
tk_status tk_xg_stream_finish(tk_xray_graph *g);
/* A streaming graph keeps its edges only, no vertices (the HTML report
 * shows edges: a million functions cost one entry each, not two); call
 * before the first record. */
void tk_xg_edges_only(tk_xray_graph *g);

#endif
