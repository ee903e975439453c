/* The first level's pass for the common shape, written for speed: an LRU
 * cache of 4, 8 or 16 ways, a power-of-two number of sets, write-allocate
 * and write-back. An access that stays in one line is handled here: a hit
 * with the set scan unrolled for the way count, and a miss: inline when
 * the level is the only one (nothing below can reach back into it), else
 * through lrumiss.h's, which serves the levels below in cs_miss's order.
 * Anything else (line-crossing and empty accesses) goes through the
 * general hierarchy code, which does exactly what this does.
 * The hierarchy tests run both (tests/cachesim compare with the reference
 * simulator configurations that take and avoid this path).
 *
 * A template: toplevel.c instantiates it for any x86-64 (or other) CPU,
 * toplevel_avx2.c, compiled with -mavx2, with the scan in AVX2 (a set of 8
 * ways in two compares rather than eight). Each defines CS_TOP_PASSES'
 * functions as its own statics. */
#ifndef TK_CACHERAY_TOPLEVEL_PASS_H
#define TK_CACHERAY_TOPLEVEL_PASS_H

#include <string.h>

#include "cacheray/sim/hierarchy.h"
#include "cacheray/sim/lrumiss.h"

/* Runs looked ahead: their sets, and for 3C their lines' times out of
 * the cache (or whether they were seen), come from the CPU's L2 cache or
 * beyond when traffic has no locality (when the batch before missed in
 * 3/4 of its runs). */
enum { AHEAD = 8 };

/* Returns the line's word in the 3C shadow's pages when at hand (NULL
 * otherwise), for the run's miss to use. */
static inline uint32_t *prefetch_run(const cs_level *L, uint64_t addr, uint32_t ways,
                                     int classify)
{
    const uint64_t line = addr >> L->shift, at = (line & L->c.set_mask) * ways;
    __builtin_prefetch(&L->c.e[at]);
    __builtin_prefetch(&L->c.stamp[at]);
    if (!classify)
        return NULL;
    const cs_shadow *h = &L->shadow;
    __builtin_prefetch(&h->atime[at]);
    if (h->paged)
        return cs_shadow_prefetch_word(h, line);
    size_t i = tk_linemap_slot(&h->seen, line >> 5);
    __builtin_prefetch(&h->seen.keys[i]);
    __builtin_prefetch(&h->seen.vals[i]);
    return NULL;
}

/* The locals back into the structures before a call into the general
 * code, and out again after. */
#define SPILL()                                                                \
    do {                                                                       \
        c->clock = clock;                                                      \
        L->last = last_line;                                                   \
        L->last_slot = last_slot;                                              \
        h->k = k;                                                              \
    } while (0)
#define RELOAD()                                                               \
    do {                                                                       \
        clock = c->clock;                                                      \
        last_line = L->last;                                                   \
        last_slot = L->last_slot;                                              \
        k = h->k;                                                              \
    } while (0)
/* Access j (not empty) through the general code, which counts its own
 * line accesses. */
#define GENERAL(j)                                                             \
    do {                                                                       \
        const uint64_t a_ = b->addr[j], l_ = a_ + (b->size[j] - 1u);           \
        greads += !b->write[j];                                                \
        gwrites += b->write[j];                                                \
        SPILL();                                                               \
        L->origin = (int32_t)(j);                                              \
        b->mask[j] = (uint8_t)cs_access(s, a_, l_ < a_ ? UINT64_MAX : l_, b->write[j]); \
        RELOAD();                                                              \
    } while (0)

/* Inlined into one copy per way count, 3C setting and level count, so the
 * scans are unrolled and the code for what is off absent. What the loop
 * changes lives in locals (kept in the structures, every store through a
 * uint64_t pointer made the compiler reload them). */
