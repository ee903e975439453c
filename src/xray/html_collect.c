/* XRay's HTML report: the one pass over the records. Each record feeds
 * account and stack (their public APIs, as the commands use them) and,
 * from account's matching (its open calls, not a copy), the call graph's
 * edges, the latency histograms and the followed threads' busy windows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xray/analysis/account_int.h"
#include "xray/analysis/graph_int.h"
#include "xray/html_int.h"

void tk_xh_free(tk_xh *x)
{
    free(x->lanes);
    tk_map_free(&x->lane_of);
    for (size_t i = 0; i < x->hist.n; i++)
        free(((tk_xh_hist *)tk_map_value(&x->hist, i))->bins);
    tk_map_free(&x->hist);
    tk_map_free(&x->threads);
    free(x->rows);
    free(x->edges);
    tk_xray_graph_free(x->graph);
    tk_xray_stacks_free(x->stacks);
    tk_xray_account_free(x->acc);
}

/* Spread `v` of [a0, a1) (old windows) over the new ones by overlap. */
static void rebin_one(const tk_xh *x, double *dst, const double *src, uint64_t origin,
                      uint64_t width)
{
    for (int i = 0; i < TK_XH_WINDOWS; i++) {
        if (src[i] == 0)
            continue;
        double a = (double)x->origin + (double)i * (double)x->width, b = a + (double)x->width;
        for (double at = a; at < b;) {
            double k = floor((at - (double)origin) / (double)width);
            double end = fmin(b, (double)origin + (k + 1) * (double)width);
            if (k >= 0 && k < TK_XH_WINDOWS)
                dst[(int)k] += src[i] * (end - at) / (b - a);
            at = end > at ? end : b;
        }
    }
}

/* Windows covering [a, b): grow (at least doubling) and rebin when not. */
static void cover(tk_xh *x, uint64_t a, uint64_t b)
{
    if (!x->windows_set) {
        x->origin = a;
        x->width = (b - a) / TK_XH_WINDOWS + 1;
        x->windows_set = 1;
        return;
    }
    uint64_t end = x->origin + (uint64_t)TK_XH_WINDOWS * x->width;
    if (a >= x->origin && b <= end)
        return;
    uint64_t lo = a < x->origin ? a : x->origin, hi = b > end ? b : end, w = x->width;
    while ((hi - lo) / w >= TK_XH_WINDOWS || w < x->width * 2)
        w *= 2;
    double tmp[TK_XH_WINDOWS];
    for (size_t i = 0; i < x->followed; i++) {
        tk_xh_lane *t = &x->lanes[i];
        memset(tmp, 0, sizeof tmp);
        rebin_one(x, tmp, t->win, lo, w);
        memcpy(t->win, tmp, sizeof tmp);
    }
    x->origin = lo;
    x->width = w;
}

/* A busy interval of followed thread t. */
static void busy(tk_xh *x, tk_xh_lane *t, uint64_t a, uint64_t b)
{
    if (b <= a)
        return;
    cover(x, a, b);
    for (uint64_t at = a; at < b;) {
        uint64_t k = (at - x->origin) / x->width;
        uint64_t end = x->origin + (k + 1) * x->width;
        end = end < b ? end : b;
        if (k < TK_XH_WINDOWS)
            t->win[k] += (double)(end - at);
        at = end;
    }
}

/* The lane of `tid`, made on its first matched call while there is room;
 * NULL for the threads not followed. *oom set when out of memory. */
static tk_xh_lane *lane_of(tk_xh *x, uint32_t tid, int *oom)
{
    const uint32_t *at = tk_map_find_u64(&x->lane_of, tid);
    if (at)
        return &x->lanes[*at - 1];
    if (x->followed == TK_XH_TIMELINE_THREADS)
        return NULL;
    uint32_t *slot = tk_map_u64(&x->lane_of, tid);
    if (!slot) {
        *oom = 1;
        return NULL;
    }
    *slot = (uint32_t)++x->followed;
    x->lanes[x->followed - 1].tid = tid;
    return &x->lanes[x->followed - 1];
}

/* A matched call's latency into its function's histogram. */
static int latency(tk_xh *x, int32_t func, uint64_t lat)
{
    int bin = lat ? 64 - __builtin_clzll(lat) : 0;
    tk_xh_hist *hs = tk_map_find_u64(&x->hist, (uint32_t)func);
    if (!hs && x->hist.n < TK_XH_HIST_FUNCS) {
        if (!(hs = tk_map_u64(&x->hist, (uint32_t)func)))
            return -1;
        hs->first = bin;
        return 0;
    }
    if (!hs)
        return 0;
    if (!hs->bins) {
        if (!(hs->bins = calloc(TK_XH_BINS, sizeof *hs->bins)))
            return -1;
        hs->bins[hs->first]++;
    }
    hs->bins[bin]++;
    return 0;
}

