/* Per-function latency accounting (llvm-xray account's semantics).
 *
 * Latencies are kept as an exact histogram per function (latency -> count)
 * rather than one entry per call: hot functions repeat the same few tick
 * counts, so memory follows the number of distinct latencies, and the
 * median and percentiles stay exact. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/xray_account.h>

#include "core/hashmap.h"

typedef struct frame {
    int32_t func;
    uint64_t tsc;
} frame;

typedef struct thread_state {
    frame *stack;
    size_t depth, cap;
    tk_map recursion; /* func -> depth (recursive_calls_only) */
} thread_state;

typedef struct func_stats {
    tk_map hist; /* latency -> count */
    uint64_t count, min, max, sum;
} func_stats;

struct tk_xray_account {
    tk_xray_account_options opt;
    tk_map threads; /* tid -> thread_state */
    tk_map funcs;   /* func id -> func_stats */
};

tk_xray_account *tk_xray_account_new(const tk_xray_account_options *o)
{
    tk_xray_account *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    if (o)
        a->opt = *o;
    tk_map_init(&a->threads, sizeof(thread_state));
    tk_map_init(&a->funcs, sizeof(func_stats));
    return a;
}

void tk_xray_account_free(tk_xray_account *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->threads.n; i++) {
        thread_state *t = tk_map_value(&a->threads, i);
        free(t->stack);
        tk_map_free(&t->recursion);
    }
    for (size_t i = 0; i < a->funcs.n; i++)
        tk_map_free(&((func_stats *)tk_map_value(&a->funcs, i))->hist);
    tk_map_free(&a->threads);
    tk_map_free(&a->funcs);
    free(a);
}

static int record_latency(tk_xray_account *a, int32_t func, uint64_t lat)
{
    func_stats *f = tk_map_u64(&a->funcs, (uint32_t)func);
    if (!f)
        return -1;
    if (f->count == 0) {
        tk_map_init(&f->hist, sizeof(uint64_t));
        f->min = f->max = lat;
    }
    uint64_t *n = tk_map_u64(&f->hist, lat);
    if (!n)
        return -1;
    (*n)++;
    f->count++;
    f->sum += lat;
    if (lat < f->min)
        f->min = lat;
    if (lat > f->max)
        f->max = lat;
    return 0;
}

/* Recursion depth per function, tracked as llvm-xray does: a function is
 * recursive from the moment its depth reaches 2 until it drops to 0. */
typedef struct depth {
    uint32_t depth;
    int recursive;
} depth;

static depth *depth_of(thread_state *t, int32_t func)
{
    if (t->recursion.value_size == 0)
        tk_map_init(&t->recursion, sizeof(depth));
    return tk_map_u64(&t->recursion, (uint32_t)func);
}

static int counts(tk_xray_account *a, thread_state *t, int32_t func)
{
    if (!a->opt.recursive_calls_only)
        return 1;
    depth *d = depth_of(t, func);
    return d && d->recursive;
}

static void leave(tk_xray_account *a, thread_state *t, int32_t func)
{
    if (!a->opt.recursive_calls_only)
        return;
    depth *d = depth_of(t, func);
    if (d && d->depth > 0 && --d->depth == 0)
        d->recursive = 0;
}

static uint64_t diff(uint64_t x, uint64_t y) { return x > y ? x - y : y - x; }

