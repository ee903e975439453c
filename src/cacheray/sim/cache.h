/* One level's sets: lookup, replacement (LRU, FIFO, tree-PLRU, random)
 * and invalidation.
 *
 * Entries are `line << 2 | CS_VALID`, 0 = invalid, in a flat array of
 * nsets * ways, indexed by way; dirty bits are bytes in a parallel array.
 * (Kept in the entry, a hit's write to it made the next access's scan of
 * that set wait for the store: the simulator's loop ran at half speed.)
 * Small sets (ways <= CS_SCAN_WAYS) are scanned without branches (a bit
 * per matching way); LRU and FIFO keep a stamp per way (last use /
 * insertion, 0 = invalid), so a hit costs one store and the victim is the
 * smallest stamp. Larger sets (fully
 * associative caches) find lines through a hash table and keep LRU/FIFO
 * order in linked lists. A miss fills the lowest invalid way first. */
#ifndef TK_CACHERAY_CACHE_H
#define TK_CACHERAY_CACHE_H

#include <stdint.h>

#include <tracekit/cachesim.h>

#include "cacheray/sim/linemap.h"

enum { CS_VALID = 1, CS_DIRTY = 2, CS_SCAN_WAYS = 32 };

typedef struct cs_cache {
    uint64_t nsets, set_mask; /* set_mask = nsets - 1 when a power of two */
    int pow2;
    uint32_t ways;
    tk_cachesim_policy policy;
    int hashed;
    uint64_t *e;              /* nsets * ways entries */
    uint8_t *dirty;           /* per entry */
    uint64_t *stamp;          /* small LRU/FIFO sets: per way */
    uint64_t clock;
    uint64_t *tree;           /* PLRU: tree_words per set */
    uint32_t tree_words;
    uint64_t rng;             /* random: splitmix64 state */
    /* hashed sets only */
    tk_linemap map;           /* line -> slot */
    uint32_t *prev, *next;    /* LRU/FIFO lists per set, UINT32_MAX = none */
    uint32_t *head, *tail;    /* head: most recent / newest */
    uint32_t *nvalid;
    uint64_t *vbits;          /* valid ways, vwords per set */
    uint32_t vwords;
} cs_cache;

/* nsets sets of `ways` ways (the configuration is checked). 0 ok, -1 out
 * of memory. `seed` starts the random policy's generator. */
int cs_cache_init(cs_cache *c, uint64_t nsets, uint32_t ways,
                  tk_cachesim_policy policy, uint64_t seed);
void cs_cache_free(cs_cache *c);

static inline uint64_t cs_set_of(const cs_cache *c, uint64_t line)
{
    return c->pow2 ? line & c->set_mask : line % c->nsets;
}

uint8_t *cs_hashed_hit(cs_cache *c, uint64_t line);

/* A bit per way of `s` holding `want`. */
static inline uint64_t cs_scan(const uint64_t *s, uint64_t want, uint32_t ways)
{
    uint64_t match = 0;
    for (uint32_t i = 0; i < ways; i++)
        match |= (uint64_t)(s[i] == want) << i;
    return match;
}

/* The same for 4 ways, written out (compilers do not unroll the loop). */
static inline uint64_t cs_scan4(const uint64_t *s, uint64_t want)
{
    return (uint64_t)(s[0] == want) | (uint64_t)(s[1] == want) << 1 |
           (uint64_t)(s[2] == want) << 2 | (uint64_t)(s[3] == want) << 3;
}

/* A set of `ways` scanned for `want`: the common sizes unrolled (a
 * constant `ways` leaves only its case). */
static inline uint64_t cs_scan_set(const uint64_t *s, uint64_t want, uint32_t ways)
{
    switch (ways) {
    case 4: return cs_scan4(s, want);
    case 8: return cs_scan4(s, want) | cs_scan4(s + 4, want) << 4;
    case 16:
        return cs_scan4(s, want) | cs_scan4(s + 4, want) << 4 | cs_scan4(s + 8, want) << 8 |
               cs_scan4(s + 12, want) << 12;
    default: return cs_scan(s, want, ways);
    }
}

