/* tracekit — call-stack aggregation of XRay traces (llvm-xray stack), with
 * folded self-time output for flame graphs.
 *
 * A stack set is a handle (<tracekit/tracekit.h>, "Conventions"): made by
 * tk_xray_stacks_new, freed by tk_xray_stacks_free (NULL is fine), used by
 * one thread at a time; distinct sets are independent. */
#ifndef TRACEKIT_XRAY_STACK_H
#define TRACEKIT_XRAY_STACK_H

#include <stdint.h>
#include <stdio.h>
#include <tracekit/error.h>
#include <tracekit/sink.h>
#include <tracekit/xray.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct tk_xray_stacks tk_xray_stacks;

/* An empty set; NULL when out of memory (TK_ENOMEM). */
tk_xray_stacks *tk_xray_stacks_new(tk_error *err);
void tk_xray_stacks_free(tk_xray_stacks *s);

/* Feed one record (events are ignored). Returns 0, 1 when an exit had no
 * matching entry (the thread's stack is unwound anyway, as llvm-xray
 * does), 2 when the record is in its thread's past and was skipped (see
 * TK_XRAY_ACCOUNT_TSC_BACK in xray_account.h) — 1 and 2 are not errors,
 * `err` is untouched — or -1 with `err` (TK_ENOMEM) when out of memory.
 * Whether an exit ends a leaf call is decided per thread (llvm-xray keeps
 * one flag for all threads, which misclassifies interleaved threads). */
int tk_xray_stacks_add(tk_xray_stacks *s, const tk_xray_record *rec, tk_error *err);

/* 1 when no call was ever entered, else 0. */
int tk_xray_stacks_empty(const tk_xray_stacks *s);

typedef enum tk_xray_stacks_view {
    TK_XRAY_STACKS_TOP,      /* llvm-xray's top-10 stacks by leaf sum and count */
    TK_XRAY_STACKS_FLAME,    /* llvm-xray -all-stacks -stack-format=flame */
    TK_XRAY_STACKS_FOLDED,   /* folded stacks weighted by self time (or calls) */
    TK_XRAY_STACKS_JSON      /* every stack: calls, total and self time */
} tk_xray_stacks_view;

typedef enum tk_xray_stacks_threads {
    TK_XRAY_STACKS_ALL_THREADS,  /* stacks of all threads side by side */
    TK_XRAY_STACKS_PER_THREAD,   /* grouped per thread */
    TK_XRAY_STACKS_AGGREGATE     /* the same call path in any thread merged */
} tk_xray_stacks_threads;

typedef struct tk_xray_stacks_print_options {
    tk_xray_stacks_view view;
    tk_xray_stacks_threads threads;
    int count;  /* FLAME/FOLDED: weigh by number of calls, not time */
    /* Name of a function id (NULL: "#<id>"). */
    const char *(*name)(void *ctx, int32_t func_id);
    void *name_ctx;
    /* JSON: the sink to write into, flushed but not finished (NULL: a JSON
     * sink on `out`). */
    tk_sink *json;
} tk_xray_stacks_print_options;

/* One call path (tk_xray_stacks_visit): the numbers the JSON view prints. */
typedef struct tk_xray_stack_path {
    uint32_t tid;          /* its thread (0 when threads are merged) */
    const int32_t *funcs;  /* function ids, outermost first */
    size_t depth;          /* ids in funcs (>= 1) */
    uint64_t calls, leaf_calls, total_ticks, self_ticks;
} tk_xray_stack_path;

/* Call `fn` for every call path, in the order the JSON view lists them
 * (depth first; each thread's paths with ALL_THREADS or PER_THREAD, the
 * merged ones with AGGREGATE). `fn` returns 0 to go on, anything else to
 * stop the walk. Returns TK_OK, or TK_ENOMEM. The path given lives until
 * `fn` returns. */
typedef int (*tk_xray_stacks_visitor)(void *ctx, const tk_xray_stack_path *path);
tk_status tk_xray_stacks_visit(tk_xray_stacks *s, tk_xray_stacks_threads threads,
                               tk_xray_stacks_visitor fn, void *ctx, tk_error *err);

/* Render the stacks to `out` (flushed, not closed; with o->json, into
 * that sink). Returns TK_OK, TK_EIO if writing failed, or TK_ENOMEM. The
 * set may be printed again, in any view. */
tk_status tk_xray_stacks_print(tk_xray_stacks *s, FILE *out,
                               const tk_xray_stacks_print_options *o, tk_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
