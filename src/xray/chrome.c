/* Chrome Trace Event JSON export, streamed record by record. */
#include <stdlib.h>
#include <string.h>

#include <tracekit/xray_export.h>

#include "core/hashmap.h"
#include "core/strbuf.h"
#include "xray/xray_int.h"

typedef struct open_stack {
    tk_xr_clock clock;
    tk_xr_calls calls;
} open_stack;

typedef struct exporter {
    FILE *out;
    tk_strbuf b;
    uint64_t freq;
    uint64_t events;
    tk_map threads; /* pid << 32 | tid -> open_stack */
    tk_map pids;    /* pid -> named */
    tk_xray_name_fn name;
    void *ctx;
    char idbuf[24];
} exporter;

static const char *func_name(exporter *e, int32_t id)
{
    const char *n = e->name ? e->name(e->ctx, id) : NULL;
    if (n)
        return n;
    snprintf(e->idbuf, sizeof e->idbuf, "#%d", id);
    return e->idbuf;
}

/* Microseconds with three decimals, exact: tsc * 1e9 / freq nanoseconds. */
static void put_ts(exporter *e, uint64_t tsc)
{
    unsigned __int128 ns = (unsigned __int128)tsc * 1000000000u / e->freq;
    uint64_t us = (uint64_t)(ns / 1000), frac = (uint64_t)(ns % 1000);
    sb_u64(&e->b, us);
    sb_putc(&e->b, '.');
    sb_putc(&e->b, (char)('0' + frac / 100));
    sb_putc(&e->b, (char)('0' + frac / 10 % 10));
    sb_putc(&e->b, (char)('0' + frac % 10));
}

static void begin_event(exporter *e)
{
    sb_puts(&e->b, e->events++ ? ",\n{" : "\n{");
}

static void end_event(exporter *e)
{
    sb_putc(&e->b, '}');
    if (e->b.len > (1u << 16)) {
        fwrite(e->b.p, 1, e->b.len, e->out);
        sb_reset(&e->b);
    }
}

static void pid_tid(exporter *e, const tk_xray_record *r)
{
    sb_puts(&e->b, ",\"pid\":");
    sb_u64(&e->b, r->pid);
    sb_puts(&e->b, ",\"tid\":");
    sb_u64(&e->b, r->tid);
}

static void name_record(exporter *e, const char *what, uint32_t pid, uint32_t tid,
                        const char *label, uint32_t id)
{
    begin_event(e);
    sb_printf(&e->b, "\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
                     "\"args\":{\"name\":\"%s %u\"}",
              what, pid, tid, label, id);
    end_event(e);
}

/* Thread (and on first sight process) names; the thread's open calls. */
static open_stack *thread_of(exporter *e, const tk_xray_record *r)
{
    uint64_t key = (uint64_t)r->pid << 32 | r->tid;
    size_t before = e->threads.n;
    open_stack *s = tk_map_u64(&e->threads, key);
    if (s && e->threads.n != before) {
        size_t pb = e->pids.n;
        if (!tk_map_u64(&e->pids, r->pid))
            return NULL;
        if (e->pids.n != pb)
            name_record(e, "process_name", r->pid, 0, "process", r->pid);
        name_record(e, "thread_name", r->pid, r->tid, "thread", r->tid);
    }
    return s;
}

static void slice(exporter *e, const tk_xray_record *r, int32_t func, char ph)
{
    begin_event(e);
    sb_puts(&e->b, "\"name\":");
    const char *n = func_name(e, func);
    sb_json_str(&e->b, n, strlen(n));
    sb_puts(&e->b, ",\"cat\":\"xray\",\"ph\":\"");
    sb_putc(&e->b, ph);
    sb_puts(&e->b, "\",\"ts\":");
    put_ts(e, r->tsc);
    pid_tid(e, r);
    if (ph == 'B' && r->nargs) {
        sb_puts(&e->b, ",\"args\":{");
        for (uint32_t i = 0; i < r->nargs; i++) {
            sb_printf(&e->b, "%s\"arg%u\":", i ? "," : "", i);
            sb_u64(&e->b, r->args[i]);
        }
        sb_putc(&e->b, '}');
    }
    end_event(e);
}

static int record(exporter *e, const tk_xray_record *r)
{
    open_stack *s = thread_of(e, r);
    if (!s)
        return -1;
    if (r->kind <= TK_XRAY_ENTER_ARG && tk_xr_clock_behind(&s->clock, r->tsc))
        return 0; /* repeated records (validate warns) */
    tk_xr_calls *c = &s->calls;
    switch (r->kind) {
    case TK_XRAY_ENTER:
    case TK_XRAY_ENTER_ARG:
        if (tk_xr_calls_push(c, r->func_id, 0, 0) != 0)
            return -1;
        slice(e, r, r->func_id, 'B');
        break;
    case TK_XRAY_EXIT:
    case TK_XRAY_TAIL_EXIT: {
        /* an exit closes the innermost call of its function (no entry:
         * nothing to close), and the callees left open above it */
        long at = tk_xr_calls_exit(c, r->func_id, 1);
        while (at >= 0 && c->depth > (uint32_t)at)
            slice(e, r, c->funcs[--c->depth], 'E');
        break;
    }
    case TK_XRAY_CUSTOM_EVENT:
    case TK_XRAY_TYPED_EVENT:
        begin_event(e);
        if (r->kind == TK_XRAY_TYPED_EVENT)
            sb_printf(&e->b, "\"name\":\"typed-event %u\"", r->event_type);
        else
            sb_puts(&e->b, "\"name\":\"custom-event\"");
        sb_puts(&e->b, ",\"cat\":\"xray\",\"ph\":\"i\",\"s\":\"t\",\"ts\":");
        put_ts(e, r->tsc);
        pid_tid(e, r);
        sb_puts(&e->b, ",\"args\":{\"data\":");
        sb_json_str(&e->b, (const char *)r->data, r->data_len);
        sb_puts(&e->b, "}");
        end_event(e);
        break;
    }
    return 0;
}

tk_status tk_xray_write_chrome(tk_xray_reader *r, FILE *out, tk_xray_name_fn name,
                               void *name_ctx, tk_error *err)
{
    exporter e;
    memset(&e, 0, sizeof e);
    e.out = out;
    e.name = name;
    e.ctx = name_ctx;
    e.freq = tk_xray_reader_header(r)->cycle_frequency;
    if (!e.freq)
        e.freq = 1000000000u;
    tk_map_init(&e.threads, sizeof(open_stack));
    tk_map_init(&e.pids, 1);
    sb_puts(&e.b, "{\"traceEvents\":[");
    tk_xray_record rec;
    int rc;
    tk_status st = TK_OK;
    while ((rc = tk_xray_next(r, &rec, err)) > 0)
        if (record(&e, &rec) != 0) {
            st = tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
            break;
        }
    if (rc < 0 && st == TK_OK)
        st = err->status;
    sb_puts(&e.b, "\n],\"displayTimeUnit\":\"ns\"}\n");
    if (e.b.oom && st == TK_OK)
        st = tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    if (fwrite(e.b.p, 1, e.b.len, out) != e.b.len && st == TK_OK)
        st = tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "writing output failed");
    for (size_t i = 0; i < e.threads.n; i++)
        tk_xr_calls_free(&((open_stack *)tk_map_value(&e.threads, i))->calls);
    tk_map_free(&e.threads);
    tk_map_free(&e.pids);
    sb_free(&e.b);
    return st;
}
