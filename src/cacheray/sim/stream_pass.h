/* The levels below the first: the loop serving a level's requests
 * (stream.c), with a fast copy for the common shape of a level. A
 * template: stream.c instantiates it for any CPU, stream_avx2.c, compiled
 * with -mavx2, with the set scans in AVX2 (setscan.h). Each defines
 * CS_SERVE_PASSES' functions as its own statics. */
#ifndef TK_CACHERAY_STREAM_PASS_H
#define TK_CACHERAY_STREAM_PASS_H

#include "cacheray/sim/hierarchy.h"
#include "cacheray/sim/lrumiss.h"

/* Requests looked ahead: enough to cover a trip to memory. */
enum { AHEAD = 8, WAYS_ANY = 0 /* serve's `ways` for the general copy */ };

typedef void (*cs_serve_fn)(tk_cachesim *s, size_t k, uint8_t *masks, cs_queue *q);

/* The cache lines of level L a request for `addr` will read: its set's
 * entries and stamps, and with a 3C shadow beside the cache the set's
 * times and the shadow's tables (a level whose requests carry their
 * classes, cs_level.queued, has none to read). `ways`: the level's, when
 * the caller's copy has it as a constant (the loop then unrolled; the
 * level has the fast shape: LRU, sets a power of two), else WAYS_ANY;
 * `classify` then the fast copy's (fast_line), else unused. */
static inline void prefetch(const cs_level *L, uint64_t addr, const uint32_t ways,
                            const int classify)
{
    const cs_cache *c = &L->c;
    const int any = ways == WAYS_ANY;
    if (any && c->hashed)
        return;
    const uint32_t nways = any ? c->ways : ways;
    const int beside = any ? L->classify && !L->queued : classify == 1;
    const uint64_t line = addr >> L->shift;
    size_t at = (size_t)((any ? cs_set_of(c, line) : line & c->set_mask) * nways);
    for (uint32_t w = 0; w < nways; w += 8) { /* a cache line of 8-byte words */
        if (w % 64 == 0)
            __builtin_prefetch(&c->dirty[at + w]);
        __builtin_prefetch(&c->e[at + w]);
        if (!any || c->stamp)
            __builtin_prefetch(&c->stamp[at + w]);
        if (beside)
            __builtin_prefetch(&L->shadow.atime[at + w]);
    }
    /* for a miss: the shadow's lines out of the cache, and lines seen (a
     * shadow beside a level below the first keeps the map: hierarchy.c) */
    if (beside) {
        const cs_shadow *h = &L->shadow;
        __builtin_prefetch(&h->out[cs_shadow_out_home(h, line + 1)]);
        size_t i = tk_linemap_slot(&h->seen, line >> 5);
        __builtin_prefetch(&h->seen.keys[i]);
        __builtin_prefetch(&h->seen.vals[i]);
    }
}

/* Later, when the set has arrived: the line a miss would evict (the
 * oldest stamp) leaves the cache for the 3C shadow's map of lines outside
 * it, where its slot is a miss of its own. For the fast copies with a
 * shadow beside the cache. Returns the way found, for the miss to use if
 * still valid (lrumiss.h). */
static inline cs_lru_hint prefetch_victim(const cs_level *L, uint64_t addr, const uint32_t ways)
{
    const cs_cache *c = &L->c;
    size_t at = (size_t)(((addr >> L->shift) & c->set_mask) * ways);
    uint32_t way = lru_way(c->stamp + at, ways);
    uint64_t victim = c->e[at + way];
    if (victim)
        __builtin_prefetch(&L->shadow.out[cs_shadow_out_home(&L->shadow, (victim >> 2) + 1)]);
    return (cs_lru_hint){way, c->stamp[at + way]};
}

/* ---- the common shape of a lower level: LRU, a power-of-two number of
 * sets of 4, 8 or 16 ways, write-back and write-allocate (no inclusive
 * level: the stream's condition). A request within one line is served
 * here with the scan and the victim's search unrolled for the way count
 * (a copy per way count and 3C setting: below with a shadow beside the
 * cache, stream_lean.h without), exactly as cs_access_line and cs_miss
 * serve it (hierarchy.c: the order of events); anything else goes through
 * them. The reference tests run both. */

/* Line `line` read or written at level k, with a 3C shadow beside the
 * cache: cs_access_line's events. */
