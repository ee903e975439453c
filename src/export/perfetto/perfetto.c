/* Perfetto's native trace format (perfetto.h): packets, tracks, events.
 * Field numbers are those of perfetto_trace.proto. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/perfetto/perfetto_int.h"

/* Trace */
#define F_TRACE_PACKET 1
/* TracePacket */
#define F_CLOCK_SNAPSHOT 6
#define F_TIMESTAMP 8
#define F_SEQUENCE_ID 10
#define F_TRACK_EVENT 11
#define F_INTERNED_DATA 12
#define F_SEQUENCE_FLAGS 13
#define F_TIMESTAMP_CLOCK_ID 58
#define F_PACKET_DEFAULTS 59
#define F_TRACK_DESCRIPTOR 60
#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE 2
/* the sequence-scoped incremental clock, and the one it is tied to */
#define CLOCK_INCREMENTAL 64
#define CLOCK_BOOTTIME 6
/* TrackEvent */
#define F_EV_CATEGORY_IIDS 3
#define F_EV_ANNOTATIONS 4
#define F_EV_TYPE 9
#define F_EV_NAME_IID 10
#define F_EV_TRACK 11
#define F_EV_COUNTER 30
#define F_EV_DOUBLE_COUNTER 44
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };

/* Write out buffered packets once this many bytes are waiting. */
#define FLUSH_AT (1u << 20)

/* InternedData's field for each table (TK_PF_* order). */
static const uint32_t interned_field[TK_PF_KINDS] = {2, 1, 3, 29};

tk_perfetto *tk_perfetto_new(FILE *out, tk_error *err)
{
    tk_perfetto *p = calloc(1, sizeof *p);
    if (!p) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    p->out = out;
    p->gen = 1;
    return p;
}

void tk_perfetto_free(tk_perfetto *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nseqs; i++)
        free(tk_pf_seq(p, i)->used.slots);
    for (size_t b = 0; b * TK_PF_SEQ_BLOCK < p->nseqs; b++)
        free(p->blocks[b]);
    free(p->blocks);
    for (int k = 0; k < TK_PF_KINDS; k++)
        tk_pf_table_free(&p->strings[k]);
    tk_pb_free(&p->buf);
    free(p);
}

static tk_status write_out(tk_perfetto *p, tk_error *err)
{
    if (p->buf.oom)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    if (p->buf.len && fwrite(p->buf.p, 1, p->buf.len, p->out) != p->buf.len)
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "write failed: %s",
                            strerror(errno ? errno : EIO));
    p->buf.len = 0;
    return TK_OK;
}

tk_status tk_perfetto_finish(tk_perfetto *p, tk_error *err)
{
    tk_status st = write_out(p, err);
    tk_perfetto_free(p);
    return st;
}

uint64_t tk_perfetto_packets(const tk_perfetto *p) { return p->packets; }

tk_perfetto_seq *tk_perfetto_seq_new(tk_perfetto *p, tk_error *err)
{
    if (p->nseqs == UINT32_MAX) {
        tk_error_set(err, TK_EUNSUPPORTED, TK_NO_OFFSET, TK_NO_RECORD,
                     "perfetto: more than 2^32-1 packet sequences");
        return NULL;
    }
    size_t b = p->nseqs / TK_PF_SEQ_BLOCK;
    if (p->nseqs % TK_PF_SEQ_BLOCK == 0) { /* a new block */
        if (b == p->blocks_cap) {
            size_t cap = p->blocks_cap ? p->blocks_cap * 2 : 4;
            tk_perfetto_seq **v = realloc(p->blocks, cap * sizeof *v);
            if (!v)
                goto oom;
            p->blocks = v;
            p->blocks_cap = cap;
        }
        if (!(p->blocks[b] = malloc(TK_PF_SEQ_BLOCK * sizeof **p->blocks)))
            goto oom;
    }
    tk_perfetto_seq *s = tk_pf_seq(p, p->nseqs);
    memset(s, 0, sizeof *s);
    s->p = p;
    s->id = (uint32_t)(p->nseqs + 1);
    p->nseqs++;
    return s;
oom:
    tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return NULL;
}

