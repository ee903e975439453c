/* The whole hierarchy on the worker (pipe.c): the levels, with their 3C
 * shadows, go to a simulator of their own for the worker, which also
 * counts every level's misses per type and thread; the main thread's
 * keeps the rest (the other counts, false sharing, reuse). Taken at the
 * start with one level and 3C; with more levels, when the first level's
 * miss ratio shows that it, not the levels below, is most of the
 * simulation's work (pipe.c). */
#ifndef TK_CACHERAY_SPLIT3C_H
#define TK_CACHERAY_SPLIT3C_H

#include "cacheray/sim/sim_int.h"

typedef struct cs_split3c {
    tk_cachesim *w;          /* the worker's: the levels, and misses per thread */
    uint64_t *type_misses;   /* the worker's: misses per type index and level */
    size_t ntypes;
} cs_split3c;

/* Whether s has the shape for a split from the start: one level, with 3C. */
int cs_split3c_ok(const tk_cachesim *s);
/* Every level (and the queues between them) into x->w; s keeps the first
 * level's line size only (the decoder's) and a first-level pass that does
 * nothing. Call with no worker running on s's levels. -1 (s unchanged)
 * when out of memory. */
int cs_split3c_start(tk_cachesim *s, cs_split3c *x);
/* The worker's part of batch b: the levels (every miss into b->mask),
 * then (with `count`) the misses per type (b->type, which the main thread
 * wrote) and thread. */
void cs_split3c_batch(cs_split3c *x, cs_batch *b, int count);
/* The levels and the counts back into s (the worker stopped). */
void cs_split3c_stop(tk_cachesim *s, cs_split3c *x);

#endif
