/* Per-function latency accounting (llvm-xray account's semantics).
 *
 * Every latency is kept, exactly, in a per-function list (latency.c: chunks
 * in memory up to a budget, then an unlinked temporary file, so memory is
 * flat); the median and percentiles are found by selection at the end.
 * Function ids index a direct table; the thread of the last record is
 * cached, since records come in runs per thread. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/xray_account.h>

#include "core/hashmap.h"
#include "core/id_index.h"
#include "core/strbuf.h"
#include "xray/analysis/account_int.h"
#include "xray/analysis/latency.h"
#include "xray/xray_int.h"

/* 40 bytes: threads can be millions. */
typedef struct thread_state {
    tk_xr_clock clock;
    tk_xr_calls calls; /* with entry times */
} thread_state;

/* 88 bytes: a million functions called once each must stay cheap (the
 * rows are made in this table's memory at the end). */
typedef struct func_stats {
    tk_lat_list lat; /* every latency once there are two (one is `min`) */
    uint64_t count, min, max, sum;
} func_stats;

/* Recursion depth per function, tracked as llvm-xray does: a function is
 * recursive from the moment its depth reaches 2 until it drops to 0. */
typedef struct depth {
    uint32_t depth;
    int recursive;
} depth;

/* Ids at or above this go to a hash map instead of the direct table. */
#define DIRECT_IDS (1u << 20)

struct tk_xray_account {
    tk_xray_account_options opt;
    tk_id_index tids;      /* tid -> index in threads */
    thread_state *threads; /* by index: tids.n of them */
    size_t threads_cap;
    tk_map recursion;      /* tid << 32 | func -> depth (recursive_calls_only) */
    uint32_t last_tid;
    thread_state *last;    /* state of last_tid (NULL: none cached) */
    func_stats *direct;    /* by function id */
    size_t ndirect;
    tk_map other;          /* other ids -> func_stats */
    size_t nfuncs;         /* functions with a latency */
    tk_lat_pool pool;
    int consumed;          /* rows handed out, latencies freed */
    tk_status failed;      /* ... or that failed (TK_ENOMEM or TK_EIO) */
};

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

tk_xray_account *tk_xray_account_new(const tk_xray_account_options *o, tk_error *err)
{
    tk_xray_account *a = calloc(1, sizeof *a);
    if (!a) {
        oom(err);
        return NULL;
    }
    if (o)
        a->opt = *o;
    tk_map_init(&a->recursion, sizeof(depth));
    tk_map_init(&a->other, sizeof(func_stats));
    tk_lat_pool_init(&a->pool, a->opt.memory_limit);
    return a;
}

void tk_xray_account_free(tk_xray_account *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->tids.n; i++)
        tk_xr_calls_free(&a->threads[i].calls);
    tk_map_free(&a->recursion);
    for (size_t i = 0; i < a->ndirect; i++)
        tk_lat_list_free(&a->pool, &a->direct[i].lat);
    for (size_t i = 0; i < a->other.n; i++)
        tk_lat_list_free(&a->pool, &((func_stats *)tk_map_value(&a->other, i))->lat);
    tk_lat_pool_free(&a->pool);
    free(a->direct);
    free(a->threads);
    tk_id_index_free(&a->tids);
    tk_map_free(&a->other);
    free(a);
}

static func_stats *stats_of(tk_xray_account *a, int32_t func)
{
    uint32_t id = (uint32_t)func;
    if (id >= DIRECT_IDS)
        return tk_map_u64(&a->other, id);
    if (id >= a->ndirect) {
        void *d = a->direct;
        int rc = tk_array_grow_zeroed(&d, &a->ndirect, id, sizeof *a->direct, 256);
        a->direct = d;
        if (rc != 0)
            return NULL;
    }
    return &a->direct[id];
}

static int record_latency(tk_xray_account *a, int32_t func, uint64_t lat)
{
    func_stats *f = stats_of(a, func);
    if (!f)
        return -1;
    if (f->count == 0) {
        f->min = f->max = f->sum = lat;
        f->count = 1;
        a->nfuncs++;
        return 0;
    }
    /* the first value was kept only as min: the list starts with both */
    if (f->count == 1 && tk_lat_add(&a->pool, &f->lat, f->min) != 0)
        return -1;
    if (tk_lat_add(&a->pool, &f->lat, lat) != 0)
        return -1;
    f->count++;
    f->sum += lat;
    if (lat < f->min)
        f->min = lat;
    if (lat > f->max)
        f->max = lat;
    return 0;
}

/* The recursion depth of `func` on the thread of the record being added
 * (a->last_tid). */
static depth *depth_of(tk_xray_account *a, int32_t func)
{
    return tk_map_u64(&a->recursion, (uint64_t)a->last_tid << 32 | (uint32_t)func);
}

static int counts(tk_xray_account *a, int32_t func)
{
    if (!a->opt.recursive_calls_only)
        return 1;
    depth *d = depth_of(a, func);
    return d && d->recursive;
}