void tk_perfetto_seq_default_track(tk_perfetto_seq *s, uint64_t track)
{
    s->default_track = track;
}

uint64_t tk_perfetto_seq_track(const tk_perfetto_seq *s) { return s->default_track; }

uint64_t tk_perfetto_name(tk_perfetto *p, const char *s, size_t n, tk_error *err)
{
    return tk_pf_intern(p, TK_PF_NAMES, s, n, err);
}

uint64_t tk_perfetto_name_new(tk_perfetto *p, const char *s, size_t n, tk_error *err)
{
    return tk_pf_intern_new(p, TK_PF_NAMES, s, n, err);
}

uint64_t tk_perfetto_category(tk_perfetto *p, const char *s, size_t n, tk_error *err)
{
    return tk_pf_intern(p, TK_PF_CATEGORIES, s, n, err);
}

uint64_t tk_perfetto_arg_name(tk_perfetto *p, const char *s, size_t n, tk_error *err)
{
    return tk_pf_intern(p, TK_PF_ARG_NAMES, s, n, err);
}

uint64_t tk_perfetto_string(tk_perfetto *p, const char *s, size_t n, tk_error *err)
{
    return tk_pf_intern(p, TK_PF_STRINGS, s, n, err);
}

/* ------------------------------------------------------------- packets */

static size_t packet_open(tk_perfetto_seq *s)
{
    tk_pb *b = &s->p->buf;
    size_t at = tk_pb_open(b, F_TRACE_PACKET);
    tk_pb_uint(b, F_SEQUENCE_ID, s->id);
    return at;
}

static tk_status packet_close(tk_perfetto_seq *s, size_t at, tk_error *err)
{
    tk_perfetto *p = s->p;
    tk_pb_close(&p->buf, at);
    p->packets++;
    if (p->buf.oom || p->buf.len >= FLUSH_AT)
        return write_out(p, err);
    return TK_OK;
}

/* Start the sequence's incremental state over at `ts`: one packet that
 * clears it and sets the defaults (the incremental clock, the default
 * track), one with the ClockSnapshot tying that clock to BOOTTIME. Written
 * straight into the buffer, lengths computed up front (the bytes
 * tk_pb_open/close would write: every length here is below 128): a trace
 * of a million threads starts a million sequences. */
