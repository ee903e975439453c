/* SHARDS: the lines hashing below a threshold enter an LRU stack; their
 * distances, scaled by 1/R, go to the binned histogram with a weight.
 * Fixed size: once more than S lines are held, the largest hashes leave
 * and the threshold drops to them; the counts taken so far are rescaled
 * by the ratio of the rates, kept as one factor (`scale`) instead of
 * touching every bin. */
#include <math.h>
#include <stdlib.h>

#include "cacheray/mrc/mrc_int.h"

#define P32 4294967296.0

int mrc_shards_init(mrc_shards *s, double rate, uint64_t max_samples)
{
    *s = (mrc_shards){0};
    s->threshold = rate >= 1.0 ? (uint64_t)1 << 32 : (uint64_t)(rate * P32);
    if (s->threshold == 0)
        s->threshold = 1;
    s->max_samples = max_samples;
    s->scale = 1.0;
    s->bin = calloc(MRC_BINS, sizeof *s->bin);
    if (!s->bin || mrc_stack_init(&s->stack) != 0) {
        mrc_shards_free(s);
        return -1;
    }
    return 0;
}

void mrc_shards_free(mrc_shards *s)
{
    free(s->bin);
    free(s->heap);
    mrc_stack_free(&s->stack);
    s->bin = NULL;
    s->heap = NULL;
}

double mrc_shards_rate(const mrc_shards *s) { return (double)s->threshold / P32; }

/* ---- a max-heap on hash */
static void sift_up(mrc_heap_item *h, size_t i)
{
    while (i > 0 && h[(i - 1) / 2].hash < h[i].hash) {
        mrc_heap_item t = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static void sift_down(mrc_heap_item *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && h[l].hash > h[m].hash)
            m = l;
        if (r < n && h[r].hash > h[m].hash)
            m = r;
        if (m == i)
            return;
        mrc_heap_item t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static int heap_push(mrc_shards *s, uint64_t line, uint32_t hash)
{
    if (s->nheap == s->capheap) {
        size_t cap = s->capheap ? 2 * s->capheap : 1024;
        mrc_heap_item *h = realloc(s->heap, cap * sizeof *h);
        if (!h)
            return -1;
        s->heap = h;
        s->capheap = cap;
    }
    s->heap[s->nheap] = (mrc_heap_item){hash, line};
    sift_up(s->heap, s->nheap++);
    return 0;
}

/* Lower the threshold to the largest hash held and evict every line at
 * or above it; the counts so far now stand for the lower rate. */
static void shrink(mrc_shards *s)
{
    uint64_t t = s->heap[0].hash;
    while (s->nheap && s->heap[0].hash >= t) {
        mrc_stack_remove(&s->stack, s->heap[0].line);
        s->heap[0] = s->heap[--s->nheap];
        sift_down(s->heap, s->nheap, 0);
    }
    s->scale *= (double)t / (double)s->threshold;
    s->threshold = t ? t : 1;
}

int mrc_shards_access(mrc_shards *s, uint64_t line, uint32_t hash)
{
    uint64_t d;
    int cold = mrc_stack_access(&s->stack, line, &d);
    if (cold < 0)
        return -1;
    double w = 1.0 / s->scale;
    s->sampled++;
    s->samples += w;
    if (cold) {
        s->cold += w;
        if (s->max_samples) {
            if (heap_push(s, line, hash) != 0)
                return -1;
            if (mrc_stack_lines(&s->stack) > s->max_samples)
                shrink(s);
        }
    } else {
        /* d sampled lines in between estimate d / R lines; spread by a
         * deterministic generator over +-1/2R so that the sampled
         * distances' steps do not show as steps in the curve (none at
         * rate 1: d exactly) */
        double scaled = (double)d;
        if (s->threshold < ((uint64_t)1 << 32)) {
            s->jitter = s->jitter * 6364136223846793005ULL + 1442695040888963407ULL;
            double u = (double)(s->jitter >> 11) * 0x1p-53 - 0.5;
            scaled = fmax(0.0, ((double)d + u) * (P32 / (double)s->threshold));
        }
        s->bin[mrc_bin_of(scaled >= 1.8e19 ? UINT64_MAX : (uint64_t)scaled)] += w;
    }
    if (mrc_stack_lines(&s->stack) > s->peak_lines)
        s->peak_lines = mrc_stack_lines(&s->stack);
    return 0;
}

double mrc_shards_miss_rate(const mrc_shards *s, uint64_t accesses, uint64_t lines)
{
    double rate = mrc_shards_rate(s), expected = (double)accesses * rate;
    /* sampled distances are whole numbers: below 4/R lines the estimate
     * has too few steps to follow the curve (rate 1 is exact anywhere) */
    if (s->sampled == 0 || expected <= 0 || (rate < 1.0 && (double)lines * rate < 4.0))
        return NAN;
    double m = s->cold;
    for (unsigned b = mrc_bin_of(lines); b < MRC_BINS; b++)
        m += s->bin[b];
    double r = m * s->scale / expected;
    return r > 1.0 ? 1.0 : r;
}
