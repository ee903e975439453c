/* tracekit — what got slower between two XRay traces (A, the baseline,
 * and B): per function (or per call path) the calls, total and self time
 * and latency quantiles of each trace, their change, and whether the
 * change is noise by a two-sided Mann-Whitney U test on the per-call
 * latencies (docs/formats/xray.md, "diff").
 *
 * A diff is a handle (<tracekit/tracekit.h>, "Conventions"): made by
 * tk_xray_diff_new, freed by tk_xray_diff_free (NULL is fine), used by
 * one thread at a time, except that trace A's calls (tk_xray_diff_name,
 * tk_xray_diff_add with side 0, and its name callback) and trace B's
 * (side 1) may run on two threads at once, one per trace; distinct diffs
 * are independent. */
#ifndef TRACEKIT_XRAY_DIFF_H
#define TRACEKIT_XRAY_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/error.h>
#include <tracekit/xray.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct tk_xray_diff tk_xray_diff;

typedef struct tk_xray_diff_options {
    int deduce_sibling_calls; /* as tk_xray_account_options */
    int stacks;               /* also rows per call path */
    double alpha;             /* significance level; 0: 0.05 */
    uint64_t memory_limit;    /* bytes of latencies kept in memory, half
                                 for each trace; past it they go to a
                                 temporary file in $TMPDIR. 0: 64 MiB */
    /* cycle frequencies of A and B (0: unknown). When both are known and
     * differ, latencies are compared in picoseconds, else in ticks. */
    uint64_t freq[2];
    /* names of trace s's functions (NULL: matched by id), asked once per
     * id when it is first seen (as tk_xray_diff_name); the string is
     * copied. tk_xray_map_name over each trace's map fits. */
    const char *(*name[2])(void *ctx, int32_t func_id);
    void *name_ctx[2];
    /* threads ranking the rows (tk_xray_diff_rows): 0 or 1 one, 2 or more
     * two; the rows are the same */
    int threads;
} tk_xray_diff_options;

/* One trace's statistics of a row; all zero when the row is not in it. */
typedef struct tk_xray_diff_stats {
    uint64_t count;
    /* in units (tk_xray_diff_units_per_second): sum of the latencies,
     * sum of the self times (latency minus the latencies of the calls it
     * made), and elements n/2, floor(0.9 n), floor(0.99 n) of the sorted
     * latencies (account's quantiles) */
    uint64_t sum, self, min, med, p90, p99, max;
} tk_xray_diff_stats;

typedef enum tk_xray_diff_verdict {
    TK_XRAY_DIFF_SAME = 0,   /* not significant ("~") */
    TK_XRAY_DIFF_SLOWER = 1, /* B's latencies rank higher, p < alpha */
    TK_XRAY_DIFF_FASTER = 2, /* B's latencies rank lower, p < alpha */
    TK_XRAY_DIFF_ONLY_A = 3, /* no call in B: not tested */
    TK_XRAY_DIFF_ONLY_B = 4  /* no call in A: not tested */
} tk_xray_diff_verdict;

typedef struct tk_xray_diff_row {
    /* a function: its name (NULL when unnamed) and ids in A and B (-1
     * where absent); a call path (stacks): path is its frames root..leaf,
     * each a name or "#<id>", joined by ';' (func_id, name: the leaf's) */
    const char *name, *path;
    int32_t func_id[2];
    tk_xray_diff_stats a, b;
    double u;   /* Mann-Whitney U of A (ties count half) */
    double z;   /* its normal score (0 when exact) */
    double p;   /* two-sided p-value; 1 when not tested */
    int exact;  /* p from the exact distribution (small samples, no ties) */
    tk_xray_diff_verdict verdict;
} tk_xray_diff_row;

/* An empty diff with options `o` (copied; NULL: all zero). NULL when out
 * of memory (TK_ENOMEM). */
tk_xray_diff *tk_xray_diff_new(const tk_xray_diff_options *o, tk_error *err);
void tk_xray_diff_free(tk_xray_diff *d);

/* Name function `func_id` of trace `side` (0: A, 1: B) before that
 * side's records: functions of the same name in A and B are one row,
 * unnamed ones are matched by id. TK_ENOMEM; TK_EUSAGE when a side's id
 * is named twice or after its records came. */
tk_status tk_xray_diff_name(tk_xray_diff *d, int side, int32_t func_id, const char *name,
                            tk_error *err);

/* Feed one record of trace `side` (events are ignored). As
 * tk_xray_account_add: TK_XRAY_ACCOUNT_OK, a tk_xray_account_failure
 * (> 0, the record is skipped), or -1 with `err` (TK_ENOMEM). */
int tk_xray_diff_add(tk_xray_diff *d, int side, const tk_xray_record *rec, tk_error *err);

/* Latencies written to the temporary file so far. */
uint64_t tk_xray_diff_spilled(const tk_xray_diff *d);

/* Units of the rows' times per second: the cycle frequency (of both),
 * 1e12 (picoseconds) when they differ, 0 when unknown (ticks). */
double tk_xray_diff_units_per_second(const tk_xray_diff *d);

/* The rows after the last record: functions (stacks = 0) or call paths
 * (stacks = 1, needs the option), sorted by the change of the self-time
 * sum, largest increase first (ties by name, then id or path). *rows is
 * an array the caller frees with free(); its strings belong to `d`.
 * TK_ENOMEM, TK_EIO when the temporary file could not be read back,
 * TK_EUSAGE for stacks without the option. The first call computes the
 * statistics of both kinds (freeing the latencies); later calls copy. */
tk_status tk_xray_diff_rows(tk_xray_diff *d, int stacks, tk_xray_diff_row **rows, size_t *n,
                            tk_error *err);

/* The Mann-Whitney test alone: p-value of U (of the first sample, ties
 * half) for samples of sizes n1, n2 with tie term sum(t^3 - t) over the
 * groups of equal values of the union; exact when n1 * n2 <= 400 and
 * there are no ties, else the normal approximation with tie and
 * continuity correction (*z set; *exact tells which). Cannot fail. */
double tk_xray_diff_mwu_p(double u, uint64_t n1, uint64_t n2, double ties, double *z,
                          int *exact);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