/* Follow account's outcome for `rec` (OK: an entry opened, or an exit
 * closed the top call, now just past account's depth; the bottom call's
 * entry, where its thread became busy, is at 0). 0, or -1 when out of
 * memory. */
static int follow(tk_xh *x, const tk_xray_record *rec)
{
    int oom = 0;
    tk_xh_lane *t = lane_of(x, rec->tid, &oom);
    const tk_xr_calls *c = tk_xa_last_calls(x->acc);
    if (oom || !c)
        return -1;
    if (t)
        t->last_tsc = rec->tsc;
    if (rec->kind == TK_XRAY_ENTER || rec->kind == TK_XRAY_ENTER_ARG)
        return 0;
    uint64_t e = c->tscs[c->depth], lat = e > rec->tsc ? e - rec->tsc : rec->tsc - e;
    if (c->depth == 0 && t)
        busy(x, t, c->tscs[0], rec->tsc);
    /* graph's matching is account's (no deduced calls): its edge is the
     * caller under the call, or the root */
    int32_t caller = c->depth ? c->funcs[c->depth - 1] : 0;
    if (tk_xg_stream_event(x->graph, caller, c->funcs[c->depth], lat) != 0)
        return -1;
    return latency(x, c->funcs[c->depth], lat);
}

/* One record into everything. */
static tk_status add(tk_xh *x, const tk_xray_record *rec, tk_error *err)
{
    x->records++;
    x->tmin = rec->tsc < x->tmin ? rec->tsc : x->tmin;
    x->tmax = rec->tsc > x->tmax ? rec->tsc : x->tmax;
    int f = tk_xray_account_add(x->acc, rec, err);
    if (f < 0)
        return err->status;
    if (!tk_map_u64(&x->threads, (uint64_t)rec->pid << 32 | rec->tid))
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    x->unmatched += f > 0 && f != TK_XRAY_ACCOUNT_TSC_BACK;
    x->past += f == TK_XRAY_ACCOUNT_TSC_BACK; /* skipped, as account -k does */
    if (f == TK_XRAY_ACCOUNT_OK && rec->kind < TK_XRAY_CUSTOM_EVENT && follow(x, rec) != 0)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    if (tk_xray_stacks_add(x->stacks, rec, err) < 0)
        return err->status;
    return TK_OK;
}

tk_status tk_xh_collect(tk_xh *x, tk_error *err)
{
    tk_map_init(&x->threads, 1);
    tk_map_init(&x->lane_of, sizeof(uint32_t));
    tk_map_init(&x->hist, sizeof(tk_xh_hist));
    x->tmin = UINT64_MAX;
    x->freq = tk_xray_reader_header(x->r)->cycle_frequency;
    /* streaming: memory per edge, not per call; the page shows no min,
     * the only statistic that could differ from graph's. Its calls come
     * from account's matching (follow): it keeps no threads. */
    const tk_xray_graph_options gopt = {.streaming = 1};
    if (!(x->lanes = calloc(TK_XH_TIMELINE_THREADS, sizeof *x->lanes)))
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    if (!(x->acc = tk_xray_account_new(NULL, err)) || !(x->stacks = tk_xray_stacks_new(err)) ||
        !(x->graph = tk_xray_graph_new(&gopt, err)))
        return err->status;
    tk_xg_edges_only(x->graph); /* the page shows no vertex */
    tk_xray_record rec;
    int rc;
    tk_status st = TK_OK;
    while (st == TK_OK && (rc = tk_xray_next(x->r, &rec, err)) > 0)
        st = add(x, &rec, err);
    if (st == TK_OK && rc < 0)
        st = err->status;
    /* calls open at the end keep their thread busy to its last record */
    for (size_t i = 0; st == TK_OK && i < x->followed; i++) {
        const tk_xr_calls *c = tk_xa_calls_of(x->acc, x->lanes[i].tid);
        if (c && c->depth)
            busy(x, &x->lanes[i], c->tscs[0], x->lanes[i].last_tsc);
    }
    x->calling = tk_xa_calling_threads(x->acc);
    if (st == TK_OK)
        st = tk_xray_account_rows(x->acc, TK_XRAY_SORT_SUM, 1, &x->rows, &x->nrows, err);
    if (st == TK_OK)
        st = tk_xray_graph_finish(x->graph, x->freq, err);
    if (st == TK_OK)
        st = tk_xh_take_edges(x, err);
    return st;
}
