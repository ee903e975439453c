/* The 3C shadow (see shadow.h): events, eviction, compaction, the map of
 * lines outside the cache and the set of lines seen. */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "cacheray/sim/shadow.h"
#include "core/hugemem.h"

static unsigned log2_pow2(size_t v) { return (unsigned)__builtin_ctzll(v); }

int cs_shadow_init(cs_shadow *h, uint64_t cap, size_t nslots)
{
    memset(h, 0, sizeof *h);
    if (cap > ((uint64_t)1 << 40))
        return -1;
    /* Room for 8x the live events: a compaction (O(ring)) then comes at
     * most every 7 cap events. */
    size_t ring = 64;
    while (ring < 8 * cap)
        ring *= 2;
    h->rmask = ring - 1;
    h->cap = cap;
    h->bound = 1;
    h->nslots = nslots;
    size_t out = 64;
    while (out < 2 * cap)
        out *= 2;
    h->omask = out - 1;
    h->oshift = 64 - log2_pow2(out);
    h->ring = tk_table_calloc(ring, sizeof *h->ring);
    h->atime = tk_table_calloc(nslots, sizeof *h->atime);
    h->tmp = tk_table_calloc(cap, sizeof *h->tmp);
    h->out = tk_table_calloc(out, sizeof *h->out);
    if (!h->ring || !h->atime || !h->tmp || !h->out || tk_linemap_init(&h->seen, 512) != 0) {
        cs_shadow_free(h);
        return -1;
    }
    return 0;
}

void cs_shadow_free(cs_shadow *h)
{
    tk_table_free(h->ring, h->rmask + 1, sizeof *h->ring);
    tk_table_free(h->atime, h->nslots, sizeof *h->atime);
    tk_table_free(h->tmp, h->cap, sizeof *h->tmp);
    tk_table_free(h->out, h->omask + 1, sizeof *h->out);
    tk_linemap_free(&h->seen);
    memset(h, 0, sizeof *h);
}

/* Slots of an out map small enough to stay in the CPU's L1 (16 KiB). */
#define CS_SHADOW_SMALL_OUT 1024

/* ---- lines seen */

/* Mark `line` seen: 1 when it was already. */
static int seen_add(cs_shadow *h, uint64_t line)
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

/* ---- lines in the shadow, not in the cache */

static cs_shadow_pair *out_find(const cs_shadow *h, uint64_t line)
{
    for (size_t i = cs_shadow_out_home(h, line + 1); h->out[i].key; i = (i + 1) & h->omask)
        if (h->out[i].key == line + 1)
            return &h->out[i];
    return NULL;
}

/* `line` is not there (the caller knows). */
static void out_add(cs_shadow *h, uint64_t line, uint64_t t)
{
    size_t i = cs_shadow_out_home(h, line + 1);
    while (h->out[i].key)
        i = (i + 1) & h->omask;
    h->out[i] = (cs_shadow_pair){line + 1, t};
}

/* Backward-shift deletion: later entries of the run move up to keep every
 * entry reachable from its home without tombstones. */
static void out_remove(cs_shadow *h, cs_shadow_pair *p)
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

#ifdef __SSE2__
/* A bit per 32-bit half of *p that is zero. */
static inline unsigned zero_halves(const __m128i *p)
{
    __m128i zero = _mm_cmpeq_epi32(_mm_loadu_si128(p), _mm_setzero_si128());
    return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(zero));
}
#endif

/* The first live event at or after t (there is one). Dead events lie
 * between live ones in runs of a few: looked at 8 at a time (one cache
 * line) where the ring allows, a slot-by-slot loop's exit mispredicted at
 * nearly every eviction. */
static uint64_t next_live(const cs_shadow *h, uint64_t t)
{
    for (;;) {
        size_t i = t & h->rmask;
#ifdef __SSE2__
        if (i + 8 <= h->rmask + 1) {
            const __m128i *p = (const __m128i *)&h->ring[i];
            /* a bit per zero 32-bit half: slot k is dead when 2k and 2k+1 are set */
            unsigned m = zero_halves(p) | zero_halves(p + 1) << 4 | zero_halves(p + 2) << 8 |
                         zero_halves(p + 3) << 12;
            unsigned live = ~(m & m >> 1) & 0x5555u;
            if (live)
                return t + ((unsigned)__builtin_ctz(live) >> 1);
            t += 8;
            continue;
        }
#endif
        if (h->ring[i])
            return t;
        t++;
    }
}

