/* Exact latency lists in bounded memory (see latency.h). */
#include "xray/analysis/latency.h"

#include "core/tempfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIRST_CHUNK 4 /* most functions are called a few times; millions may be */
#define MAX_CHUNK 2048
#define SPILL_MIN 512
#define DEFAULT_BUDGET ((uint64_t)64 << 20)
#define NBUCKETS 4096
#define READ_VALUES 8192
#define BUCKET_SELECT_MIN 4096

void tk_lat_pool_init(tk_lat_pool *p, uint64_t budget_bytes)
{
    memset(p, 0, sizeof *p);
    p->budget = (budget_bytes ? budget_bytes : DEFAULT_BUDGET) / sizeof(uint64_t);
    if (p->budget < FIRST_CHUNK)
        p->budget = FIRST_CHUNK;
    /* small budgets (tests) get small chunks, so they do spill */
    uint64_t m = p->budget / 64;
    p->max_chunk = m < FIRST_CHUNK ? FIRST_CHUNK : m > MAX_CHUNK ? MAX_CHUNK : (uint32_t)m;
    p->fd = -1;
}

void tk_lat_pool_free(tk_lat_pool *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
}

/* Bring the tail chunk's count up to date with the write pointer. */
static void sync_tail(tk_lat_list *l)
{
    if (l->tail)
        l->tail->n = (uint32_t)(l->wp - l->tail->v);
}

static void set_tail(tk_lat_list *l, tk_lat_chunk *t)
{
    l->tail = t;
    l->wp = t ? t->v + t->n : NULL;
    l->wend = t ? t->v + t->cap : NULL;
}

static void free_chunks(tk_lat_pool *p, tk_lat_list *l, tk_lat_chunk *keep)
{
    for (tk_lat_chunk *c = l->head, *next; c; c = next) {
        next = c->next;
        if (c == keep)
            continue;
        p->in_mem -= c->cap;
        free(c);
    }
    l->head = keep;
    if (keep)
        keep->next = NULL;
    set_tail(l, keep);
}

void tk_lat_list_free(tk_lat_pool *p, tk_lat_list *l)
{
    free_chunks(p, l, NULL);
    free(l->runs);
    memset(l, 0, sizeof *l);
}

static int open_spill(tk_lat_pool *p)
{
    p->fd = tk_tempfile_open("latencies");
    return p->fd < 0 ? -1 : 0;
}

/* Write the list's chunk values to the spill file as one run and keep only
 * its last chunk, emptied. Returns 0, or -1 (nothing changed) on failure. */
static int spill(tk_lat_pool *p, tk_lat_list *l)
{
    if (p->fd < 0 && open_spill(p) != 0)
        return -1;
    if (l->nruns == l->runs_cap) {
        uint32_t cap = l->runs_cap ? l->runs_cap * 2 : 4;
        tk_lat_run *r = realloc(l->runs, cap * sizeof *r);
        if (!r)
            return -1;
        l->runs = r;
        l->runs_cap = cap;
    }
    uint64_t off = p->file_end, n = 0;
    for (tk_lat_chunk *c = l->head; c; c = c->next) {
        if (tk_write_all(p->fd, c->v, c->n * sizeof(uint64_t)) != 0) {
            /* the file may hold part of the run: forget it */
            if (lseek(p->fd, (off_t)off, SEEK_SET) < 0 || ftruncate(p->fd, (off_t)off) != 0) {
                close(p->fd);
                p->fd = -1;
            }
            return -1;
        }
        n += c->n;
    }
    p->file_end += n * sizeof(uint64_t);
    p->spilled += n;
    l->runs[l->nruns++] = (tk_lat_run){off, n};
    l->tail->n = 0;
    free_chunks(p, l, l->tail);
    return 0;
}