static void leave(tk_xray_account *a, int32_t func)
{
    if (!a->opt.recursive_calls_only)
        return;
    depth *d = depth_of(a, func);
    if (d && d->depth > 0 && --d->depth == 0)
        d->recursive = 0;
}

static uint64_t diff(uint64_t x, uint64_t y) { return x > y ? x - y : y - x; }

/* The state of thread `tid`, zeroed when new; NULL when out of memory. */
static thread_state *thread_of(tk_xray_account *a, uint32_t tid)
{
    int added;
    int64_t i = tk_id_index_get(&a->tids, tid, &added);
    if (i < 0)
        return NULL;
    void *v = a->threads;
    int rc = tk_array_grow_zeroed(&v, &a->threads_cap, (size_t)i, sizeof *a->threads, 16);
    a->threads = v;
    return rc == 0 ? &a->threads[i] : NULL;
}

/* tk_xray_account_add without the error: -1 is out of memory. */
static int add(tk_xray_account *a, const tk_xray_record *rec)
{
    if (rec->kind >= TK_XRAY_CUSTOM_EVENT)
        return TK_XRAY_ACCOUNT_OK;
    thread_state *t = a->last;
    if (!t || a->last_tid != rec->tid) {
        /* a new thread may move the array: cache after the lookup */
        t = thread_of(a, rec->tid);
        if (!t)
            return -1;
        a->last = t;
        a->last_tid = rec->tid;
    }
    if (tk_xr_clock_behind(&t->clock, rec->tsc))
        return TK_XRAY_ACCOUNT_TSC_BACK;
    tk_xr_calls *c = &t->calls;
    if (rec->kind == TK_XRAY_ENTER || rec->kind == TK_XRAY_ENTER_ARG) {
        if (tk_xr_calls_push(c, rec->func_id, 1, rec->tsc) != 0)
            return -1;
        if (a->opt.recursive_calls_only) {
            depth *d = depth_of(a, rec->func_id);
            if (!d)
                return -1;
            if (++d->depth == 2)
                d->recursive = 1;
        }
        return TK_XRAY_ACCOUNT_OK;
    }
    long at = tk_xr_calls_exit(c, rec->func_id, a->opt.deduce_sibling_calls);
    if (at < 0)
        return (int)-at;
    uint32_t from = (uint32_t)at; /* calls [from, depth) close here */
    for (uint32_t i = from; i < c->depth; i++)
        if (counts(a, c->funcs[i]) &&
            record_latency(a, c->funcs[i], diff(c->tscs[i], rec->tsc)) != 0)
            return -1;
    for (uint32_t i = c->depth; i-- > from;)
        leave(a, c->funcs[i]);
    c->depth = from;
    return TK_XRAY_ACCOUNT_OK;
}

int tk_xray_account_add(tk_xray_account *a, const tk_xray_record *rec, tk_error *err)
{
    int rc = add(a, rec);
    if (rc < 0)
        oom(err);
    return rc;
}

size_t tk_xray_account_stack(const tk_xray_account *a, uint32_t tid,
                             int32_t *funcs, size_t cap)
{
    int64_t i = tk_id_index_find(&a->tids, tid);
    if (i < 0)
        return 0;
    const thread_state *t = &a->threads[i];
    for (size_t k = 0; k < t->calls.depth && k < cap; k++)
        funcs[k] = t->calls.funcs[k];
    return t->calls.depth;
}

const tk_xr_calls *tk_xa_last_calls(const tk_xray_account *a)
{
    return a->last ? &a->last->calls : NULL;
}

const tk_xr_calls *tk_xa_calls_of(const tk_xray_account *a, uint32_t tid)
{
    int64_t i = tk_id_index_find(&a->tids, tid);
    return i >= 0 ? &a->threads[i].calls : NULL;
}

size_t tk_xa_calling_threads(const tk_xray_account *a)
{
    size_t n = 0; /* a stack grows on a thread's first matched entry only */
    for (size_t i = 0; i < a->tids.n; i++)
        n += a->threads[i].calls.cap > 0;
    return n;
}

size_t tk_xray_account_functions(const tk_xray_account *a) { return a->nfuncs; }

uint64_t tk_xray_account_spilled(const tk_xray_account *a) { return a->pool.spilled; }

/* One function's row, its quantiles selected from its latencies (which are
 * freed): TK_OK, TK_ENOMEM, or TK_EIO when the spilled latencies cannot be
 * read back. `f` is a copy: the row may be written over its table entry. */