int tk_xray_account_add(tk_xray_account *a, const tk_xray_record *rec)
{
    if (rec->kind >= TK_XRAY_CUSTOM_EVENT)
        return TK_XRAY_ACCOUNT_OK;
    thread_state *t = tk_map_u64(&a->threads, rec->tid);
    if (!t)
        return -1;
    if (rec->kind == TK_XRAY_ENTER || rec->kind == TK_XRAY_ENTER_ARG) {
        if (t->depth == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 64;
            frame *s = realloc(t->stack, cap * sizeof *s);
            if (!s)
                return -1;
            t->stack = s;
            t->cap = cap;
        }
        t->stack[t->depth++] = (frame){rec->func_id, rec->tsc};
        if (a->opt.recursive_calls_only) {
            depth *d = depth_of(t, rec->func_id);
            if (!d)
                return -1;
            if (++d->depth == 2)
                d->recursive = 1;
        }
        return TK_XRAY_ACCOUNT_OK;
    }
    if (t->depth == 0)
        return TK_XRAY_ACCOUNT_EMPTY_STACK;
    size_t from = t->depth - 1; /* frames [from, depth) close here */
    if (t->stack[from].func != rec->func_id) {
        if (!a->opt.deduce_sibling_calls)
            return TK_XRAY_ACCOUNT_UNMATCHED_EXIT;
        while (from > 0 && t->stack[from - 1].func != rec->func_id)
            from--;
        if (from == 0)
            return TK_XRAY_ACCOUNT_UNMATCHED_EXIT;
        from--;
    }
    for (size_t i = from; i < t->depth; i++)
        if (counts(a, t, t->stack[i].func) &&
            record_latency(a, t->stack[i].func, diff(t->stack[i].tsc, rec->tsc)) != 0)
            return -1;
    for (size_t i = t->depth; i-- > from;)
        leave(a, t, t->stack[i].func);
    t->depth = from;
    return TK_XRAY_ACCOUNT_OK;
}

size_t tk_xray_account_stack(const tk_xray_account *a, uint32_t tid,
                             int32_t *funcs, size_t cap)
{
    for (size_t i = 0; i < a->threads.n; i++)
        if (a->threads.ukeys[i] == tid) {
            const thread_state *t = tk_map_value(&a->threads, i);
            for (size_t k = 0; k < t->depth && k < cap; k++)
                funcs[k] = t->stack[k].func;
            return t->depth;
        }
    return 0;
}

size_t tk_xray_account_functions(const tk_xray_account *a) { return a->funcs.n; }

typedef struct bucket {
    uint64_t value, count;
} bucket;

static int cmp_bucket(const void *x, const void *y)
{
    uint64_t a = ((const bucket *)x)->value, b = ((const bucket *)y)->value;
    return a < b ? -1 : a > b;
}

/* The k-th smallest latency (0-based) of a histogram sorted by value. */
static uint64_t kth(const bucket *b, size_t n, uint64_t k)
{
    uint64_t seen = 0;
    for (size_t i = 0; i < n; i++) {
        seen += b[i].count;
        if (k < seen)
            return b[i].value;
    }
    return b[n - 1].value;
}

static int fill_row(const func_stats *f, int32_t id, tk_xray_account_row *r)
{
    const tk_map *h = &f->hist;
    bucket *b = malloc(h->n * sizeof *b);
    if (!b)
        return -1;
    for (size_t i = 0; i < h->n; i++)
        b[i] = (bucket){h->ukeys[i], *(const uint64_t *)tk_map_value(h, i)};
    qsort(b, h->n, sizeof *b, cmp_bucket);
    r->func_id = id;
    r->count = f->count;
    r->min = f->min;
    r->max = f->max;
    r->sum = f->sum;
    /* the same element indices as llvm-xray's nth_element calls */
    r->med = kth(b, h->n, f->count / 2);
    r->p90 = kth(b, h->n, (uint64_t)floor((double)f->count * 0.9));
    r->p99 = kth(b, h->n, (uint64_t)floor((double)f->count * 0.99));
    free(b);
    return 0;
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

size_t tk_xray_account_rows(tk_xray_account *a, tk_xray_account_sort sort,
                            int descending, tk_xray_account_row **rows)
{
    size_t n = a->funcs.n;
    tk_xray_account_row *r = malloc((n ? n : 1) * sizeof *r);
    if (!r)
        return (size_t)-1;
    for (size_t i = 0; i < n; i++)
        if (fill_row(tk_map_value(&a->funcs, i), (int32_t)a->funcs.ukeys[i], &r[i]) != 0) {
            free(r);
            return (size_t)-1;
        }
    sort_spec sp = {sort, descending};
    qsort_r(r, n, sizeof *r, cmp_row, &sp); /* glibc */
    *rows = r;
    return n;
}

const char *tk_xray_account_failure_text(tk_xray_account_failure f)
{
    switch (f) {
    case TK_XRAY_ACCOUNT_EMPTY_STACK: return "exit with no open call on its thread";
    case TK_XRAY_ACCOUNT_UNMATCHED_EXIT: return "exit does not match the open call";
    default: return "ok";
    }
}
