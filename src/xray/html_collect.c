/* XRay's HTML report: the one pass over the records. Each record feeds
 * account, stack and graph (their public APIs, as the commands use them)
 * and, mirroring account's matching, the latency histograms and each
 * thread's busy windows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xray/html_int.h"

void tk_xh_free(tk_xh *x)
{
    for (size_t i = 0; i < x->calls.n; i++) {
        tk_xh_thread *t = tk_map_value(&x->calls, i);
        tk_xr_calls_free(&t->calls);
        free(t->win);
    }
    tk_map_free(&x->calls);
    for (size_t i = 0; i < x->hist.n; i++)
        free(((tk_xh_hist *)tk_map_value(&x->hist, i))->bins);
    tk_map_free(&x->hist);
    tk_map_free(&x->threads);
    free(x->rows);
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
    for (size_t i = 0; i < x->calls.n; i++) {
        tk_xh_thread *t = tk_map_value(&x->calls, i);
        if (!t->win)
            continue;
        memset(tmp, 0, sizeof tmp);
        rebin_one(x, tmp, t->win, lo, w);
        memcpy(t->win, tmp, sizeof tmp);
    }
    x->origin = lo;
    x->width = w;
}

/* A busy interval of thread t. */
static void busy(tk_xh *x, tk_xh_thread *t, uint64_t a, uint64_t b)
{
    if (!t->win || b <= a)
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

static tk_xh_thread *thread_of(tk_xh *x, uint32_t tid)
{
    tk_xh_thread *t = tk_map_u64(&x->calls, tid);
    if (t && t->tid == 0 && !t->calls.cap && !t->win && x->followed < TK_XH_TIMELINE_THREADS) {
        t->tid = tid;
        if ((t->win = calloc(TK_XH_WINDOWS, sizeof *t->win)))
            x->followed++;
    }
    if (t)
        t->tid = tid;
    return t;
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
 * closed the top call). 0, or -1 when out of memory. */
static int follow(tk_xh *x, const tk_xray_record *rec)
{
    tk_xh_thread *t = thread_of(x, rec->tid);
    if (!t)
        return -1;
    t->last_tsc = rec->tsc;
    tk_xr_calls *c = &t->calls;
    if (rec->kind == TK_XRAY_ENTER || rec->kind == TK_XRAY_ENTER_ARG) {
        if (c->depth == 0)
            t->busy_since = rec->tsc;
        return tk_xr_calls_push(c, rec->func_id, 1, rec->tsc);
    }
    if (c->depth == 0)
        return 0;
    uint64_t e = c->tscs[--c->depth];
    if (c->depth == 0)
        busy(x, t, t->busy_since, rec->tsc);
    return latency(x, c->funcs[c->depth], e > rec->tsc ? e - rec->tsc : rec->tsc - e);
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
    if (tk_xray_stacks_add(x->stacks, rec, err) < 0 || tk_xray_graph_add(x->graph, rec, err) < 0)
        return err->status;
    return TK_OK;
}

tk_status tk_xh_collect(tk_xh *x, tk_error *err)
{
    tk_map_init(&x->threads, 1);
    tk_map_init(&x->calls, sizeof(tk_xh_thread));
    tk_map_init(&x->hist, sizeof(tk_xh_hist));
    x->tmin = UINT64_MAX;
    x->freq = tk_xray_reader_header(x->r)->cycle_frequency;
    /* streaming: memory per edge, not per call; the page shows no min,
     * the only statistic that could differ from graph's */
    const tk_xray_graph_options gopt = {.streaming = 1};
    if (!(x->acc = tk_xray_account_new(NULL, err)) || !(x->stacks = tk_xray_stacks_new(err)) ||
        !(x->graph = tk_xray_graph_new(&gopt, err)))
        return err->status;
    tk_xray_record rec;
    int rc;
    tk_status st = TK_OK;
    while (st == TK_OK && (rc = tk_xray_next(x->r, &rec, err)) > 0)
        st = add(x, &rec, err);
    if (st == TK_OK && rc < 0)
        st = err->status;
    /* calls open at the end keep their thread busy to its last record */
    for (size_t i = 0; st == TK_OK && i < x->calls.n; i++) {
        tk_xh_thread *t = tk_map_value(&x->calls, i);
        if (t->calls.depth)
            busy(x, t, t->busy_since, t->last_tsc);
    }
    if (st == TK_OK)
        st = tk_xray_account_rows(x->acc, TK_XRAY_SORT_SUM, 1, &x->rows, &x->nrows, err);
    if (st == TK_OK)
        st = tk_xray_graph_finish(x->graph, x->freq, err);
    return st;
}
