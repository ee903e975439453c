/* The XRay to Parquet export's parts (parquet.c: records and events, and
 * the pass; parquet_calls.c: calls). docs/formats/xray.md, "Parquet
 * tables", lists the columns. */
#ifndef TK_XRAY_PARQUET_INT_H
#define TK_XRAY_PARQUET_INT_H

#include <tracekit/xray_map.h>

#include "core/hashmap.h"
#include "export/parquet/tables.h"
#include "xray/perfetto_int.h"
#include "xray/xray_int.h"

/* What a call keeps while it is open. */
typedef struct tk_xq_frame {
    uint64_t call_id;  /* its entry record's index */
    uint64_t child_ns; /* the durations of its direct callees so far */
    uint64_t tsc;      /* its entry */
    int32_t func;
    uint32_t pid;
    uint32_t args_at;  /* its arguments: args[args_at, args_at + nargs) */
    uint32_t nargs;
} tk_xq_frame;

/* A thread (keyed by tid, as account keys them): its clock, its open
 * calls (matched as tk_xr_calls matches them) and their arguments, a
 * stack. The outermost call is held inline, the others in `more` (call i
 * at more[i - 1]), so a thread of one call allocates nothing: threads can
 * be millions. */
typedef struct tk_xq_thread {
    tk_xr_clock clock;
    tk_xq_frame first;
    tk_xq_frame *more;
    uint64_t *args;
    uint32_t depth, more_cap, args_cap;
} tk_xq_thread;

/* A function's name, copied once. */
typedef struct tk_xq_name {
    char *s;
    size_t n;
} tk_xq_name;

typedef struct tk_xq {
    tk_pq_table *calls, *records, *events;
    tk_xray_map *map;      /* names functions; NULL: "#<id>" */
    tk_xp_clock clock;     /* TSC to ns */
    int deduce;            /* -d: deeper exits close the calls above */
    tk_map threads;        /* tid -> tk_xq_thread */
    uint32_t last_tid;
    tk_xq_thread *last;    /* the thread of last_tid (NULL: none cached) */
    tk_xq_name *direct;    /* function id -> name (small ids) */
    size_t ndirect;
    tk_map other;          /* other ids -> tk_xq_name */
    char *text;            /* an args list as text */
    size_t text_cap;
} tk_xq;

/* Declare the calls table. */
tk_status tk_xq_calls_table(tk_xq *x, tk_pq_dir *d, tk_error *err);
/* A function entry, exit or tail exit of record index `index` (events
 * are not calls). */
tk_status tk_xq_call_record(tk_xq *x, const tk_xray_record *r, uint64_t index, tk_error *err);
/* Close the calls still open, at their thread's last time. */
tk_status tk_xq_calls_end(tk_xq *x, tk_error *err);
void tk_xq_free(tk_xq *x);

/* `n` arguments as a JSON array of decimal integers ("[1,2]") in x->text;
 * NULL when out of memory. */
const char *tk_xq_args_text(tk_xq *x, const uint64_t *args, uint32_t n, size_t *len);

/* A time in ns as the INT64 columns hold it (saturating). */
static inline int64_t tk_xq_ns(const tk_xq *x, uint64_t tsc)
{
    uint64_t ns = tk_xp_ns(&x->clock, tsc);
    return ns > INT64_MAX ? INT64_MAX : (int64_t)ns;
}

#endif