__attribute__((always_inline)) static inline void top_pass(tk_cachesim *s, cs_batch *b,
                                                           const uint32_t ways,
                                                           const int classify,
                                                           const int single,
                                                           const int ahead)
{
    cs_level *L = &s->lv[0];
    cs_cache *c = &L->c;
    uint64_t *const e = c->e;
    uint64_t *const stamp = c->stamp;
    uint8_t *const dirty = c->dirty;
    const uint64_t set_mask = c->set_mask;
    const unsigned shift = L->shift;
    const uint64_t line_bytes = 1ULL << shift;
    uint64_t clock = c->clock;
    uint64_t last_line = L->last;  /* 3C: the line last accessed + 1 */
    uint8_t *last_slot = L->last_slot;
    /* 3C: the shadow's hot state, for the hit that moves a line already
     * in it to the front (one event); anything else is the shadow's. */
    cs_shadow *h = &L->shadow;
    cs_settle_top(s);
    uint64_t *const ring = h->ring, *const atime = h->atime;
    const uint64_t rmask = h->rmask;
    cs_shadow_clock k = h->k;
    /* Line accesses are counted as the batch's non-empty reads and writes
     * less those the general code took (it counts its own, per line). */
    const size_t n = b->n;
    size_t greads = 0, gwrites = 0, zero = 0, nmiss = 0;
    uint64_t read_misses = 0, write_misses = 0, writebacks = 0;
    tk_cachesim_level_stats c3 = {0}; /* the only level's 3C counts */
    memset(b->mask, 0, n);
    /* Run by run: the accesses after a run's first stay in its line, hit
     * and change nothing but its dirty bit (set from the run's writes). */
    uint32_t *words[AHEAD] = {NULL}; /* run r's word in the shadow's pages at r % AHEAD */
    for (size_t r = 0; r < b->nruns; r++) {
        uint32_t *word = words[r % AHEAD];
        if (ahead && r + AHEAD < b->nruns) /* asked for early: on random traffic, misses */
            words[r % AHEAD] = prefetch_run(L, b->addr[b->head[r + AHEAD]], ways, classify);
        const size_t i = b->head[r];
        const unsigned size = b->size[i];
        const uint64_t addr = b->addr[i], line = addr >> shift;
        const int write = b->write[i], run_write = b->run_write[r];
        if (size == 0 || (addr & (line_bytes - 1)) + size > line_bytes) {
            if (size == 0) {
                zero++;
                continue;
            }
            GENERAL(i);
            continue;
        }
        if (classify && line + 1 == last_line) { /* the same line again: only the dirty bit */
            *last_slot |= (uint8_t)run_write;
            continue;
        }
        const uint64_t set = line & set_mask, want = line << 2 | CS_VALID;
        const uint64_t match = scan(e + set * ways, want, ways);
        if (match) {
            const uint64_t w = set * ways + (uint64_t)__builtin_ctzll(match);
            stamp[w] = ++clock;
            dirty[w] |= (uint8_t)run_write;
            if (classify) {
                uint64_t old = atime[w];
                if (old >= k.bound && k.now - k.bound < rmask) {
                    /* cs_shadow_hit's case */
                    ring[old & rmask] = 0;
                    atime[w] = ++k.now;
                    ring[k.now & rmask] = line + 1;
                } else {
                    SPILL();
                    cs_shadow_hit(h, w, line, 1);
                    RELOAD();
                }
            }
            last_line = line + 1;
            last_slot = dirty + w;
            continue;
        }
        if (!single) {
            last_line = 0;
            SPILL();
            L->origin = (int32_t)i;
            b->mask[i] = (uint8_t)cs_lru_miss(s, 0, line, write, ways, classify,
                                              (cs_lru_hint){CS_NO_HINT, 0});
            nmiss++;
            RELOAD();
            if (last_line == line + 1) { /* still here for the rest of the run */
                *last_slot |= (uint8_t)run_write;
                continue;
            }
            /* an invalidation from an inclusive level below (evicting on
             * the victim's writeback) may have dropped it again: the rest
             * of the run goes through the general code */
            const size_t end = r + 1 < b->nruns ? b->head[r + 1] : n;
            for (size_t j = i + 1; j < end; j++)
                GENERAL(j);
            continue;
        }
        /* cs_miss for the only level: nothing to fetch from, back-invalidate
         * or write back to; a dirty victim is counted */
        b->mask[i] = 1;
        nmiss++;
        read_misses += !write;
        write_misses += write;
        uint64_t t = 0;
        if (classify) { /* cs_classify_miss, its counts in locals */
            int seen;
            const int hit = cs_shadow_miss(h, &k, line, word, 1, &seen, &t);
            cs_count_3c(&c3, cs_class(seen, hit));
        }
        const uint64_t w = set * ways + lru_way(stamp + set * ways, ways);
        const uint64_t victim = e[w];
        writebacks += (victim != 0) & dirty[w]; /* no branch: half the victims are dirty */
        if (classify)
            cs_shadow_fill(h, &k, w, victim ? victim >> 2 : UINT64_MAX, t);
        e[w] = want;
        dirty[w] = (uint8_t)run_write;
        stamp[w] = ++clock;
        last_line = line + 1;
        last_slot = dirty + w;
    }
    SPILL();
    /* with locality the prefetches would only cost instructions (10% more) */
    L->ahead = nmiss * 4 >= b->nruns * 3 && nmiss;
    L->st.reads += (n - zero - b->nwrites) - greads;
    L->st.writes += b->nwrites - gwrites;
    L->st.read_misses += read_misses;
    L->st.write_misses += write_misses;
    L->st.writebacks += writebacks;
    L->st.compulsory += c3.compulsory;
    L->st.capacity += c3.capacity;
    L->st.conflict += c3.conflict;
    L->oom |= h->oom;
    s->tot.zero_size += zero;
}

/* With look-ahead (traffic without locality) or without: two copies, as
 * the prefetches' registers cost the loop 10% of its instructions even
 * when they are skipped. */
__attribute__((always_inline)) static inline void top_pass_either(tk_cachesim *s, cs_batch *b,
                                                                  const uint32_t ways,
                                                                  const int classify,
                                                                  const int single)
{
    if (s->lv[0].ahead)
        top_pass(s, b, ways, classify, single, 1);
    else
        top_pass(s, b, ways, classify, single, 0);
}

#define TOP_PASS(ways)                                                                    \
    static void top_pass##ways(tk_cachesim *s, cs_batch *b) { top_pass_either(s, b, ways, 0, 0); } \
    static void top_pass##ways##_3c(tk_cachesim *s, cs_batch *b) { top_pass_either(s, b, ways, 1, 0); } \
    static void top_pass##ways##_1(tk_cachesim *s, cs_batch *b) { top_pass_either(s, b, ways, 0, 1); } \
    static void top_pass##ways##_3c_1(tk_cachesim *s, cs_batch *b) { top_pass_either(s, b, ways, 1, 1); }
TOP_PASS(4)
TOP_PASS(8)
TOP_PASS(16)

/* [ways 4, 8, 16] [3C + 2 * (the only level)] */
#define CS_TOP_PASSES                                                          \
    {                                                                          \
        {top_pass4, top_pass4_3c, top_pass4_1, top_pass4_3c_1},                \
        {top_pass8, top_pass8_3c, top_pass8_1, top_pass8_3c_1},                \
        {top_pass16, top_pass16_3c, top_pass16_1, top_pass16_3c_1},            \
    }

#endif
