/* The 3C shadow of a cache level: would a fully associative LRU cache of
 * the same capacity, fed the same accesses (and allocating like the
 * level), hold the line? Its hits and misses sort the level's misses into
 * capacity and conflict misses; the lines it has seen make the compulsory
 * ones.
 *
 * Kept as a log of events rather than a list: every access to a line the
 * shadow takes is an event with a time (2, 3, ...), and a line's last
 * event is its place in the LRU order. The shadow holds exactly the lines
 * whose last event is at or after `bound`; evicting the least recent
 * advances `bound` past the next live event. A line's last event time
 * lives beside the level's own entry (`atime`, per cache slot) while the
 * line is in the cache, so a cache hit (most accesses) costs a compare and
 * two stores, no lookup. The ring of events is compacted (live events
 * renumbered) when it fills.
 *
 * Out of the cache, a line's time is kept one of two ways:
 *  - pages (the first level's, and those of shadows fed alone below it:
 *    hierarchy.c, queue3c.c): a 32-bit word per line, in
 *    pages of 4096 lines found by page number through a direct-mapped
 *    cache of pages (`tlb`, which holds a footprint of 1024 pages: 256 MiB
 *    of 64-byte lines) in front of a table; 0 never seen, below the bound
 *    seen but out of the shadow. A miss reads one word, a line leaving the
 *    cache writes its word (which its cache slot keeps: `wslot`), and an
 *    eviction from the shadow touches nothing but the ring. While a line
 *    is in the cache its word is stale, but not 0 (the slot's `atime` is
 *    its time), so a line in the shadow is outside the cache exactly when
 *    its word equals its live event's time. On random traffic over a
 *    dense footprint this is 4 bytes a line and no probe, where a map's
 *    probes (their lengths a coin toss) took a third of the first level's
 *    time; times stay 32-bit by a renumbering from 2 (`tmax`).
 *  - a map (a shadow beside a level below the first, and pages found
 *    sparse: a footprint scattered over many pages): the lines the shadow
 *    holds and the cache does not (at most its capacity) in a small map
 *    `out`, and whether a line was ever seen as a bit per line in a
 *    tk_linemap of 32-line chunks.
 * Pages become the map at a pass's start (cs_shadow_settle), never back.
 *
 * The hot paths take the clock (now, bound) by pointer: &h->k, or a
 * pass's copy in locals (toplevel_pass.h) that it writes back before
 * calling anything else. */
#ifndef TK_CACHERAY_SHADOW_H
#define TK_CACHERAY_SHADOW_H

#include <stddef.h>
#include <stdint.h>

#include "cacheray/sim/linemap.h"

/* What a miss takes is inlined always: GCC kept cs_shadow_miss and
 * cs_shadow_insert out of line in the first level's pass, which then ran
 * 30% more instructions. */
#define CS_SHADOW_HOT static inline __attribute__((always_inline))

typedef struct cs_shadow_pair {
    uint64_t key, val;       /* key 0: empty */
} cs_shadow_pair;

typedef struct cs_shadow_clock {
    uint64_t now, bound;     /* last event's time; first time in the shadow */
} cs_shadow_clock;

enum {
    CS_SHADOW_PAGE_SHIFT = 12,         /* lines per page: 4096 (16 KiB) */
    CS_SHADOW_TLB = 1024,              /* pages in the direct-mapped cache */
    CS_SHADOW_PAGE_FLOOR = 1024,       /* pages (16 MiB) before a density check */
    CS_SHADOW_PAGE_DENSITY = 8,        /* pages stay while 1/8 of their lines are seen */
    CS_SHADOW_PASS_EVENTS = 1 << 24    /* more than a batch's events at one level */
};

typedef struct cs_shadow_tlb {
    uint64_t pn1;            /* page number + 1; 0: empty */
    uint32_t *page;
} cs_shadow_tlb;