static tk_status fill_row(tk_xray_account *a, func_stats *f, int32_t id,
                          tk_xray_account_row *r)
{
    uint64_t n = f->count, q[3] = {f->min, f->min, f->min};
    if (n > 1) {
        /* the same element indices as llvm-xray's nth_element calls */
        uint64_t k[3] = {n / 2, (uint64_t)floor((double)n * 0.9),
                         (uint64_t)floor((double)n * 0.99)};
        int rc = tk_lat_select(&a->pool, &f->lat, k, f->min, f->max, q);
        tk_lat_list_free(&a->pool, &f->lat);
        if (rc != 0)
            return rc == -2 ? TK_EIO : TK_ENOMEM;
    }
    r->func_id = id;
    r->count = n;
    r->min = f->min;
    r->med = q[0];
    r->p90 = q[1];
    r->p99 = q[2];
    r->max = f->max;
    r->sum = f->sum;
    return TK_OK;
}

static uint64_t sort_key(const tk_xray_account_row *r, tk_xray_account_sort by)
{
    switch (by) {
    case TK_XRAY_SORT_COUNT: return r->count;
    case TK_XRAY_SORT_MIN: return r->min;
    case TK_XRAY_SORT_MED: return r->med;
    case TK_XRAY_SORT_P90: return r->p90;
    case TK_XRAY_SORT_P99: return r->p99;
    case TK_XRAY_SORT_MAX: return r->max;
    case TK_XRAY_SORT_SUM: return r->sum;
    default: return (uint64_t)(uint32_t)r->func_id;
    }
}

typedef struct sort_spec {
    tk_xray_account_sort by;
    int descending;
} sort_spec;

static int cmp_row(const void *x, const void *y, void *ctx)
{
    const tk_xray_account_row *a = x, *b = y;
    const sort_spec *sp = ctx;
    uint64_t ka = sort_key(a, sp->by), kb = sort_key(b, sp->by);
    int c = ka < kb ? -1 : ka > kb;
    if (sp->descending)
        c = -c;
    if (c == 0) /* ties by function id, so output is deterministic */
        c = a->func_id < b->func_id ? -1 : a->func_id > b->func_id;
    return c;
}

static tk_status rows_failed(tk_status st, tk_error *err)
{
    if (st == TK_EIO)
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                            "reading latencies back from their temporary file failed");
    return oom(err);
}

/* The direct table's rows, made in the table's own memory (a row is smaller
 * than an entry and row n is written after entry n is read), the table then
 * given up; room is left for `extra` more rows. NULL when out of memory. */
static tk_xray_account_row *rows_in_place(tk_xray_account *a, size_t extra, size_t *n,
                                          tk_status *st)
{
    _Static_assert(sizeof(tk_xray_account_row) <= sizeof(func_stats), "rows fit in place");
    tk_xray_account_row *r = (tk_xray_account_row *)(void *)a->direct;
    size_t k = 0;
    for (size_t i = 0; i < a->ndirect; i++) {
        func_stats f;
        memcpy(&f, &a->direct[i], sizeof f);
        if (!f.count)
            continue;
        if (*st == TK_OK)
            *st = fill_row(a, &f, (int32_t)i, &r[k++]);
        else
            tk_lat_list_free(&a->pool, &f.lat);
    }
    a->direct = NULL;
    a->ndirect = 0;
    *n = k;
    tk_xray_account_row *grown = realloc(r, (k + extra ? k + extra : 1) * sizeof *r);
    if (!grown)
        free(r);
    return grown;
}

tk_status tk_xray_account_rows(tk_xray_account *a, tk_xray_account_sort sort,
                               int descending, tk_xray_account_row **rows, size_t *nrows,
                               tk_error *err)
{
    size_t n = 0;
    *rows = NULL;
    *nrows = 0;
    if (a->failed) /* the statistics are gone with the first failure */
        return rows_failed(a->failed, err);
    if (a->consumed)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "the account's rows were already taken");
    a->consumed = 1;
    tk_status st = TK_OK;
    tk_xray_account_row *r = rows_in_place(a, a->other.n, &n, &st);
    if (!r && st == TK_OK)
        st = TK_ENOMEM;
    for (size_t i = 0; i < a->other.n && st == TK_OK; i++) {
        func_stats *f = tk_map_value(&a->other, i);
        if (f->count)
            st = fill_row(a, f, (int32_t)a->other.ukeys[i], &r[n++]);
    }
    a->failed = st;
    if (st != TK_OK) {
        free(r);
        return rows_failed(st, err);
    }
    sort_spec sp = {sort, descending};
    size_t i = 1; /* by id, the table's order is usually the answer */
    while (i < n && cmp_row(&r[i - 1], &r[i], &sp) < 0)
        i++;
    if (i < n)
        qsort_r(r, n, sizeof *r, cmp_row, &sp); /* glibc */
    *rows = r;
    *nrows = n;
    return TK_OK;
}

const char *tk_xray_account_failure_text(tk_xray_account_failure f)
{
    switch (f) {
    case TK_XRAY_ACCOUNT_EMPTY_STACK: return "exit with no open call on its thread";
    case TK_XRAY_ACCOUNT_UNMATCHED_EXIT: return "exit does not match the open call";
    case TK_XRAY_ACCOUNT_TSC_BACK: return TK_XR_TSC_BACK_TEXT;
    default: return "ok";
    }
}
