/* The hierarchy: how a line access at one level turns into fetches,
 * writebacks and forwarded writes at the next, 3C classification, and
 * back-invalidation by inclusive levels. The order of events is part of
 * the semantics (docs/formats/cacheray.md, "Cache simulation"):
 *
 *   access of line X at level k (read, or write of bytes [lo, hi]):
 *     count it; with 3C, replay it in the fully associative LRU shadow
 *           (shadow.h);
 *     hit:  update the replacement state; a write marks X dirty
 *           (write-back) or is forwarded to k+1 (write-through);
 *     miss: count and classify it; a write that does not allocate is
 *           forwarded to k+1; otherwise fetch X from k+1 (a read of X's
 *           bytes), insert X replacing a victim V; if level k is
 *           inclusive, invalidate V in every level above (a dirty copy
 *           there makes V dirty); if V is dirty, write it back to k+1;
 *           a write-through write is then forwarded to k+1.
 *
 * Below the last level is memory, which always hits. */
#include <stdlib.h>

#include "cacheray/sim/hierarchy.h"

/* Drop the lines overlapping [first, last] from the levels above k.
 * Returns 1 when one of them was dirty (its data goes down with the
 * eviction at k). */
static int back_invalidate(tk_cachesim *s, size_t k, uint64_t first, uint64_t last)
{
    int dirty = 0;
    for (size_t j = 0; j < k; j++) {
        cs_level *U = &s->lv[j];
        for (uint64_t line = first >> U->shift;; line++) {
            size_t slot;
            uint64_t old = cs_invalidate(&U->c, line, &slot);
            if (old) {
                if (U->classify && !U->queued) /* (queued: never inclusive below) */
                    cs_shadow_drop(&U->shadow, slot, line);
                U->last = 0;
                U->st.invalidations++;
                if (old & CS_DIRTY) {
                    U->st.writebacks++;
                    dirty = 1;
                }
            }
            if (line == last >> U->shift)
                break;
        }
    }
    return dirty;
}

static void evict(tk_cachesim *s, size_t k, uint64_t victim)
{
    cs_level *L = &s->lv[k];
    uint64_t first = (victim >> 2) << L->shift;
    uint64_t last = first + ((1ULL << L->shift) - 1);
    int dirty = (victim & CS_DIRTY) != 0;
    if (L->inclusive && back_invalidate(s, k, first, last))
        dirty = 1;
    if (dirty) {
        L->st.writebacks++;
        cs_send(s, k + 1, first, last, 1, 0);
    }
}

unsigned cs_miss(tk_cachesim *s, size_t k, uint64_t line, uint64_t lo, uint64_t hi,
                 int write)
{
    cs_level *L = &s->lv[k];
    unsigned mask = 1u << k;
    L->st.read_misses += !write;
    L->st.write_misses += write;
    const int beside = L->classify && !L->queued; /* the shadow kept beside the cache */
    uint64_t t = beside ? cs_classify_miss(L, line, write, &L->shadow.k, NULL) : 0;
    if (L->queued) /* the class came with the request */
        cs_count_3c(&L->st, L->cls);
    if (write && !L->write_allocate)
        return mask | cs_send(s, k + 1, lo, hi, 1, 1);
    uint64_t first = line << L->shift;
    mask |= cs_send(s, k + 1, first, first + ((1ULL << L->shift) - 1), 0, 1);
    uint8_t *slot;
    uint64_t victim = cs_insert(&L->c, line, write && L->write_back, &slot);
    if (victim == UINT64_MAX) {
        L->oom = 1;
        return mask;
    }
    if (beside)
        cs_shadow_fill(&L->shadow, &L->shadow.k, (size_t)(slot - L->c.dirty),
                       victim ? victim >> 2 : UINT64_MAX, t);
    L->last = line + 1; /* reset if an invalidation below drops it */
    L->last_slot = slot;
    if (victim)
        evict(s, k, victim);
    if (write && !L->write_back)
        mask |= cs_send(s, k + 1, lo, hi, 1, 1);
    return mask;
}

unsigned cs_access_range(tk_cachesim *s, size_t k, uint64_t first, uint64_t last,
                         int write)
{
    if (k == s->nlevels)
        return 0;
    unsigned shift = s->lv[k].shift, mask = 0;
    uint64_t line = first >> shift, end = last >> shift;
    if (line == end) /* the common case */
        return cs_access_line(s, k, line, first, last, write);
    for (;; line++) {
        uint64_t lo = line << shift, hi = lo + ((1ULL << shift) - 1);
        mask |= cs_access_line(s, k, line, lo < first ? first : lo, hi > last ? last : hi,
                               write);
        if (line == end)
            return mask;
    }
}

static unsigned log2u(uint64_t v)
{
    unsigned n = 0;
    while (v > 1) {
        v >>= 1;
        n++;
    }
    return n;
}

int cs_levels_init(tk_cachesim *s)
{
    s->nlevels = s->cfg.nlevels;
    for (size_t k = 0; k < s->nlevels; k++) {
        const tk_cachesim_level *c = &s->cfg.levels[k];
        cs_level *L = &s->lv[k];
        L->shift = log2u(c->line);
        L->write_back = c->write_back;
        L->write_allocate = c->write_allocate;
        L->inclusive = c->inclusive;
        L->classify = !(s->cfg.flags & TK_CACHESIM_NO_3C);
    }
    cs_stream_init(s); /* which levels' shadows are fed alone (queued) */
    for (size_t k = 0; k < s->nlevels; k++) {
        const tk_cachesim_level *c = &s->cfg.levels[k];
        cs_level *L = &s->lv[k];
        uint64_t lines = c->size / c->line;
        uint32_t ways = c->ways ? c->ways : (uint32_t)lines;
        /* each level's generator starts at seed + level index */
        if (cs_cache_init(&L->c, lines / ways, ways, c->policy, s->cfg.seed + k) != 0)
            return -1;
        /* pages at the first level and where the shadow is fed alone
         * (shadow.h); a shadow beside a level below the first (an
         * inclusive hierarchy, or lines shorter than above) keeps the map */
        const size_t slots = L->queued ? 0 : (size_t)lines;
        if (L->classify && cs_shadow_init(&L->shadow, lines, slots, k == 0 || L->queued) != 0)
            return -1;
    }
    return 0;
}

void cs_levels_free(tk_cachesim *s)
{
    for (size_t k = 0; k < TK_CACHESIM_MAX_LEVELS; k++) {
        cs_cache_free(&s->lv[k].c);
        cs_shadow_free(&s->lv[k].shadow);
    }
}
