/* The levels below the first, level by level. A level's requests (fetches
 * of the lines the level above missed, writebacks, forwarded writes) are
 * queued while the level above takes the batch, then served in order in
 * one loop. Without an inclusive level (the only way a level changes the
 * one above it), each level sees exactly the requests, in exactly the
 * order, it would see served one at a time: the results are the same.
 * What is gained is the loop: the sets, stamps and 3C times of the
 * requests a few places ahead are fetched while the current one is
 * served, where each random access to a big level's tables was a wait
 * for memory of its own. */
#include <stdlib.h>

#include "cacheray/sim/hierarchy.h"

/* Requests looked ahead: enough to cover a trip to memory. */
enum { AHEAD = 8 };

void cs_stream_init(tk_cachesim *s)
{
    s->stream = s->nlevels > 1;
    for (size_t k = 1; k < s->nlevels; k++)
        if (s->lv[k].inclusive)
            s->stream = 0;
}

void cs_stream_free(tk_cachesim *s)
{
    for (size_t k = 0; k < TK_CACHESIM_MAX_LEVELS; k++)
        free(s->queue[k].v);
}

int cs_stream_push(tk_cachesim *s, size_t k, uint64_t lo, uint64_t hi, int write,
                   int32_t origin)
{
    cs_queue *q = &s->queue[k];
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 2 * CS_BATCH;
        cs_req *v = realloc(q->v, cap * sizeof *v);
        if (!v)
            return -1;
        q->v = v;
        q->cap = cap;
    }
    q->v[q->n++] = (cs_req){lo, hi, origin, (uint32_t)write};
    return 0;
}

/* The cache lines of level L a request for `addr` will read: its set's
 * entries and stamps, and the set's 3C times. */
static void prefetch(const cs_level *L, uint64_t addr)
{
    const cs_cache *c = &L->c;
    if (c->hashed)
        return;
    size_t at = (size_t)(cs_set_of(c, addr >> L->shift) * c->ways);
    for (uint32_t w = 0; w < c->ways; w += 8) { /* a cache line of 8-byte words */
        if (w % 64 == 0)
            __builtin_prefetch(&c->dirty[at + w]);
        __builtin_prefetch(&c->e[at + w]);
        if (c->stamp)
            __builtin_prefetch(&c->stamp[at + w]);
        if (L->classify)
            __builtin_prefetch(&L->shadow.atime[at + w]);
    }
    if (L->classify) { /* for a miss: the shadow's lines out of the cache, and lines seen */
        const cs_shadow *h = &L->shadow;
        uint64_t line = addr >> L->shift;
        __builtin_prefetch(&h->out[cs_shadow_out_home(h, line + 1)]);
        size_t i = tk_linemap_slot(&h->seen, line >> 5);
        __builtin_prefetch(&h->seen.keys[i]);
        __builtin_prefetch(&h->seen.vals[i]);
    }
}

/* Later, when the set has arrived: the line a miss would evict (LRU and
 * FIFO: the oldest stamp) leaves the cache for the 3C shadow's map of
 * lines outside it, where its slot is a miss of its own. */
static void prefetch_victim(const cs_level *L, uint64_t addr)
{
    const cs_cache *c = &L->c;
    if (c->hashed || !c->stamp || !L->classify)
        return;
    size_t at = (size_t)(cs_set_of(c, addr >> L->shift) * c->ways);
    uint64_t victim = c->e[at + cs_oldest_way(c->stamp + at, c->ways)];
    if (victim)
        __builtin_prefetch(&L->shadow.out[cs_shadow_out_home(&L->shadow, (victim >> 2) + 1)]);
}

void cs_stream_run(tk_cachesim *s, cs_batch *b) { cs_stream_levels(s, b->mask, &s->queue[1]); }

void cs_stream_levels(tk_cachesim *s, uint8_t *masks, cs_queue *q1)
{
    for (size_t k = 1; k < s->nlevels; k++) {
        cs_queue *q = k == 1 ? q1 : &s->queue[k];
        const cs_level *L = &s->lv[k];
        for (size_t r = 0; r < q->n && r < AHEAD; r++)
            prefetch(L, q->v[r].lo);
        for (size_t r = 0; r < q->n; r++) {
            if (r + AHEAD < q->n)
                prefetch(L, q->v[r + AHEAD].lo);
            if (r + AHEAD / 2 < q->n)
                prefetch_victim(L, q->v[r + AHEAD / 2].lo);
            const cs_req *x = &q->v[r]; /* only level k + 1's queue grows now */
            s->lv[k].origin = x->origin;
            unsigned m = cs_access_range(s, k, x->lo, x->hi, (int)x->write);
            if (x->origin >= 0)
                masks[x->origin] |= (uint8_t)m;
        }
        q->n = 0;
    }
}
