/* XRay's HTML report (report --html): what the pass over the records
 * gathers (html_collect.c) for the page's sections (html.c,
 * html_flame.c, html_tables.c). */
#ifndef TK_XRAY_HTML_INT_H
#define TK_XRAY_HTML_INT_H

#include <tracekit/xray.h>
#include <tracekit/xray_account.h>
#include <tracekit/xray_graph.h>
#include <tracekit/xray_map.h>
#include <tracekit/xray_stack.h>

#include "core/hashmap.h"
#include "export/html/html.h"
#include "xray/xray_int.h"

/* Windows of the busy-time timeline; threads followed in it. */
#define TK_XH_WINDOWS 128
#define TK_XH_TIMELINE_THREADS 256
/* Functions with a latency histogram kept (log2 bins of ticks). */
#define TK_XH_HIST_FUNCS 65536
#define TK_XH_BINS 65
/* Call-graph edges in the page's table. */
#define TK_XH_TOP_EDGES 40

/* A thread followed in the timeline: its busy time per window. Its open
 * calls are account's (analysis/account_int.h): no thread keeps a second
 * stack here. */
typedef struct tk_xh_lane {
    uint32_t tid;
    uint64_t last_tsc;
    double win[TK_XH_WINDOWS]; /* busy ticks */
} tk_xh_lane;

/* A function's latency histogram: its first call's bin alone until a
 * second call (most functions of a huge trace are called once). */
typedef struct tk_xh_hist {
    uint64_t *bins; /* TK_XH_BINS counts, or NULL */
    int first;      /* bins NULL: the one call's bin */
} tk_xh_hist;

/* An edge as the page's table needs it past the shown rows. */
typedef struct tk_xh_edge {
    double sum;
    uint64_t count;
    int32_t from, to;
} tk_xh_edge;

typedef struct tk_xh {
    tk_xray_reader *r;
    tk_xray_map *map;
    uint64_t freq; /* the cycle frequency, 0 when unknown */
    tk_xray_account *acc;
    tk_xray_stacks *stacks;
    tk_xray_graph *graph; /* until its edges are taken */
    tk_xh_edge *edges;    /* hottest first */
    size_t nedges;
    tk_xray_graph_stats top_edges[TK_XH_TOP_EDGES];
    tk_map threads;   /* pid << 32 | tid, as the text report counts them */
    tk_map lane_of;   /* tid -> lane + 1, for the followed threads only */
    tk_xh_lane *lanes; /* TK_XH_TIMELINE_THREADS, in the order first seen */
    tk_map hist;      /* func id -> tk_xh_hist: latencies by log2 */
    size_t followed;  /* threads with windows */
    size_t calling;   /* threads with a matched call */
    uint64_t origin, width; /* windows: [origin + i * width, ...) in ticks */
    int windows_set;
    uint64_t records, unmatched, past, tmin, tmax;
    tk_xray_account_row *rows; /* by sum, descending */
    size_t nrows;
} tk_xh;

/* Read every record into the analyses (html_collect.c). TK_OK, or the
 * reader's error / TK_ENOMEM with `err`. */
tk_status tk_xh_collect(tk_xh *x, tk_error *err);
/* The graph's edges into x->edges (html_edges.c), the graph freed. */
tk_status tk_xh_take_edges(tk_xh *x, tk_error *err);
void tk_xh_free(tk_xh *x);

/* Durations: ticks shown in seconds (a scale of the frequency), or as
 * plain ticks without one. */
static inline tk_html_unit tk_xh_unit(const tk_xh *x)
{
    return x->freq ? TK_HTML_SECONDS : TK_HTML_PLAIN;
}
/* Seconds as the --json outputs write them: null without a frequency. */
static inline tk_html_value tk_xh_seconds(const tk_xh *x, double ticks)
{
    return x->freq ? tk_html_f64(ticks / (double)x->freq) : tk_html_null();
}

/* The sections (html_flame.c, html_tables.c). */
void tk_xh_flame(tk_html *h, tk_xh *x);
/* the stacks' last reader: frees them before its table is made */
void tk_xh_threads(tk_html *h, tk_xh *x);
void tk_xh_timeline(tk_html *h, tk_xh *x);
void tk_xh_account(tk_html *h, tk_xh *x);
void tk_xh_histograms(tk_html *h, tk_xh *x);
void tk_xh_edges(tk_html *h, tk_xh *x);

#endif
