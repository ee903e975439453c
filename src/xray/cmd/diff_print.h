/* diff's output (text table, --json, --folded) and --fail-if. */
#ifndef TK_XRAY_CMD_DIFF_PRINT_H
#define TK_XRAY_CMD_DIFF_PRINT_H

#include <stdio.h>

#include <tracekit/sink.h>
#include <tracekit/xray_diff.h>

#define TK_DIFF_MAX_THRESHOLDS 32

typedef enum tk_diff_stat {
    TK_DIFF_COUNT, TK_DIFF_SUM, TK_DIFF_SELF, TK_DIFF_MED, TK_DIFF_P90, TK_DIFF_P99
} tk_diff_stat;

/* STAT>+N%: B's STAT above A's by more than N percent. */
typedef struct tk_diff_threshold {
    tk_diff_stat stat;
    double percent;
} tk_diff_threshold;

/* Parse "p90>+5%,sum>+10%" into t[] (at most cap; *n set): 0, or -1 when
 * it does not parse (or has more than cap). */
int tk_diff_thresholds_parse(const char *s, tk_diff_threshold *t, size_t cap, size_t *n);

typedef struct tk_diff_result {
    const char *path[2];
    double units; /* per second, 0: ticks */
    double alpha;
    int stacks, folded;
    tk_xray_diff_row *funcs, *paths;
    size_t nfuncs, npaths;
    tk_diff_threshold thr[TK_DIFF_MAX_THRESHOLDS];
    size_t nthr;
    size_t failed; /* functions past a threshold */
} tk_diff_result;

/* Functions significantly slower past a threshold (sets each row's mark
 * for the output). */
size_t tk_diff_failing(const tk_diff_result *r);
/* 1 when row `x` is significantly slower past a threshold. */
int tk_diff_row_fails(const tk_diff_result *r, const tk_xray_diff_row *x);

/* The result as text or --folded into `f`, or as JSON into `json`. */
void tk_diff_print(FILE *f, tk_sink *json, const tk_diff_result *r);

#endif
