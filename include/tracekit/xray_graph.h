/* tracekit — function call graphs of XRay traces (what `llvm-xray graph`
 * computes), with per-edge and per-function latency statistics, printed as
 * llvm-xray's DOT graph byte for byte.
 *
 * A graph is a handle (<tracekit/tracekit.h>, "Conventions"): made by
 * tk_xray_graph_new, freed by tk_xray_graph_free (NULL is fine), used by
 * one thread at a time; distinct graphs are independent. The functions
 * without a graph (failure texts, tk_xray_graph_parse_stat,
 * tk_xray_graph_color) are safe from any thread. */
#ifndef TRACEKIT_XRAY_GRAPH_H
#define TRACEKIT_XRAY_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <tracekit/error.h>
#include <tracekit/xray.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* The graph has a vertex per function entered and an edge caller -> callee
 * per pair seen, where calls made with an empty stack hang off the virtual
 * root, function id 0 ("F0", never printed as a vertex). */
typedef struct tk_xray_graph tk_xray_graph;

typedef struct tk_xray_graph_options {
    int deduce_sibling_calls; /* an exit matching a frame deeper in the stack
                                 closes every frame above it too (each gets
                                 an edge and a duration up to this exit) */
    int streaming;            /* bounded memory: each returning call goes
                                 straight into its edge (durations kept
                                 exactly, spilled to a temporary file past
                                 memory_limit) instead of 24 bytes per call
                                 held until finishing for llvm-xray's order.
                                 Counts, max, sum (exact while below 2^53
                                 ticks), med, p90 and p99 are the same; min
                                 ("0 is unset") and the output order follow
                                 the order records are fed, which is
                                 llvm-xray's for one thread */
    uint64_t memory_limit;    /* streaming: bytes of durations kept in
                                 memory (0: 64 MiB) */
} tk_xray_graph_options;

/* Why a record could not be added (llvm-xray's messages). */
typedef enum tk_xray_graph_failure {
    TK_XRAY_GRAPH_OK = 0,
    TK_XRAY_GRAPH_NO_MATCHING_ENTRY, /* "No matching ENTRY record": an exit
                                        with an empty stack or of a function
                                        not on top */
    TK_XRAY_GRAPH_NOT_IN_STACK,      /* "No matching Entry record in stack":
                                        deducing sibling calls, the function
                                        is nowhere in the stack */
    TK_XRAY_GRAPH_TSC_BACK           /* the record is in its thread's past
                                        (see TK_XRAY_ACCOUNT_TSC_BACK) */
} tk_xray_graph_failure;

/* An empty graph with options `o` (copied; NULL: all zero). NULL when out
 * of memory (TK_ENOMEM). */
tk_xray_graph *tk_xray_graph_new(const tk_xray_graph_options *o, tk_error *err);
void tk_xray_graph_free(tk_xray_graph *g);

/* Feed one record (events are ignored). Returns TK_XRAY_GRAPH_OK, a
 * tk_xray_graph_failure (> 0: the record is skipped, state unchanged:
 * llvm-xray -k; not an error, `err` untouched), or -1 with `err`
 * (TK_ENOMEM) when out of memory. The records of each thread are taken in
 * the order given; threads are independent. Across threads, llvm-xray's
 * order (all records sorted by TSC) is reconstructed, so outputs match it
 * exactly when each thread's TSCs never decrease. After
 * tk_xray_graph_finish records are ignored (0). */
int tk_xray_graph_add(tk_xray_graph *g, const tk_xray_record *rec, tk_error *err);

/* Open calls of thread `tid`, outermost first: fills up to `cap` ids and
 * returns the depth (to show where a record that does not match came). */
size_t tk_xray_graph_stack(const tk_xray_graph *g, uint32_t tid, int32_t *funcs,
                           size_t cap);

/* The words llvm-xray prints for `f` (static text). */
const char *tk_xray_graph_failure_text(tk_xray_graph_failure f);

/* Compute the statistics after the last record; times are divided by
 * `cycle_frequency` (seconds) unless it is 0 (TSC ticks stay). Returns
 * TK_OK (later calls do nothing) or TK_ENOMEM (the graph is unusable then:
 * adding returns -1, finishing and printing TK_ENOMEM, each with `err`). */
tk_status tk_xray_graph_finish(tk_xray_graph *g, uint64_t cycle_frequency, tk_error *err);

/* Statistics of a set of call durations: an edge's calls, or a function's
 * calls from all its callers. med, p90 and p99 are elements count/2,
 * count*9/10 and count*99/100 of the sorted durations. Like llvm-xray, min
 * is kept with 0 meaning "none yet": a call of duration 0 is forgotten by
 * the next call (the minimum of the durations after the last zero, or 0 if
 * the last call took 0). A function that was entered but never returned has
 * count 0 and zeros. */
typedef struct tk_xray_graph_stats {
    uint64_t count;
    double min, med, p90, p99, max, sum;
} tk_xray_graph_stats;

/* After tk_xray_graph_finish, in llvm-xray's (hash) order. Vertices
 * exclude the root; edges from the root have from = 0. The counts are 0
 * before finishing. tk_xray_graph_vertex and tk_xray_graph_edge fill the
 * outputs given (any may be NULL) and return 0, or -1 for an index out of
 * range (nothing filled; a lookup past the end, not an error). */
size_t tk_xray_graph_vertices(const tk_xray_graph *g);
int tk_xray_graph_vertex(const tk_xray_graph *g, size_t i, int32_t *func_id,
                         tk_xray_graph_stats *stats);
