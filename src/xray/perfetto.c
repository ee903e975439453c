/* XRay on a Perfetto timeline (src/export/perfetto/): a process track per
 * pid, a thread track (and packet sequence) per thread, a slice per call,
 * an instant per custom or typed event. docs/formats/xray.md, "Perfetto
 * timeline", says what is shown and why.
 *
 * Calls are matched as account matches them (tk_xr_calls_exit, tk_xr_clock);
 * records come in runs per thread, so the thread of the last record is
 * cached, and a function's interned name by its id (perfetto_names.c): a
 * call costs a clock check, a push or pop and one encoder call. */
#include <stdlib.h>
#include <string.h>

#include <tracekit/xray_map.h>

#include "core/hashmap.h"
#include "core/numfmt.h"
#include "core/id_index.h"
#include "xray/perfetto_int.h"
#include "xray/xray_int.h"

/* One thread of the trace: its sequence (one writer per thread, as
 * Perfetto models it: records of different threads are not in time order
 * in FDR files, each thread's are; its default track is the thread's) and
 * its open calls: the first inline, the others in `more` (more[0] is their
 * capacity, call i is more[i]), so a thread of one call allocates nothing
 * (48 bytes; threads can be millions). */
typedef struct xthread {
    tk_perfetto_seq *seq;
    uint64_t last_ns; /* the last timestamp written on seq */
    tk_xr_clock clock;
    int32_t *more;
    int32_t first;
    uint32_t depth;
} xthread;

/* The threads in order of first record (the order open calls close in),
 * indexed by pid << 32 | tid. */
typedef struct xthreads {
    xthread *v;
    size_t cap;
    tk_id_index index; /* index.n threads */
} xthreads;

typedef struct exporter {
    tk_xp_names names;
    tk_xp_clock clock;
    int deduce;
    xthreads threads;
    uint64_t last_key;
    uint64_t pid0;  /* the first record's pid << 32 */
    int have_pid0;
    xthread *last;  /* the thread of last_key (NULL: none cached) */
    tk_map procs;   /* pid -> uint64_t process track uuid */
    uint32_t proc_pid; /* the pid last looked up there, and its track */
    uint64_t proc_uuid; /* (0: none yet) */
    uint64_t next_uuid;
    tk_perfetto_arg *args; /* a call's arguments */
    size_t nargs;
    char *hex;      /* an event's payload as hex */
    size_t hexcap;
} exporter;

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

/* The process track of `pid`, declared on `seq` when first seen. */
static tk_status process_of(exporter *e, tk_perfetto_seq *seq, uint32_t pid,
                            uint64_t *uuid, tk_error *err)
{
    if (e->proc_uuid && e->proc_pid == pid) { /* threads of one process */
        *uuid = e->proc_uuid;
        return TK_OK;
    }
    size_t before = e->procs.n;
    uint64_t *u = tk_map_u64(&e->procs, pid);
    if (!u)
        return oom(err);
    if (e->procs.n != before) {
        char name[32];
        if (pid)
            snprintf(name, sizeof name, "process %u", pid);
        else /* basic v1-2, FDR v1-2: no pid in the trace */
            snprintf(name, sizeof name, "xray trace");
        *u = e->next_uuid++;
        if (tk_perfetto_process_track(seq, *u, (int32_t)pid, name, err) != TK_OK)
            return err->status;
    }
    *uuid = e->proc_uuid = *u;
    e->proc_pid = pid;
    return TK_OK;
}

/* "thread <tid>", without printf: threads can be millions. */
static void thread_name(char out[24], uint32_t tid)
{
    memcpy(out, "thread ", 7);
    tk_num_printf_u(out + 7, tid, 0);
}

/* A new thread: its sequence, and its track (its process's first). */
static tk_status thread_new(exporter *e, xthread *t, uint32_t pid, uint32_t tid,
                            tk_error *err)
{
    uint64_t parent = 0;
    if (!(t->seq = tk_perfetto_seq_new(e->names.p, err)))
        return err->status;
    if (process_of(e, t->seq, pid, &parent, err) != TK_OK)
        return err->status;
    char name[24];
    thread_name(name, tid);
    uint64_t track = e->next_uuid++;
    tk_perfetto_seq_default_track(t->seq, track); /* events leave it out */
    return tk_perfetto_thread_track(t->seq, track, parent, (int32_t)pid, tid, name, err);
}

/* The thread of `key`, added (zeroed) when new: *added says so. NULL when
 * out of memory. May move the others. */