typedef struct cs_shadow {
    cs_shadow_clock k;
    uint64_t tmax;           /* the last time an event may take before a compaction */
    uint64_t live, cap;      /* lines held, and at most */
    uint64_t *ring;          /* event t at t & rmask: line + 1, 0 once dead */
    size_t rmask;
    uint64_t *atime;         /* per cache slot: its line's last event, 0 none */
    size_t nslots;
    /* pages */
    int paged;               /* 1: times in pages; 0: `out` and `seen` */
    int sparse;              /* pages found sparse: the map from the next pass on */
    tk_linemap pagemap;      /* page number -> index in `pages` */
    uint32_t **pages;
    size_t npages, cap_pages;
    cs_shadow_tlb *tlb;      /* CS_SHADOW_TLB pages lately found, by page number */
    uint32_t **wslot;        /* per cache slot: its line's word (for its leaving) */
    uint32_t *fill_word;     /* the word of the line a miss will fill in */
    uint32_t lost;           /* a line's word when out of memory */
    /* the map: lines in the shadow, not in the cache: line + 1 -> last
     * event. Open addressing with linear probing and backward-shift
     * deletion; at most cap entries, so never more than half full. */
    cs_shadow_pair *out;
    size_t omask;
    unsigned oshift;
    tk_linemap seen;         /* lines ever seen: line >> 5 -> bit (line & 31) */
    uint64_t *tmp;           /* compaction: live lines in order */
    uint64_t ahead_at;       /* eviction's look-ahead: the last event looked at, */
    uint64_t ahead;          /* and the live events from the bound to it */
    int oom;
} cs_shadow;

/* A shadow of `cap` lines beside a cache of `nslots` slots, starting with
 * pages if `pages` (else the map). 0 ok, -1 out of memory. */
int cs_shadow_init(cs_shadow *h, uint64_t cap, size_t nslots, int pages);
void cs_shadow_free(cs_shadow *h);
/* At a pass's start, with no clock in locals: pages found sparse become
 * the map, and times near 32 bits are renumbered (a pass takes fewer than
 * CS_SHADOW_PASS_EVENTS events). */
void cs_shadow_settle_slow(cs_shadow *h);
static inline void cs_shadow_settle(cs_shadow *h)
{
    if (h->sparse || h->k.now >= h->tmax)
        cs_shadow_settle_slow(h);
}

void cs_shadow_compact(cs_shadow *h);
/* The first live event at or after t (there is one). */
uint64_t cs_shadow_next_live(const cs_shadow *h, uint64_t t);

/* Slots of an out map small enough to stay in the CPU's L1 (16 KiB). */
enum { CS_SHADOW_SMALL_OUT = 1024 };

/* The hot paths are inline below: a miss took up to five calls between
 * files, and one level on random traffic 7% more instructions. */

/* ---- pages */

/* The word of `line` whose page is not in the tlb (then put there; the
 * page is created when new; &h->lost when out of memory). */
uint32_t *cs_shadow_word_slow(cs_shadow *h, uint64_t line);

/* The word of `line` when its page is in the tlb, else NULL. */
static inline uint32_t *cs_shadow_word_fast(const cs_shadow *h, uint64_t line)
{
    const uint64_t pn = line >> CS_SHADOW_PAGE_SHIFT;
    const cs_shadow_tlb *e = &h->tlb[pn & (CS_SHADOW_TLB - 1)];
    return e->pn1 == pn + 1 ? e->page + (line & ((1u << CS_SHADOW_PAGE_SHIFT) - 1)) : NULL;
}

/* Ask for the word of `line` early: it, when its page is in the tlb (for
 * the miss to come), else NULL. */
static inline uint32_t *cs_shadow_prefetch_word(const cs_shadow *h, uint64_t line)
{
    uint32_t *w = cs_shadow_word_fast(h, line);
    if (w)
        __builtin_prefetch(w);
    return w;
}

/* The word of `line` (page mode). */
CS_SHADOW_HOT uint32_t *cs_shadow_word(cs_shadow *h, uint64_t line)
{
    uint32_t *w = cs_shadow_word_fast(h, line);
    return w ? w : cs_shadow_word_slow(h, line);
}

/* ---- the map: lines in the shadow, not in the cache */

/* The first slot in `out` for key line + 1. */
static inline size_t cs_shadow_out_home(const cs_shadow *h, uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> h->oshift);
}

static inline cs_shadow_pair *cs_shadow_out_find(const cs_shadow *h, uint64_t line)
{
    for (size_t i = cs_shadow_out_home(h, line + 1); h->out[i].key; i = (i + 1) & h->omask)
        if (h->out[i].key == line + 1)
            return &h->out[i];
    return NULL;
}

/* `line` is not there (the caller knows). */
static inline void cs_shadow_out_add(cs_shadow *h, uint64_t line, uint64_t t)
{
    size_t i = cs_shadow_out_home(h, line + 1);
    while (h->out[i].key)
        i = (i + 1) & h->omask;
    h->out[i] = (cs_shadow_pair){line + 1, t};
}

/* Backward-shift deletion: later entries of the run move up to keep every
 * entry reachable from its home without tombstones. */
