/* The 3C shadow (see shadow.h): its tables, and what an eviction or an
 * event does rarely (a scan past dead events, a compaction); the hot
 * paths are inline in shadow.h. */
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

/* ---- events */

#ifdef __SSE2__
/* A bit per 32-bit half of *p that is zero. */
static inline unsigned zero_halves(const __m128i *p)
{
    __m128i zero = _mm_cmpeq_epi32(_mm_loadu_si128(p), _mm_setzero_si128());
    return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(zero));
}
#endif

/* The first live event at or after t. Dead events lie
 * between live ones in runs of a few: looked at 8 at a time (one cache
 * line) where the ring allows, a slot-by-slot loop's exit mispredicted at
 * nearly every eviction. */
uint64_t cs_shadow_next_live(const cs_shadow *h, uint64_t t)
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

