/* The miss of the fast passes (toplevel_pass.h, stream_pass.h): the
 * victim's search unrolled for the way count (setscan.h), the events of
 * cs_miss in its order. */
#ifndef TK_CACHERAY_LRUMISS_H
#define TK_CACHERAY_LRUMISS_H

#include "cacheray/sim/hierarchy.h"
#include "cacheray/sim/setscan.h"

/* A miss of `line` at level k: cs_miss's events (hierarchy.c), for the
 * common shape of a level: LRU, a power-of-two number of sets of
 * `ways` (4, 8, 16), write-back, write-allocate, and either the first
 * level or not inclusive (with nothing above, its victim invalidates
 * nothing). Returns the levels missed on the demand path. */
__attribute__((always_inline)) static inline unsigned cs_lru_miss(tk_cachesim *s, size_t k,
                                                                  uint64_t line, int write,
                                                                  const uint32_t ways,
                                                                  const int classify)
{
    cs_level *L = &s->lv[k];
    cs_cache *c = &L->c;
    L->st.read_misses += !write;
    L->st.write_misses += write;
    const uint64_t t = classify ? cs_classify_miss(L, line, write, s) : 0;
    const uint64_t first = line << L->shift, bytes = 1ULL << L->shift;
    const unsigned mask = 1u << k | cs_send(s, k + 1, first, first + (bytes - 1), 0, 1);
    const uint64_t at = (line & c->set_mask) * ways;
    const uint64_t w = at + lru_way(c->stamp + at, ways);
    c->stamp[w] = ++c->clock;
    const uint64_t victim = c->e[w] ? c->e[w] | (uint64_t)c->dirty[w] << 1 : 0;
    c->e[w] = line << 2 | CS_VALID;
    c->dirty[w] = (uint8_t)write;
    if (classify)
        cs_shadow_fill(&L->shadow, w, victim ? victim >> 2 : UINT64_MAX, t);
    L->last = line + 1;
    L->last_slot = c->dirty + w;
    if (victim & CS_DIRTY) { /* not inclusive: evict's writeback only */
        const uint64_t vfirst = (victim >> 2) << L->shift;
        L->st.writebacks++;
        cs_send(s, k + 1, vfirst, vfirst + (bytes - 1), 1, 0);
    }
    return mask;
}

#endif