/* The oldest way of a group: its stamp and index. */
typedef struct cs_oldest {
    uint64_t stamp;
    uint32_t way;
} cs_oldest;

/* The older of two groups, the left (lower ways) of equals. */
static inline cs_oldest cs_older(cs_oldest a, cs_oldest b)
{
    int right = b.stamp < a.stamp;
    return (cs_oldest){right ? b.stamp : a.stamp, right ? b.way : a.way};
}

/* The oldest of ways [at, at + 4) and [at, at + 8) as a tree of pairwise
 * minimums: log2(ways) steps deep where a scan from way 0 made one chain
 * of `ways` compares (60 cycles for 16 ways, on every miss of a lower level and
 * again for its victim's prefetch). The left of equals wins at every
 * step, so the first way of the smallest stamp comes out. */
static inline cs_oldest cs_oldest4(const uint64_t *st, uint32_t at)
{
    return cs_older(cs_older((cs_oldest){st[at], at}, (cs_oldest){st[at + 1], at + 1}),
                    cs_older((cs_oldest){st[at + 2], at + 2}, (cs_oldest){st[at + 3], at + 3}));
}

static inline cs_oldest cs_oldest8(const uint64_t *st, uint32_t at)
{
    return cs_older(cs_oldest4(st, at), cs_oldest4(st, at + 4));
}

/* LRU/FIFO's victim: the way of the smallest stamp, the first of equals
 * (invalid ways have stamp 0), found without branches. */
static inline uint32_t cs_oldest_way(const uint64_t *st, uint32_t ways)
{
    switch (ways) {
    case 4: return cs_oldest4(st, 0).way;
    case 8: return cs_oldest8(st, 0).way;
    case 16: return cs_older(cs_oldest8(st, 0), cs_oldest8(st, 8)).way;
    default: break;
    }
    uint32_t way = 0;
    uint64_t best = st[0];
    for (uint32_t i = 1; i < ways; i++) {
        uint64_t lt = -(uint64_t)(st[i] < best);
        way = (uint32_t)((way & ~lt) | (i & lt));
        best = (best & ~lt) | (st[i] & lt);
    }
    return way;
}

void cs_plru_touch(uint64_t *tree, uint32_t ways, uint32_t way);

/* Look `line` up; on a hit update the replacement state and return the
 * entry's dirty byte (valid until the set changes), else NULL. */
static inline uint8_t *cs_hit(cs_cache *c, uint64_t line)
{
    if (c->hashed)
        return cs_hashed_hit(c, line);
    uint32_t ways = c->ways;
    uint64_t set = cs_set_of(c, line);
    const uint64_t *s = c->e + set * ways, want = line << 2 | CS_VALID;
    uint64_t match = cs_scan_set(s, want, ways);
    if (!match)
        return NULL;
    uint32_t w = (uint32_t)__builtin_ctzll(match);
    if (c->policy == TK_CACHESIM_LRU)
        c->stamp[set * ways + w] = ++c->clock;
    else if (c->policy == TK_CACHESIM_PLRU)
        cs_plru_touch(c->tree + set * c->tree_words, ways, w);
    return c->dirty + set * ways + w; /* FIFO, random: a hit changes nothing */
}

/* Insert `line` (absent), dirty or not, replacing a victim. Returns the
 * victim's entry with CS_DIRTY when it was dirty (0 when the way was
 * invalid); *dirty is set to the new entry's dirty byte. -1 (all ones)
 * when out of memory (hashed sets). */
uint64_t cs_insert(cs_cache *c, uint64_t line, int dirty, uint8_t **dirty_out);

/* Drop `line` if present: returns its entry with CS_DIRTY when it was
 * dirty (0 when absent), and sets *slot to where it was. */
uint64_t cs_invalidate(cs_cache *c, uint64_t line, size_t *slot);

#endif