static tk_status clear_state(tk_perfetto_seq *s, uint64_t ts, tk_error *err)
{
    tk_perfetto *p = s->p;
    tk_pf_forget(s);
    size_t vid = tk_pb_varint_size(s->id), vts = tk_pb_varint_size(ts);
    uint64_t track = s->default_track;
    size_t tdef = track ? 2 + 1 + tk_pb_varint_size(track) : 0; /* track_event_defaults */
    size_t defs = 3 + tdef, body1 = 1 + vid + 2 + 3 + defs;
    size_t c1 = 2 + 1 + vts, c2 = 2 + 1 + vts + 2, cs = 2 + c1 + 2 + c2;
    size_t body2 = 1 + vid + 2 + 1 + vts + 3 + 2 + cs;
    if (tk_pb_room(&p->buf, 2 + body1 + 2 + body2) != 0)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    uint8_t *o = p->buf.p;
    size_t k = p->buf.len;
    o[k++] = F_TRACE_PACKET << 3 | TK_PB_LEN;
    o[k++] = (uint8_t)body1;
    o[k++] = F_SEQUENCE_ID << 3;
    tk_pb_raw_varint(o, &k, s->id);
    o[k++] = F_SEQUENCE_FLAGS << 3;
    o[k++] = SEQ_INCREMENTAL_STATE_CLEARED;
    tk_pb_raw_varint(o, &k, F_PACKET_DEFAULTS << 3 | TK_PB_LEN);
    o[k++] = (uint8_t)defs;
    tk_pb_raw_varint(o, &k, F_TIMESTAMP_CLOCK_ID << 3);
    o[k++] = CLOCK_INCREMENTAL;
    if (track) {
        o[k++] = 11 << 3 | TK_PB_LEN; /* track_event_defaults */
        o[k++] = (uint8_t)(tdef - 2);
        o[k++] = 11 << 3; /* its track_uuid */
        tk_pb_raw_varint(o, &k, track);
    }

    o[k++] = F_TRACE_PACKET << 3 | TK_PB_LEN;
    o[k++] = (uint8_t)body2;
    o[k++] = F_SEQUENCE_ID << 3;
    tk_pb_raw_varint(o, &k, s->id);
    o[k++] = F_SEQUENCE_FLAGS << 3;
    o[k++] = SEQ_NEEDS_INCREMENTAL_STATE;
    o[k++] = F_TIMESTAMP << 3;
    tk_pb_raw_varint(o, &k, ts);
    tk_pb_raw_varint(o, &k, F_TIMESTAMP_CLOCK_ID << 3);
    o[k++] = CLOCK_BOOTTIME;
    o[k++] = F_CLOCK_SNAPSHOT << 3 | TK_PB_LEN;
    o[k++] = (uint8_t)cs;
    o[k++] = 1 << 3 | TK_PB_LEN; /* clocks: BOOTTIME at ts */
    o[k++] = (uint8_t)c1;
    o[k++] = 1 << 3;
    o[k++] = CLOCK_BOOTTIME;
    o[k++] = 2 << 3;
    tk_pb_raw_varint(o, &k, ts);
    o[k++] = 1 << 3 | TK_PB_LEN; /* the incremental clock at ts */
    o[k++] = (uint8_t)c2;
    o[k++] = 1 << 3;
    o[k++] = CLOCK_INCREMENTAL;
    o[k++] = 2 << 3;
    tk_pb_raw_varint(o, &k, ts);
    o[k++] = 3 << 3; /* is_incremental */
    o[k++] = 1;
    p->buf.len = k;
    p->packets += 2;
    s->gen = p->gen;
    s->last_ts = ts;
    return p->buf.len >= FLUSH_AT ? write_out(p, err) : TK_OK;
}

/* Every sequence starts over when all of them hold too many ids. */
static void check_budget(tk_perfetto *p)
{
    if (p->used_total < TK_PERFETTO_INTERN_BUDGET)
        return;
    if (++p->gen == 0) /* 2^32 budgets spent: 0 means "not started" */
        p->gen = 1;
    for (size_t i = 0; i < p->nseqs; i++)
        tk_pf_forget(tk_pf_seq(p, i));
    p->used_total = 0;
}

/* Open a timed packet on `s` at `ts`: clears the state first when due. */
static tk_status timed_open(tk_perfetto_seq *s, uint64_t ts, size_t *at, tk_error *err)
{
    if (s->gen && ts < s->last_ts)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "perfetto: time goes back on sequence %u (%llu after %llu)",
                            (unsigned)s->id, (unsigned long long)ts,
                            (unsigned long long)s->last_ts);
    check_budget(s->p);
    if (tk_pf_must_clear(s) && clear_state(s, ts, err) != TK_OK)
        return err->status;
    tk_pb *b = &s->p->buf;
    *at = packet_open(s);
    tk_pb_uint(b, F_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
    tk_pb_uint(b, F_TIMESTAMP, ts - s->last_ts);
    s->last_ts = ts;
    return TK_OK;
}

/* ------------------------------------------------------------ interning */

/* The InternedData of one packet, opened when the first definition comes. */
typedef struct defs {
    tk_perfetto_seq *s;
    size_t at;
    int open, oom;
} defs;

