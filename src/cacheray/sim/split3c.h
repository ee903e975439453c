/* One level with 3C on two threads (pipe.c): the level, with its shadow,
 * goes to a simulator of its own for the worker, which also counts the
 * level's misses per type and thread; the main thread's keeps the rest
 * (the other counts, false sharing, reuse). */
#ifndef TK_CACHERAY_SPLIT3C_H
#define TK_CACHERAY_SPLIT3C_H

#include "cacheray/sim/sim_int.h"

typedef struct cs_split3c {
    tk_cachesim *w;          /* the worker's: the level, and misses per thread */
    uint64_t *type_misses;   /* the worker's: misses per type index */
    size_t ntypes;
} cs_split3c;

/* Whether s has the shape: one level, with 3C. */
int cs_split3c_ok(const tk_cachesim *s);
/* The level into x->w; s keeps its line size only and a pass that does
 * nothing. -1 (s unchanged) when out of memory. */
int cs_split3c_start(tk_cachesim *s, cs_split3c *x);
/* The worker's part of batch b: the level, then (with `count`) its misses
 * per type (b->type, which the main thread wrote) and thread. */
void cs_split3c_batch(cs_split3c *x, cs_batch *b, int count);
/* The level and the counts back into s (the worker stopped). */
void cs_split3c_stop(tk_cachesim *s, cs_split3c *x);

#endif
