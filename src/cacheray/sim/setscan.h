/* A set's scan for a line and its LRU victim, for the fast passes of
 * the first level (toplevel_pass.h) and of the levels below
 * (stream_pass.h): with AVX2 when the including file is compiled with
 * -mavx2 (a set of 8 ways in two compares rather than eight), else as
 * cache.h does them. Static inline: each includer has its own copy. */
#ifndef TK_CACHERAY_SETSCAN_H
#define TK_CACHERAY_SETSCAN_H

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "cacheray/sim/cache.h"

/* A bit per way of the set holding `want`. */
#ifdef __AVX2__
static inline uint64_t scan4(const uint64_t *set, __m256i want)
{
    __m256i eq = _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)set), want);
    return (uint64_t)_mm256_movemask_pd(_mm256_castsi256_pd(eq));
}

static inline uint64_t scan(const uint64_t *set, uint64_t want, uint32_t ways)
{
    __m256i w = _mm256_set1_epi64x((long long)want);
    uint64_t m = scan4(set, w);
    if (ways >= 8)
        m |= scan4(set + 4, w) << 4;
    if (ways >= 16)
        m |= scan4(set + 8, w) << 8 | scan4(set + 12, w) << 12;
    return m;
}
#else
static inline uint64_t scan(const uint64_t *set, uint64_t want, uint32_t ways)
{
    return cs_scan_set(set, want, ways);
}
#endif

/* The victim, as cs_insert picks it (cs_oldest_way). */
#ifdef __AVX2__
/* Stamps count accesses, far below 2^63: signed compares order them. */
static inline __m256i min4(__m256i a, __m256i b)
{
    return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b));
}

static inline uint32_t lru_way(const uint64_t *st, uint32_t ways)
{
    if (ways < 8)
        return cs_oldest_way(st, ways);
    __m256i m = _mm256_loadu_si256((const __m256i *)st);
    for (uint32_t j = 4; j < ways; j += 4)
        m = min4(m, _mm256_loadu_si256((const __m256i *)(st + j)));
    m = min4(m, _mm256_permute4x64_epi64(m, 0x4E)); /* the halves swapped */
    m = min4(m, _mm256_shuffle_epi32(m, 0x4E));     /* the pairs swapped */
    uint64_t eq = 0;
    for (uint32_t j = 0; j < ways; j += 4) {
        __m256i x = _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)(st + j)), m);
        eq |= (uint64_t)_mm256_movemask_pd(_mm256_castsi256_pd(x)) << j;
    }
    return (uint32_t)__builtin_ctzll(eq);
}
#else
static inline uint32_t lru_way(const uint64_t *st, uint32_t ways)
{
    return cs_oldest_way(st, ways);
}
#endif

#endif
