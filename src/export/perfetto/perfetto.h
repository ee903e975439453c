/* Perfetto's native trace format, written by streaming.
 *
 * The file is a `perfetto.protos.Trace`: a run of `TracePacket`s, each
 * written as soon as it is complete, so memory is one packet plus the
 * interning tables (bounded: see "Interning"). Field numbers come from
 * Perfetto's merged proto (../shared/specs/perfetto/perfetto_trace.proto);
 * the varint encoding is ours (pb.h), see docs/architecture.md for why.
 *
 * Model, as Perfetto's own SDK writes it:
 *  - A *sequence* is one trusted packet sequence (one writer in Perfetto's
 *    terms: a thread of the traced program, or the whole trace when it has
 *    one clock). Timestamps on a sequence must not decrease; they are
 *    written as deltas on the sequence's incremental clock (clock 64, set
 *    up by the first packet with SEQ_INCREMENTAL_STATE_CLEARED, a
 *    ClockSnapshot tying it to BOOTTIME, and TracePacketDefaults).
 *  - A *track* is a timeline row, named by a caller-chosen 64-bit uuid
 *    (nonzero, unique in the file) and declared once, before any event
 *    on it, with one of the *_track calls. Tracks are not tied to a
 *    sequence; any sequence may write events on any track.
 *  - *Events* are slice begin/end, instants and counter values.
 *  - *Interning*: event names, categories, annotation names and
 *    (optionally) annotation string values are interned once per file
 *    (tk_perfetto_name & co. return the id), and each sequence emits an
 *    id's definition (InternedData) the first time it uses it. Keep the
 *    id: events take ids, not strings, so the hot path hashes nothing.
 *    A sequence that has used more than TK_PERFETTO_SEQ_INTERN_MAX ids, or
 *    all sequences together more than TK_PERFETTO_INTERN_BUDGET, starts
 *    over (SEQ_INCREMENTAL_STATE_CLEARED), so memory stays flat however
 *    many threads the trace has.
 *
 * Every call that can fail takes a tk_error * last and returns tk_status
 * (TK_ENOMEM, or TK_EIO when a write to `out` failed; the caller's
 * tk_output names the system's reason) or 0 for the interning calls. A
 * writer is used by one thread at a time. */
#ifndef TK_EXPORT_PERFETTO_H
#define TK_EXPORT_PERFETTO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tracekit/error.h>

#define TK_PERFETTO_SEQ_INTERN_MAX 65536u
#define TK_PERFETTO_INTERN_BUDGET (4u << 20)

typedef struct tk_perfetto tk_perfetto;         /* one output file */
typedef struct tk_perfetto_seq tk_perfetto_seq; /* one packet sequence */

/* A writer on `out` (borrowed; the caller closes it). */
tk_perfetto *tk_perfetto_new(FILE *out, tk_error *err);
/* Write what is buffered and free the writer (sequences included). */
tk_status tk_perfetto_finish(tk_perfetto *p, tk_error *err);
/* Free without writing more (error paths). NULL is fine. */
void tk_perfetto_free(tk_perfetto *p);

/* A new sequence (ids 1, 2, ... in creation order), owned by `p`. Its
 * clock starts at the first timestamp written on it. NULL on OOM. */
tk_perfetto_seq *tk_perfetto_seq_new(tk_perfetto *p, tk_error *err);

/* Events on `track` may leave the track out on `s` (TrackEventDefaults):
 * pass 0 as their track. Call before the first event on `s`. XRay's
 * sequence per thread sets its thread's track here. */
void tk_perfetto_seq_default_track(tk_perfetto_seq *s, uint64_t track);
/* That track (0: none). */
uint64_t tk_perfetto_seq_track(const tk_perfetto_seq *s);

/* ------------------------------------------------------------ interning */

/* The id of a string in one of the interning tables (1, 2, ...), the
 * same for every sequence; 0 when out of memory (`err` filled). `s` is
 * copied; `n` is its length in bytes. */
uint64_t tk_perfetto_name(tk_perfetto *p, const char *s, size_t n, tk_error *err);
/* tk_perfetto_name for a name the caller knows is new and will not ask
 * for again (one it makes from an id it caches, as XRay's "#<id>"): a new
 * id without hashing the name. */
