/* The miss-ratio-curve engine's parts (include/tracekit/cacheray_mrc.h):
 * a line -> time map, LRU stack distances, the distance histograms, the
 * SHARDS sampler and the miniature caches. */
#ifndef TK_CACHERAY_MRC_INT_H
#define TK_CACHERAY_MRC_INT_H

#include <stddef.h>
#include <stdint.h>

#include <tracekit/cacheray_mrc.h>

/* ---- map.c: line -> u32, open addressing with linear probing */
typedef struct mrc_map {
    uint64_t *key; /* line + 1; 0 = empty */
    uint32_t *val;
    size_t cap, n; /* cap a power of two */
} mrc_map;

int mrc_map_init(mrc_map *m, size_t cap);
void mrc_map_free(mrc_map *m);
/* The value slot of `line`, NULL when absent. */
uint32_t *mrc_map_find(const mrc_map *m, uint64_t line);
/* The slot of `line`, added with `v` (*added 1) when absent; NULL when
 * out of memory. */
uint32_t *mrc_map_upsert(mrc_map *m, uint64_t line, uint32_t v, int *added);
void mrc_map_remove(mrc_map *m, uint64_t line);

/* ---- stack.c: LRU stack distances (Olken: a Fenwick tree over time
 * with a mark at each line's last access) */
typedef struct mrc_stack {
    mrc_map when;    /* line -> time of its last access */
    uint64_t *owner; /* time -> line + 1, 0 when moved on */
    uint32_t *fen;   /* Fenwick tree over time, 1-based */
    uint32_t cap, now;
    uint64_t last;   /* line + 1 of the last access, 0 none */
} mrc_stack;

int mrc_stack_init(mrc_stack *s);
void mrc_stack_free(mrc_stack *s);
/* Access `line`: 1 on its first access, 0 with *dist the number of
 * distinct other lines accessed since its last one, -1 out of memory. */
int mrc_stack_access(mrc_stack *s, uint64_t line, uint64_t *dist);
/* Forget `line` (SHARDS fixed-size eviction). */
void mrc_stack_remove(mrc_stack *s, uint64_t line);
static inline size_t mrc_stack_lines(const mrc_stack *s) { return s->when.n; }

/* ---- hist.c: distance histograms */
/* Exact: a count per distance, growing with the footprint. */
typedef struct mrc_exact {
    uint64_t *count;
    size_t cap;
    uint64_t cold, total;
} mrc_exact;
int mrc_exact_add(mrc_exact *h, uint64_t dist);
/* Line accesses missing in a fully associative LRU cache of `lines`. */
uint64_t mrc_exact_misses(const mrc_exact *h, uint64_t lines);

/* Binned, for scaled (SHARDS) distances: distances below 256 have a bin
 * each, above 256 bins per octave, so that a size of k * 2^j lines with
 * k < 512 is a bin's lower bound and "distance >= size" is exact there. */
enum { MRC_BINS = 256 + 56 * 256 };
unsigned mrc_bin_of(uint64_t d);

/* ---- shards.c */
typedef struct mrc_heap_item {
    uint32_t hash;
    uint64_t line;
} mrc_heap_item;

typedef struct mrc_shards {
    uint64_t threshold;  /* sample when hash32 < threshold (<= 2^32) */
    uint64_t max_samples; /* 0: fixed rate */
    mrc_stack stack;
    double *bin;         /* weights per distance bin (MRC_BINS) */
    double cold;         /* weight of first accesses */
    double scale;        /* a weight's worth: counts are bin * scale */
    double samples;      /* sampled line accesses, weighted */
    uint64_t sampled;    /* sampled line accesses, as taken */
    mrc_heap_item *heap; /* fixed size: max-heap of the sampled lines' hashes */
    size_t nheap, capheap;
    uint64_t peak_lines;
    uint64_t jitter;     /* LCG spreading distances over their span */
} mrc_shards;

/* The spatial hash of a line (multiply, fold, multiply: the top bits
 * depend on every bit of the line), 32 bits. */
static inline uint32_t mrc_hash32(uint64_t line)
{
    uint64_t x = line * 0x9E3779B97F4A7C15ULL;
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ULL;
    return (uint32_t)(x >> 32);
}

int mrc_shards_init(mrc_shards *s, double rate, uint64_t max_samples);
void mrc_shards_free(mrc_shards *s);
/* A line access that passed the filter (hash < threshold). -1 OOM. */
int mrc_shards_access(mrc_shards *s, uint64_t line, uint32_t hash);
double mrc_shards_rate(const mrc_shards *s);
/* Miss rate of `lines` given `accesses` line accesses in all (SHARDS-adj:
 * the shortfall of samples against accesses * rate is counted as hits).
 * NaN when nothing was sampled, and below 4/R lines (too coarse). */
double mrc_shards_miss_rate(const mrc_shards *s, uint64_t accesses, uint64_t lines);

/* ---- mini.c: miniature set-associative caches (a sample of sets) */
typedef struct mrc_mini {
    uint64_t size, sets, msets; /* real geometry, sets simulated */
    uint32_t ways;
    tk_cachesim_policy policy;
    uint32_t *slot;             /* per real set: its miniature set or none */
    uint64_t *tag;              /* msets * ways: line + 1, 0 empty */
    uint64_t *stamp;            /* LRU: last use; PLRU: tree bits per set */
    uint32_t *next;             /* FIFO: the next victim per set */
    uint64_t rng, clock;
    uint64_t accesses, misses;
} mrc_mini;

int mrc_mini_init(mrc_mini *c, uint64_t size, uint32_t line, uint32_t ways,
                  tk_cachesim_policy policy, double rate, uint64_t seed);
void mrc_mini_free(mrc_mini *c);
void mrc_mini_access(mrc_mini *c, uint64_t line);

#endif