static xthread *threads_get(xthreads *t, uint64_t key, int *added)
{
    if (t->index.n == t->cap) { /* room for a new one first: nothing half done */
        size_t cap = t->cap ? t->cap * 2 : 16;
        xthread *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return NULL;
        t->v = v;
        t->cap = cap;
    }
    int64_t i = tk_id_index_get(&t->index, key, added);
    if (i < 0)
        return NULL;
    if (*added)
        memset(&t->v[i], 0, sizeof t->v[i]);
    return &t->v[i];
}

/* A thread's key: pid << 32 | tid, with the first pid seen taken as 0, so
 * that the threads of one process are small keys (the index's direct table,
 * 4 bytes a thread, where a hashed key costs 24). */
static uint64_t thread_key(exporter *e, const tk_xray_record *r)
{
    if (!e->have_pid0) {
        e->pid0 = (uint64_t)r->pid << 32;
        e->have_pid0 = 1;
    }
    return ((uint64_t)r->pid << 32 | r->tid) ^ e->pid0;
}

static xthread *thread_of(exporter *e, const tk_xray_record *r, tk_error *err)
{
    uint64_t key = thread_key(e, r);
    if (e->last && e->last_key == key)
        return e->last;
    int added;
    xthread *t = threads_get(&e->threads, key, &added);
    if (!t) {
        oom(err);
        return NULL;
    }
    if (added && thread_new(e, t, r->pid, r->tid, err) != TK_OK)
        return NULL;
    e->last = t;
    e->last_key = key;
    return t;
}

/* The time of a record on t's sequence: ns, never below the last one
 * written (only a custom event ahead of its thread's calls can make it). */
static uint64_t stamp(exporter *e, xthread *t, uint64_t tsc)
{
    uint64_t ns = tk_xp_ns(&e->clock, tsc);
    if (ns < t->last_ns)
        return t->last_ns;
    return t->last_ns = ns;
}

/* Open call i of t (i < t->depth). */
static int32_t call_at(const xthread *t, uint32_t i) { return i ? t->more[i] : t->first; }

/* -1 when out of memory. */
static int push(xthread *t, int32_t func)
{
    if (t->depth == 0) {
        t->first = func;
    } else {
        if (!t->more || t->depth > (uint32_t)t->more[0]) {
            uint32_t cap = t->more ? 2 * (uint32_t)t->more[0] : 3;
            if (cap > INT32_MAX / 2)
                return -1;
            int32_t *m = realloc(t->more, ((size_t)cap + 1) * sizeof *m);
            if (!m)
                return -1;
            m[0] = (int32_t)cap;
            t->more = m;
        }
        t->more[t->depth] = func;
    }
    t->depth++;
    return 0;
}

/* Where an exit of `func` returns to (tk_xr_calls_exit's answer; < 0:
 * nothing closes). */
static long exit_at(const xthread *t, int32_t func, int deduce)
{
    if (t->depth == 0)
        return -1;
    uint32_t from = t->depth - 1;
    if (call_at(t, from) == func)
        return from;
    if (!deduce)
        return -1;
    while (from > 0 && call_at(t, from - 1) != func)
        from--;
    return from == 0 ? -1 : (long)from - 1;
}

static tk_status enter(exporter *e, xthread *t, const tk_xray_record *r, uint64_t ts,
                       tk_error *err)
{
    if (push(t, r->func_id) != 0)
        return oom(err);
    tk_perfetto_event ev = {.ts = ts, .track = tk_perfetto_seq_track(t->seq)};
    if (!(ev.name = tk_xp_func_name(&e->names, r->func_id, err)))
        return err->status;
    if (r->nargs) { /* ENTER_ARG: "arg0", "arg1", ... as annotations */
        if (r->nargs > e->nargs) {
            tk_perfetto_arg *a = realloc(e->args, r->nargs * sizeof *a);
            if (!a)
                return oom(err);
            e->args = a;
            e->nargs = r->nargs;
        }
        for (uint32_t i = 0; i < r->nargs; i++) {
            e->args[i].type = TK_PERFETTO_ARG_UINT;
            e->args[i].v.u = r->args[i];
            if (!(e->args[i].name = tk_xp_arg_name(&e->names, i, err)))
                return err->status;
        }
        ev.args = e->args;
        ev.nargs = r->nargs;
    }
    return tk_perfetto_begin(t->seq, &ev, err);
}

/* An exit closes what account's does (nothing when it matches no call). */
static tk_status leave(exporter *e, xthread *t, int32_t func, uint64_t ts, tk_error *err)
{
    long at = exit_at(t, func, e->deduce);
    while (at >= 0 && t->depth > (uint32_t)at) {
        t->depth--;
        if (tk_perfetto_end(t->seq, ts, tk_perfetto_seq_track(t->seq), err) != TK_OK)
            return err->status;
    }
    return TK_OK;
}

