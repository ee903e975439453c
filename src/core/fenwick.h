/* A Fenwick (binary indexed) tree of 32-bit counts over times 0..cap-1,
 * stored 1-based in fen[1..cap]: the reuse-distance and stack-distance
 * counters mark each line's last access time in one. */
#ifndef TK_CORE_FENWICK_H
#define TK_CORE_FENWICK_H

#include <stdint.h>

/* Add `delta` (wrapping: (uint32_t)-1 removes a mark) at time t < cap. */
static inline void tk_fenwick_add(uint32_t *fen, uint32_t cap, uint32_t t, uint32_t delta)
{
    for (uint32_t i = t + 1; i <= cap; i += i & -i)
        fen[i] += delta;
}

/* The marks at times [0, t]. */
static inline uint32_t tk_fenwick_prefix(const uint32_t *fen, uint32_t t)
{
    uint32_t sum = 0;
    for (uint32_t i = t + 1; i > 0; i -= i & -i)
        sum += fen[i];
    return sum;
}

#endif
