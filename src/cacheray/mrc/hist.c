/* Distance histograms: one count per distance (exact curves), and bins
 * whose lower bounds are every k * 2^j with k < 512 (SHARDS). */
#include <stdlib.h>
#include <string.h>

#include "cacheray/mrc/mrc_int.h"
#include "core/strbuf.h"

int mrc_exact_add(mrc_exact *h, uint64_t dist)
{
    h->total++;
    if (dist == UINT64_MAX) {
        h->cold++;
        return 0;
    }
    if (dist >= h->cap) {
        void *c = h->count;
        int rc = tk_array_grow_zeroed(&c, &h->cap, dist, sizeof *h->count, 1024);
        h->count = c;
        if (rc != 0)
            return -1;
    }
    h->count[dist]++;
    return 0;
}

/* Cold misses, and every access at distance >= lines. Linear in the
 * footprint: callers ask for a curve's few dozen points. */
uint64_t mrc_exact_misses(const mrc_exact *h, uint64_t lines)
{
    uint64_t m = h->cold;
    for (uint64_t d = lines; d < h->cap; d++)
        m += h->count[d];
    return m;
}

unsigned mrc_bin_of(uint64_t d)
{
    if (d < 256)
        return (unsigned)d;
    unsigned e = 63 - (unsigned)__builtin_clzll(d); /* 8 .. 63 */
    unsigned below = (unsigned)(d >> (e - 8)) & 255;
    return 256 + (e - 8) * 256 + below;
}