/* A custom or typed event: an instant with its payload in hex. One in its
 * thread's past is skipped like a call's record, without moving the
 * thread's clock (account does not see events). */
static tk_status event(exporter *e, xthread *t, const tk_xray_record *r, tk_error *err)
{
    if (t->clock.behind || r->tsc < t->clock.max)
        return TK_OK;
    static const char digits[] = "0123456789abcdef";
    size_t n = r->data_len;
    if (2 * n + 1 > e->hexcap) {
        char *h = realloc(e->hex, 2 * n + 1);
        if (!h)
            return oom(err);
        e->hex = h;
        e->hexcap = 2 * n + 1;
    }
    for (size_t i = 0; i < n; i++) {
        e->hex[2 * i] = digits[r->data[i] >> 4];
        e->hex[2 * i + 1] = digits[r->data[i] & 15];
    }
    tk_perfetto_arg data = {.name = e->names.data, .type = TK_PERFETTO_ARG_STR};
    data.v.s.p = e->hex;
    data.v.s.n = 2 * n;
    tk_perfetto_event ev = {.ts = stamp(e, t, r->tsc), .track = tk_perfetto_seq_track(t->seq),
                            .args = &data, .nargs = 1};
    ev.name = r->kind == TK_XRAY_TYPED_EVENT
                  ? tk_xp_typed_name(&e->names, r->event_type, err)
                  : e->names.custom;
    if (!ev.name)
        return err->status;
    return tk_perfetto_instant(t->seq, &ev, err);
}

static tk_status record(exporter *e, const tk_xray_record *r, tk_error *err)
{
    xthread *t = thread_of(e, r, err);
    if (!t)
        return err->status;
    if (r->kind >= TK_XRAY_CUSTOM_EVENT)
        return event(e, t, r, err);
    if (tk_xr_clock_behind(&t->clock, r->tsc))
        return TK_OK; /* repeated records (validate warns; account -k skips them) */
    uint64_t ts = stamp(e, t, r->tsc);
    if (r->kind == TK_XRAY_ENTER || r->kind == TK_XRAY_ENTER_ARG)
        return enter(e, t, r, ts, err);
    return leave(e, t, r->func_id, ts, err);
}

/* Calls open at the end close at their thread's last timestamp. */
static tk_status close_open(exporter *e, tk_error *err)
{
    for (size_t i = 0; i < e->threads.index.n; i++) {
        xthread *t = &e->threads.v[i];
        for (; t->depth > 0; t->depth--)
            if (tk_perfetto_end(t->seq, t->last_ns, tk_perfetto_seq_track(t->seq), err) !=
                TK_OK)
                return err->status;
    }
    return TK_OK;
}

static tk_status run(exporter *e, tk_xray_reader *r, tk_error *err)
{
    tk_xray_record rec;
    int rc;
    while ((rc = tk_xray_next(r, &rec, err)) > 0)
        if (record(e, &rec, err) != TK_OK)
            return err->status;
    if (rc < 0)
        return err->status;
    return close_open(e, err);
}

static void exporter_free(exporter *e)
{
    for (size_t i = 0; i < e->threads.index.n; i++)
        free(e->threads.v[i].more);
    free(e->threads.v);
    tk_id_index_free(&e->threads.index);
    tk_map_free(&e->procs);
    tk_xp_names_free(&e->names);
    free(e->args);
    free(e->hex);
}

tk_status tk_xray_perfetto(tk_input *in, const tk_options *o, FILE *out, tk_error *err)
{
    const char *deduce = tk_options_get(o, "deduce-sibling-calls");
    tk_xray_reader *r = tk_xr_open(in, o, err);
    if (!r)
        return err->status;
    tk_xray_map *map = tk_xr_open_map(o, err);
    if (!map && err->status != TK_OK) {
        tk_xray_reader_free(r);
        return err->status;
    }
    exporter e;
    memset(&e, 0, sizeof e);
    e.deduce = deduce && strcmp(deduce, "0") != 0;
    e.next_uuid = 1;
    tk_map_init(&e.procs, sizeof(uint64_t));
    tk_xp_clock_init(&e.clock, tk_xray_reader_header(r)->cycle_frequency);
    tk_status st = tk_xp_names_init(&e.names, out, map, err);
    if (st == TK_OK)
        st = run(&e, r, err);
    if (st == TK_OK) {
        st = tk_perfetto_finish(e.names.p, err);
        e.names.p = NULL; /* freed by finish */
    }
    exporter_free(&e);
    tk_xray_map_free(map);
    tk_xray_reader_free(r);
    return st;
}