size_t tk_xray_graph_edges(const tk_xray_graph *g);
int tk_xray_graph_edge(const tk_xray_graph *g, size_t i, int32_t *from, int32_t *to,
                       tk_xray_graph_stats *stats);

/* What labels or colours show (llvm-xray's -e, -v, -c, -b values). */
typedef enum tk_xray_graph_stat {
    TK_XRAY_GRAPH_NONE, TK_XRAY_GRAPH_COUNT, TK_XRAY_GRAPH_MIN, TK_XRAY_GRAPH_MED,
    TK_XRAY_GRAPH_P90, TK_XRAY_GRAPH_P99, TK_XRAY_GRAPH_MAX, TK_XRAY_GRAPH_SUM
} tk_xray_graph_stat;

/* "none", "count", "min", "med", "90p", "99p", "max", "sum": TK_OK and
 * *stat set, or TK_EUSAGE ("unknown statistic 'NAME' (none, count, ...)")
 * for anything else. */
tk_status tk_xray_graph_parse_stat(const char *name, tk_xray_graph_stat *stat,
                                   tk_error *err);

typedef struct tk_xray_graph_print_options {
    tk_xray_graph_stat edge_label, edge_color, vertex_label, vertex_color;
    /* Name of a function id (NULL: "#<id>"). */
    const char *(*name)(void *ctx, int32_t func_id);
    void *name_ctx;
} tk_xray_graph_print_options;

/* llvm-xray graph's DOT output: edges then vertices in hash order; labels
 * are counts or %e values; names cut to 40 bytes + "..." and &, <, >
 * escaped; colours from the OrRd scheme at sqrt(value / largest value).
 * (Where llvm-xray divides 0 by 0 — colouring by a statistic that is 0
 * everywhere — and crashes, the lightest colour is used.) Finishes the
 * graph first if needed (with frequency 0). `o` may be NULL (no labels or
 * colours, ids for names); `out` is flushed, not closed. Returns TK_OK,
 * TK_EIO if writing failed, or TK_ENOMEM. */
tk_status tk_xray_graph_print_dot(tk_xray_graph *g, FILE *out,
                                  const tk_xray_graph_print_options *o, tk_error *err);

/* ---- graph-diff (llvm-xray graph-diff) */
typedef struct tk_xray_graph_diff tk_xray_graph_diff;

/* The union of two finished graphs, functions matched by name (each
 * graph's names from `name` with its own context; NULL: "#<id>"; the root
 * is ""), in the order of llvm-xray's name-keyed DenseMaps. A diff is a
 * handle like a graph and keeps no pointer into either graph. Returns it,
 * or NULL with `err`: TK_EUSAGE when a graph is not finished, TK_ENOMEM. */
tk_xray_graph_diff *tk_xray_graph_diff_new(const tk_xray_graph *a, const tk_xray_graph *b,
                                           const char *(*name)(void *ctx, int32_t func_id),
                                           void *const name_ctx[2], tk_error *err);
/* Frees the diff (NULL is fine). Cannot fail. */
void tk_xray_graph_diff_free(tk_xray_graph_diff *d);

/* The number of vertices and edges (cannot fail); vertex i (its name;
 * st[0], st[1]: its statistics in A and in B, NULL where it is missing)
 * and edge i (its vertices' indices): 0, or -1 past the end (a lookup
 * past the end, not an error). */
size_t tk_xray_graph_diff_vertices(const tk_xray_graph_diff *d);
int tk_xray_graph_diff_vertex(const tk_xray_graph_diff *d, size_t i, const char **name,
                              const tk_xray_graph_stats *st[2]);
size_t tk_xray_graph_diff_edges(const tk_xray_graph_diff *d);
int tk_xray_graph_diff_edge(const tk_xray_graph_diff *d, size_t i, size_t *from, size_t *to,
                            const tk_xray_graph_stats *st[2]);

/* The relative difference of statistic `t`: B / A - 1 (as llvm-xray:
 * inf or nan when A's is 0). */
double tk_xray_graph_diff_rel(const tk_xray_graph_stats *st[2], tk_xray_graph_stat t);

typedef struct tk_xray_graph_diff_print_options {
    tk_xray_graph_stat edge_label, edge_color, vertex_label, vertex_color;
    int vertex_label_trunc; /* names cut to this many bytes + "..." (0: 40) */
} tk_xray_graph_diff_print_options;

/* llvm-xray graph-diff's DOT output, byte for byte where llvm-xray works:
 * labels "{name|12.34%}" and "12.34%" (the relative difference); colours
 * from the PiYG scheme at the difference capped to [-1, 1], #FF0000 for
 * what only A has and #00FF00 for what only B has; an edge's pen width
 * the colour statistic's difference when above 1. An undefined difference
 * (0 against 0: "nan") takes the scheme's first colour, as llvm-xray 14
 * prints it. Names are printed as they are, '"' and '\' escaped. TK_OK,
 * or TK_EIO if writing failed. */
tk_status tk_xray_graph_diff_print_dot(const tk_xray_graph_diff *d, FILE *out,
                                       const tk_xray_graph_diff_print_options *o,
                                       tk_error *err);

/* The colour llvm-xray's OrRd scheme gives `point` in [0, 1] (clamped; NaN
 * counts as 0), as "#RRGGBB" into buf[8]. Cannot fail. */
void tk_xray_graph_color(double point, char buf[8]);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
