/* Ranks of two latency lists merged, in bounded memory, for diff's
 * quantiles and Mann-Whitney U.
 *
 * U needs, for every value of A, how many values of B are below it (and
 * equal to it): the ranks in the union. The lists are not sorted and may
 * be mostly in the spill file, so the value range is cut into windows of
 * at most `cap` values of each list: a histogram pass over both
 * lists (4096 linear buckets over the range) counts the values per
 * bucket, consecutive buckets are grouped into windows, and each window
 * is one pass that collects its values of A and of B, radix-sorts them
 * and merges them. A bucket holding more than `cap` values is cut again
 * the same way (its span shrinks 4096-fold each time, so at most six
 * levels); a window of one value needs no collecting (all ties). The
 * counts below a window come from the histogram, so the ranks are exact
 * and so are the quantiles, read off the sorted windows. When each list
 * fits in `cap` (the usual case) it is one collecting pass. Small windows
 * are sorted by insertion, others by a radix sort whose digits are
 * counted in one reading. Memory: the
 * lists, two 32 KiB histograms per level, and three buffers of cap
 * values (A's and B's part of a window, the radix sort's; diff.c gives
 * cap = 1/8 of a pool's budget, 1/16 of the memory limit in bytes). */
#include "xray/analysis/diff_int.h"

#include <stdlib.h>
#include <string.h>

#define NBUCKETS 4096
#define RADIX_BITS 11
#define RADIX (1u << RADIX_BITS)
#define RADIX_PASSES 6 /* 64 bits at RADIX_BITS each */

typedef struct ranker {
    tk_lat_pool *const *pool;
    tk_lat_list *const *l;
    uint64_t cap;
    uint64_t n[2], k[2][3];
    uint64_t min[2], max[2];
    uint64_t *v[2], *tmp; /* a window's values, cap each at most */
    uint64_t *count;      /* the radix sort's, RADIX_PASSES * RADIX */
    tk_xd_rank *out;
} ranker;

typedef struct hist_pass {
    uint64_t lo, hi;
    unsigned shift;
    uint64_t *h;
} hist_pass;

static void hist_block(void *ctx, const uint64_t *v, size_t n)
{
    hist_pass *hp = ctx;
    for (size_t i = 0; i < n; i++)
        if (v[i] >= hp->lo && v[i] <= hp->hi)
            hp->h[(v[i] - hp->lo) >> hp->shift]++;
}

typedef struct collect_pass {
    uint64_t lo, hi;
    uint64_t *v;
    uint64_t n, cap;
} collect_pass;

/* A window holding the whole list: a copy. */
static void copy_block(void *ctx, const uint64_t *v, size_t n)
{
    collect_pass *c = ctx;
    if (n > c->cap - c->n)
        n = (size_t)(c->cap - c->n);
    memcpy(c->v + c->n, v, n * sizeof *v);
    c->n += n;
}

static void collect_block(void *ctx, const uint64_t *v, size_t n)
{
    collect_pass *c = ctx;
    for (size_t i = 0; i < n; i++)
        if (v[i] >= c->lo && v[i] <= c->hi && c->n < c->cap)
            c->v[c->n++] = v[i];
}