int tk_lat_add_slow(tk_lat_pool *p, tk_lat_list *l, uint64_t v)
{
    sync_tail(l);
    tk_lat_chunk *t = l->tail;
    /* over budget, any list whose tail chunk of SPILL_MIN or more fills is
     * spilled (not only those at the largest chunk): memory is then the
     * budget plus a few KiB per list, however many lists grow at once */
    uint32_t spill_at = p->max_chunk < SPILL_MIN ? p->max_chunk : SPILL_MIN;
    if (t && t->cap >= spill_at && p->in_mem > p->budget && !p->spill_failed &&
        spill(p, l) != 0)
        p->spill_failed = 1; /* no room on disk: go on in memory */
    if (!t || t->n == t->cap) {
        uint32_t cap = !t ? FIRST_CHUNK : t->cap < p->max_chunk ? t->cap * 2 : p->max_chunk;
        if (cap > p->max_chunk)
            cap = p->max_chunk;
        tk_lat_chunk *c = malloc(sizeof *c + cap * sizeof(uint64_t));
        if (!c)
            return -1;
        c->next = NULL;
        c->n = 0;
        c->cap = cap;
        if (t)
            t->next = c;
        else
            l->head = c;
        set_tail(l, c);
        p->in_mem += cap;
    }
    *l->wp++ = v;
    l->n++;
    return 0;
}

/* ------------------------------------------------------------ selection */

static void swap(uint64_t *v, size_t i, size_t j)
{
    uint64_t t = v[i];
    v[i] = v[j];
    v[j] = t;
}

/* Put the k-th smallest of v[lo..hi] at v[k], smaller ones before it and
 * larger ones after (as nth_element; median-of-three quickselect). */
static void select_kth(uint64_t *v, size_t lo, size_t hi, size_t k)
{
    while (hi > lo) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < v[lo])
            swap(v, mid, lo);
        if (v[hi] < v[lo])
            swap(v, hi, lo);
        if (v[hi] < v[mid])
            swap(v, hi, mid);
        uint64_t pivot = v[mid];
        size_t i = lo, j = hi;
        while (i <= j) { /* Hoare partition */
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                swap(v, i, j);
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

/* The three wanted elements by quickselect; each selection leaves larger
 * values to the right for the next. */
static void select_three(uint64_t *v, size_t n, const uint64_t k[3], uint64_t out[3])
{
    size_t from = 0;
    for (int i = 0; i < 3; i++) {
        select_kth(v, from, n - 1, (size_t)k[i]);
        out[i] = v[k[i]];
        from = (size_t)k[i];
    }
}

/* Log-linear buckets over v - min: exact below 64, then 32 per power of
 * two. Monotonic, so the k-th value lies in the bucket where the running
 * count passes k; heavy tails (latencies) still spread over many buckets. */
#define LOG_SUB 5
#define LOG_BUCKETS (64 + (64 - LOG_SUB - 1) * (1 << LOG_SUB))

static inline unsigned log_bucket(uint64_t d)
{
    if (d < 64)
        return (unsigned)d;
    unsigned e = 63u - (unsigned)__builtin_clzll(d); /* >= 6 */
    unsigned sub = (unsigned)(d >> (e - LOG_SUB)) & ((1u << LOG_SUB) - 1);
    return 64u + (e - LOG_SUB - 1) * (1u << LOG_SUB) + sub;
}

/* Two passes instead of quickselect's data-dependent swaps: a histogram,
 * then the values of the (at most three) buckets holding the wanted ranks
 * are collected and selected among. Returns 0, 1 when the buckets are too
 * crowded to gain anything (caller falls back), -1 out of memory. */
static int select_by_buckets(const uint64_t *v, size_t n, const uint64_t k[3],
                             uint64_t out[3])
{
    uint64_t min = v[0];
    for (size_t i = 1; i < n; i++)
        min = v[i] < min ? v[i] : min;
    uint64_t *hist = calloc(LOG_BUCKETS, sizeof *hist);
    if (!hist)
        return -1;
    for (size_t i = 0; i < n; i++)
        hist[log_bucket(v[i] - min)]++;
    unsigned b[3];
    uint64_t below[3], total = 0;
    size_t seen = 0;
    unsigned bk = 0;
    for (int i = 0; i < 3; i++) {
        while (seen + hist[bk] <= k[i])
            seen += hist[bk++];
        b[i] = bk;
        below[i] = seen;
        if (i == 0 || b[i] != b[i - 1])
            total += hist[bk];
    }
    if (total > n / 4) {
        free(hist);
        return 1;
    }
    /* values of the wanted buckets, grouped by bucket (bucket order) */
    uint64_t *sel = malloc((size_t)(total ? total : 1) * sizeof *sel);
    if (!sel) {
        free(hist);
        return -1;
    }
    size_t start[3], fill[3];
    int slot_of[3];
    size_t at = 0;
    for (int i = 0; i < 3; i++) {
        if (i > 0 && b[i] == b[i - 1]) {
            slot_of[i] = slot_of[i - 1];
            continue;
        }
        slot_of[i] = i;
        start[i] = fill[i] = at;
        at += hist[b[i]];
    }
    for (size_t i = 0; i < n; i++) {
        unsigned x = log_bucket(v[i] - min);
        if (x == b[0])
            sel[fill[0]++] = v[i];
        else if (x == b[1])
            sel[fill[slot_of[1]]++] = v[i];
        else if (x == b[2])
            sel[fill[slot_of[2]]++] = v[i];
    }
    for (int i = 0; i < 3; i++) {
        int s = slot_of[i];
        size_t lo = start[s], hi = start[s] + hist[b[i]] - 1;
        size_t want = lo + (size_t)(k[i] - below[i]);
        select_kth(sel, lo, hi, want);
        out[i] = sel[want];
    }
    free(sel);
    free(hist);
    return 0;
}

int tk_lat_select_array(uint64_t *v, size_t n, const uint64_t k[3], uint64_t out[3])
{
    int rc = n >= BUCKET_SELECT_MIN ? select_by_buckets(v, n, k, out) : 1;
    if (rc == 1)
        select_three(v, n, k, out);
    return rc < 0 ? -1 : 0;
}

/* Call fn(ctx, values, n) over every value of the list, runs first.
 * Returns 0 or -2 on a read error. */
typedef void (*block_fn)(void *ctx, const uint64_t *v, size_t n);

static int for_each_block(tk_lat_pool *p, const tk_lat_list *l, block_fn fn, void *ctx)
{
    uint64_t buf[READ_VALUES];
    for (uint32_t r = 0; r < l->nruns; r++) {
        uint64_t off = l->runs[r].off, left = l->runs[r].n;
        while (left) {
            size_t want = left < READ_VALUES ? (size_t)left : READ_VALUES;
            ssize_t got = pread(p->fd, buf, want * sizeof *buf, (off_t)off);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0 || (size_t)got % sizeof *buf)
                return -2;
            size_t nv = (size_t)got / sizeof *buf;
            fn(ctx, buf, nv);
            off += (uint64_t)got;
            left -= nv;
        }
    }
    for (const tk_lat_chunk *c = l->head; c; c = c->next)
        fn(ctx, c->v, c->n);
    return 0;
}

