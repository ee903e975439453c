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
void cs_shadow_evict(cs_shadow *h);

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

/* An access to `line`, not in the cache: 1 when the shadow holds it;
 * *seen tells whether the line was accessed before (looked up in the
 * lines seen when *seen is -1 on entry, else known by the caller and
 * left as it is). If `allocate` the cache will take the line: pass *t
 * to cs_shadow_fill. */
int cs_shadow_miss(cs_shadow *h, uint64_t line, int allocate, int *seen, uint64_t *t);

/* The cache put a line whose last event is `t` in `slot`, evicting
 * `victim` (a line, or UINT64_MAX for none). */
void cs_shadow_fill(cs_shadow *h, size_t slot, uint64_t victim, uint64_t t);

/* The cache dropped `line` from `slot` (an invalidation). */
void cs_shadow_drop(cs_shadow *h, size_t slot, uint64_t line);

#endif
