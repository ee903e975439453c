/* The 3C shadow of a cache level: would a fully associative LRU cache of
 * the same capacity, fed the same accesses (and allocating like the
 * level), hold the line? Its hits and misses sort the level's misses into
 * capacity and conflict misses; the lines it has seen make the compulsory
 * ones.
 *
 * Kept as a log of events rather than a list: every access to a line the
 * shadow takes is an event with a time (1, 2, ...), and a line's last
 * event is its place in the LRU order. The shadow holds exactly the lines
 * whose last event is at or after `bound`; evicting the least recent
 * advances `bound` past the next live event. A line's last event time
 * lives beside the level's own entry (`atime`, per cache slot) while the
 * line is in the cache, so a cache hit (most accesses) costs a compare and
 * two stores, no lookup. The few lines the shadow holds and the cache
 * does not (at most its capacity) are in a small map, `out`, which stays
 * in the CPU's caches (its own table, not a tk_linemap: times are 64-bit);
 * whether a line was ever seen is a bit per line in a tk_linemap of
 * 32-line chunks, compact for the dense footprints programs have. The
 * ring of events is compacted (live events renumbered) when it fills. */
#ifndef TK_CACHERAY_SHADOW_H
#define TK_CACHERAY_SHADOW_H

#include <stddef.h>
#include <stdint.h>

#include "cacheray/sim/linemap.h"

typedef struct cs_shadow_pair {
    uint64_t key, val;       /* key 0: empty */
} cs_shadow_pair;

typedef struct cs_shadow {
    uint64_t now, bound;     /* last event's time; first time in the shadow */
    uint64_t live, cap;      /* lines held, and at most */
    uint64_t *ring;          /* event t at t & rmask: line + 1, 0 once dead */
    size_t rmask;
    uint64_t *atime;         /* per cache slot: its line's last event, 0 none */
    size_t nslots;
    /* lines in the shadow, not in the cache: line + 1 -> last event. Open
     * addressing with linear probing and backward-shift deletion; at most
     * cap entries, so never more than half full. */
    cs_shadow_pair *out;
    size_t omask;
    unsigned oshift;
    tk_linemap seen;         /* lines ever seen: line >> 5 -> bit (line & 31) */
    uint64_t *tmp;           /* compaction: live lines in order */
    uint64_t ahead_at;       /* eviction's look-ahead: the last event looked at, */
    uint64_t ahead;          /* and the live events from the bound to it */
    int oom;
} cs_shadow;

/* The first slot in `out` for key line + 1. */
static inline size_t cs_shadow_out_home(const cs_shadow *h, uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> h->oshift);
}

/* A shadow of `cap` lines beside a cache of `nslots` slots. 0 ok, -1 out
 * of memory. */
int cs_shadow_init(cs_shadow *h, uint64_t cap, size_t nslots);
void cs_shadow_free(cs_shadow *h);

void cs_shadow_compact(cs_shadow *h);
/* The first live event at or after t (there is one). */
uint64_t cs_shadow_next_live(const cs_shadow *h, uint64_t t);

/* Slots of an out map small enough to stay in the CPU's L1 (16 KiB). */
enum { CS_SHADOW_SMALL_OUT = 1024 };

/* The hot paths are inline below: a miss took up to five calls between
 * files, and one level on random traffic 7% more instructions. */

/* ---- lines in the shadow, not in the cache */

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

/* ---- events */

/* The lines of the next live events past the bound leave the shadow
 * soon: their slots in a big `out` map (each a cache miss) are asked for
 * this many evictions early. A cursor walks ahead of the bound, counting
 * the live events it passed (some die before the bound gets there: then
 * it runs a little closer). */
enum { CS_SHADOW_EVICT_AHEAD = 16, CS_SHADOW_EVICT_SCAN = 64 };

static inline void cs_shadow_evict_ahead(cs_shadow *h)
{
    if (h->ahead_at < h->bound) { /* started, or a compaction renumbered */
        h->ahead_at = h->bound;
        h->ahead = 0;
    } else if (h->ahead) {
        h->ahead--; /* the one leaving now */
    }
    for (int n = 0; h->ahead < CS_SHADOW_EVICT_AHEAD && n < CS_SHADOW_EVICT_SCAN &&
                    h->ahead_at < h->now;
         n++) {
        uint64_t key = h->ring[++h->ahead_at & h->rmask];
        if (key) {
            __builtin_prefetch(&h->out[cs_shadow_out_home(h, key)]);
            h->ahead++;
        }
    }
}

