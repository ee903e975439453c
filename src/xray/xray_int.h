/* Internals shared by the XRay reader, writer and commands. */
#ifndef TK_XRAY_INT_H
#define TK_XRAY_INT_H

#include <stdlib.h>
#include <string.h>

#include <tracekit/format.h>
#include <tracekit/select.h>
#include <tracekit/xray.h>
#include <tracekit/xray_account.h>

/* Block verifier states (verify.c). */
typedef enum xv_state {
    XV_UNKNOWN,
    XV_EXTENTS,
    XV_NEW_BUFFER,
    XV_WALLTIME,
    XV_PID,
    XV_NEW_CPU,
    XV_TSC_WRAP,
    XV_CUSTOM,
    XV_TYPED,
    XV_FUNCTION,
    XV_CALL_ARG,
    XV_EOB,
    XV_MAX
} xv_state;

xv_state tk_xv_state_of(tk_xray_fdr_kind k);
int tk_xv_allowed(xv_state from, xv_state to);
int tk_xv_terminal(xv_state s);
const char *tk_xv_name(xv_state s);

/* FDR buffers read out of file order so that each thread's come in time
 * order (order.c). A move: in the place of the buffer at [at, at_end),
 * read the one at [from, from_end). */
typedef struct tk_xr_move {
    uint64_t at, at_end, from, from_end;
} tk_xr_move;

typedef struct tk_xr_order {
    tk_xr_move *moves;    /* by `at` */
    size_t nmoves, next;  /* next: the first move not yet taken */
    uint64_t threads;     /* threads whose buffers are out of order */
    int unchecked;        /* the order could not be checked or mended */
} tk_xr_order;

/* Scan the buffers of a seekable FDR v2+ input (the position is left
 * anywhere) and plan the moves. */
tk_status tk_xr_order_plan(tk_input *in, unsigned version, tk_xr_order *o,
                           tk_error *err);
void tk_xr_order_free(tk_xr_order *o);

/* A thread's clock as the analyses see it. A record whose TSC is below the
 * largest the thread has reached repeats or contradicts its past (a
 * buffer flushed twice: a forked child flushes a copy of its parent's
 * buffer). Such a record is not accounted, and neither is any record of
 * the thread until its TSC passes that largest one again. */
typedef struct tk_xr_clock {
    uint64_t max;
    int behind;
} tk_xr_clock;

/* What the analyses say of such a record. */
#define TK_XR_TSC_BACK_TEXT                                                  \
    "TSC goes back: the record is in its thread's past (records repeated, as "  \
    "when a forked child flushes a copy of its parent's buffer)"

/* 1 when the record at `tsc` is in the thread's past (to be skipped). */
static inline int tk_xr_clock_behind(tk_xr_clock *c, uint64_t tsc)
{
    if (tsc > c->max || (tsc == c->max && !c->behind)) {
        c->max = tsc;
        c->behind = 0;
        return 0;
    }
    c->behind = 1;
    return 1;
}

/* A thread's open calls, innermost last, matched to exits the one way
 * account, the Chrome export and the Perfetto export share. `tscs` is
 * kept only when tk_xr_calls_push is given one (account's entry times). */
typedef struct tk_xr_calls {
    int32_t *funcs;
    uint64_t *tscs; /* NULL unless entry times are kept; then one block
                       holds both, tscs first */
    uint32_t depth, cap;
} tk_xr_calls;

/* Room for `cap` calls in one block (tscs, then funcs): one allocation of
 * 32 bytes for a thread of one call, since threads can be millions. */
static inline int tk_xr_calls_grow(tk_xr_calls *c, uint32_t cap, int keep_tsc)
{
    if (!keep_tsc) {
        int32_t *f = realloc(c->funcs, (size_t)cap * sizeof *f);
        if (!f)
            return -1;
        c->funcs = f;
        c->cap = cap;
        return 0;
    }
    size_t tsc_bytes = (size_t)cap * sizeof(uint64_t);
    unsigned char *b = realloc(c->tscs, tsc_bytes + (size_t)cap * sizeof(int32_t));
    if (!b)
        return -1;
    /* the funcs move up to their new place (memmove: they may overlap) */
    memmove(b + tsc_bytes, b + (size_t)c->cap * sizeof(uint64_t),
            (size_t)c->depth * sizeof(int32_t));
    c->tscs = (uint64_t *)(void *)b;
    c->funcs = (int32_t *)(void *)(b + tsc_bytes);
    c->cap = cap;
    return 0;
}

/* Open a call of `func` (entered at `tsc` when `keep_tsc`, the same for
 * every call of `c`); -1 out of memory (or past 2^31 open calls). */
