/* Latencies of many functions kept exactly in bounded memory.
 *
 * Each function's values go into a list of chunks (4 values, doubling up
 * to a maximum), so growing never copies. Once the chunks of all lists
 * hold more than the pool's budget, a list whose chunk (of at least 512
 * values, or the largest) fills is written to an unlinked temporary file
 * as one run and its memory reused:
 * memory stays flat however long the trace, and the values stay exact.
 * Order statistics come from selection in memory, or, for a list too big
 * to load, from histogram passes over its runs that narrow the value range
 * until the wanted elements can be collected. */
#ifndef TK_XRAY_LATENCY_H
#define TK_XRAY_LATENCY_H

#include <stddef.h>
#include <stdint.h>

typedef struct tk_lat_chunk {
    struct tk_lat_chunk *next;
    uint32_t n, cap;
    uint64_t v[];
} tk_lat_chunk;

typedef struct tk_lat_run {
    uint64_t off, n; /* byte offset in the spill file, values */
} tk_lat_run;

/* The tail chunk's free space is kept as a write pointer in the list, so
 * an append touches only the list (the chunk's own `n` is brought up to
 * date when the tail changes or the values are read). */
typedef struct tk_lat_list {
    uint64_t *wp, *wend; /* free space of the tail chunk */
    uint64_t n;          /* values in all, chunks and runs */
    tk_lat_chunk *head, *tail;
    tk_lat_run *runs;
    uint32_t nruns, runs_cap;
} tk_lat_list;

typedef struct tk_lat_pool {
    uint64_t budget;   /* values kept in chunks before spilling */
    uint64_t in_mem;   /* capacity of all chunks */
    uint32_t max_chunk;
    int fd;            /* spill file, -1 until needed */
    int spill_failed;  /* no temporary file: keep everything in memory */
    uint64_t file_end;
    uint64_t spilled;  /* values written to the file (statistics) */
} tk_lat_pool;

/* budget_bytes: memory for chunks before spilling (0: 64 MiB). */
void tk_lat_pool_init(tk_lat_pool *p, uint64_t budget_bytes);
void tk_lat_pool_free(tk_lat_pool *p);
void tk_lat_list_free(tk_lat_pool *p, tk_lat_list *l);

int tk_lat_add_slow(tk_lat_pool *p, tk_lat_list *l, uint64_t v);

/* Append a value; -1 when out of memory. */
static inline int tk_lat_add(tk_lat_pool *p, tk_lat_list *l, uint64_t v)
{
    if (l->wp != l->wend) {
        *l->wp++ = v;
        l->n++;
        return 0;
    }
    return tk_lat_add_slow(p, l, v);
}

/* Call fn(ctx, values, n) over every value of the list (spilled runs
 * first, in no particular order); the list is unchanged. Returns 0, or
 * -2 when the spill file cannot be read. */
int tk_lat_each(tk_lat_pool *p, tk_lat_list *l,
                void (*fn)(void *ctx, const uint64_t *v, size_t n), void *ctx);

/* The elements at positions k[0] <= k[1] <= k[2] (< l->n) of the sorted
 * values, into out[]; min and max are the list's extremes (the first
 * narrowing range). Frees the list's chunks. Returns 0, -1 when out of
 * memory, or -2 when the spill file cannot be read. */
int tk_lat_select(tk_lat_pool *p, tk_lat_list *l, const uint64_t k[3], uint64_t min,
                  uint64_t max, uint64_t out[3]);

/* The elements at positions k[0] <= k[1] <= k[2] (< n) of v as if sorted,
 * into out[]: by histogram buckets when n is large (two passes over v),
 * else by quickselect (v is reordered). 0, or -1 when out of memory. */
int tk_lat_select_array(uint64_t *v, size_t n, const uint64_t k[3], uint64_t out[3]);

#endif