static inline void cs_shadow_evict(cs_shadow *h)
{
    if (!h->ring[h->bound & h->rmask]) /* live mostly: every event a miss's */
        h->bound = cs_shadow_next_live(h, h->bound);
    if (h->omask >= CS_SHADOW_SMALL_OUT)
        cs_shadow_evict_ahead(h);
    uint64_t *r = &h->ring[h->bound & h->rmask], line = *r - 1;
    *r = 0;
    /* the line leaves the shadow: from `out`, or (in the cache) by its
     * time falling below the bound */
    cs_shadow_pair *p = cs_shadow_out_find(h, line);
    if (p && p->val == h->bound)
        cs_shadow_out_remove(h, p);
    h->bound++;
    h->live--;
}

/* A new event for `line`: its time. */
static inline uint64_t cs_shadow_event(cs_shadow *h, uint64_t line)
{
    if (h->now + 1 - h->bound > h->rmask)
        cs_shadow_compact(h);
    uint64_t t = ++h->now;
    h->ring[t & h->rmask] = line + 1;
    return t;
}

/* `line` enters the shadow as the most recent: its event time. */
static inline uint64_t cs_shadow_insert(cs_shadow *h, uint64_t line)
{
    uint64_t t = cs_shadow_event(h, line);
    if (++h->live > h->cap)
        cs_shadow_evict(h);
    return t;
}

/* An access to `line`, held by the cache in `slot`: 1 when the shadow
 * holds it too. A miss there inserts it if `allocate`. */
static inline int cs_shadow_hit(cs_shadow *h, size_t slot, uint64_t line, int allocate)
{
    uint64_t old = h->atime[slot];
    if (old >= h->bound) { /* bound >= 1: 0 (none) is never in */
        h->ring[old & h->rmask] = 0; /* dead: a compaction must not see it */
        h->atime[slot] = 0;
        h->atime[slot] = cs_shadow_event(h, line);
        return 1;
    }
    if (allocate)
        h->atime[slot] = cs_shadow_insert(h, line);
    return 0;
}

/* ---- lines seen */

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

/* An access to `line`, not in the cache: 1 when the shadow holds it;
 * *seen tells whether the line was accessed before (looked up in the
 * lines seen when *seen is -1 on entry, else known by the caller and
 * left as it is). If `allocate` the cache will take the line: pass *t
 * to cs_shadow_fill. */
static inline int cs_shadow_miss(cs_shadow *h, uint64_t line, int allocate, int *seen,
                                 uint64_t *t)
{
    if (*seen < 0)
        *seen = cs_shadow_seen_add(h, line);
    cs_shadow_pair *p = *seen ? cs_shadow_out_find(h, line) : NULL;
    if (!p) {
        *t = allocate ? cs_shadow_insert(h, line) : 0;
        return 0;
    }
    /* a hit: the old event dies, the line leaves `out` (before the new
     * event, whose compaction must see neither) and, unless the cache
     * takes it, comes back with its new time */
    h->ring[p->val & h->rmask] = 0;
    cs_shadow_out_remove(h, p);
    *t = cs_shadow_event(h, line);
    if (!allocate)
        cs_shadow_out_add(h, line, *t);
    return 1;
}

/* A line leaving the cache from `slot` stays in the shadow if it is there.
 * Whether it is there is a coin toss for a cache of mostly capacity
 * misses: a small map (in the CPU's L1) is probed without a branch (an
 * empty slot written with key 0 stays empty), a big one only when needed
 * (its probe is a cache miss). */
static inline void cs_shadow_leave_cache(cs_shadow *h, size_t slot, uint64_t line)
{
    uint64_t t = h->atime[slot];
    if (h->omask >= CS_SHADOW_SMALL_OUT && t < h->bound)
        return;
    size_t i = cs_shadow_out_home(h, line + 1);
    while (h->out[i].key)
        i = (i + 1) & h->omask;
    h->out[i].key = t >= h->bound ? line + 1 : 0;
    h->out[i].val = t;
}

/* The cache put a line whose last event is `t` in `slot`, evicting
 * `victim` (a line, or UINT64_MAX for none). */
static inline void cs_shadow_fill(cs_shadow *h, size_t slot, uint64_t victim, uint64_t t)
{
    if (victim != UINT64_MAX)
        cs_shadow_leave_cache(h, slot, victim);
    h->atime[slot] = t;
}

/* The cache dropped `line` from `slot` (an invalidation). */
static inline void cs_shadow_drop(cs_shadow *h, size_t slot, uint64_t line)
{
    cs_shadow_leave_cache(h, slot, line);
    h->atime[slot] = 0;
}

#endif