static void insertion_sort(uint64_t *v, uint64_t n)
{
    for (uint64_t i = 1; i < n; i++) {
        uint64_t x = v[i], j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* LSD radix sort of v[0..n) by v - lo, whose span needs `bits` bits: the
 * fewest passes of at most RADIX_BITS, digits of equal width, every
 * digit's counts from one reading, passes where all values share the digit
 * skipped, and the buffers swapped instead of copied back. `count` has
 * room for RADIX_PASSES * RADIX. */
static void radix_sort(uint64_t *v, uint64_t *tmp, uint64_t n, uint64_t lo, unsigned bits,
                       uint64_t *count)
{
    if (n < 32) {
        insertion_sort(v, n);
        return;
    }
    unsigned passes = bits ? (bits + RADIX_BITS - 1) / RADIX_BITS : 0;
    if (!passes)
        return;
    unsigned width = (bits + passes - 1) / passes;
    uint64_t mask = ((uint64_t)1 << width) - 1;
    memset(count, 0, (size_t)passes * ((size_t)1 << width) * sizeof *count);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t d = v[i] - lo;
        for (unsigned p = 0; p < passes; p++)
            count[((size_t)p << width) + ((d >> (p * width)) & mask)]++;
    }
    uint64_t *src = v, *dst = tmp;
    for (unsigned p = 0; p < passes; p++) {
        uint64_t *c = count + ((size_t)p << width), sum = 0;
        unsigned sh = p * width;
        if (c[((src[0] - lo) >> sh) & mask] == n)
            continue; /* one digit for all: the order stands */
        for (uint64_t d = 0; d <= mask; d++) {
            uint64_t k = c[d];
            c[d] = sum;
            sum += k;
        }
        for (uint64_t i = 0; i < n; i++)
            dst[c[((src[i] - lo) >> sh) & mask]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
}

static unsigned bits_of(uint64_t x) { return x ? 64u - (unsigned)__builtin_clzll(x) : 0; }

/* Quantiles of side s whose rank falls in [below, below + n): from
 * sorted[] (or the one value `only` when sorted is NULL). */
static void take_quantiles(ranker *r, int s, uint64_t below, uint64_t n, const uint64_t *sorted,
                           uint64_t only)
{
    for (int i = 0; i < 3; i++)
        if (r->n[s] && r->k[s][i] >= below && r->k[s][i] < below + n)
            r->out->q[s][i] = sorted ? sorted[r->k[s][i] - below] : only;
}

/* A window of one value: every value a tie. */
static void one_value(ranker *r, uint64_t v, const uint64_t cnt[2], const uint64_t below[2])
{
    r->out->u2 += cnt[0] * (2 * below[1] + cnt[1]);
    double t = (double)(cnt[0] + cnt[1]);
    r->out->ties += t * t * t - t;
    for (int s = 0; s < 2; s++)
        take_quantiles(r, s, below[s], cnt[s], NULL, v);
}

/* Merge the sorted windows: U and ties. */
static void merge(ranker *r, const uint64_t cnt[2], const uint64_t below[2])
{
    const uint64_t *a = r->v[0], *b = r->v[1];
    uint64_t i = 0, j = 0;
    while (i < cnt[0] || j < cnt[1]) {
        uint64_t x = i < cnt[0] && (j >= cnt[1] || a[i] <= b[j]) ? a[i] : b[j];
        uint64_t ca = 0, cb = 0;
        while (i + ca < cnt[0] && a[i + ca] == x)
            ca++;
        while (j + cb < cnt[1] && b[j + cb] == x)
            cb++;
        r->out->u2 += ca * (2 * (below[1] + j) + cb);
        double t = (double)(ca + cb);
        if (ca + cb > 1)
            r->out->ties += t * t * t - t;
        i += ca;
        j += cb;
    }
}

/* A window of at most cap values: collect, sort, merge. */
static int window(ranker *r, uint64_t lo, uint64_t hi, const uint64_t cnt[2],
                  const uint64_t below[2])
{
    if (lo == hi) {
        one_value(r, lo, cnt, below);
        return 0;
    }
    for (int s = 0; s < 2; s++) {
        collect_pass c = {lo, hi, r->v[s], 0, cnt[s]};
        int all = lo <= r->min[s] && hi >= r->max[s];
        if (cnt[s] && tk_lat_each(r->pool[s], r->l[s], all ? copy_block : collect_block, &c) != 0)
            return -2;
        if (c.n != cnt[s]) /* the lists changed between passes: cannot happen */
            return -2;
        radix_sort(r->v[s], r->tmp, cnt[s], lo, bits_of(hi - lo), r->count);
        take_quantiles(r, s, below[s], cnt[s], r->v[s], 0);
    }
    merge(r, cnt, below);
    return 0;
}

static int range(ranker *r, uint64_t lo, uint64_t hi, const uint64_t cnt[2],
                 const uint64_t below[2]);

/* Cut [lo, hi] into buckets, group them into windows of <= cap values. */
static int cut(ranker *r, uint64_t lo, uint64_t hi, const uint64_t below[2])
{
    unsigned shift = 0;
    while (((hi - lo) >> shift) >= NBUCKETS)
        shift++;
    uint64_t *h = calloc(2 * NBUCKETS, sizeof *h);
    if (!h)
        return -1;
    int rc = 0;
    for (int s = 0; s < 2 && rc == 0; s++) {
        hist_pass hp = {lo, hi, shift, h + s * NBUCKETS};
        if (r->n[s] && tk_lat_each(r->pool[s], r->l[s], hist_block, &hp) != 0)
            rc = -2;
    }
    uint64_t gcnt[2] = {0, 0}, gbelow[2] = {below[0], below[1]}, glo = lo, ghi = lo;
    uint64_t width = ((uint64_t)1 << shift) - 1;
    for (uint64_t b = 0; b < NBUCKETS && rc == 0 && (b << shift) <= hi - lo; b++) {
        uint64_t blo = lo + (b << shift), bhi = width > hi - blo ? hi : blo + width;
        uint64_t bc[2] = {h[b], h[NBUCKETS + b]};
        if (gcnt[0] + gcnt[1] && (gcnt[0] + bc[0] > r->cap || gcnt[1] + bc[1] > r->cap)) {
            rc = range(r, glo, ghi, gcnt, gbelow); /* flush the group */
            for (int s = 0; s < 2; s++) {
                gbelow[s] += gcnt[s];
                gcnt[s] = 0;
            }
        }
        if (gcnt[0] + gcnt[1] == 0)
            glo = blo;
        ghi = bhi;
        gcnt[0] += bc[0];
        gcnt[1] += bc[1];
    }
    if (rc == 0 && gcnt[0] + gcnt[1])
        rc = range(r, glo, ghi, gcnt, gbelow);
    free(h);
    return rc;
}

static int range(ranker *r, uint64_t lo, uint64_t hi, const uint64_t cnt[2],
                 const uint64_t below[2])
{
    if (cnt[0] + cnt[1] == 0)
        return 0;
    if (lo == hi || (cnt[0] <= r->cap && cnt[1] <= r->cap))
        return window(r, lo, hi, cnt, below);
    return cut(r, lo, hi, below);
}

int tk_xd_rank_lists(tk_lat_pool *const p[2], tk_lat_list *const l[2], const uint64_t min[2],
                     const uint64_t max[2], uint64_t cap, tk_xd_rank *out)
{
    ranker r = {p, l, cap < 16 ? 16 : cap, {l[0]->n, l[1]->n}, {{0}}, {0, 0}, {0, 0},
                {NULL, NULL}, NULL, NULL, out};
    memset(out, 0, sizeof *out);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int s = 0; s < 2; s++) {
        uint64_t n = r.n[s];
        r.k[s][0] = n / 2;
        r.k[s][1] = (uint64_t)((double)n * 0.9); /* floor, as account */
        r.k[s][2] = (uint64_t)((double)n * 0.99);
        r.min[s] = min[s];
        r.max[s] = max[s];
        if (n) {
            lo = min[s] < lo ? min[s] : lo;
            hi = max[s] > hi ? max[s] : hi;
        }
    }
    if (r.n[0] + r.n[1] == 0)
        return 0;
    /* a window holds at most cap values, and at most n[s] of side s */
    uint64_t want[2] = {r.n[0] < r.cap ? r.n[0] : r.cap, r.n[1] < r.cap ? r.n[1] : r.cap};
    uint64_t most = want[0] > want[1] ? want[0] : want[1];
    int rc = -1;
    if ((r.v[0] = malloc((want[0] ? want[0] : 1) * sizeof(uint64_t))) &&
        (r.v[1] = malloc((want[1] ? want[1] : 1) * sizeof(uint64_t))) &&
        (r.tmp = malloc(most * sizeof(uint64_t))) &&
        (r.count = malloc(RADIX_PASSES * RADIX * sizeof(uint64_t)))) {
        uint64_t below[2] = {0, 0};
        rc = range(&r, lo, hi, r.n, below);
    }
    free(r.v[0]);
    free(r.v[1]);
    free(r.tmp);
    free(r.count);
    return rc;
}