int tk_lat_each(tk_lat_pool *p, tk_lat_list *l,
                void (*fn)(void *ctx, const uint64_t *v, size_t n), void *ctx)
{
    sync_tail(l);
    return for_each_block(p, l, fn, ctx);
}

typedef struct gather {
    uint64_t *v;
    size_t n;
} gather;

static void gather_block(void *ctx, const uint64_t *v, size_t n)
{
    gather *g = ctx;
    memcpy(g->v + g->n, v, n * sizeof *v);
    g->n += n;
}

/* All values in one array: the usual case. */
static int select_in_memory(tk_lat_pool *p, tk_lat_list *l, const uint64_t k[3],
                            uint64_t out[3])
{
    size_t n = (size_t)l->n;
    uint64_t *v, *own = NULL;
    if (!l->nruns && l->head == l->tail) {
        v = l->head->v; /* one chunk: select in place */
    } else {
        gather g = {malloc(n * sizeof *v), 0};
        if (!g.v)
            return -1;
        int rc = for_each_block(p, l, gather_block, &g);
        if (rc != 0) {
            free(g.v);
            return rc;
        }
        free_chunks(p, l, NULL);
        v = own = g.v;
    }
    int rc = tk_lat_select_array(v, n, k, out);
    free(own);
    return rc;
}

/* Too many values to load: narrow each wanted element's value range with
 * histograms, then collect the values left in range and select. */
