/* tracekit — per-function latency accounting of XRay traces (what
 * `llvm-xray account` computes, with the same statistics).
 *
 * An account is a handle (<tracekit/tracekit.h>, "Conventions"): made by
 * tk_xray_account_new, freed by tk_xray_account_free (NULL is fine), used
 * by one thread at a time; distinct accounts are independent (their
 * temporary files too). tk_xray_account_failure_text is safe from any
 * thread. */
#ifndef TRACEKIT_XRAY_ACCOUNT_H
#define TRACEKIT_XRAY_ACCOUNT_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/error.h>
#include <tracekit/xray.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct tk_xray_account tk_xray_account;

typedef struct tk_xray_account_options {
    int deduce_sibling_calls; /* an exit matching a frame deeper in the stack
                                 closes every frame above it too */
    int recursive_calls_only; /* count only calls of functions that are in
                                 a recursion (depth >= 2) */
    uint64_t memory_limit;    /* bytes of latencies kept in memory; past it
                                 they go to a temporary file in $TMPDIR
                                 (results stay exact). 0: 64 MiB */
} tk_xray_account_options;

/* Why a record could not be accounted. */
typedef enum tk_xray_account_failure {
    TK_XRAY_ACCOUNT_OK = 0,
    TK_XRAY_ACCOUNT_EMPTY_STACK,   /* an exit with no open call */
    TK_XRAY_ACCOUNT_UNMATCHED_EXIT, /* an exit of a function not on top (or,
                                       deducing sibling calls, anywhere) */
    TK_XRAY_ACCOUNT_TSC_BACK        /* the record is in its thread's past: its
                                       TSC is below the largest the thread
                                       reached, or equal to it while behind
                                       (records repeated by a buffer flushed
                                       twice, as after fork) */
} tk_xray_account_failure;

typedef struct tk_xray_account_row {
    int32_t func_id;
    uint64_t count;
    /* latencies in TSC ticks; the median and percentiles are elements
     * n/2, floor(0.9 n) and floor(0.99 n) of the sorted latencies */
    uint64_t min, med, p90, p99, max, sum;
} tk_xray_account_row;

typedef enum tk_xray_account_sort {
    TK_XRAY_SORT_FUNCID, TK_XRAY_SORT_COUNT, TK_XRAY_SORT_MIN, TK_XRAY_SORT_MED,
    TK_XRAY_SORT_P90, TK_XRAY_SORT_P99, TK_XRAY_SORT_MAX, TK_XRAY_SORT_SUM,
    TK_XRAY_SORT_FUNC /* by name: the caller sorts, rows come by id */
} tk_xray_account_sort;

/* An empty account with options `o` (copied; NULL: all zero). NULL when
 * out of memory (TK_ENOMEM). */
tk_xray_account *tk_xray_account_new(const tk_xray_account_options *o, tk_error *err);
void tk_xray_account_free(tk_xray_account *a);

/* Feed one record (events are ignored). Returns TK_XRAY_ACCOUNT_OK, a
 * tk_xray_account_failure (> 0: the record is skipped, state unchanged;
 * not an error, `err` untouched), or -1 with `err` (TK_ENOMEM) when out of
 * memory. Records of one thread must come in time order: a record in its
 * thread's past is a failure (TK_XRAY_ACCOUNT_TSC_BACK), and so is every
 * record of the thread until its TSC passes the largest again. Threads are
 * independent (unlike llvm-xray, no global TSC floor). */
int tk_xray_account_add(tk_xray_account *a, const tk_xray_record *rec, tk_error *err);

/* Open calls of thread `tid`, outermost first: fills up to `cap` ids and
 * returns the depth (to show where a record that does not match came). */
size_t tk_xray_account_stack(const tk_xray_account *a, uint32_t tid,
                             int32_t *funcs, size_t cap);

/* Functions with at least one latency. */
size_t tk_xray_account_functions(const tk_xray_account *a);

/* Latencies written to the temporary file so far. */
uint64_t tk_xray_account_spilled(const tk_xray_account *a);

/* Rows sorted by `sort` (ties by function id), descending if `descending`:
 * *rows (an array the caller frees with free()) and their number in *n.
 * TK_ENOMEM, or TK_EIO when the temporary file could not be read back;
 * *rows is then NULL and *n 0, and every later call fails the same way.
 * Call it once, after the last record: it turns the latencies into the
 * statistics and hands them over (the account keeps none: a million
 * functions' rows are made in the account's own memory); a later call
 * fails with TK_EUSAGE. */
tk_status tk_xray_account_rows(tk_xray_account *a, tk_xray_account_sort sort,
                               int descending, tk_xray_account_row **rows, size_t *n,
                               tk_error *err);

/* Why a record could not be accounted, in words (static text). */
const char *tk_xray_account_failure_text(tk_xray_account_failure f);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
