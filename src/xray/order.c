/* FDR buffers in time order per thread.
 *
 * The LLVM runtime keeps its buffers in a ring (the flight data recorder
 * keeps the newest) and writes them in ring order: once the ring has
 * wrapped, a thread's buffers are not in time order in the file (LLVM 14,
 * buffer_max=4: wall times ...327, ...415, ...490, ...212). Before the
 * records are read, one pass over the buffer headers (BufferExtents lets it
 * jump from buffer to buffer) notes each buffer's thread and start time:
 * its wall clock, then the TSC of its first NewCPUId. Only when a thread's
 * buffers are out of order does a second pass list that thread's buffers;
 * the reader then reads, in the place of the thread's k-th buffer in the
 * file, its k-th in time order (seeking there and back). Other threads and
 * the interleaving of threads keep their file order. Memory: a few words
 * per thread, and 48 bytes per buffer of the threads that are reordered.
 *
 * A buffer without the usual preamble (NewBuffer, WallClockTime, [Pid],
 * NewCPUId) stays where it is; scanning stops at the first place that is
 * not a buffer, and what follows stays in file order (the reader reports
 * what is wrong there). */
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/hashmap.h"
#include "xray/xray_int.h"

#define PINNED UINT64_MAX
/* More buffers than a runtime ring ever holds (buffer_max, default 100):
 * past this many to reorder, the trace is read in file order. */
#define MAX_UNITS ((size_t)1 << 20)

/* A buffer's start: its wall clock, then the TSC of its first NewCPUId. */
typedef struct stamp {
    uint64_t sec, tsc;
    uint32_t usec;
} stamp;

typedef struct unit {
    uint64_t start, end; /* the BufferExtents record to the buffer's end */
    uint64_t thread;     /* pid << 32 | tid, or PINNED */
    stamp time;
    uint32_t seq;        /* file order among the listed buffers */
} unit;

typedef struct last_seen {
    stamp time;
    uint8_t seen, out_of_order;
} last_seen;

static int earlier(const stamp *a, const stamp *b)
{
    if (a->sec != b->sec)
        return a->sec < b->sec;
    if (a->usec != b->usec)
        return a->usec < b->usec;
    return a->tsc < b->tsc;
}

/* Thread and start time from a buffer's preamble (p: `avail` bytes after
 * its BufferExtents record). */
static void read_preamble(const uint8_t *p, uint64_t avail, unsigned version, unit *u)
{
    u->thread = PINNED;
    if (avail < 64 || p[0] != 0x01 || p[16] != 0x09)
        return;
    uint64_t tid = tk_ld32(p + 1, 0), pid = 0;
    u->time.sec = tk_ld64(p + 17, 0);
    u->time.usec = tk_ld32(p + 25, 0);
    size_t at = 32;
    if (p[at] == 0x13) { /* Pid: counted from version 3 on, as the reader does */
        pid = version >= 3 ? tk_ld32(p + at + 1, 0) : 0;
        at += 16;
        if (avail < at + 16)
            return;
    }
    if (p[at] != 0x05)
        return;
    u->time.tsc = tk_ld64(p + at + 3, 0);
    u->thread = pid << 32 | tid;
}

/* The buffer at or after *off (v3+ skips to a BufferExtents tag, as the
 * reader does). 1 found, 0 end of input or not a buffer here, -1 error. */
static int scan_unit(tk_input *in, unsigned version, uint64_t *off, unit *u,
                     tk_error *err)
{
    const uint8_t *p;
    int64_t n;
    if (tk_input_seek(in, *off, err) != TK_OK)
        return -1;
    for (;;) {
        n = tk_input_window(in, 96, &p, err);
        if (n <= 0)
            return (int)n;
        if (version < 3 || p[0] == 0x0F)
            break;
        const uint8_t *hit = memchr(p, 0x0F, (size_t)n);
        tk_input_advance(in, hit ? (size_t)(hit - p) : (size_t)n);
    }
    if (p[0] != 0x0F || n < 16)
        return 0;
    u->start = tk_input_offset(in);
    uint64_t len = tk_ld64(p + 1, 0);
    uint64_t size = (uint64_t)tk_input_size(in);
    if (len > size - u->start - 16)
        return 0; /* runs past the end: the reader says so */
    u->end = u->start + 16 + len;
    read_preamble(p + 16, (uint64_t)n - 16 < len ? (uint64_t)n - 16 : len, version, u);
    *off = u->end;
    return 1;
}