static void define(defs *d, int kind, uint64_t iid)
{
    if (!iid)
        return;
    int r = tk_pf_use(d->s, kind, iid);
    if (r <= 0) {
        d->oom |= r < 0;
        return;
    }
    tk_pb *b = &d->s->p->buf;
    if (!d->open) {
        d->at = tk_pb_open(b, F_INTERNED_DATA);
        d->open = 1;
    }
    size_t n;
    const char *str = tk_pf_interned(d->s->p, kind, iid, &n);
    size_t e = tk_pb_open(b, interned_field[kind]);
    tk_pb_uint(b, 1, iid);
    tk_pb_utf8(b, 2, str, n); /* shown as text, InternedString's bytes too */
    tk_pb_close(b, e);
}

static tk_status define_event(defs *d, const tk_perfetto_event *e, tk_error *err)
{
    define(d, TK_PF_NAMES, e->name);
    define(d, TK_PF_CATEGORIES, e->category);
    for (size_t i = 0; i < e->nargs; i++) {
        define(d, TK_PF_ARG_NAMES, e->args[i].name);
        if (e->args[i].type == TK_PERFETTO_ARG_ISTR)
            define(d, TK_PF_STRINGS, e->args[i].v.u);
    }
    if (d->open)
        tk_pb_close(&d->s->p->buf, d->at);
    if (d->oom)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return TK_OK;
}

/* --------------------------------------------------------------- events */

static void put_arg(tk_pb *b, const tk_perfetto_arg *a)
{
    size_t at = tk_pb_open(b, F_EV_ANNOTATIONS);
    tk_pb_uint(b, 1, a->name);
    switch (a->type) {
    case TK_PERFETTO_ARG_UINT: tk_pb_uint(b, 3, a->v.u); break;
    case TK_PERFETTO_ARG_INT: tk_pb_uint(b, 4, (uint64_t)a->v.i); break;
    case TK_PERFETTO_ARG_HEX: tk_pb_uint(b, 7, a->v.u); break;
    case TK_PERFETTO_ARG_BOOL: tk_pb_uint(b, 2, a->v.u != 0); break;
    case TK_PERFETTO_ARG_DOUBLE: tk_pb_double(b, 5, a->v.d); break;
    case TK_PERFETTO_ARG_STR: tk_pb_utf8(b, 6, a->v.s.p, a->v.s.n); break;
    case TK_PERFETTO_ARG_ISTR: tk_pb_uint(b, 17, a->v.u); break;
    }
    tk_pb_close(b, at);
}

/* Can a packet at `ts` be written plainly: the sequence started, its clock
 * not going back, no interning budget spent, no state to clear? */
static int plain_at(tk_perfetto_seq *s, uint64_t ts)
{
    return ts >= s->last_ts && s->p->used_total < TK_PERFETTO_INTERN_BUDGET &&
           !tk_pf_must_clear(s);
}

/* An annotation put_plain can write: a varint value and an id defined on
 * `s` already. */
static int is_plain_arg(tk_perfetto_seq *s, const tk_perfetto_arg *a)
{
    switch (a->type) {
    case TK_PERFETTO_ARG_UINT:
    case TK_PERFETTO_ARG_INT:
    case TK_PERFETTO_ARG_HEX:
    case TK_PERFETTO_ARG_BOOL:
        break;
    case TK_PERFETTO_ARG_ISTR:
        if (!tk_pf_used(s, TK_PF_STRINGS, a->v.u))
            return 0;
        break;
    default:
        return 0;
    }
    return tk_pf_used(s, TK_PF_ARG_NAMES, a->name);
}

/* Annotations the plain path takes; an event with more goes the general
 * way (none of ours has more than 5). */
#define PLAIN_MAX_ARGS 8

/* Is `e` a plain event (ids already defined on `s`, at most PLAIN_MAX_ARGS
 * annotations of varints only, no state to clear) that put_plain can
 * write? */
