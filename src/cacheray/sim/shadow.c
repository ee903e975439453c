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

/* The map's tables. -1 when out of memory. */
static int map_init(cs_shadow *h)
{
    size_t out = 64;
    while (out < 2 * h->cap)
        out *= 2;
    h->omask = out - 1;
    h->oshift = 64 - log2_pow2(out);
    h->out = tk_table_calloc(out, sizeof *h->out);
    return h->out && tk_linemap_init(&h->seen, 512) == 0 ? 0 : -1;
}

static int pages_init(cs_shadow *h)
{
    h->tlb = calloc(CS_SHADOW_TLB, sizeof *h->tlb);
    h->wslot = tk_table_calloc(h->nslots, sizeof *h->wslot);
    return h->tlb && h->wslot && tk_linemap_init(&h->pagemap, 64) == 0 ? 0 : -1;
}

int cs_shadow_init(cs_shadow *h, uint64_t cap, size_t nslots, int pages)
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
    h->k = (cs_shadow_clock){1, 2}; /* 1: a page's word for "seen, out" */
    h->nslots = nslots;
    h->ring = tk_table_calloc(ring, sizeof *h->ring);
    h->atime = tk_table_calloc(nslots, sizeof *h->atime);
    h->tmp = tk_table_calloc(cap, sizeof *h->tmp);
    /* pages while times renumbered from 2 stay far below 2^32 */
    h->paged = pages && ring <= ((size_t)1 << 28);
    h->tmax = h->paged ? UINT32_MAX - ring - CS_SHADOW_PASS_EVENTS : UINT64_MAX;
    if (!h->ring || !h->atime || !h->tmp ||
        (h->paged ? pages_init(h) : map_init(h)) != 0) {
        cs_shadow_free(h);
        return -1;
    }
    return 0;
}

static void pages_free(cs_shadow *h)
{
    for (size_t i = 0; i < h->npages; i++)
        free(h->pages[i]);
    free(h->pages);
    tk_linemap_free(&h->pagemap);
    free(h->tlb);
    tk_table_free(h->wslot, h->nslots, sizeof *h->wslot);
    h->pages = NULL;
    h->tlb = NULL;
    h->wslot = NULL;
    h->npages = h->cap_pages = 0;
}

void cs_shadow_free(cs_shadow *h)
{
    tk_table_free(h->ring, h->rmask + 1, sizeof *h->ring);
    tk_table_free(h->atime, h->nslots, sizeof *h->atime);
    tk_table_free(h->tmp, h->cap, sizeof *h->tmp);
    tk_table_free(h->out, h->omask + 1, sizeof *h->out);
    tk_linemap_free(&h->seen);
    pages_free(h);
    memset(h, 0, sizeof *h);
}

/* ---- pages */

/* Whether the pages hold fewer than 1/CS_SHADOW_PAGE_DENSITY of their
 * lines' words: looked at each time their count doubles past the floor,
 * so the look costs no more than making them did. */
static int pages_sparse(const cs_shadow *h)
{
    const size_t n = h->npages;
    if (n < CS_SHADOW_PAGE_FLOOR || (n & (n - 1)))
        return 0;
    uint64_t used = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < (size_t)1 << CS_SHADOW_PAGE_SHIFT; j++)
            used += h->pages[i][j] != 0;
    return used * CS_SHADOW_PAGE_DENSITY < (uint64_t)n << CS_SHADOW_PAGE_SHIFT;
}

/* A new page for page number pn; NULL when out of memory. */
static uint32_t *new_page(cs_shadow *h, uint64_t pn)
{
    if (h->npages == h->cap_pages) {
        size_t cap = h->cap_pages ? 2 * h->cap_pages : 64;
        uint32_t **v = realloc(h->pages, cap * sizeof *v);
        if (!v)
            return NULL;
        h->pages = v;
        h->cap_pages = cap;
    }
    uint32_t *p = calloc((size_t)1 << CS_SHADOW_PAGE_SHIFT, sizeof *p);
    if (!p || tk_linemap_insert(&h->pagemap, pn, (uint32_t)h->npages) != 0) {
        free(p);
        return NULL;
    }
    h->pages[h->npages++] = p;
    h->sparse |= pages_sparse(h);
    return p;
}

