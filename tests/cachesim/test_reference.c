/* The simulator against the reference simulator (refsim.c) on random
 * traces, for every replacement policy x write-back/through x allocate or
 * not x inclusive or not x 1-3 levels, on hierarchies that exercise
 * direct-mapped, set-associative, non-power-of-two set counts, small
 * (scanned) and large (hashed) fully associative caches, first levels of
 * 4, 8 and 16 ways (toplevel.c's fast paths), and levels with
 * larger and smaller lines than the level above, each with 3C
 * classification and without; and the deepest hierarchy there can be;
 * and the 3C shadows (beside the first level's cache, fed their requests
 * alone below it) leaving their pages for their maps, renumbering their
 * 32-bit times, and in their maps from the start.
 * Every counter of every level must match,
 * and so must each thread's misses per level, fed record by record and
 * through tk_cachesim_run. ctest runs it again with TRACEKIT_NO_AVX2 set,
 * for the first level's portable fast path, and with
 * TRACEKIT_CACHESIM_THREADS=1, for tk_cachesim_run on one thread. */
#include <string.h>

#include "cacheray/sim/sim_int.h" /* the 3C shadows: shadow_pages, shadow_maps */
#include "refsim.h"
#include "simtest.h"

/* Up to 3 levels each; all ways are powers of two (for plru). */
static const char *const hierarchies[][3] = {
    {"L1:512:1:64", "L2:2K:2:64", "L3:8K:4:128"},       /* DM; L3 longer lines */
    {"L1:1K:4:32", "L2:4K:full:64", "L3:16K:8:64"},     /* L2 hashed (64 ways) */
    {"L1:768:4:64", "L2:3K:4:64", "L3:12K:16:64"},      /* 3 and 12 sets */
    {"L1:2K:full:64", "L2:1K:4:32", "L3:8K:32:64"},     /* scanned FA L1; L2 smaller: 2
                                                            lines a request, fast shape */
    {"L1:2K:8:64", "L2:8K:16:64", "L3:32K:8:128"},      /* 8 and 16 ways unrolled */
    {"L1:4K:16:64", "L2:16K:8:64", "L3:64K:4:64"},
};

static const char *const policies[] = {"lru", "fifo", "plru", "random"};

enum { ACCESSES = 2500, THREADS = 3 };

/* Addresses with locality: near the last one, or anywhere in a window
 * that overflows the largest cache; sizes crossing lines now and then. */
static void random_access(uint64_t *rng, uint64_t *last, uint64_t *addr,
                          unsigned *size, int *write, uint64_t *thread)
{
    static const unsigned sizes[] = {1, 2, 4, 8, 8, 8, 16, 4};
    uint64_t r = tu_rand(rng);
    if (r % 3)
        *addr = *last + (tu_rand_below(rng, 512) - 256);
    else
        *addr = 0x7ffe00000000ULL + tu_rand_below(rng, 48 << 10);
    *addr &= ~0ULL << (r >> 8 & 1 ? 0 : 2); /* mostly 4-byte aligned */
    *last = *addr;
    *size = sizes[r >> 12 & 7];
    *write = (r >> 20) % 100 < 35;
    *thread = (r >> 28) % THREADS;
}

/* Every level's counters and each thread's misses per level against the
 * reference's. */
static void expect_like_ref(const char *what, const tk_cachesim_config *c, tk_cachesim *s,
                            const ref_sim *r, uint64_t thread_misses[][TK_CACHESIM_MAX_LEVELS])
{
    for (size_t k = 0; k < c->nlevels; k++) {
        tk_cachesim_level_stats got, want;
        tk_cachesim_get_level(s, k, &got);
        ref_level_stats(r, k, &want);
        char where[160];
        snprintf(where, sizeof where, "%s, level %zu", what, k + 1);
        st_expect_stats(where, &got, &want);
    }
    for (size_t i = 0; i < tk_cachesim_threads(s); i++) {
        tk_cachesim_thread t;
        tk_cachesim_get_thread(s, i, &t);
        for (size_t k = 0; k < c->nlevels; k++)
            if (t.c.misses[k] != thread_misses[t.id][k])
                fail_msg("%s: thread %llu level %zu: %llu misses, reference %llu", what,
                         (unsigned long long)t.id, k + 1, (unsigned long long)t.c.misses[k],
                         (unsigned long long)thread_misses[t.id][k]);
    }
}

