/* The miss of the fast passes (toplevel_pass.h, stream_pass.h): the
 * victim's search unrolled for the way count (setscan.h), the events of
 * cs_miss in its order. */
#ifndef TK_CACHERAY_LRUMISS_H
#define TK_CACHERAY_LRUMISS_H

#include "cacheray/sim/hierarchy.h"
#include "cacheray/sim/setscan.h"

/* The LRU way of a set, found early (stream_pass.h: when its victim's
 * place in the 3C shadow is asked for): `way` (CS_NO_HINT: none) while
 * its stamp is still `stamp`. Stamps only grow, each to the newest, so
 * while the oldest way keeps its stamp it stays the oldest (and the first
 * of the empty ways, stamp 0, stays the first). */
enum { CS_NO_HINT = 0xFFFFFFFFu };
typedef struct cs_lru_hint {
    uint32_t way;
    uint64_t stamp;
} cs_lru_hint;

/* A miss of `line` at level k: cs_miss's events (hierarchy.c), for the
 * common shape of a level: LRU, a power-of-two number of sets of
 * `ways` (4, 8, 16), write-back, write-allocate, and either the first
 * level or not inclusive (with nothing above, its victim invalidates
 * nothing). `hint`: the set's LRU way if still valid, or CS_NO_HINT.
 * Returns the levels missed on the demand path. */
__attribute__((always_inline)) static inline unsigned cs_lru_miss(tk_cachesim *s, size_t k,
                                                                  uint64_t line, int write,
                                                                  const uint32_t ways,
                                                                  const int classify,
                                                                  const cs_lru_hint hint)
{
    cs_level *L = &s->lv[k];
    cs_cache *c = &L->c;
    L->st.read_misses += !write;
    L->st.write_misses += write;
    const uint64_t t = classify ? cs_classify_miss(L, line, write, &L->shadow.k, NULL) : 0;
    const uint64_t first = line << L->shift, bytes = 1ULL << L->shift;
    const unsigned mask = 1u << k | cs_send(s, k + 1, first, first + (bytes - 1), 0, 1);
    const uint64_t at = (line & c->set_mask) * ways;
    const uint64_t w = at + (hint.way != CS_NO_HINT && c->stamp[at + hint.way] == hint.stamp
                                 ? hint.way
                                 : lru_way(c->stamp + at, ways));
    c->stamp[w] = ++c->clock;
    const uint64_t victim = c->e[w] ? c->e[w] | (uint64_t)c->dirty[w] << 1 : 0;
    c->e[w] = line << 2 | CS_VALID;
    c->dirty[w] = (uint8_t)write;
    if (classify)
        cs_shadow_fill(&L->shadow, &L->shadow.k, w, victim ? victim >> 2 : UINT64_MAX, t);
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