/* Pass 1: which threads have buffers out of order (marked in `threads`).
 * Returns how many threads, or -1 on error. */
static int64_t find_disorder(tk_input *in, unsigned version, tk_map *threads,
                             tk_error *err)
{
    uint64_t off = TK_XRAY_HEADER_SIZE;
    int64_t disordered = 0;
    unit u;
    int rc;
    while ((rc = scan_unit(in, version, &off, &u, err)) > 0) {
        if (u.thread == PINNED)
            continue;
        last_seen *l = tk_map_u64(threads, u.thread);
        if (!l)
            return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                                "out of memory"), -1;
        if (l->seen && earlier(&u.time, &l->time)) {
            disordered += !l->out_of_order;
            l->out_of_order = 1;
        }
        l->time = u.time;
        l->seen = 1;
    }
    return rc < 0 ? -1 : disordered;
}

/* Pass 2: the buffers of the marked threads, in file order. Returns how
 * many (0 when there are too many to reorder), or -1 on error. */
static int64_t list_units(tk_input *in, unsigned version, const tk_map *threads,
                          unit **out, tk_error *err)
{
    uint64_t off = TK_XRAY_HEADER_SIZE;
    size_t n = 0, cap = 0;
    unit u, *v = NULL;
    int rc;
    while ((rc = scan_unit(in, version, &off, &u, err)) > 0) {
        last_seen *l = u.thread == PINNED ? NULL : tk_map_find_u64(threads, u.thread);
        if (!l || !l->out_of_order)
            continue;
        if (n == MAX_UNITS) {
            free(v);
            *out = NULL;
            return 0;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            unit *nv = realloc(v, cap * sizeof *nv);
            if (!nv) {
                free(v);
                return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                                    "out of memory"), -1;
            }
            v = nv;
        }
        u.seq = (uint32_t)n;
        v[n++] = u;
    }
    if (rc < 0) {
        free(v);
        return -1;
    }
    *out = v;
    return (int64_t)n;
}

static int by_thread_then_file(const void *x, const void *y)
{
    const unit *a = x, *b = y;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

static int by_thread_then_time(const void *x, const void *y)
{
    const unit *a = x, *b = y;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    if (earlier(&a->time, &b->time))
        return -1;
    if (earlier(&b->time, &a->time))
        return 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

static int by_slot(const void *x, const void *y)
{
    const tk_xr_move *a = x, *b = y;
    return (a->at > b->at) - (a->at < b->at);
}

/* The k-th slot of a thread in the file reads its k-th buffer in time. */
static tk_status plan_moves(unit *v, size_t n, tk_xr_order *o, tk_error *err)
{
    unit *time = malloc(n * sizeof *time);
    o->moves = malloc(n * sizeof *o->moves);
    if (!time || !o->moves) {
        free(time);
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    }
    memcpy(time, v, n * sizeof *time);
    qsort(v, n, sizeof *v, by_thread_then_file);
    qsort(time, n, sizeof *time, by_thread_then_time);
    for (size_t i = 0; i < n; i++)
        if (v[i].start != time[i].start)
            o->moves[o->nmoves++] =
                (tk_xr_move){v[i].start, v[i].end, time[i].start, time[i].end};
    qsort(o->moves, o->nmoves, sizeof *o->moves, by_slot);
    free(time);
    return TK_OK;
}

tk_status tk_xr_order_plan(tk_input *in, unsigned version, tk_xr_order *o,
                           tk_error *err)
{
    tk_map threads;
    tk_map_init(&threads, sizeof(last_seen));
    unit *v = NULL;
    int64_t n = 0, disordered = find_disorder(in, version, &threads, err);
    if (disordered > 0)
        n = list_units(in, version, &threads, &v, err);
    tk_map_free(&threads);
    if (disordered < 0 || n < 0)
        return err->status;
    o->threads = (uint64_t)disordered;
    o->unchecked = disordered > 0 && n == 0; /* too many buffers */
    tk_status st = n > 0 ? plan_moves(v, (size_t)n, o, err) : TK_OK;
    free(v);
    return st;
}

void tk_xr_order_free(tk_xr_order *o)
{
    free(o->moves);
    memset(o, 0, sizeof *o);
}