uint32_t *cs_shadow_word_slow(cs_shadow *h, uint64_t line)
{
    const uint64_t pn = line >> CS_SHADOW_PAGE_SHIFT;
    const uint32_t *i = tk_linemap_find(&h->pagemap, pn);
    uint32_t *p = i ? h->pages[*i] : new_page(h, pn);
    if (!p) {
        h->oom = 1;
        h->lost = 0;
        return &h->lost;
    }
    h->tlb[pn & (CS_SHADOW_TLB - 1)] = (cs_shadow_tlb){pn + 1, p};
    return p + (line & ((1u << CS_SHADOW_PAGE_SHIFT) - 1));
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

/* Page words from 2 up become 1: seen, out of the shadow. */
static void words_to_one(cs_shadow *h)
{
    for (size_t i = 0; i < h->npages; i++)
        for (size_t j = 0; j < (size_t)1 << CS_SHADOW_PAGE_SHIFT; j++) {
            uint32_t *w = &h->pages[i][j];
            *w = *w > 1 ? 1 : *w;
        }
}

/* Renumber the live events base, base + 1, ... in order, past every time
 * handed out: lines outside the shadow keep times below the new bound.
 * With pages, once times near 32 bits, from 2 instead, every other word
 * (and cache slot's time) becoming 1. A live line's word that holds its
 * time (the line is out of the cache, or no cache is beside) is 0 while
 * the others change (no other live line's word is: a stale word in the
 * cache is not 0), then takes the new time. */
void cs_shadow_compact(cs_shadow *h)
{
    const uint64_t bound = h->k.bound, now = h->k.now;
    const int rebase = h->paged && now >= h->tmax;
    const uint64_t base = rebase ? 2 : now + 1;
    uint64_t n = 0;
    for (uint64_t t = bound; t <= now; t++) {
        uint64_t *r = &h->ring[t & h->rmask];
        if (*r) {
            if (h->paged) {
                uint32_t *w = cs_shadow_word(h, *r - 1);
                if (*w == t)
                    *w = 0;
            }
            h->tmp[n] = *r;
            *r = ++n; /* for now: index + 1 */
        }
    }
    if (rebase)
        words_to_one(h);
    for (uint64_t j = 0; h->paged && j < n; j++) {
        uint32_t *w = cs_shadow_word(h, h->tmp[j] - 1);
        if (!*w)
            *w = (uint32_t)(base + j);
    }
    for (size_t i = 0; i < h->nslots; i++)
        if (h->atime[i] >= bound)
            h->atime[i] = base + h->ring[h->atime[i] & h->rmask] - 1;
        else if (rebase && h->atime[i])
            h->atime[i] = 1;
    for (size_t i = 0; !h->paged && i <= h->omask; i++)
        if (h->out[i].key)
            h->out[i].val = base + h->ring[h->out[i].val & h->rmask] - 1;
    for (uint64_t t = bound; t <= now; t++)
        h->ring[t & h->rmask] = 0;
    for (uint64_t j = 0; j < n; j++)
        h->ring[(base + j) & h->rmask] = h->tmp[j];
    h->k.bound = base;
    h->k.now = base + n - 1;
}

/* Pages to the map: the live lines whose words hold their times go to
 * `out`, the lines with a word to `seen`. */
void cs_shadow_settle_slow(cs_shadow *h)
{
    if (h->paged && h->k.now >= h->tmax) {
        cs_shadow_compact(h);
        return; /* sparse or not, from the next pass on */
    }
    h->sparse = 0;
    if (!h->paged)
        return;
    if (map_init(h) != 0) {
        h->oom = 1;
        return;
    }
    for (uint64_t t = h->k.bound; t <= h->k.now; t++) {
        const uint64_t key = h->ring[t & h->rmask];
        if (key && *cs_shadow_word(h, key - 1) == t)
            cs_shadow_out_add(h, key - 1, t);
    }
    const tk_linemap *m = &h->pagemap;
    for (size_t i = 0; i <= m->mask; i++) {
        if (!m->keys[i])
            continue;
        const uint64_t pn = m->keys[i] - 1;
        const uint32_t *p = h->pages[m->vals[i]];
        for (size_t c = 0; c < ((size_t)1 << CS_SHADOW_PAGE_SHIFT) / 32; c++) {
            uint32_t bits = 0;
            for (unsigned j = 0; j < 32; j++)
                bits |= (uint32_t)(p[c * 32 + j] != 0) << j;
            if (bits && tk_linemap_insert(&h->seen, pn << (CS_SHADOW_PAGE_SHIFT - 5) | c, bits))
                h->oom = 1;
        }
    }
    pages_free(h);
    h->paged = 0;
    h->tmax = UINT64_MAX;
}
