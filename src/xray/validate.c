/* `tracekit validate` for XRay: the reader's structural checks over the
 * whole file, and warnings for what reads but misleads an analysis:
 * garbage between buffers, basic records under an FDR header, FDR buffers
 * out of time order in the file, and a thread whose TSC goes back. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/id_index.h"
#include "core/strbuf.h"
#include "xray/xray_int.h"

/* Threads whose TSC goes back are listed up to this many, then counted. */
#define LISTED_THREADS 20

/* A thread's clock (as the analyses keep it): 24 bytes, as threads can be
 * millions. */
typedef struct thread_clock {
    tk_xr_clock clock;
    uint64_t backs;              /* records in the thread's past */
} thread_clock;

/* A thread's first step back (few threads have one). */
typedef struct clock_back {
    size_t thread;               /* index of the thread */
    uint64_t offset, index;      /* of the first record in its past */
    uint64_t from, to;           /* its TSC step: max then, its TSC */
} clock_back;

static void warning_begin(tk_sink *s, uint64_t *nwarnings, const char *code)
{
    ++*nwarnings;
    if (!s)
        return;
    tk_sink_record_begin(s);
    tk_sink_cstr(s, "severity", "warning", TK_SINK_BARE);
    tk_sink_cstr(s, "code", code, TK_SINK_ENUM);
}

static void warning_end(tk_sink *s, const char *fmt, ...)
{
    if (!s)
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tk_sink_cstr(s, "message", msg, 0);
    tk_sink_record_end(s);
}

static void warn_layout(tk_xray_reader *r, tk_sink *s, uint64_t *nwarnings)
{
    const tk_xray_header *h = tk_xray_reader_header(r);
    tk_xray_order_info o;
    tk_xray_reader_order(r, &o);
    if (tk_xray_reader_layout(r) != h->type) {
        warning_begin(s, nwarnings, "fdr-header-basic-records");
        warning_end(s, "an FDR header (version %u) over basic-mode records, as "
                       "llvm-xray convert -f raw writes for an FDR trace: read as "
                       "basic-mode records", h->version);
    }
    if (tk_xray_reader_skipped(r)) {
        warning_begin(s, nwarnings, "skipped-bytes");
        if (s)
            tk_sink_u64(s, "bytes", tk_xray_reader_skipped(r), 0);
        warning_end(s, "bytes between buffers skipped to the next BufferExtents record");
    }
    if (o.moved_buffers) {
        warning_begin(s, nwarnings, "buffers-out-of-order");
        if (s) {
            tk_sink_u64(s, "buffers", o.moved_buffers, 0);
            tk_sink_u64(s, "thread_count", o.threads, 0);
        }
        warning_end(s, "the buffers of %llu thread%s are not in time order in the "
                       "file (the runtime's buffer ring wrapped); read in time order",
                    (unsigned long long)o.threads, o.threads == 1 ? "" : "s");
    }
    if (o.unchecked) {
        warning_begin(s, nwarnings, "buffer-order-unchecked");
        warning_end(s, "FDR buffers read in file order: their time order could not "
                       "be checked (standard input without a usable $TMPDIR, or too "
                       "many buffers)");
    }
}

static void warn_clock(tk_sink *s, uint64_t *nwarnings, uint64_t key,
                       const thread_clock *t, const clock_back *c)
{
    warning_begin(s, nwarnings, "tsc-goes-back");
    if (!s)
        return;
    tk_sink_u64(s, "thread", key & 0xFFFFFFFFu, 0);
    tk_sink_u64(s, "pid", key >> 32, 0);
    tk_sink_u64(s, "records", t->backs, 0);
    tk_sink_u64(s, "offset", c->offset, TK_SINK_HEX);
    tk_sink_u64(s, "record", c->index, 0);
    warning_end(s, "the thread's TSC goes back from %llu to %llu (%llu record%s "
                   "behind its latest time: a buffer flushed twice, e.g. by a forked "
                   "child); account, stack and graph report them and skip them "
                   "with -k",
                (unsigned long long)c->from, (unsigned long long)c->to,
                (unsigned long long)t->backs, t->backs == 1 ? "" : "s");
}

