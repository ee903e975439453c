/* `tracekit validate` for XRay: the reader's structural checks over the
 * whole file, and warnings for what reads but misleads an analysis:
 * garbage between buffers, basic records under an FDR header, FDR buffers
 * out of time order in the file, and a thread whose TSC goes back. */
#include <stdarg.h>
#include <stdio.h>

#include "core/hashmap.h"
#include "xray/xray_int.h"

/* Threads whose TSC goes back are listed up to this many, then counted. */
#define LISTED_THREADS 20

/* A thread's clock (as the analyses keep it), and its first step back. */
typedef struct thread_clock {
    tk_xr_clock clock;
    uint64_t backs;              /* records in the thread's past */
    uint64_t offset, index;      /* of the first such record */
    uint64_t from, to;           /* its TSC step: max then, its TSC */
} thread_clock;

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
                       const thread_clock *c)
{
    warning_begin(s, nwarnings, "tsc-goes-back");
    if (!s)
        return;
    tk_sink_u64(s, "thread", key & 0xFFFFFFFFu, 0);
    tk_sink_u64(s, "pid", key >> 32, 0);
    tk_sink_u64(s, "records", c->backs, 0);
    tk_sink_u64(s, "offset", c->offset, TK_SINK_HEX);
    tk_sink_u64(s, "record", c->index, 0);
    warning_end(s, "the thread's TSC goes back from %llu to %llu (%llu record%s "
                   "behind its latest time: a buffer flushed twice, e.g. by a forked "
                   "child); account, stack and graph report them and skip them "
                   "with -k",
                (unsigned long long)c->from, (unsigned long long)c->to,
                (unsigned long long)c->backs, c->backs == 1 ? "" : "s");
}

static void warn_clocks(tk_sink *s, uint64_t *nwarnings, const tk_map *threads)
{
    uint64_t more = 0;
    size_t listed = 0;
    for (size_t i = 0; i < threads->n; i++) {
        const thread_clock *c = tk_map_value(threads, i);
        if (!c->backs)
            continue;
        if (listed++ < LISTED_THREADS)
            warn_clock(s, nwarnings, threads->ukeys[i], c);
        else
            more++;
    }
    if (more) {
        warning_begin(s, nwarnings, "tsc-goes-back");
        warning_end(s, "and %llu more threads whose TSC goes back",
                    (unsigned long long)more);
    }
}

/* The clocks of all threads, and the last one used (records come in runs
 * per thread). */
typedef struct clocks {
    tk_map threads; /* pid << 32 | tid -> thread_clock */
    uint64_t last_key;
    size_t last;    /* entry index + 1, 0: none */
} clocks;

/* Note a function record's TSC against its thread's latest. */
static int check_clock(clocks *cs, tk_xray_reader *r, const tk_xray_record *rec)
{
    uint64_t key = (uint64_t)rec->pid << 32 | rec->tid;
    thread_clock *c;
    if (cs->last && cs->last_key == key) {
        c = tk_map_value(&cs->threads, cs->last - 1);
    } else {
        c = tk_map_u64(&cs->threads, key);
        if (!c)
            return -1;
        cs->last_key = key;
        cs->last = (size_t)((unsigned char *)c - cs->threads.values) /
                       cs->threads.value_size + 1;
    }
    if (!tk_xr_clock_behind(&c->clock, rec->tsc))
        return 0;
    if (c->backs++ == 0) {
        c->offset = tk_xray_reader_offset(r);
        c->index = tk_xray_reader_index(r);
        c->from = c->clock.max;
        c->to = rec->tsc;
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
    tk_map_init(&cs.threads, sizeof(thread_clock));
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
        warn_clocks(s, nwarnings, &cs.threads);
    }
    tk_map_free(&cs.threads);
    tk_xray_reader_free(r);
    return rc < 0 ? err->status : TK_OK;
}
