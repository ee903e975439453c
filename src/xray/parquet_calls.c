/* The calls table: a row per call, written when the call ends, so rows
 * come in end order (a callee before its caller). Calls are matched as
 * account matches them (tk_xr_clock, tk_xr_calls, threads keyed by tid),
 * so SQL over the table gives account's statistics; memory holds only
 * the open calls of each thread. */
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "xray/parquet_int.h"

enum {
    C_CALL_ID, C_PARENT, C_THREAD, C_PID, C_FUNC_ID, C_FUNCTION, C_DEPTH, C_START_NS,
    C_DURATION_NS, C_SELF_NS, C_DURATION_TSC, C_UNFINISHED, C_ARGS
};

static const tk_pq_column call_cols[] = {
    {"call_id", TK_PQ_UINT64, 0, TK_PQ_ENC_DELTA},
    {"parent_call_id", TK_PQ_UINT64, TK_PQ_NULLABLE, TK_PQ_ENC_DELTA},
    {"thread", TK_PQ_UINT64, 0, TK_PQ_ENC_DELTA},
    {"pid", TK_PQ_UINT32, 0, TK_PQ_ENC_DELTA},
    {"func_id", TK_PQ_INT32, 0, TK_PQ_ENC_DELTA},
    {"function", TK_PQ_STRING, 0, TK_PQ_ENC_DICT},
    {"depth", TK_PQ_UINT32, 0, TK_PQ_ENC_DELTA},
    {"start_ns", TK_PQ_INT64, 0, TK_PQ_ENC_DELTA},
    {"duration_ns", TK_PQ_INT64, 0, TK_PQ_ENC_DELTA},
    {"self_ns", TK_PQ_INT64, 0, TK_PQ_ENC_DELTA},
    {"duration_tsc", TK_PQ_UINT64, 0, TK_PQ_ENC_DELTA},
    {"unfinished", TK_PQ_BOOL, 0, TK_PQ_ENC_PLAIN},
    {"args", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_DICT},
};

/* Function ids below this index a table; the others go to a map. */
#define DIRECT_IDS (1u << 20)

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

tk_status tk_xq_calls_table(tk_xq *x, tk_pq_dir *d, tk_error *err)
{
    x->calls = tk_pq_dir_table(d, "calls", call_cols, sizeof call_cols / sizeof call_cols[0], err);
    return x->calls ? TK_OK : err->status;
}

static tk_xq_name *name_slot(tk_xq *x, uint32_t id)
{
    if (id >= DIRECT_IDS)
        return tk_map_u64(&x->other, id);
    if (id >= x->ndirect) {
        void *d = x->direct;
        int rc = tk_array_grow_zeroed(&d, &x->ndirect, id, sizeof *x->direct, 256);
        x->direct = d;
        if (rc != 0)
            return NULL;
    }
    return &x->direct[id];
}

/* Named as account names it: the map's (demangled) name, else "#<id>";
 * NULL when out of memory. */
static const tk_xq_name *name_of(tk_xq *x, int32_t func)
{
    uint32_t id = (uint32_t)func;
    if (id < x->ndirect && x->direct[id].s)
        return &x->direct[id];
    tk_xq_name *slot = name_slot(x, id);
    if (!slot)
        return NULL;
    if (!slot->s) {
        const char *s = tk_xray_map_name(x->map, func);
        slot->n = strlen(s);
        if (!(slot->s = malloc(slot->n + 1)))
            return NULL;
        memcpy(slot->s, s, slot->n + 1);
    }
    return slot;
}

/* Open call i of `t` (i < t->depth, or the one being pushed). */
static tk_xq_frame *frame(tk_xq_thread *t, uint32_t i)
{
    return i ? &t->more[i - 1] : &t->first;
}

/* The row of the innermost open call of `t`, ending at `end` (TSC). */
static tk_status close_call(tk_xq *x, tk_xq_thread *t, uint32_t tid, uint64_t end,
                            int unfinished, tk_error *err)
{
    uint32_t i = --t->depth;
    const tk_xq_frame *f = frame(t, i);
    uint64_t start = f->tsc;
    int64_t s = tk_xq_ns(x, start), dur = tk_xq_ns(x, end) - s;
    const tk_xq_name *name = name_of(x, f->func);
    if (!name)
        return oom(err);
    tk_pq_writer *w = tk_pq_table_writer(x->calls);
    tk_pq_put_u64(w, C_CALL_ID, f->call_id);
    if (i)
        tk_pq_put_u64(w, C_PARENT, frame(t, i - 1)->call_id);
    tk_pq_put_u64(w, C_THREAD, tid);
    tk_pq_put_u64(w, C_PID, f->pid);
    tk_pq_put_i64(w, C_FUNC_ID, f->func);
    tk_pq_put_bytes(w, C_FUNCTION, name->s, name->n);
    tk_pq_put_u64(w, C_DEPTH, i);
    tk_pq_put_i64(w, C_START_NS, s);
    tk_pq_put_i64(w, C_DURATION_NS, dur);
    tk_pq_put_i64(w, C_SELF_NS, dur - (int64_t)f->child_ns);
    tk_pq_put_u64(w, C_DURATION_TSC, end - start);
    tk_pq_put_bool(w, C_UNFINISHED, unfinished);
    if (f->nargs) {
        size_t n;
        const char *a = tk_xq_args_text(x, t->args + f->args_at, f->nargs, &n);
        if (!a)
            return oom(err);
        tk_pq_put_bytes(w, C_ARGS, a, n);
    }
    if (i)
        frame(t, i - 1)->child_ns += (uint64_t)dur;
    return tk_pq_table_row_end(x->calls, err);
}