static int is_plain(tk_perfetto_seq *s, const tk_perfetto_event *e)
{
    if (!plain_at(s, e->ts) || e->nargs > PLAIN_MAX_ARGS)
        return 0;
    if (e->category && !tk_pf_used(s, TK_PF_CATEGORIES, e->category))
        return 0;
    for (size_t i = 0; i < e->nargs; i++)
        if (!is_plain_arg(s, &e->args[i]))
            return 0;
    return !e->name || tk_pf_used(s, TK_PF_NAMES, e->name);
}

/* A plain annotation worked out once: its value, field number and the
 * DebugAnnotation's size. */
typedef struct plain_arg {
    uint64_t v;
    uint32_t field, body;
} plain_arg;

/* put_arg's field number and value of a plain annotation. */
static uint32_t plain_arg_field(const tk_perfetto_arg *a, uint64_t *v)
{
    *v = a->v.u;
    switch (a->type) {
    case TK_PERFETTO_ARG_INT: *v = (uint64_t)a->v.i; return 4;
    case TK_PERFETTO_ARG_HEX: return 7;
    case TK_PERFETTO_ARG_BOOL: *v = a->v.u != 0; return 2;
    case TK_PERFETTO_ARG_ISTR: return 17;
    default: return 3;
    }
}

/* The TrackEvent's size of a plain event, its annotations laid out in pa. */
static size_t plain_layout(const tk_perfetto_event *e, uint64_t track, plain_arg *pa)
{
    size_t ev = 2 + (track ? 1 + tk_pb_varint_size(track) : 0) +
                (e->category ? 1 + tk_pb_varint_size(e->category) : 0) +
                (e->name ? 1 + tk_pb_varint_size(e->name) : 0);
    for (size_t i = 0; i < e->nargs; i++) {
        plain_arg *a = &pa[i];
        a->field = plain_arg_field(&e->args[i], &a->v);
        a->body = (uint32_t)(1 + tk_pb_varint_size(e->args[i].name) + (a->field < 16 ? 1 : 2) +
                             tk_pb_varint_size(a->v));
        ev += 1 + tk_pb_varint_size(a->body) + a->body;
    }
    return ev;
}

/* The plain paths' packet up to the event's type and track, for an event
 * of `ev` bytes at `ts`, written straight into the buffer: where the rest
 * goes (*n), or NULL when out of memory. Inline: the hot path of big
 * traces, where a call cost a fifth of the export's instructions. */
__attribute__((always_inline)) static inline uint8_t *
plain_head(tk_perfetto_seq *s, uint64_t ts, size_t ev, int type, uint64_t track, size_t *n)
{
    tk_perfetto *p = s->p;
    uint64_t delta = ts - s->last_ts;
    size_t body = 1 + tk_pb_varint_size(s->id) + 2 + 1 + tk_pb_varint_size(delta) + 1 +
                  tk_pb_varint_size(ev) + ev;
    if (tk_pb_room(&p->buf, body + 11) != 0)
        return NULL;
    uint8_t *o = p->buf.p;
    size_t k = p->buf.len;
    o[k++] = F_TRACE_PACKET << 3 | TK_PB_LEN;
    tk_pb_raw_varint(o, &k, body);
    o[k++] = F_SEQUENCE_ID << 3;
    tk_pb_raw_varint(o, &k, s->id);
    o[k++] = F_SEQUENCE_FLAGS << 3;
    o[k++] = SEQ_NEEDS_INCREMENTAL_STATE;
    o[k++] = F_TIMESTAMP << 3;
    tk_pb_raw_varint(o, &k, delta);
    o[k++] = F_TRACK_EVENT << 3 | TK_PB_LEN;
    tk_pb_raw_varint(o, &k, ev);
    o[k++] = F_EV_TYPE << 3;
    o[k++] = (uint8_t)type;
    if (track) {
        o[k++] = F_EV_TRACK << 3;
        tk_pb_raw_varint(o, &k, track);
    }
    *n = k;
    return o;
}