static inline void cs_shadow_out_remove(cs_shadow *h, cs_shadow_pair *p)
{
    size_t i = (size_t)(p - h->out);
    for (size_t j = (i + 1) & h->omask; h->out[j].key; j = (j + 1) & h->omask) {
        size_t home = cs_shadow_out_home(h, h->out[j].key);
        /* j's entry may fill the hole at i unless its home lies in (i, j] */
        if (((j - home) & h->omask) >= ((j - i) & h->omask)) {
            h->out[i] = h->out[j];
            i = j;
        }
    }
    h->out[i].key = 0;
}

/* Mark `line` seen: 1 when it was already. */
static inline int cs_shadow_seen_add(cs_shadow *h, uint64_t line)
{
    int added;
    uint32_t bit = 1u << (line & 31);
    uint32_t *v = tk_linemap_upsert(&h->seen, line >> 5, bit, &added);
    if (!v) {
        h->oom = 1;
        return 1;
    }
    if (added)
        return 0;
    int was = (*v & bit) != 0;
    *v |= bit;
    return was;
}

/* ---- events */

/* The lines of the next live events past the bound leave the shadow
 * soon: their slots in a big `out` map (each a cache miss) are asked for
 * this many evictions early. A cursor walks ahead of the bound, counting
 * the live events it passed (some die before the bound gets there: then
 * it runs a little closer). */
enum { CS_SHADOW_EVICT_AHEAD = 16, CS_SHADOW_EVICT_SCAN = 64 };

static inline void cs_shadow_evict_ahead(cs_shadow *h, const cs_shadow_clock *k)
{
    if (h->ahead_at < k->bound) { /* started, or a compaction renumbered */
        h->ahead_at = k->bound;
        h->ahead = 0;
    } else if (h->ahead) {
        h->ahead--; /* the one leaving now */
    }
    for (int n = 0; h->ahead < CS_SHADOW_EVICT_AHEAD && n < CS_SHADOW_EVICT_SCAN &&
                    h->ahead_at < k->now;
         n++) {
        uint64_t key = h->ring[++h->ahead_at & h->rmask];
        if (key) {
            __builtin_prefetch(&h->out[cs_shadow_out_home(h, key)]);
            h->ahead++;
        }
    }
}

/* The least recent line leaves the shadow: with pages, by its time
 * falling below the bound; with the map, also from `out` (if there). */
CS_SHADOW_HOT void cs_shadow_evict(cs_shadow *h, cs_shadow_clock *k)
{
    uint64_t b = k->bound;
    if (!h->ring[b & h->rmask]) /* live mostly: every event a miss's */
        b = cs_shadow_next_live(h, b);
    uint64_t *r = &h->ring[b & h->rmask], line = *r - 1;
    *r = 0;
    if (!h->paged) {
        if (h->omask >= CS_SHADOW_SMALL_OUT) {
            k->bound = b;
            cs_shadow_evict_ahead(h, k);
        }
        cs_shadow_pair *p = cs_shadow_out_find(h, line);
        if (p && p->val == b)
            cs_shadow_out_remove(h, p);
    }
    k->bound = b + 1;
    h->live--;
}

/* A new event for `line`: its time. */
CS_SHADOW_HOT uint64_t cs_shadow_event(cs_shadow *h, cs_shadow_clock *k, uint64_t line)
{
    if (k->now + 1 - k->bound > h->rmask) { /* rare */
        h->k = *k;
        cs_shadow_compact(h);
        *k = h->k;
    }
    const uint64_t t = ++k->now;
    h->ring[t & h->rmask] = line + 1;
    return t;
}

/* `line` enters the shadow as the most recent: its event time. */
CS_SHADOW_HOT uint64_t cs_shadow_insert(cs_shadow *h, cs_shadow_clock *k, uint64_t line)
{
    const uint64_t t = cs_shadow_event(h, k, line);
    if (++h->live > h->cap)
        cs_shadow_evict(h, k);
    return t;
}

/* An access to `line`, held by the cache in `slot`: 1 when the shadow
 * holds it too. A miss there inserts it if `allocate`. */
static inline int cs_shadow_hit(cs_shadow *h, size_t slot, uint64_t line, int allocate)
{
    uint64_t old = h->atime[slot];
    if (old >= h->k.bound) { /* bound >= 2: 0 (none) is never in */
        h->ring[old & h->rmask] = 0; /* dead: a compaction must not see it */
        h->atime[slot] = 0;
        h->atime[slot] = cs_shadow_event(h, &h->k, line);
        return 1;
    }
    if (allocate)
        h->atime[slot] = cs_shadow_insert(h, &h->k, line);
    return 0;
}

/* An access to `line`, not in the cache: 1 when the shadow holds it;
 * *seen tells whether the line was accessed before. If `allocate` the
 * cache will take the line: pass *t to cs_shadow_fill. w: the line's word
 * if the caller has it (page mode), else NULL. */