/* The lines of the next live events past the bound leave the shadow
 * soon: their slots in a big `out` map (each a cache miss) are asked for
 * this many evictions early. A cursor walks ahead of the bound, counting
 * the live events it passed (some die before the bound gets there: then
 * it runs a little closer). */
enum { EVICT_AHEAD = 16, EVICT_SCAN = 64 };

static void evict_ahead(cs_shadow *h)
{
    if (h->ahead_at < h->bound) { /* started, or a compaction renumbered */
        h->ahead_at = h->bound;
        h->ahead = 0;
    } else if (h->ahead) {
        h->ahead--; /* the one leaving now */
    }
    for (int n = 0; h->ahead < EVICT_AHEAD && n < EVICT_SCAN && h->ahead_at < h->now; n++) {
        uint64_t key = h->ring[++h->ahead_at & h->rmask];
        if (key) {
            __builtin_prefetch(&h->out[cs_shadow_out_home(h, key)]);
            h->ahead++;
        }
    }
}

void cs_shadow_evict(cs_shadow *h)
{
    if (!h->ring[h->bound & h->rmask]) /* live mostly: every event a miss's */
        h->bound = next_live(h, h->bound);
    if (h->omask >= CS_SHADOW_SMALL_OUT)
        evict_ahead(h);
    uint64_t *r = &h->ring[h->bound & h->rmask], line = *r - 1;
    *r = 0;
    /* the line leaves the shadow: from `out`, or (in the cache) by its
     * time falling below the bound */
    cs_shadow_pair *p = out_find(h, line);
    if (p && p->val == h->bound)
        out_remove(h, p);
    h->bound++;
    h->live--;
}

/* Renumber the live events base, base + 1, ... in order, past every time
 * handed out: lines outside the shadow keep times below the new bound. */
void cs_shadow_compact(cs_shadow *h)
{
    uint64_t base = h->now + 1, n = 0;
    for (uint64_t t = h->bound; t <= h->now; t++) {
        uint64_t *r = &h->ring[t & h->rmask];
        if (*r) {
            h->tmp[n] = *r;
            *r = ++n; /* for now: index + 1 */
        }
    }
    for (size_t i = 0; i < h->nslots; i++)
        if (h->atime[i] >= h->bound)
            h->atime[i] = base + h->ring[h->atime[i] & h->rmask] - 1;
    for (size_t i = 0; i <= h->omask; i++)
        if (h->out[i].key)
            h->out[i].val = base + h->ring[h->out[i].val & h->rmask] - 1;
    for (uint64_t t = h->bound; t <= h->now; t++)
        h->ring[t & h->rmask] = 0;
    for (uint64_t j = 0; j < n; j++)
        h->ring[(base + j) & h->rmask] = h->tmp[j];
    h->bound = base;
    h->now = base + n - 1;
}

int cs_shadow_miss(cs_shadow *h, uint64_t line, int allocate, int *seen, uint64_t *t)
{
    if (*seen < 0)
        *seen = seen_add(h, line);
    cs_shadow_pair *p = *seen ? out_find(h, line) : NULL;
    if (!p) {
        *t = allocate ? cs_shadow_insert(h, line) : 0;
        return 0;
    }
    /* a hit: the old event dies, the line leaves `out` (before the new
     * event, whose compaction must see neither) and, unless the cache
     * takes it, comes back with its new time */
    h->ring[p->val & h->rmask] = 0;
    out_remove(h, p);
    *t = cs_shadow_event(h, line);
    if (!allocate)
        out_add(h, line, *t);
    return 1;
}

/* A line leaving the cache from `slot` stays in the shadow if it is there.
 * Whether it is there is a coin toss for a cache of mostly capacity
 * misses: a small map (in the CPU's L1) is probed without a branch (an
 * empty slot written with key 0 stays empty), a big one only when needed
 * (its probe is a cache miss). */
static void leave_cache(cs_shadow *h, size_t slot, uint64_t line)
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

void cs_shadow_fill(cs_shadow *h, size_t slot, uint64_t victim, uint64_t t)
{
    if (victim != UINT64_MAX)
        leave_cache(h, slot, victim);
    h->atime[slot] = t;
}

void cs_shadow_drop(cs_shadow *h, size_t slot, uint64_t line)
{
    leave_cache(h, slot, line);
    h->atime[slot] = 0;
}