/* The simulator fed record by record, and through tk_cachesim_run (the
 * levels below the first on a second thread, unless the hierarchy has an
 * inclusive level or TRACEKIT_CACHESIM_THREADS=1), against the reference.
 * `spread` > 0: uniformly random addresses over that many bytes (traffic
 * without locality) instead. */
/* Set on both simulators before the traffic (NULL: none); with it, the
 * simulators of the first compare_traffic are kept for a look at their
 * state, then freed (free_kept). */
static void (*tune)(tk_cachesim *s);
static tk_cachesim *kept[2];
static size_t nkept;
/* Nonzero: addresses in that many lines 256 KiB apart (and their three
 * neighbours), mostly one set at the first level, or half the time one of
 * the last 8 of them, instead. */
static uint64_t scatter;

static void compare_traffic(const char *what, const tk_cachesim_config *c, uint64_t seed,
                            uint64_t spread)
{
    tk_cachesim *s = st_new(c), *run = st_new(c);
    if (tune) {
        tune(s);
        tune(run);
    }
    ref_sim *r = ref_new(c);
    uint64_t rng = seed, last = 0x7ffe00001000ULL;
    uint64_t thread_misses[THREADS][TK_CACHESIM_MAX_LEVELS];
    memset(thread_misses, 0, sizeof thread_misses);
    tu_buf trace = {0};
    uint64_t recent[8] = {0};
    for (int i = 0; i < ACCESSES; i++) {
        uint64_t addr, thread;
        unsigned size;
        int write;
        random_access(&rng, &last, &addr, &size, &write, &thread);
        if (spread)
            addr = 0x7ffe00000000ULL + (tu_rand_below(&rng, spread) & ~7ULL);
        if (scatter && tu_rand_below(&rng, 2)) {
            addr = recent[tu_rand_below(&rng, 8)];
        } else if (scatter) {
            addr = 0x7ffe00000000ULL + (tu_rand_below(&rng, scatter) << 18) +
                   (tu_rand_below(&rng, 4) << 6);
            recent[i % 8] = addr;
        }
        st_access(s, addr, size, write, thread);
        tu_access(&trace, (uint8_t)write, addr, (uint8_t)size, thread);
        unsigned mask = ref_access(r, addr, size, write);
        for (size_t k = 0; k < c->nlevels; k++)
            thread_misses[thread][k] += mask >> k & 1;
    }
    expect_like_ref(what, c, s, r, thread_misses);
    tk_error err;
    tk_input *in = tk_input_from_memory(trace.p, trace.len, "mem", &err);
    assert_non_null(in);
    if (tk_cachesim_run(run, in, TK_ENDIAN_AUTO, &err) != TK_OK)
        fail_msg("%s: tk_cachesim_run: %s", what, err.message);
    tk_input_close(in);
    char where[240];
    snprintf(where, sizeof where, "%s, tk_cachesim_run", what);
    expect_like_ref(where, c, run, r, thread_misses);
    tu_buf_free(&trace);
    ref_free(r);
    if (nkept == 0 && tune) {
        kept[0] = s;
        kept[1] = run;
        nkept = 2;
        return;
    }
    tk_cachesim_free(s);
    tk_cachesim_free(run);
}

static void free_kept(void)
{
    for (size_t i = 0; i < nkept; i++)
        tk_cachesim_free(kept[i]);
    nkept = 0;
}

static void compare(const char *what, const tk_cachesim_config *c, uint64_t seed)
{
    compare_traffic(what, c, seed, 0);
}

static void every_combination(void **state)
{
    (void)state;
    uint64_t seed = 1;
    for (size_t h = 0; h < sizeof hierarchies / sizeof hierarchies[0]; h++)
        for (size_t p = 0; p < 4; p++)
            for (int wb = 0; wb < 2; wb++)
                for (int alloc = 0; alloc < 2; alloc++)
                    for (int incl = 0; incl < 2; incl++)
                        for (size_t n = 1; n <= 3; n++)
                        for (int no3c = 0; no3c < 2; no3c++) {
                            char spec[3][48];
                            const char *specs[4] = {NULL};
                            for (size_t k = 0; k < n; k++) {
                                snprintf(spec[k], sizeof spec[k], "%s:%s", hierarchies[h][k],
                                         policies[p]);
                                specs[k] = spec[k];
                            }
                            tk_cachesim_config c = st_config(specs, wb, alloc, incl,
                                                             no3c ? TK_CACHESIM_NO_3C : 0);
                            c.seed = seed;
                            char what[200];
                            snprintf(what, sizeof what,
                                     "hierarchy %zu, %s, %s, %s, %s, %zu level%s%s", h,
                                     policies[p], wb ? "write-back" : "write-through",
                                     alloc ? "allocate" : "no-allocate",
                                     incl ? "inclusive" : "non-inclusive", n, n > 1 ? "s" : "",
                                     no3c ? ", no 3C" : "");
                            compare(what, &c, seed++);
                        }
}