/* Room for frame `d` and `nargs` more arguments. */
static int reserve(tk_xq_thread *t, uint32_t d, uint32_t at, uint32_t nargs)
{
    if (d == UINT32_MAX)
        return -1;
    if (d > t->more_cap) {
        uint32_t cap = t->more_cap ? t->more_cap * 2 : 2;
        if (cap <= t->more_cap)
            return -1;
        tk_xq_frame *f = realloc(t->more, (size_t)cap * sizeof *f);
        if (!f)
            return -1;
        t->more = f;
        t->more_cap = cap;
    }
    if (nargs > UINT32_MAX - at)
        return -1;
    if (at + nargs > t->args_cap) {
        uint32_t cap = t->args_cap ? t->args_cap : 8;
        while (cap < at + nargs)
            cap = cap > UINT32_MAX / 2 ? at + nargs : cap * 2;
        uint64_t *a = realloc(t->args, (size_t)cap * sizeof *a);
        if (!a)
            return -1;
        t->args = a;
        t->args_cap = cap;
    }
    return 0;
}

static tk_status enter(tk_xq_thread *t, const tk_xray_record *r, uint64_t index,
                       tk_error *err)
{
    uint32_t d = t->depth;
    uint32_t at = d ? frame(t, d - 1)->args_at + frame(t, d - 1)->nargs : 0;
    if (reserve(t, d, at, r->nargs) != 0)
        return oom(err);
    if (r->nargs)
        memcpy(t->args + at, r->args, r->nargs * sizeof *r->args);
    *frame(t, d) = (tk_xq_frame){.call_id = index, .tsc = r->tsc, .func = r->func_id,
                                 .pid = r->pid, .args_at = at, .nargs = r->nargs};
    t->depth = d + 1;
    return TK_OK;
}

/* Where an exit of `func` returns to, as tk_xr_calls_exit says (< 0:
 * nothing closes). */
static long exit_at(tk_xq_thread *t, int32_t func, int deduce)
{
    if (t->depth == 0)
        return -1;
    uint32_t from = t->depth - 1;
    if (frame(t, from)->func == func)
        return from;
    if (!deduce)
        return -1;
    while (from > 0 && frame(t, from - 1)->func != func)
        from--;
    return from == 0 ? -1 : (long)from - 1;
}

static tk_xq_thread *thread_of(tk_xq *x, uint32_t tid)
{
    if (x->last && x->last_tid == tid)
        return x->last;
    tk_xq_thread *t = tk_map_u64(&x->threads, tid); /* may move the others */
    if (t) {
        x->last = t;
        x->last_tid = tid;
    }
    return t;
}

tk_status tk_xq_call_record(tk_xq *x, const tk_xray_record *r, uint64_t index, tk_error *err)
{
    tk_xq_thread *t = thread_of(x, r->tid);
    if (!t)
        return oom(err);
    if (tk_xr_clock_behind(&t->clock, r->tsc))
        return TK_OK; /* in the thread's past: account skips it too */
    if (r->kind == TK_XRAY_ENTER || r->kind == TK_XRAY_ENTER_ARG)
        return enter(t, r, index, err);
    long at = exit_at(t, r->func_id, x->deduce);
    while (at >= 0 && t->depth > (uint32_t)at)
        if (close_call(x, t, r->tid, r->tsc, 0, err) != TK_OK)
            return err->status;
    return TK_OK; /* an exit that matches no open call closes nothing */
}

tk_status tk_xq_calls_end(tk_xq *x, tk_error *err)
{
    for (size_t i = 0; i < x->threads.n; i++) {
        tk_xq_thread *t = tk_map_value(&x->threads, i);
        while (t->depth > 0)
            if (close_call(x, t, (uint32_t)x->threads.ukeys[i], t->clock.max, 1, err) != TK_OK)
                return err->status;
    }
    return TK_OK;
}

void tk_xq_free(tk_xq *x)
{
    for (size_t i = 0; i < x->threads.n; i++) {
        tk_xq_thread *t = tk_map_value(&x->threads, i);
        free(t->more);
        free(t->args);
    }
    tk_map_free(&x->threads);
    for (size_t i = 0; i < x->ndirect; i++)
        free(x->direct[i].s);
    free(x->direct);
    for (size_t i = 0; i < x->other.n; i++)
        free(((tk_xq_name *)tk_map_value(&x->other, i))->s);
    tk_map_free(&x->other);
    free(x->text);
}