/* A plain packet ends at n: the sequence's clock moves to ts. */
static tk_status plain_done(tk_perfetto_seq *s, uint64_t ts, size_t n, tk_error *err)
{
    tk_perfetto *p = s->p;
    p->buf.len = n;
    s->last_ts = ts;
    p->packets++;
    return p->buf.len >= FLUSH_AT ? write_out(p, err) : TK_OK;
}

/* The common event (XRay's calls: half the packets of a big trace; a
 * region's slice), its lengths computed up front so nothing is moved: the
 * same bytes as the general path. */
static tk_status put_plain(tk_perfetto_seq *s, const tk_perfetto_event *e, int type,
                           tk_error *err)
{
    uint64_t track = e->track != s->default_track ? e->track : 0;
    plain_arg pa[PLAIN_MAX_ARGS];
    size_t n;
    uint8_t *o = plain_head(s, e->ts, plain_layout(e, track, pa), type, track, &n);
    if (!o)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    if (e->category) {
        o[n++] = F_EV_CATEGORY_IIDS << 3;
        tk_pb_raw_varint(o, &n, e->category);
    }
    if (e->name) {
        o[n++] = F_EV_NAME_IID << 3;
        tk_pb_raw_varint(o, &n, e->name);
    }
    for (size_t i = 0; i < e->nargs; i++) {
        o[n++] = F_EV_ANNOTATIONS << 3 | TK_PB_LEN;
        tk_pb_raw_varint(o, &n, pa[i].body);
        o[n++] = 1 << 3;
        tk_pb_raw_varint(o, &n, e->args[i].name);
        tk_pb_raw_varint(o, &n, (uint64_t)pa[i].field << 3);
        tk_pb_raw_varint(o, &n, pa[i].v);
    }
    return plain_done(s, e->ts, n, err);
}

/* The general event: annotations, definitions, state to clear. Kept out
 * of line so the plain path does not pay for its stack frame. */
static __attribute__((noinline)) tk_status put_full(tk_perfetto_seq *s,
                                                    const tk_perfetto_event *e, int type,
                                                    tk_error *err)
{
    size_t at;
    if (timed_open(s, e->ts, &at, err) != TK_OK)
        return err->status;
    defs d = {.s = s};
    if (define_event(&d, e, err) != TK_OK)
        return err->status;
    tk_pb *b = &s->p->buf;
    size_t ev = tk_pb_open(b, F_TRACK_EVENT);
    tk_pb_uint(b, F_EV_TYPE, (uint64_t)type);
    if (e->track && e->track != s->default_track)
        tk_pb_uint(b, F_EV_TRACK, e->track);
    if (e->category)
        tk_pb_uint(b, F_EV_CATEGORY_IIDS, e->category);
    if (e->name)
        tk_pb_uint(b, F_EV_NAME_IID, e->name);
    for (size_t i = 0; i < e->nargs; i++)
        put_arg(b, &e->args[i]);
    tk_pb_close(b, ev);
    return packet_close(s, at, err);
}

/* A call's slice: a name or none, nothing else (XRay: nearly every packet),
 * checked and written without put_plain's loops. */
static tk_status put_bare(tk_perfetto_seq *s, const tk_perfetto_event *e, int type,
                          tk_error *err)
{
    uint64_t track = e->track != s->default_track ? e->track : 0;
    size_t ev = 2 + (track ? 1 + tk_pb_varint_size(track) : 0) +
                (e->name ? 1 + tk_pb_varint_size(e->name) : 0);
    size_t n;
    uint8_t *o = plain_head(s, e->ts, ev, type, track, &n);
    if (!o)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    if (e->name) {
        o[n++] = F_EV_NAME_IID << 3;
        tk_pb_raw_varint(o, &n, e->name);
    }
    return plain_done(s, e->ts, n, err);
}