static inline int tk_xr_calls_push(tk_xr_calls *c, int32_t func, int keep_tsc, uint64_t tsc)
{
    if (c->depth == c->cap) {
        uint32_t cap = c->cap ? c->cap * 2 : 2;
        if (cap <= c->cap || tk_xr_calls_grow(c, cap, keep_tsc) != 0)
            return -1;
    }
    if (keep_tsc)
        c->tscs[c->depth] = tsc;
    c->funcs[c->depth++] = func;
    return 0;
}

/* Where an exit of `func` returns to: the calls [from, depth) close, and
 * `from` is returned. The exit must match the innermost call; with
 * `deduce`, one that matches a deeper call closes the calls above it too
 * (missed exits: llvm-xray account's -deduce-sibling-calls). Failures
 * (nothing closes) as tk_xray_account_failure values, negated:
 * -TK_XRAY_ACCOUNT_EMPTY_STACK, -TK_XRAY_ACCOUNT_UNMATCHED_EXIT. */
static inline long tk_xr_calls_exit(const tk_xr_calls *c, int32_t func, int deduce)
{
    if (c->depth == 0)
        return -TK_XRAY_ACCOUNT_EMPTY_STACK;
    uint32_t from = c->depth - 1;
    if (c->funcs[from] == func)
        return from;
    if (!deduce)
        return -TK_XRAY_ACCOUNT_UNMATCHED_EXIT;
    while (from > 0 && c->funcs[from - 1] != func)
        from--;
    return from == 0 ? -TK_XRAY_ACCOUNT_UNMATCHED_EXIT : (long)from - 1;
}

static inline void tk_xr_calls_free(tk_xr_calls *c)
{
    if (c->tscs)
        free(c->tscs);
    else
        free(c->funcs);
    c->funcs = NULL;
    c->tscs = NULL;
    c->depth = c->cap = 0;
}

/* The map named by the "instr-map" option ("demangle" = "0" keeps C++
 * names mangled). NULL with err->status TK_OK when there is none. */
struct tk_xray_map *tk_xr_open_map(const tk_options *o, tk_error *err);
/* A tk_xray_name_fn over a tk_xray_map (ctx), "#<id>" without one. */
const char *tk_xr_map_name(void *map, int32_t id);

/* Selections (select.c): which logical records tk_xray_next returns. */
typedef struct tk_xr_filter tk_xr_filter;
struct tk_spool;
/* The filter for `s` (not empty) on a trace of cycle frequency `freq`;
 * `map` resolves a --func name (NULL: ids only). NULL with err set
 * (TK_EUSAGE: a range or name that does not apply). The filter keeps what
 * it needs of `s`; a range counts from its `base`, the first TSC (0 until
 * set). */
tk_xr_filter *tk_xr_filter_new(const tk_selection *s, uint64_t freq, struct tk_xray_map *map,
                               tk_error *err);
void tk_xr_filter_free(tk_xr_filter *f);
/* 1 when a --func value is a name (not "42" or "#42"). */
int tk_xr_func_is_name(const char *v);
/* 1 keep the record, 0 drop it, -1 out of memory. */
int tk_xr_filter_keep(tk_xr_filter *f, const tk_xray_record *rec);
/* The reader applies `f` from now on and frees it; it also reads from and
 * frees the spool `sp` when that holds a copied pipe (sp is emptied). */
void tk_xr_reader_attach(tk_xray_reader *r, tk_xr_filter *f, struct tk_spool *sp);

/* Commands (commands.c, info.c): a reader with the selection of `o`. */
tk_xray_reader *tk_xr_open(tk_input *in, const tk_options *o, tk_error *err);
void tk_xr_sink_record(tk_sink *s, const tk_xray_record *r, uint64_t i, uint64_t off,
                       struct tk_xray_map *map);
tk_status tk_xr_validate(tk_input *in, const tk_options *o, tk_sink *s,
                         uint64_t *nwarnings, tk_error *err);
tk_status tk_xr_info(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err);
tk_status tk_xr_report(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err);
/* report --html (html.c): the report as one page (src/export/html/). */
tk_status tk_xr_report_html(tk_input *in, const tk_options *o, FILE *out, tk_error *err);
/* convert --to perfetto (perfetto.c): Perfetto's native trace on `out`. */
tk_status tk_xray_perfetto(tk_input *in, const tk_options *o, FILE *out, tk_error *err);


/* convert --to parquet: the format's tables into `dir`
 * (src/export/parquet/tables.h; docs/formats/xray.md lists them). */
tk_status tk_xray_parquet(tk_input *in, const tk_options *o, const char *source, const char *dir,
                        tk_error *err);

#endif