/* The clocks of all threads, and the last one used (records come in runs
 * per thread). */
typedef struct clocks {
    tk_id_index index;   /* pid << 32 | tid -> thread index */
    thread_clock *v;     /* by thread index */
    size_t cap;
    clock_back *backs;   /* in the order of the first step back */
    size_t nbacks, backs_cap;
    uint64_t last_key;
    size_t last;         /* thread index + 1, 0: none */
} clocks;

static void clocks_free(clocks *cs)
{
    tk_id_index_free(&cs->index);
    free(cs->v);
    free(cs->backs);
}

static int by_thread(const void *a, const void *b)
{
    size_t x = ((const clock_back *)a)->thread, y = ((const clock_back *)b)->thread;
    return (x > y) - (x < y);
}

/* Threads whose TSC went back, in the order threads first appeared. */
static void warn_clocks(tk_sink *s, uint64_t *nwarnings, clocks *cs)
{
    if (cs->nbacks > 1)
        qsort(cs->backs, cs->nbacks, sizeof *cs->backs, by_thread);
    size_t listed = cs->nbacks < LISTED_THREADS ? cs->nbacks : LISTED_THREADS;
    for (size_t i = 0; i < listed; i++) {
        const clock_back *c = &cs->backs[i];
        warn_clock(s, nwarnings, cs->index.keys[c->thread], &cs->v[c->thread], c);
    }
    if (cs->nbacks > listed) {
        warning_begin(s, nwarnings, "tsc-goes-back");
        warning_end(s, "and %llu more threads whose TSC goes back",
                    (unsigned long long)(cs->nbacks - listed));
    }
}

/* The clock of the thread of `key`; NULL when out of memory. */
static thread_clock *clock_of(clocks *cs, uint64_t key)
{
    if (cs->last && cs->last_key == key)
        return &cs->v[cs->last - 1];
    int added;
    int64_t i = tk_id_index_get(&cs->index, key, &added);
    if (i < 0)
        return NULL;
    void *v = cs->v;
    int rc = tk_array_grow_zeroed(&v, &cs->cap, (size_t)i, sizeof *cs->v, 64);
    cs->v = v;
    if (rc != 0)
        return NULL;
    cs->last_key = key;
    cs->last = (size_t)i + 1;
    return &cs->v[i];
}

/* Note a function record's TSC against its thread's latest. */
static int check_clock(clocks *cs, tk_xray_reader *r, const tk_xray_record *rec)
{
    thread_clock *c = clock_of(cs, (uint64_t)rec->pid << 32 | rec->tid);
    if (!c)
        return -1;
    uint64_t from = c->clock.max;
    if (!tk_xr_clock_behind(&c->clock, rec->tsc))
        return 0;
    if (c->backs++ == 0) {
        void *v = cs->backs;
        int rc = tk_array_grow_zeroed(&v, &cs->backs_cap, cs->nbacks, sizeof *cs->backs, 16);
        cs->backs = v;
        if (rc != 0)
            return -1;
        cs->backs[cs->nbacks++] = (clock_back){cs->last - 1, tk_xray_reader_offset(r),
                                               tk_xray_reader_index(r), from, rec->tsc};
    }
    return 0;
}

tk_status tk_xr_validate(tk_input *in, const tk_options *o, tk_sink *s,
                         uint64_t *nwarnings, tk_error *err)
{
    (void)o;
    tk_xray_reader *r = tk_xray_reader_new(in, err);
    if (!r)
        return err->status;
    clocks cs = {.last = 0};
    tk_xray_record rec;
    int rc;
    while ((rc = tk_xray_next(r, &rec, err)) > 0)
        if (rec.kind <= TK_XRAY_ENTER_ARG && check_clock(&cs, r, &rec) != 0) {
            rc = -1;
            tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
            break;
        }
    if (rc == 0) {
        warn_layout(r, s, nwarnings);
        warn_clocks(s, nwarnings, &cs);
    }
    clocks_free(&cs);
    tk_xray_reader_free(r);
    return rc < 0 ? err->status : TK_OK;
}