static tk_status put_event(tk_perfetto_seq *s, const tk_perfetto_event *e, int type,
                           tk_error *err)
{
    if (!e->nargs && !e->category && plain_at(s, e->ts) &&
        (!e->name || tk_pf_used(s, TK_PF_NAMES, e->name)))
        return put_bare(s, e, type, err);
    return is_plain(s, e) ? put_plain(s, e, type, err) : put_full(s, e, type, err);
}

tk_status tk_perfetto_begin(tk_perfetto_seq *s, const tk_perfetto_event *e, tk_error *err)
{
    return put_event(s, e, TYPE_SLICE_BEGIN, err);
}

tk_status tk_perfetto_instant(tk_perfetto_seq *s, const tk_perfetto_event *e, tk_error *err)
{
    return put_event(s, e, TYPE_INSTANT, err);
}

tk_status tk_perfetto_end(tk_perfetto_seq *s, uint64_t ts, uint64_t track, tk_error *err)
{
    tk_perfetto_event e = {.ts = ts, .track = track};
    return put_event(s, &e, TYPE_SLICE_END, err);
}

/* A counter value with no state to clear (Cacheray's per-thread counters:
 * four values a thread), its lengths computed up front: the same bytes as
 * put_counter's general path. */
static tk_status put_counter_plain(tk_perfetto_seq *s, uint64_t ts, uint64_t track, int dbl,
                                   uint64_t v, tk_error *err)
{
    track = track != s->default_track ? track : 0;
    size_t ev = 2 + (track ? 1 + tk_pb_varint_size(track) : 0) +
                2 + (dbl ? 8 : tk_pb_varint_size(v));
    size_t n;
    uint8_t *o = plain_head(s, ts, ev, TYPE_COUNTER, track, &n);
    if (!o)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    if (dbl) {
        tk_pb_raw_varint(o, &n, F_EV_DOUBLE_COUNTER << 3 | TK_PB_FIXED64);
        for (int i = 0; i < 8; i++)
            o[n++] = (uint8_t)(v >> (8 * i)); /* little-endian, as tk_pb_fixed64 */
    } else {
        tk_pb_raw_varint(o, &n, F_EV_COUNTER << 3);
        tk_pb_raw_varint(o, &n, v);
    }
    return plain_done(s, ts, n, err);
}

/* A counter value: int64 or double. */
static tk_status put_counter(tk_perfetto_seq *s, uint64_t ts, uint64_t track, int dbl,
                             int64_t i, double d, tk_error *err)
{
    if (plain_at(s, ts)) {
        uint64_t v = (uint64_t)i;
        if (dbl)
            memcpy(&v, &d, sizeof v);
        return put_counter_plain(s, ts, track, dbl, v, err);
    }
    size_t at;
    if (timed_open(s, ts, &at, err) != TK_OK)
        return err->status;
    tk_pb *b = &s->p->buf;
    size_t ev = tk_pb_open(b, F_TRACK_EVENT);
    tk_pb_uint(b, F_EV_TYPE, TYPE_COUNTER);
    if (track && track != s->default_track)
        tk_pb_uint(b, F_EV_TRACK, track);
    if (dbl)
        tk_pb_double(b, F_EV_DOUBLE_COUNTER, d);
    else
        tk_pb_uint(b, F_EV_COUNTER, (uint64_t)i);
    tk_pb_close(b, ev);
    return packet_close(s, at, err);
}

tk_status tk_perfetto_counter(tk_perfetto_seq *s, uint64_t ts, uint64_t track, int64_t value,
                              tk_error *err)
{
    return put_counter(s, ts, track, 0, value, 0, err);
}

tk_status tk_perfetto_counter_double(tk_perfetto_seq *s, uint64_t ts, uint64_t track,
                                     double value, tk_error *err)
{
    return put_counter(s, ts, track, 1, 0, value, err);
}
