/* tracekit — miss-ratio curves of Cacheray traces: the miss rate of an
 * LRU cache against its size, for every size at once.
 * Semantics: docs/formats/cacheray.md, "Miss-ratio curves".
 *
 * - Exact: a fully associative LRU cache of C lines misses on a line's
 *   first access and on every access whose LRU stack distance (distinct
 *   other lines since the line's last access, as cachesim --reuse counts
 *   them) is C or more (Mattson's inclusion property), so one pass gives
 *   every C from one line to the footprint.
 * - SHARDS (Waldspurger et al., FAST 2015): only the lines whose address
 *   hashes below a threshold (rate R) enter the stack, distances scaled
 *   by 1/R; fixed rate, or fixed size (at most S sampled lines: the
 *   threshold drops to evict the largest hashes, and the counts so far are
 *   rescaled). SHARDS-adj: the shortfall of samples against R times the
 *   line accesses counts as hits.
 *   (mini caches: at least 32 sets, or all of a smaller cache; their miss
 *   rate is SHARDS-adj too.)
 * - Miniature simulation (Waldspurger et al., USENIX ATC 2017): caches of
 *   a real geometry (ways, policy) with their sets scaled down by R: the
 *   sets whose index hashes lowest are simulated whole (so lines that
 *   conflict in a set still do), the others not at all.
 *
 * A tk_mrc is a handle (<tracekit/tracekit.h>, "Conventions"): made by
 * tk_mrc_new, freed by tk_mrc_free, used by one thread at a time. */
#ifndef TRACEKIT_CACHERAY_MRC_H
#define TRACEKIT_CACHERAY_MRC_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/cacheray.h>
#include <tracekit/cachesim.h>
#include <tracekit/error.h>
#include <tracekit/input.h>
#include <tracekit/select.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

enum { TK_MRC_MAX_LINE_SIZES = 8, TK_MRC_MAX_SIZES = 64 };

typedef struct tk_mrc_config {
    size_t nline_sizes;               /* curves, one per line size */
    uint32_t line_sizes[TK_MRC_MAX_LINE_SIZES]; /* powers of two, 4 .. 1 MiB */
    int exact;                        /* the exact curves */
    double sample_rate;               /* SHARDS at rate R in (0, 1]; 0: none
                                         (with max_samples: the first rate) */
    uint64_t max_samples;             /* SHARDS fixed size S (0: fixed rate) */
    /* Miniature simulation (ways > 0) at line_sizes[0]: one cache per size */
    uint32_t ways;
    tk_cachesim_policy policy;        /* PLRU needs power-of-two ways */
    double mini_rate;                 /* R for the miniatures, (0, 1] */
    size_t nsizes;
    uint64_t sizes[TK_MRC_MAX_SIZES]; /* bytes, multiples of line * ways */
    uint64_t seed;                    /* random replacement */
} tk_mrc_config;

/* One 64-byte-line exact curve, no SHARDS, no miniatures, seed 1, mini
 * rate 0.01, LRU. Cannot fail. */
void tk_mrc_config_init(tk_mrc_config *c);
/* TK_EUSAGE naming what is wrong. */
tk_status tk_mrc_config_check(const tk_mrc_config *c, tk_error *err);

typedef struct tk_mrc tk_mrc;
/* An engine for `c` (copied, checked: TK_EUSAGE). NULL and `err` on
 * failure. Free with tk_mrc_free (NULL is fine). */
tk_mrc *tk_mrc_new(const tk_mrc_config *c, tk_error *err);
void tk_mrc_free(tk_mrc *m);
/* Feed one record (RTTA records are counted and ignored). TK_ENOMEM is
 * the only failure. */
tk_status tk_mrc_feed(tk_mrc *m, const tk_cacheray_record *rec, tk_error *err);
/* Read `in` from its current position to the end and feed the records
 * `sel` selects (NULL or empty: all; a fast path then). Errors are the
 * reader's. */
tk_status tk_mrc_run(tk_mrc *m, tk_input *in, tk_endian endian, const tk_selection *sel,
                     tk_error *err);

typedef struct tk_mrc_totals {
    uint64_t records, accesses; /* records fed, reads and writes among them */
    uint64_t zero_size;         /* accesses of 0 bytes: touch no line */
} tk_mrc_totals;
/* The counts over every record fed so far, into *t. Cannot fail. */
void tk_mrc_get_totals(const tk_mrc *m, tk_mrc_totals *t);

typedef enum tk_mrc_method { TK_MRC_EXACT = 0, TK_MRC_SHARDS = 1 } tk_mrc_method;

typedef struct tk_mrc_curve {
    uint32_t line_size;
    uint64_t line_accesses; /* every line every access overlaps */
    uint64_t lines;         /* distinct lines (SHARDS: estimated) */
    double sample_rate;     /* 1 exact; SHARDS: the final rate */
    uint64_t samples;       /* line accesses that entered the stack */
    uint64_t peak_samples;  /* sampled lines held at most */
} tk_mrc_curve;
/* Curve i (line_sizes[i]) of `method`: 1 and *out, or 0 (zeros) when it
 * was not computed. */
int tk_mrc_get_curve(const tk_mrc *m, size_t i, tk_mrc_method method, tk_mrc_curve *out);
/* The miss rate of a fully associative LRU cache of `cache_lines` lines
 * (cold misses included) on curve i; NaN when not computed, when no line
 * was accessed (sampled), and for SHARDS below 4/R lines, where the
 * sampled distances are too coarse. */
double tk_mrc_miss_rate(const tk_mrc *m, size_t i, tk_mrc_method method,
                        uint64_t cache_lines);
/* The exact curve's misses at `cache_lines` (0 without it). */
uint64_t tk_mrc_misses(const tk_mrc *m, size_t i, uint64_t cache_lines);

typedef struct tk_mrc_mini {
    uint64_t size, sets, sampled_sets;
    uint64_t line_accesses, line_misses; /* of the miniature */
    double sample_rate;                  /* sampled_sets / sets */
    double miss_rate;                    /* NaN when it saw no access */
} tk_mrc_mini;
/* The number of miniature caches, and cache k (zeros past the end). */
size_t tk_mrc_minis(const tk_mrc *m);
void tk_mrc_get_mini(const tk_mrc *m, size_t k, tk_mrc_mini *out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
