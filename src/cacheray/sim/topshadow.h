/* The 3C shadow's part of a first-level miss in the fast pass for the
 * only level (toplevel_pass.h), when the shadow's map of lines outside
 * the cache is small (an L1's is): cs_classify_miss, cs_shadow_evict and
 * cs_shadow_fill (shadow.h, hierarchy.h) with the shadow's clock
 * and bound in the pass's locals. The same events in the same order; on
 * random traffic (every access a miss) the calls, and the stores and
 * loads of the clock around them, were a fifth of the level's work. */
#ifndef TK_CACHERAY_TOPSHADOW_H
#define TK_CACHERAY_TOPSHADOW_H

#include "cacheray/sim/hierarchy.h"

/* A new event for `line` at *now (cs_shadow_event). */
__attribute__((always_inline)) static inline uint64_t top_event(cs_shadow *h, uint64_t line,
                                                                uint64_t *now, uint64_t *bound)
{
    if (*now + 1 - *bound > h->rmask) { /* the ring is full: rare */
        h->now = *now;
        h->bound = *bound;
        cs_shadow_compact(h);
        *now = h->now;
        *bound = h->bound;
    }
    const uint64_t t = ++*now;
    h->ring[t & h->rmask] = line + 1;
    return t;
}

/* The least recent line leaves the shadow (cs_shadow_evict, small map). */
__attribute__((always_inline)) static inline void top_evict(cs_shadow *h, uint64_t *bound)
{
    uint64_t b = *bound;
    if (!h->ring[b & h->rmask])
        b = cs_shadow_next_live(h, b);
    uint64_t *r = &h->ring[b & h->rmask];
    const uint64_t line = *r - 1;
    *r = 0;
    cs_shadow_pair *p = cs_shadow_out_find(h, line);
    if (p && p->val == b)
        cs_shadow_out_remove(h, p);
    *bound = b + 1;
    h->live--;
}

/* A miss of `line` at the only level, which allocates: count its class
 * (cs_classify_miss). Returns its event time, for top_fill. */
__attribute__((always_inline)) static inline uint64_t top_classify(cs_level *L, uint64_t line,
                                                                   uint64_t *now,
                                                                   uint64_t *bound)
{
    cs_shadow *h = &L->shadow;
    const uint32_t bit = 1u << (line & 31);
    int added;
    uint32_t *v = tk_linemap_upsert(&h->seen, line >> 5, bit, &added);
    int seen = 1; /* out of memory: as cs_shadow_seen_add */
    if (v) {
        seen = (!added & ((*v & bit) != 0)); /* no branch: a coin toss on random traffic */
        *v |= bit;
    } else {
        h->oom = L->oom = 1;
    }
    L->fresh = !seen;
    /* looked for even when not seen (then absent): whether it was seen is
     * a coin toss on random traffic, a branch on it mispredicted half the
     * time */
    cs_shadow_pair *p = cs_shadow_out_find(h, line);
    if (p) { /* in the shadow, not in the cache: a conflict miss */
        h->ring[p->val & h->rmask] = 0;
        cs_shadow_out_remove(h, p);
        L->st.conflict++;
        return top_event(h, line, now, bound);
    }
    L->st.compulsory += !seen;
    L->st.capacity += seen;
    const uint64_t t = top_event(h, line, now, bound);
    if (++h->live > h->cap)
        top_evict(h, bound);
    return t;
}

/* The cache put the line in `slot`, evicting `victim` (a line) when
 * `evicted` (cs_shadow_fill, small map: the victim's slot in `out` is
 * written without a branch on whether the shadow still holds it). */
__attribute__((always_inline)) static inline void top_fill(cs_shadow *h, size_t slot,
                                                           int evicted, uint64_t victim,
                                                           uint64_t t, uint64_t bound)
{
    if (evicted) {
        const uint64_t old = h->atime[slot];
        size_t i = cs_shadow_out_home(h, victim + 1);
        while (h->out[i].key)
            i = (i + 1) & h->omask;
        h->out[i].key = old >= bound ? victim + 1 : 0;
        h->out[i].val = old;
    }
    h->atime[slot] = t;
}

#endif