__attribute__((always_inline)) static inline unsigned fast_line(tk_cachesim *s, size_t k,
                                                                uint64_t line, int write,
                                                                const uint32_t ways,
                                                                const cs_lru_hint hint)
{
    cs_level *L = &s->lv[k];
    cs_cache *c = &L->c;
    L->st.reads += !write;
    L->st.writes += write;
    if (line + 1 == L->last) { /* the same line again: only the dirty bit */
        *L->last_slot |= (uint8_t)write;
        return 0;
    }
    L->last = 0;
    const uint64_t at = (line & c->set_mask) * ways;
    const uint64_t match = scan(c->e + at, line << 2 | CS_VALID, ways);
    if (!match)
        return cs_lru_miss(s, k, line, write, ways, 1, hint);
    const uint64_t w = at + (uint64_t)__builtin_ctzll(match);
    c->stamp[w] = ++c->clock;
    c->dirty[w] |= (uint8_t)write;
    cs_shadow_hit(&L->shadow, w, line, 1); /* write-allocate: the shadow takes it either way */
    L->last = line + 1;
    L->last_slot = c->dirty + w;
    return 0;
}

/* Level k's requests from q, each miss added to its access's mask: the
 * fast shape with a 3C shadow beside the cache (`ways` 4, 8 or 16), or
 * any level (WAYS_ANY). */
__attribute__((always_inline)) static inline void serve(tk_cachesim *s, size_t k,
                                                        uint8_t *masks, cs_queue *q,
                                                        const uint32_t ways)
{
    const cs_level *L = &s->lv[k];
    const unsigned shift = L->shift;
    const int fast = ways != WAYS_ANY, classify = fast; /* prefetch's */
    for (size_t r = 0; r < q->n && r < AHEAD; r++)
        prefetch(L, q->v[r].lo, ways, classify);
    /* the victims' ways found by prefetch_victim, request r's at r % HINTS */
    enum { HINTS = AHEAD / 2 };
    cs_lru_hint hints[HINTS];
    for (size_t r = 0; r < HINTS; r++)
        hints[r] = (cs_lru_hint){CS_NO_HINT, 0};
    for (size_t r = 0; r < q->n; r++) {
        if (r + AHEAD < q->n)
            prefetch(L, q->v[r + AHEAD].lo, ways, classify);
        cs_lru_hint hint = {CS_NO_HINT, 0};
        if (fast) {
            hint = hints[r % HINTS];
            hints[r % HINTS] = r + HINTS < q->n ? prefetch_victim(L, q->v[r + HINTS].lo, ways)
                                                : (cs_lru_hint){CS_NO_HINT, 0};
        }
        const cs_req *x = &q->v[r]; /* only level k + 1's queue grows now */
        s->lv[k].origin = x->origin;
        s->lv[k].cls = x->cls;
        unsigned m;
        if (fast && x->lo >> shift == x->hi >> shift && x->lo <= x->hi)
            m = fast_line(s, k, x->lo >> shift, (int)x->write, ways, hint);
        else
            m = cs_access_range(s, k, x->lo, x->hi, (int)x->write);
        if (x->origin >= 0)
            masks[x->origin] |= (uint8_t)m;
    }
    q->n = 0;
}

#include "cacheray/sim/stream_lean.h"

#define SERVE(ways)                                                                        \
    static void serve##ways(tk_cachesim *s, size_t k, uint8_t *m, cs_queue *q)             \
    {                                                                                      \
        serve_lean(s, k, m, q, ways, 0);                                                   \
    }                                                                                      \
    static void serve##ways##_3c(tk_cachesim *s, size_t k, uint8_t *m, cs_queue *q)        \
    {                                                                                      \
        serve(s, k, m, q, ways);                                                           \
    }                                                                                      \
    static void serve##ways##_q3c(tk_cachesim *s, size_t k, uint8_t *m, cs_queue *q)       \
    {                                                                                      \
        serve_lean(s, k, m, q, ways, 2);                                                   \
    }
SERVE(4)
SERVE(8)
SERVE(16)
#undef SERVE

/* [ways 4, 8, 16] [3C: none, beside, queued] */
#define CS_SERVE_PASSES                                                                    \
    {                                                                                      \
        {serve4, serve4_3c, serve4_q3c}, {serve8, serve8_3c, serve8_q3c},                  \
            {serve16, serve16_3c, serve16_q3c},                                            \
    }

#endif