uint64_t tk_perfetto_name_new(tk_perfetto *p, const char *s, size_t n, tk_error *err);
uint64_t tk_perfetto_category(tk_perfetto *p, const char *s, size_t n, tk_error *err);
uint64_t tk_perfetto_arg_name(tk_perfetto *p, const char *s, size_t n, tk_error *err);
/* For annotation values that repeat (syscall names, region types). */
uint64_t tk_perfetto_string(tk_perfetto *p, const char *s, size_t n, tk_error *err);

/* --------------------------------------------------------------- tracks */

/* Declare a track (a TrackDescriptor packet, written on `s`). parent 0:
 * a top-level track. Names are copied into the packet, not interned. */
tk_status tk_perfetto_process_track(tk_perfetto_seq *s, uint64_t uuid, int32_t pid,
                                    const char *name, tk_error *err);
tk_status tk_perfetto_thread_track(tk_perfetto_seq *s, uint64_t uuid, uint64_t parent,
                                   int32_t pid, int64_t tid, const char *name,
                                   tk_error *err);
/* A named track for slices and instants (regions, violations, ...). */
tk_status tk_perfetto_track(tk_perfetto_seq *s, uint64_t uuid, uint64_t parent,
                            const char *name, tk_error *err);

typedef enum tk_perfetto_unit {
    TK_PERFETTO_UNIT_NONE = 0,
    TK_PERFETTO_UNIT_NS = 1,
    TK_PERFETTO_UNIT_COUNT = 2,
    TK_PERFETTO_UNIT_BYTES = 3
} tk_perfetto_unit;

/* A counter track; `unit_name` (NULL: none) says more than `unit`
 * ("misses per 1000 accesses"). */
tk_status tk_perfetto_counter_track(tk_perfetto_seq *s, uint64_t uuid, uint64_t parent,
                                    const char *name, tk_perfetto_unit unit,
                                    const char *unit_name, tk_error *err);

/* --------------------------------------------------------------- events */

typedef enum tk_perfetto_arg_type {
    TK_PERFETTO_ARG_UINT,   /* v.u */
    TK_PERFETTO_ARG_INT,    /* v.i */
    TK_PERFETTO_ARG_HEX,    /* v.u, shown as a pointer (0x...) */
    TK_PERFETTO_ARG_BOOL,   /* v.u != 0 */
    TK_PERFETTO_ARG_DOUBLE, /* v.d */
    TK_PERFETTO_ARG_STR,    /* v.s.p, v.s.n bytes, written inline */
    TK_PERFETTO_ARG_ISTR    /* v.u: a tk_perfetto_string id */
} tk_perfetto_arg_type;

/* A debug annotation: name is a tk_perfetto_arg_name id. */
typedef struct tk_perfetto_arg {
    uint64_t name;
    tk_perfetto_arg_type type;
    union {
        uint64_t u;
        int64_t i;
        double d;
        struct {
            const char *p;
            size_t n;
        } s;
    } v;
} tk_perfetto_arg;

/* A slice begin or an instant. `name` and `category` are ids (0: none);
 * `ts` in ns of the sequence's clock, not below the last one written on
 * `s` (TK_EUSAGE otherwise: a mapping's bug, not the trace's). */
typedef struct tk_perfetto_event {
    uint64_t ts;
    uint64_t track; /* 0: the sequence's default track */
    uint64_t name;
    uint64_t category;
    const tk_perfetto_arg *args;
    size_t nargs;
} tk_perfetto_event;

tk_status tk_perfetto_begin(tk_perfetto_seq *s, const tk_perfetto_event *e, tk_error *err);
tk_status tk_perfetto_instant(tk_perfetto_seq *s, const tk_perfetto_event *e,
                              tk_error *err);
/* Ends the innermost open slice on `track` (0: the default track). */
tk_status tk_perfetto_end(tk_perfetto_seq *s, uint64_t ts, uint64_t track, tk_error *err);
/* A counter track's value from `ts` on. */
tk_status tk_perfetto_counter(tk_perfetto_seq *s, uint64_t ts, uint64_t track, int64_t value,
                              tk_error *err);
tk_status tk_perfetto_counter_double(tk_perfetto_seq *s, uint64_t ts, uint64_t track,
                                     double value, tk_error *err);

/* Packets and bytes written so far (for --progress and the bench). */
uint64_t tk_perfetto_packets(const tk_perfetto *p);

#endif