/* Levels with different policies and write options in one hierarchy. */
static void mixed_levels(void **state)
{
    (void)state;
    for (uint64_t seed = 100; seed < 140; seed++) {
        static const char *const specs[] = {"L1:1K:4:64:plru", "L2:4K:8:64:random",
                                            "L3:8K:full:64:fifo", NULL};
        tk_cachesim_config c = st_config(specs, 1, 1, 0, 0);
        uint64_t r = seed * 0x9E3779B97F4A7C15ULL;
        for (size_t k = 0; k < 3; k++) {
            c.levels[k].write_back = r >> k & 1;
            c.levels[k].write_allocate = r >> (k + 3) & 1;
            c.levels[k].inclusive = r >> (k + 6) & 1;
        }
        c.seed = seed;
        char what[64];
        snprintf(what, sizeof what, "mixed levels, seed %llu", (unsigned long long)seed);
        compare(what, &c, seed);
    }
    /* A write-through first level over a level of the fast shape with
     * shorter lines: its requests are forwarded writes within one line
     * there (the fast path) between fetches of two lines (the general
     * one), with 3C beside the cache or without. */
    static const char *const shorter[] = {"L1:1K:4:64:lru", "L2:2K:8:32:lru", NULL};
    for (int no3c = 0; no3c < 2; no3c++) {
        tk_cachesim_config c = st_config(shorter, 1, 1, 0, no3c ? TK_CACHESIM_NO_3C : 0);
        c.levels[0].write_back = 0;
        compare(no3c ? "write-through over shorter lines, no 3C" : "write-through over shorter lines",
                &c, 150 + (uint64_t)no3c);
    }
}

/* The most levels there can be (per-thread misses below the fourth are
 * summed apart), served level by level or, with an inclusive level, at
 * once. */
static void deepest_hierarchy(void **state)
{
    (void)state;
    static const char *const specs[] = {"L1:256:2:32:lru",  "L2:512:2:32:fifo",
                                        "L3:1K:4:64:plru",  "L4:2K:4:64:random",
                                        "L5:4K:8:64:lru",   "L6:8K:full:64:lru",
                                        "L7:16K:8:128:fifo", "L8:32K:16:128:lru", NULL};
    for (int incl = 0; incl < 2; incl++) {
        tk_cachesim_config c = st_config(specs, 1, 1, 0, 0);
        c.levels[5].inclusive = incl;
        c.levels[6].write_back = 0;
        compare(incl ? "8 levels, L6 inclusive" : "8 levels", &c, 11);
    }
}

/* Without 3C the other counters are the same and the classes stay 0. */
static void without_3c(void **state)
{
    (void)state;
    static const char *const specs[] = {"L1:1K:4:64", "L2:4K:full:64", NULL};
    tk_cachesim_config c = st_config(specs, 1, 1, 0, TK_CACHESIM_NO_3C);
    compare("no 3C", &c, 7);
}

/* Traffic without locality (uniformly random 8-byte-aligned addresses
 * over 4x and 64x the largest cache) on hierarchies of 3 levels, each
 * policy, with and without 3C. */
static void random_traffic(void **state)
{
    (void)state;
    for (size_t p = 0; p < 4; p++)
        for (int no3c = 0; no3c < 2; no3c++)
            for (uint64_t spread = 64 << 10; spread <= (1 << 20); spread *= 16) {
                static const char *const base[] = {"L1:1K:8:64", "L2:4K:16:64", "L3:16K:16:64"};
                char spec[3][48];
                const char *specs[4] = {spec[0], spec[1], spec[2], NULL};
                for (size_t k = 0; k < 3; k++)
                    snprintf(spec[k], sizeof spec[k], "%s:%s", base[k], policies[p]);
                tk_cachesim_config c = st_config(specs, 1, 1, 0, no3c ? TK_CACHESIM_NO_3C : 0);
                char what[120];
                snprintf(what, sizeof what, "random traffic over %llu KiB, %s%s",
                         (unsigned long long)(spread >> 10), policies[p], no3c ? ", no 3C" : "");
                compare_traffic(what, &c, 500 + p, spread);
            }
}

