/* The hierarchy on the worker (split3c.h, pipe.c). The worker's simulator
 * has what the levels' passes use (cs_access and below, the stream
 * passes): the levels, their queues, the configuration, and a count of
 * empty accesses given back at the end; its counts per thread hold only
 * the levels' misses. */
#include <stdlib.h>
#include <string.h>

#include "cacheray/sim/hierarchy.h"
#include "cacheray/sim/split3c.h"
#include "core/strbuf.h"

int cs_split3c_ok(const tk_cachesim *s)
{
    return s->nlevels == 1 && s->lv[0].classify && !s->stream;
}

/* The main thread's pass meanwhile. */
static void no_pass(tk_cachesim *s, cs_batch *b)
{
    (void)s;
    (void)b;
}

int cs_split3c_start(tk_cachesim *s, cs_split3c *x)
{
    memset(x, 0, sizeof *x);
    tk_cachesim *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    w->cfg = s->cfg;
    w->nlevels = s->nlevels;
    w->stream = s->stream;
    memcpy(w->lv, s->lv, sizeof s->lv);
    memcpy(w->queue, s->queue, sizeof s->queue);
    w->l1_shift = s->l1_shift;
    w->top_pass = s->top_pass;
    cs_threads_init(&w->threads, s->nlevels);
    unsigned shift = s->lv[0].shift; /* the decoder's runs */
    memset(s->lv, 0, sizeof s->lv);
    memset(s->queue, 0, sizeof s->queue);
    s->lv[0].shift = shift;
    s->top_pass = no_pass;
    x->w = w;
    return 0;
}

/* Room for type index t. -1 when out of memory. */
static int grow(cs_split3c *x, uint32_t t)
{
    void *v = x->type_misses;
    int rc = tk_array_grow_zeroed(&v, &x->ntypes, t, x->w->nlevels * sizeof *x->type_misses,
                                  16);
    x->type_misses = v;
    return rc;
}

/* One level: as pipe.c's run-by-run count, a run of one thread's summed
 * in a local. */
static void count_misses(cs_split3c *x, const cs_batch *b)
{
    tk_cachesim *w = x->w;
    const size_t n = b->n;
    for (size_t i = 0, j; i < n; i = j) {
        const uint64_t id = b->thread[i];
        uint64_t miss0 = 0;
        for (j = i; j < n && b->thread[j] == id; j++) {
            const uint32_t t = b->type[j];
            const unsigned m = b->mask[j] & 1;
            if (t >= x->ntypes && grow(x, t) != 0) {
                w->oom = 1;
                continue;
            }
            x->type_misses[t] += m;
            miss0 += m;
        }
        tk_cachesim_counts *tc = cs_threads_get(&w->threads, id);
        if (!tc) {
            w->oom = 1;
            continue;
        }
        tc->misses[0] += miss0;
    }
}

/* More levels: as pipe.c's count_below, access by access, skipping the
 * accesses that hit at the first level (most, when the split is taken). */
__attribute__((noinline)) /* keeps count_misses's loop as it was */
static void count_levels(cs_split3c *x, const cs_batch *b)
{
    tk_cachesim *w = x->w;
    const size_t nl = w->nlevels;
    for (size_t i = cs_next_set(b->mask, 0, b->n); i < b->n;
         i = cs_next_set(b->mask, i + 1, b->n)) {
        const unsigned mask = b->mask[i];
        const uint32_t t = b->type[i];
        tk_cachesim_counts *tc = cs_threads_get(&w->threads, b->thread[i]);
        if ((t >= x->ntypes && grow(x, t) != 0) || !tc) {
            w->oom = 1;
            continue;
        }
        uint64_t *c = &x->type_misses[t * nl];
        for (size_t k = 0; k < nl; k++) {
            c[k] += mask >> k & 1;
            tc->misses[k] += mask >> k & 1;
        }
    }
}

void cs_split3c_batch(cs_split3c *x, cs_batch *b, int count)
{
    tk_cachesim *w = x->w;
    w->top_pass(w, b);
    if (w->stream)
        cs_stream_run(w, b);
    if (!count)
        return;
    if (w->nlevels == 1)
        count_misses(x, b);
    else
        count_levels(x, b);
}

void cs_split3c_stop(tk_cachesim *s, cs_split3c *x)
{
    tk_cachesim *w = x->w;
    const size_t nl = w->nlevels;
    memcpy(s->lv, w->lv, sizeof s->lv);
    memcpy(s->queue, w->queue, sizeof s->queue);
    s->top_pass = w->top_pass;
    s->tot.zero_size += w->tot.zero_size;
    s->oom |= w->oom;
    for (size_t t = 0; t < x->ntypes && t < s->types.n; t++)
        for (size_t k = 0; k < nl; k++)
            s->types.v[t].pub.c.misses[k] += x->type_misses[t * nl + k];
    for (size_t i = 0; i < cs_threads_n(&w->threads); i++) { /* every id is in s's already */
        tk_cachesim_counts *tc = cs_threads_get(&s->threads, cs_threads_id(&w->threads, i));
        const tk_cachesim_counts *wc = cs_threads_at(&w->threads, i);
        if (!tc) {
            s->oom = 1;
            continue;
        }
        for (size_t k = 0; k < nl; k++)
            tc->misses[k] += wc->misses[k];
    }
    cs_threads_free(&w->threads);
    free(x->type_misses);
    free(w);
    memset(x, 0, sizeof *x);
}