typedef struct target {
    uint64_t k;            /* position wanted */
    uint64_t lo, hi;       /* the element lies in [lo, hi] ... */
    uint64_t below;        /* ... with this many values below lo */
    unsigned shift;        /* bucket width 2^shift */
    int state;             /* 0 histogram, 1 collect, 2 done */
    uint64_t *vals;
    size_t nvals, cap;
    uint64_t hist[NBUCKETS];
    uint64_t result;
} target;

typedef struct narrow {
    target t[3];
    int oom;
} narrow;

static void narrow_block(void *ctx, const uint64_t *v, size_t n)
{
    narrow *w = ctx;
    for (int i = 0; i < 3; i++) {
        target *t = &w->t[i];
        if (t->state == 0) {
            for (size_t j = 0; j < n; j++)
                if (v[j] >= t->lo && v[j] <= t->hi)
                    t->hist[(v[j] - t->lo) >> t->shift]++;
        } else if (t->state == 1) {
            for (size_t j = 0; j < n; j++)
                if (v[j] >= t->lo && v[j] <= t->hi) {
                    if (t->nvals == t->cap) { /* counted last pass: cannot happen */
                        w->oom = 1;
                        return;
                    }
                    t->vals[t->nvals++] = v[j];
                }
        }
    }
}

static void set_shift(target *t)
{
    uint64_t span = t->hi - t->lo; /* buckets cover span + 1 values */
    t->shift = 0;
    while ((span >> t->shift) >= NBUCKETS)
        t->shift++;
    memset(t->hist, 0, sizeof t->hist);
}

static int select_narrowing(tk_lat_pool *p, tk_lat_list *l, const uint64_t k[3],
                            uint64_t min, uint64_t max, uint64_t out[3])
{
    narrow *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    uint64_t collect = p->budget / 8 > 16 ? p->budget / 8 : 16;
    for (int i = 0; i < 3; i++) {
        target *t = &w->t[i];
        t->k = k[i];
        t->lo = min;
        t->hi = max;
        set_shift(t);
    }
    int rc = 0;
    for (;;) {
        int busy = 0;
        for (int i = 0; i < 3; i++)
            busy |= w->t[i].state != 2;
        if (!busy)
            break;
        rc = for_each_block(p, l, narrow_block, w);
        if (rc == 0 && w->oom)
            rc = -1;
        if (rc != 0)
            break;
        for (int i = 0; i < 3 && rc == 0; i++) {
            target *t = &w->t[i];
            if (t->state == 1) {
                select_kth(t->vals, 0, t->nvals - 1, (size_t)(t->k - t->below));
                t->result = t->vals[t->k - t->below];
                free(t->vals);
                t->vals = NULL;
                t->state = 2;
            } else if (t->state == 0) {
                uint64_t seen = t->below;
                size_t b = 0;
                while (b + 1 < NBUCKETS && seen + t->hist[b] <= t->k)
                    seen += t->hist[b++];
                uint64_t cnt = t->hist[b];
                t->below = seen;
                t->lo += (uint64_t)b << t->shift;
                uint64_t top = t->lo + ((((uint64_t)1) << t->shift) - 1);
                if (top >= t->lo && top < t->hi) /* else the old end holds */
                    t->hi = top;
                if (t->lo == t->hi) {
                    t->result = t->lo;
                    t->state = 2;
                } else if (cnt <= collect) {
                    t->vals = malloc(cnt * sizeof *t->vals);
                    if (!t->vals)
                        rc = -1;
                    t->cap = (size_t)cnt;
                    t->nvals = 0;
                    t->state = 1;
                } else {
                    set_shift(t);
                }
            }
        }
        if (rc)
            break;
    }
    for (int i = 0; i < 3; i++) {
        out[i] = w->t[i].result;
        free(w->t[i].vals);
    }
    free(w);
    free_chunks(p, l, NULL);
    return rc;
}

int tk_lat_select(tk_lat_pool *p, tk_lat_list *l, const uint64_t k[3], uint64_t min,
                  uint64_t max, uint64_t out[3])
{
    if (l->n == 0)
        return -1;
    sync_tail(l);
    /* gathering a list costs its size again: only small ones, so the peak
     * stays near the budget (one chunk is selected in place) */
    if ((!l->nruns && l->head == l->tail) || l->n <= p->budget / 8)
        return select_in_memory(p, l, k, out);
    return select_narrowing(p, l, k, min, max, out);
}