CS_SHADOW_HOT int cs_shadow_miss(cs_shadow *h, cs_shadow_clock *k, uint64_t line, uint32_t *w,
                                 int allocate, int *seen, uint64_t *t)
{
    if (h->paged) {
        if (!w)
            w = cs_shadow_word(h, line);
        const uint32_t old = *w;
        *seen = old != 0;
        h->fill_word = w;
        if (old >= k->bound) { /* in the shadow, out of the cache */
            h->ring[old & h->rmask] = 0; /* dead before the event's compaction */
            *t = cs_shadow_event(h, k, line);
            if (!allocate)
                *w = (uint32_t)*t;
            return 1;
        }
        *w = old | (old == 0); /* seen (a word in the cache is stale, but not 0) */
        *t = allocate ? cs_shadow_insert(h, k, line) : 0;
        return 0;
    }
    *seen = cs_shadow_seen_add(h, line);
    /* looked for even when not seen (then absent): whether it was seen is
     * a coin toss on random traffic, a branch on it mispredicted half the
     * time */
    cs_shadow_pair *p = cs_shadow_out_find(h, line);
    if (!p) {
        *t = allocate ? cs_shadow_insert(h, k, line) : 0;
        return 0;
    }
    /* a hit: the old event dies, the line leaves `out` (before the new
     * event, whose compaction must see neither) and, unless the cache
     * takes it, comes back with its new time */
    h->ring[p->val & h->rmask] = 0;
    cs_shadow_out_remove(h, p);
    *t = cs_shadow_event(h, k, line);
    if (!allocate)
        cs_shadow_out_add(h, line, *t);
    return 1;
}

/* A line leaving the cache from `slot` stays in the shadow if it is there.
 * With pages its word takes its time. With the map, whether it is there is
 * a coin toss for a cache of mostly capacity misses: a small map (in the
 * CPU's L1) is probed without a branch (an empty slot written with key 0
 * stays empty), a big one only when needed (its probe is a cache miss). */
CS_SHADOW_HOT void cs_shadow_leave_cache(cs_shadow *h, const cs_shadow_clock *k, size_t slot,
                                         uint64_t line)
{
    const uint64_t t = h->atime[slot];
    if (h->paged) {
        *h->wslot[slot] = (uint32_t)t;
        return;
    }
    if (h->omask >= CS_SHADOW_SMALL_OUT && t < k->bound)
        return;
    size_t i = cs_shadow_out_home(h, line + 1);
    while (h->out[i].key)
        i = (i + 1) & h->omask;
    h->out[i].key = t >= k->bound ? line + 1 : 0;
    h->out[i].val = t;
}

/* The cache put the line of the last cs_shadow_miss, whose event is
 * `t`, in `slot`, evicting `victim` (a line, or UINT64_MAX for none). */
CS_SHADOW_HOT void cs_shadow_fill(cs_shadow *h, const cs_shadow_clock *k, size_t slot,
                                  uint64_t victim, uint64_t t)
{
    if (victim != UINT64_MAX)
        cs_shadow_leave_cache(h, k, slot, victim);
    if (h->paged)
        h->wslot[slot] = h->fill_word;
    h->atime[slot] = t;
}

/* ---- a shadow fed alone (no cache beside it: nslots 0). A level below
 * the first takes its requests' classes from one (queue3c.c): its shadow
 * follows its requests only, not what its cache holds. A line's time is
 * then always in its word (pages) or in `out` (the map: every line the
 * shadow holds). */

/* An access to `line` (the map; queue3c.c has the pages' copy): 1 when
 * the shadow held it; *seen: whether the line was accessed before. The
 * shadow takes it if `allocate`. */
CS_SHADOW_HOT int cs_shadow_access_map(cs_shadow *h, cs_shadow_clock *k, uint64_t line,
                                       int allocate, int *seen)
{
    *seen = cs_shadow_seen_add(h, line);
    cs_shadow_pair *p = cs_shadow_out_find(h, line);
    if (p) { /* a compaction in the event leaves p where it is */
        h->ring[p->val & h->rmask] = 0;
        p->val = cs_shadow_event(h, k, line);
        return 1;
    }
    if (allocate) /* the eviction first: it may move entries of `out` */
        cs_shadow_out_add(h, line, cs_shadow_insert(h, k, line));
    return 0;
}

/* The cache dropped `line` from `slot` (an invalidation). */
static inline void cs_shadow_drop(cs_shadow *h, size_t slot, uint64_t line)
{
    cs_shadow_leave_cache(h, &h->k, slot, line);
    h->atime[slot] = 0;
}

#endif