static void no_tuning(tk_cachesim *s) { (void)s; }

/* Times renumbered from 2 once past this (instead of near 2^32). */
enum { LOW_TMAX = 300 };
static void low_tmax(tk_cachesim *s)
{
    for (size_t k = 0; k < s->nlevels; k++)
        if (s->lv[k].shadow.paged)
            s->lv[k].shadow.tmax = LOW_TMAX;
}

/* The 3C shadows of the first level, and of the levels below where they
 * are fed their requests alone (queue3c.c), keep lines' times in pages
 * (shadow.h). Lines 256 KiB apart take a page of 4096 lines each: past
 * CS_SHADOW_PAGE_FLOOR pages a shadow moves to its map (and the lines
 * come back, as conflict and capacity misses); with the times' limit
 * lowered, they are renumbered from 2 every few hundred events.
 * One level (split with the worker in tk_cachesim_run) and three, with
 * and without write-allocate: every counter as the reference's. */
static void shadow_pages(void **state)
{
    (void)state;
    static const char *const specs1[] = {"L1:1K:4:64:lru", NULL};
    static const char *const specs3[] = {"L1:1K:8:64:lru", "L2:4K:16:64:lru",
                                         "L3:16K:16:64:lru", NULL};
    for (int levels = 1; levels <= 3; levels += 2)
        for (int alloc = 0; alloc < 2; alloc++) {
            tk_cachesim_config c = st_config(levels == 1 ? specs1 : specs3, 1, alloc, 0, 0);
            tune = no_tuning;
            scatter = 4 * CS_SHADOW_PAGE_FLOOR;
            compare_traffic("scattered lines", &c, 900 + (uint64_t)alloc, 0);
            scatter = 0;
            for (size_t i = 0; i < nkept; i++)
                for (int k = 0; k < levels; k++)
                    if (kept[i]->lv[k].shadow.paged)
                        fail_msg("scattered lines, level %d of %d: still in pages", k + 1,
                                 levels);
            free_kept();
            tune = low_tmax;
            compare_traffic("low time limit", &c, 910 + (uint64_t)alloc, 0);
            for (size_t i = 0; i < nkept; i++)
                for (int k = 0; k < levels; k++) {
                    const cs_shadow *h = &kept[i]->lv[k].shadow;
                    /* a batch's events at a level below: at most a few thousand */
                    if (!h->paged || h->k.now >= LOW_TMAX + 4096)
                        fail_msg("low time limit, level %d of %d: now %llu", k + 1, levels,
                                 (unsigned long long)h->k.now);
                }
            free_kept();
            tune = NULL;
        }
}

/* Every shadow that starts in pages moves to its map at its first pass
 * (as when found sparse). */
static void to_map(tk_cachesim *s)
{
    for (size_t k = 0; k < s->nlevels; k++)
        if (s->lv[k].shadow.paged)
            s->lv[k].shadow.sparse = 1;
}

/* The shadows in their maps from the start: beside the first level's
 * cache and fed alone below it (queue3c.c), on traffic with locality (the
 * lines that come back are the map's hits) and without, with and without
 * write-allocate: every counter as the reference's. */
static void shadow_maps(void **state)
{
    (void)state;
    static const char *const specs[] = {"L1:1K:8:64:lru", "L2:4K:16:64:lru",
                                        "L3:16K:8:128:lru", NULL};
    for (int alloc = 0; alloc < 2; alloc++)
        for (uint64_t spread = 0; spread <= (256 << 10); spread += 256 << 10) {
            tk_cachesim_config c = st_config(specs, 1, alloc, 0, 0);
            tune = to_map;
            compare_traffic(spread ? "maps, random traffic" : "maps", &c,
                            920 + (uint64_t)alloc, spread);
            for (size_t i = 0; i < nkept; i++)
                for (int k = 0; k < 3; k++)
                    if (kept[i]->lv[k].shadow.paged)
                        fail_msg("maps: level %d still in pages", k + 1);
            free_kept();
            tune = NULL;
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_combination),
        cmocka_unit_test(random_traffic),
        cmocka_unit_test(mixed_levels),
        cmocka_unit_test(deepest_hierarchy),
        cmocka_unit_test(without_3c),
        cmocka_unit_test(shadow_pages),
        cmocka_unit_test(shadow_maps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
