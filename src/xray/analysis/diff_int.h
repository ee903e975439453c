/* What diff.c asks of diff_rank.c: the ranks of two latency lists merged,
 * in bounded memory. */
#ifndef TK_XRAY_DIFF_INT_H
#define TK_XRAY_DIFF_INT_H

#include <stdint.h>

#include "xray/analysis/latency.h"

typedef struct tk_xd_rank {
    uint64_t q[2][3]; /* per side: elements n/2, floor(0.9n), floor(0.99n) */
    uint64_t u2;      /* 2 U of side 0 (ties count half: an integer) */
    double ties;      /* sum of t^3 - t over groups of t equal values */
} tk_xd_rank;

/* Quantiles of each list and the Mann-Whitney U of l[0] against l[1]
 * (either list may be empty; n, min, max as the lists hold; list s in
 * pool p[s]), holding at
 * most `cap` values in memory besides the lists. The lists are left as
 * they are. 0, -1 out of memory, -2 when the spill file cannot be read. */
int tk_xd_rank_lists(tk_lat_pool *const p[2], tk_lat_list *const l[2], const uint64_t min[2],
                     const uint64_t max[2], uint64_t cap, tk_xd_rank *out);

#endif
