/* Fuzz target: LLVM XRay reader, writer and commands.
 *
 * 1. The input is read to the end as logical records (tk_xray_next) and,
 *    for binary FDR traces, as raw records (tk_xray_next_fdr): both views
 *    must end the same way at the same place; raw records must tile the
 *    input (header + records + skipped bytes [+ v1 padding]); call
 *    arguments and events must add up; every error must be TK_EMALFORMED
 *    (TK_EUNSUPPORTED for a big-endian header) with a location inside the
 *    input.
 * 2. The logical records read are re-encoded with tk_xray_writer (basic
 *    v1–3 for basic input, FDR of the input's version and tiny buffers
 *    for FDR input, basic v3 for FDR input) and read back: the same
 *    records (per thread, in order, for FDR).
 * 3. info, dump (raw and logical, with skip/limit), validate (with and
 *    without a sink) and convert to every target run through the format
 *    API with JSON and text sinks; outputs must be well formed and agree
 *    with what the reader saw; conversions to XRay are read back.
 *
 4. The records read go through the analyses (account with and without
 *    sibling-call deduction and with every latency spilled to the
 *    temporary file, stack in every view, graph): statistics must be
 *    ordered (min <= med <= p90 <= p99 <= max), spilling must not change
 *    a row, and every rendering must succeed.
 *
 * Conversion to FDR cannot hold what FDR cannot hold (function ids beyond
 * 28 bits, records larger than the buffer): that must be a clean TK_EUSAGE,
 * predicted here from the writer's documented limits. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

/* ------------------------------------------------------------ records */

typedef struct xrec {
    tk_xray_record r; /* args and data owned */
    uint64_t offset;
} xrec;

typedef struct recs {
    xrec *v;
    size_t n, cap;
} recs;

static void recs_add(recs *l, const tk_xray_record *r, uint64_t offset)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        TKF_CHECK(l->v != NULL, "out of memory");
    }
    xrec *x = &l->v[l->n++];
    x->r = *r;
    x->offset = offset;
    x->r.args = NULL;
    x->r.data = NULL;
    if (r->nargs) {
        uint64_t *a = malloc(r->nargs * sizeof *a);
        TKF_CHECK(a != NULL, "out of memory");
        memcpy(a, r->args, r->nargs * sizeof *a);
        x->r.args = a;
    }
    if (r->data_len) {
        uint8_t *d = malloc(r->data_len);
        TKF_CHECK(d != NULL, "out of memory");
        memcpy(d, r->data, r->data_len);
        x->r.data = d;
    }
}

static void recs_free(recs *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free((void *)l->v[i].r.args);
        free((void *)l->v[i].r.data);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Compare two records field by field; cpu optional. */
static int same_rec(const tk_xray_record *a, const tk_xray_record *b, int cpu)
{
    if (a->kind != b->kind || a->func_id != b->func_id || a->tsc != b->tsc ||
        a->tid != b->tid || a->pid != b->pid || a->event_type != b->event_type ||
        a->nargs != b->nargs || a->data_len != b->data_len || (cpu && a->cpu != b->cpu))
        return 0;
    if (a->nargs && memcmp(a->args, b->args, a->nargs * sizeof *a->args) != 0)
        return 0;
    return a->data_len == 0 || memcmp(a->data, b->data, a->data_len) == 0;
}

/* ------------------------------------------------------ reading passes */

typedef struct seen {
    int header_ok;           /* the header was accepted */
    int yaml;                /* llvm-xray's YAML form */
    tk_xray_header h;
    int rc;                  /* last tk_xray_next: 0 end, -1 error */
    tk_error err;            /* the error (header or records) */
    recs logical;            /* records read before the end or error */
    uint64_t skipped, blocks;
    uint64_t nraw;           /* raw records (binary FDR) */
    uint64_t raw_fn, raw_events, raw_args;
    int layout;              /* tk_xray_reader_layout */
    uint64_t moved;          /* FDR buffers read out of file order */
} seen;

/* Threads with a record in their past (a TSC below the largest so far,
 * or equal to it while behind): what validate warns about, worked out
 * here without the library's clock. */
static uint64_t threads_going_back(const recs *l)
{
    uint64_t n = 0;
    for (size_t i = 0; i < l->n; i++) {
        const tk_xray_record *a = &l->v[i].r;
        int first = 1, back = 0;
        for (size_t j = 0; j < i && first; j++)
            first = !(l->v[j].r.tid == a->tid && l->v[j].r.pid == a->pid);
        if (!first || a->kind > TK_XRAY_ENTER_ARG)
            continue;
        uint64_t max = 0;
        int behind = 0;
        for (size_t j = i; j < l->n && !back; j++) {
            const tk_xray_record *b = &l->v[j].r;
            if (b->tid != a->tid || b->pid != a->pid || b->kind > TK_XRAY_ENTER_ARG)
                continue;
            if (b->tsc > max || (b->tsc == max && !behind)) {
                max = b->tsc;
                behind = 0;
            } else {
                back = behind = 1;
            }
        }
        n += back;
    }
    return n;
}

static void check_error_sane(const tk_error *err, size_t size)
{
    TKF_CHECK(err->message[0] != '\0', "error without a message");
    TKF_CHECK(memchr(err->message, '\0', sizeof err->message) != NULL,
              "error message not terminated");
    TKF_CHECK(err->offset == TK_NO_OFFSET || err->offset <= size,
              "error offset %llu past the input (%zu bytes): %s",
              (unsigned long long)err->offset, size, err->message);
    char line[600], tiny[6];
    tk_error_format(err, "fuzz-input", line, sizeof line);
    TKF_CHECK(strlen(line) > 0 && strlen(line) < sizeof line, "bad formatted error");
    tk_error_format(err, NULL, tiny, sizeof tiny);
    TKF_CHECK(strlen(tiny) < sizeof tiny, "formatted error overran its buffer");
}

static void read_logical(const uint8_t *data, size_t size, seen *s)
{
    tk_error err;
    tk_error_clear(&err);
    tk_input *in = tk_input_from_memory(data, size, "fuzz-input", &err);
    TKF_CHECK(in != NULL, "tk_input_from_memory: %s", err.message);
    tk_xray_reader *r = tk_xray_reader_new(in, &err);
    if (!r) {
        s->header_ok = 0;
        s->rc = -1;
        s->err = err;
        TKF_CHECK(err.status == TK_EMALFORMED || err.status == TK_EUNSUPPORTED,
                  "header refused with status %d: %s", (int)err.status, err.message);
        check_error_sane(&err, size);
        tk_input_close(in);
        return;
    }
    s->header_ok = 1;
    s->yaml = tk_xray_reader_is_yaml(r);
    s->h = *tk_xray_reader_header(r);
    s->layout = tk_xray_reader_layout(r);
    TKF_CHECK(s->layout == s->h.type || (s->h.type == TK_XRAY_FDR && !s->yaml),
              "layout %d under a type %u header", s->layout, s->h.type);
    TKF_CHECK(s->h.type <= TK_XRAY_FDR, "header type %u", s->h.type);
    TKF_CHECK(s->h.version >= 1 && s->h.version <= (s->h.type ? 5 : 3),
              "header version %u for type %u", s->h.version, s->h.type);
    TKF_CHECK(tk_xray_reader_index(r) == TK_NO_RECORD, "fresh reader has an index");
    tk_xray_record rec;
    uint64_t last_off = 0;
    for (;;) {
        memset(&rec, 0xA5, sizeof rec); /* nothing stale may survive */
        s->rc = tk_xray_next(r, &rec, &err);
        if (s->rc <= 0)
            break;
        uint64_t i = s->logical.n;
        TKF_CHECK(tk_xray_reader_index(r) == i, "record %llu has index %llu",
                  (unsigned long long)i, (unsigned long long)tk_xray_reader_index(r));
        TKF_CHECK((unsigned)rec.kind <= TK_XRAY_TYPED_EVENT, "kind %d", (int)rec.kind);
        TKF_CHECK(strcmp(tk_xray_kind_name(rec.kind), "unknown") != 0, "unnamed kind");
        int event = rec.kind >= TK_XRAY_CUSTOM_EVENT;
        TKF_CHECK(event ? rec.data_len > 0 && rec.data != NULL : rec.data_len == 0,
                  "record %llu: kind %d with %u payload bytes", (unsigned long long)i,
                  (int)rec.kind, rec.data_len);
        TKF_CHECK(rec.nargs == 0 || rec.args != NULL, "arguments without storage");
        if (rec.kind != TK_XRAY_TYPED_EVENT)
            TKF_CHECK(rec.event_type == 0, "event type on a %s record",
                      tk_xray_kind_name(rec.kind));
        if (!s->yaml) {
            uint64_t off = tk_xray_reader_offset(r);
            TKF_CHECK(off >= TK_XRAY_HEADER_SIZE && off < size,
                      "record %llu at offset %llu of %zu", (unsigned long long)i,
                      (unsigned long long)off, size);
            tk_xray_order_info oi;
            tk_xray_reader_order(r, &oi);
            TKF_CHECK(i == 0 || off > last_off || oi.moved_buffers,
                      "record offsets not increasing");
            last_off = off;
            if (s->h.version < 3 && s->layout == TK_XRAY_BASIC)
                TKF_CHECK(rec.pid == 0, "basic v%u record with pid %u", s->h.version,
                          rec.pid);
            if (s->h.version < 3 && s->layout == TK_XRAY_FDR)
                TKF_CHECK(rec.pid == 0, "FDR v%u record with pid %u", s->h.version, rec.pid);
            if (s->layout == TK_XRAY_BASIC) {
                TKF_CHECK(!event && rec.cpu <= 0xFF, "basic record: kind %d cpu %u",
                          (int)rec.kind, rec.cpu);
            } else if (!event) {
                TKF_CHECK(rec.func_id >= 0 && rec.func_id < (1 << 28), "FDR function id %d",
                          rec.func_id);
            } else {
                TKF_CHECK(rec.func_id == 0, "event with function id %d", rec.func_id);
            }
        }
        recs_add(&s->logical, &rec, tk_xray_reader_offset(r));
    }
    TKF_CHECK(s->rc == 0 || s->rc == -1, "tk_xray_next returned %d", s->rc);
    if (s->rc < 0) {
        s->err = err;
        TKF_CHECK(err.status == TK_EMALFORMED, "read error with status %d: %s",
                  (int)err.status, err.message);
        check_error_sane(&err, size);
        if (!s->yaml)
            TKF_CHECK(err.offset != TK_NO_OFFSET && err.offset >= TK_XRAY_HEADER_SIZE &&
                          err.record != TK_NO_RECORD,
                      "record error without a location: %s", err.message);
        /* errors are sticky */
        TKF_CHECK(tk_xray_next(r, &rec, &err) == -1, "read after an error succeeded");
    }
    s->skipped = tk_xray_reader_skipped(r);
    s->blocks = tk_xray_reader_blocks(r);
    tk_xray_order_info oi;
    tk_xray_reader_order(r, &oi);
    s->moved = oi.moved_buffers;
    TKF_CHECK(!oi.unchecked, "buffer order unchecked on a memory input");
    TKF_CHECK((oi.moved_buffers == 0) == (oi.threads == 0), "%llu buffers moved for %llu threads",
              (unsigned long long)oi.moved_buffers, (unsigned long long)oi.threads);
    tk_xray_reader_free(r);
    tk_input_close(in);
}

/* Raw FDR records: the same outcome as the logical pass; records tile the
 * input. */
static void read_raw(const uint8_t *data, size_t size, seen *s)
{
    tk_error err;
    tk_error_clear(&err);
    tk_input *in = tk_input_from_memory(data, size, "fuzz-input", &err);
    tk_xray_reader *r = tk_xray_reader_new(in, &err);
    TKF_CHECK(r != NULL, "header accepted once, refused the second time");
    tk_xray_fdr_record x;
    uint64_t end = TK_XRAY_HEADER_SIZE, pad = 0, blocks = 0;
    int rc;
    const unsigned v = s->h.version;
    for (;;) {
        memset(&x, 0xA5, sizeof x);
        rc = tk_xray_next_fdr(r, &x, &err);
        if (rc <= 0)
            break;
        TKF_CHECK(strcmp(tk_xray_fdr_kind_name(x.kind), "unknown") != 0, "raw kind %d",
                  (int)x.kind);
        TKF_CHECK(x.offset >= end && x.offset < size, "raw record %llu at %llu (end %llu)",
                  (unsigned long long)s->nraw, (unsigned long long)x.offset,
                  (unsigned long long)end);
        if (v < 3) /* nothing is skipped below v3 (v1 padding aside) */
            TKF_CHECK(x.offset == end || (v == 1 && pad), "gap before raw record %llu",
                      (unsigned long long)s->nraw);
        pad = 0;
        uint64_t len = 16;
        switch (x.kind) {
        case TK_XRAY_FDR_FUNCTION:
            len = 8;
            TKF_CHECK(x.action <= 3 && x.func_id < (1u << 28), "function action %u id %u",
                      x.action, x.func_id);
            s->raw_fn++;
            break;
        case TK_XRAY_FDR_CUSTOM_EVENT:
        case TK_XRAY_FDR_TYPED_EVENT:
            TKF_CHECK(x.size > 0 && x.payload == data + x.offset + 16,
                      "event payload not in place");
            len += (uint64_t)x.size;
            s->raw_events++;
            break;
        case TK_XRAY_FDR_CALL_ARG:
            s->raw_args++;
            break;
        case TK_XRAY_FDR_END_OF_BUFFER:
            TKF_CHECK(v == 1, "EndOfBuffer in v%u", v);
            pad = 1;
            break;
        case TK_XRAY_FDR_BUFFER_EXTENTS:
            TKF_CHECK(v >= 2, "BufferExtents in v%u", v);
            break;
        case TK_XRAY_FDR_NEW_BUFFER:
            blocks++;
            break;
        default:
            break;
        }
        TKF_CHECK(x.offset + len <= size, "raw record runs past the input");
        end = x.offset + len;
        s->nraw++;
    }
    TKF_CHECK(rc == s->rc, "raw reading ended %d, logical %d", rc, s->rc);
    if (rc < 0) {
        /* with moved buffers, another buffer's error may come first */
        TKF_CHECK(s->moved || (err.status == s->err.status && err.offset == s->err.offset &&
                      err.record == s->err.record && strcmp(err.message, s->err.message) == 0),
                  "raw error '%s' at %llu, logical '%s' at %llu", err.message,
                  (unsigned long long)err.offset, s->err.message,
                  (unsigned long long)s->err.offset);
        TKF_CHECK(err.record == s->nraw, "raw error names record %llu after %llu records",
                      (unsigned long long)err.record, (unsigned long long)s->nraw);
    } else {
        /* header + records + skipped bytes make the file (v1: + padding) */
        uint64_t skipped = tk_xray_reader_skipped(r);
        TKF_CHECK(skipped == s->skipped, "skipped %llu vs %llu", (unsigned long long)skipped,
                  (unsigned long long)s->skipped);
        TKF_CHECK(end <= size && skipped <= size, "bytes accounted past the end");
        TKF_CHECK(blocks == s->blocks && blocks == tk_xray_reader_blocks(r),
                  "blocks: raw %llu, logical %llu", (unsigned long long)blocks,
                  (unsigned long long)s->blocks);
        /* every function record and event is one logical record; every
         * call argument belongs to one */
        uint64_t nargs = 0;
        for (size_t i = 0; i < s->logical.n; i++)
            nargs += s->logical.v[i].r.nargs;
        TKF_CHECK(s->logical.n == s->raw_fn + s->raw_events,
                  "%zu logical records from %llu function records and %llu events",
                  s->logical.n, (unsigned long long)s->raw_fn,
                  (unsigned long long)s->raw_events);
        TKF_CHECK(nargs == s->raw_args, "%llu arguments attached of %llu",
                  (unsigned long long)nargs, (unsigned long long)s->raw_args);
        if (v == 2)
            TKF_CHECK(end == size, "v2 trace does not end at its last record");
    }
    tk_xray_reader_free(r);
    tk_input_close(in);
}

/* v3+ readers account for every byte: records plus skipped bytes. */
static void check_tiling(const uint8_t *data, size_t size, seen *s)
{
    (void)data;
    if (s->rc != 0 || s->yaml || s->layout != TK_XRAY_FDR || s->h.version < 2)
        return;
    uint64_t bytes = TK_XRAY_HEADER_SIZE + s->skipped;
    bytes += 8 * s->raw_fn;
    bytes += 16 * (s->nraw - s->raw_fn); /* metadata, event markers included */
    for (size_t i = 0; i < s->logical.n; i++)
        if (s->logical.v[i].r.kind >= TK_XRAY_CUSTOM_EVENT)
            bytes += s->logical.v[i].r.data_len;
    TKF_CHECK(bytes == size, "v%u: header, records and skipped bytes make %llu of %zu bytes",
              s->h.version, (unsigned long long)bytes, size);
}

/* -------------------------------------------------------- writer pass */

/* What the writer can hold: FDR ids fit 28 bits; v2+ blocks grow to hold
 * an oversized record; a v1 record needs the smallest buffer size, a
 * multiple of 8, that holds the preamble, a TSCWrap/NewCPUId pair, the
 * record and EndOfBuffer, plus a 16-byte filler record when the padding
 * would not be a multiple of 8. */
static size_t fdr_need(const tk_xray_record *r, unsigned version)
{
    if (version >= 2)
        return 0;
    size_t body = r->kind <= TK_XRAY_ENTER_ARG ? 8 + (size_t)r->nargs * 16 : 16 + r->data_len;
    size_t need = 3 * 16 + 32 + body + 16;
    return need % 8 ? (need + 7) / 8 * 8 + 16 : need;
}

static int fdr_holds(const seen *s, unsigned version, size_t bufsize)
{
    for (size_t i = 0; i < s->logical.n; i++) {
        const tk_xray_record *r = &s->logical.v[i].r;
        if (r->kind <= TK_XRAY_ENTER_ARG && (uint32_t)r->func_id >= (1u << 28))
            return 0;
        if (r->kind == TK_XRAY_TYPED_EVENT && version < 5)
            return 0;
        if (fdr_need(r, version) > bufsize)
            return 0;
    }
    return 1;
}

/* What reading back a record written as `type`/`version` gives. */
static tk_xray_record projected(const tk_xray_record *in, int type, unsigned version)
{
    tk_xray_record x = *in;
    if (version < 3)
        x.pid = 0;
    if (type == TK_XRAY_BASIC) {
        x.cpu &= 0xFF;
    } else if (x.kind == TK_XRAY_ENTER && x.nargs) {
        x.kind = TK_XRAY_ENTER_ARG;
    }
    return x;
}

typedef struct keyed {
    uint64_t key; /* pid << 32 | tid */
    size_t i;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static keyed *by_thread(const recs *l, const tk_xray_record *proj)
{
    keyed *k = malloc((l->n ? l->n : 1) * sizeof *k);
    TKF_CHECK(k != NULL, "out of memory");
    for (size_t i = 0; i < l->n; i++) {
        const tk_xray_record *r = proj ? &proj[i] : &l->v[i].r;
        k[i].key = (uint64_t)r->pid << 32 | r->tid;
        k[i].i = i;
    }
    qsort(k, l->n, sizeof *k, cmp_keyed);
    return k;
}

/* Read `out` back and compare with `src` written as type/version: in
 * order (basic), or per thread in order (FDR). Events are dropped by the
 * basic writer. */
static void check_readback(const char *what, const uint8_t *out, size_t n, const recs *src,
                           int type, unsigned version)
{
    seen b;
    memset(&b, 0, sizeof b);
    read_logical(out, n, &b);
    TKF_CHECK(b.header_ok && b.rc == 0, "%s: reading back failed: %s", what, b.err.message);
    TKF_CHECK(b.h.type == type && b.h.version == version, "%s: header %u/%u", what, b.h.type,
              b.h.version);
    TKF_CHECK(b.skipped == 0, "%s: %llu bytes skipped", what, (unsigned long long)b.skipped);
    recs want = {0};
    for (size_t i = 0; i < src->n; i++) {
        if (type == TK_XRAY_BASIC && src->v[i].r.kind >= TK_XRAY_CUSTOM_EVENT)
            continue;
        tk_xray_record p = projected(&src->v[i].r, type, version);
        recs_add(&want, &p, 0);
    }
    TKF_CHECK(want.n == b.logical.n, "%s: %zu records read back, %zu written", what,
              b.logical.n, want.n);
    if (type == TK_XRAY_BASIC) {
        for (size_t i = 0; i < want.n; i++)
            TKF_CHECK(same_rec(&want.v[i].r, &b.logical.v[i].r, 1),
                      "%s: record %zu differs after the round trip", what, i);
    } else {
        keyed *kw = by_thread(&want, NULL), *kg = by_thread(&b.logical, NULL);
        for (size_t i = 0; i < want.n; i++) {
            const tk_xray_record *w = &want.v[kw[i].i].r, *g = &b.logical.v[kg[i].i].r;
            /* v1–3 custom events: the reader reports the block's CPU,
             * which depends on how the writer grouped the blocks */
            int cpu = !(w->kind == TK_XRAY_CUSTOM_EVENT && version <= 3);
            TKF_CHECK(kw[i].key == kg[i].key && same_rec(w, g, cpu),
                      "%s: record %zu of thread %llx differs after the round trip", what,
                      kw[i].i, (unsigned long long)kw[i].key);
        }
        free(kw);
        free(kg);
    }
    recs_free(&want);
    recs_free(&b.logical);
}

static uint8_t *write_recs(const recs *l, const tk_xray_header *h, size_t *n)
{
    tkf_memfile m;
    tkf_memfile_open(&m);
    tk_error err;
    tk_error_clear(&err);
    tk_xray_writer *w = tk_xray_writer_new(m.fp, h, &err);
    TKF_CHECK(w != NULL, "tk_xray_writer_new(type %u v%u, %llu): %s", h->type, h->version,
              (unsigned long long)h->buffer_size, err.message);
    for (size_t i = 0; i < l->n; i++) {
        tk_status st = tk_xray_write(w, &l->v[i].r, &err);
        if (h->type == TK_XRAY_BASIC && l->v[i].r.kind >= TK_XRAY_CUSTOM_EVENT) {
            TKF_CHECK(st == TK_EUNSUPPORTED, "basic writer took an event");
            continue;
        }
        TKF_CHECK(st == TK_OK, "writing record %zu: %s", i, err.message);
    }
    TKF_CHECK(tk_xray_writer_free(w, &err) == TK_OK, "writer flush: %s", err.message);
    tkf_memfile_close(&m);
    *n = m.len;
    return (uint8_t *)m.buf;
}

static void writer_pass(const uint8_t *data, size_t size, const seen *s)
{
    if (!s->header_ok)
        return;
    uint64_t hash = tkf_hash(data, size);
    size_t n;
    if (s->h.type == TK_XRAY_BASIC) {
        tk_xray_header h = s->h;
        uint8_t *out = write_recs(&s->logical, &h, &n);
        uint64_t nargs = 0;
        for (size_t i = 0; i < s->logical.n; i++)
            nargs += s->logical.v[i].r.nargs;
        TKF_CHECK(n == TK_XRAY_HEADER_SIZE + 32 * (s->logical.n + nargs),
                  "basic rewrite: %zu bytes for %zu records and %llu arguments", n,
                  s->logical.n, (unsigned long long)nargs);
        /* the header is copied as read (binary input) */
        if (!s->yaml)
            TKF_CHECK(memcmp(out, data, TK_XRAY_HEADER_SIZE) == 0,
                      "basic rewrite changed the header");
        check_readback("basic rewrite", out, n, &s->logical, TK_XRAY_BASIC, s->h.version);
        free(out);
    }
    /* FDR: the input's version (5 if it has typed events), a small buffer
     * that still holds every record; and basic v3 */
    unsigned v = s->h.type == TK_XRAY_FDR ? s->h.version : 1 + (unsigned)(hash % 5);
    for (size_t i = 0; i < s->logical.n; i++)
        if (s->logical.v[i].r.kind == TK_XRAY_TYPED_EVENT)
            v = 5;
    size_t bufsize = 128 + (size_t)(hash >> 8) % 400, nthreads = 0, total = 0;
    int ids_ok = 1;
    for (size_t i = 0; i < s->logical.n; i++) {
        const tk_xray_record *r = &s->logical.v[i].r;
        size_t need = fdr_need(r, v);
        total += need;
        if (need > bufsize)
            bufsize = need;
        if (r->kind <= TK_XRAY_ENTER_ARG && (uint32_t)r->func_id >= (1u << 28))
            ids_ok = 0;
    }
    bufsize = (bufsize + 7) & ~(size_t)7;
    keyed *k = by_thread(&s->logical, NULL);
    for (size_t i = 0; i < s->logical.n; i++)
        nthreads += i == 0 || k[i].key != k[i - 1].key;
    free(k);
    /* v1 pads every block to the buffer size: keep the output small */
    if (v == 1 && (nthreads + 2 * total / 16 + 1) * bufsize > ((size_t)64 << 20))
        v = 2;
    if (ids_ok && bufsize <= ((size_t)1 << 30)) {
        tk_xray_header h;
        tk_xray_default_header(&h, TK_XRAY_FDR, (uint16_t)v);
        h.buffer_size = bufsize;
        uint8_t *out = write_recs(&s->logical, &h, &n);
        check_readback("FDR rewrite", out, n, &s->logical, TK_XRAY_FDR, v);
        free(out);
    }
    tk_xray_header h;
    tk_xray_default_header(&h, TK_XRAY_BASIC, 3);
    uint8_t *out = write_recs(&s->logical, &h, &n);
    check_readback("basic v3 rewrite", out, n, &s->logical, TK_XRAY_BASIC, 3);
    free(out);
}

/* ----------------------------------------------------------- commands */

typedef struct cmd_out {
    tk_status st;
    tk_error err;
    uint64_t nwarnings;
    size_t lines;
    char *text;
} cmd_out;

enum { C_INFO, C_DUMP, C_VALIDATE, C_VALIDATE_QUIET };

static void run(int cmd, const uint8_t *data, size_t size, const char *const *kv,
                tk_sink_style style, cmd_out *o)
{
    tk_error err;
    const tk_format *f = tk_format_find("xray");
    TKF_CHECK(f != NULL, "no xray format");
    tk_options *opts = tkf_options(kv);
    tk_error_clear(&o->err);
    tk_input *in = tk_input_from_memory(data, size, "fuzz-input", &o->err);
    tkf_memfile m;
    tkf_memfile_open(&m);
    tk_sink *s = tk_sink_new(m.fp, style, &err);
    TKF_CHECK(s != NULL, "tk_sink_new");
    o->nwarnings = 777;
    switch (cmd) {
    case C_INFO: o->st = tk_info(f, in, opts, s, &o->err); break;
    case C_DUMP: o->st = tk_dump(f, in, opts, s, &o->err); break;
    case C_VALIDATE: o->st = tk_validate(f, in, opts, s, &o->nwarnings, &o->err); break;
    default: o->st = tk_validate(f, in, opts, NULL, &o->nwarnings, &o->err); break;
    }
    tk_error ferr;
    tk_error_clear(&ferr);
    TKF_CHECK(tk_sink_finish(s, &ferr) == TK_OK, "tk_sink_finish: %s", ferr.message);
    tk_sink_free(s);
    tkf_memfile_close(&m);
    o->lines = style == TK_SINK_JSON ? tkf_check_json_lines(m.buf, m.len)
                                     : tkf_check_text_lines(m.buf, m.len);
    if (cmd == C_VALIDATE_QUIET)
        TKF_CHECK(m.len == 0, "validate wrote without a sink");
    o->text = m.buf; /* caller frees */
    if (o->st != TK_OK)
        check_error_sane(&o->err, size);
    tk_input_close(in);
    tk_options_free(opts);
}

/* The status a command reading the whole trace must return. */
static void expect_status(const char *what, tk_status st, const tk_error *err, const seen *s)
{
    tk_status want = s->header_ok && s->rc == 0 ? TK_OK : s->err.status;
    TKF_CHECK(st == want, "%s returned %d (%s), expected %d (%s)", what, (int)st,
              st ? err->message : "", (int)want, want ? s->err.message : "");
    /* FDR's raw view (dump) reads buffers in file order: with moved
     * buffers another error may come first */
    int raw_view = strcmp(what, "dump") == 0 && s->layout == TK_XRAY_FDR && !s->yaml;
    if (st != TK_OK && !(raw_view && s->moved))
        TKF_CHECK(strcmp(err->message, s->err.message) == 0 && err->offset == s->err.offset,
                  "%s: error '%s' at %llu, the reader said '%s' at %llu", what, err->message,
                  (unsigned long long)err->offset, s->err.message,
                  (unsigned long long)s->err.offset);
}

static void commands_pass(const uint8_t *data, size_t size, const seen *s)
{
    int valid = s->header_ok && s->rc == 0;
    int binfdr = s->header_ok && !s->yaml && s->layout == TK_XRAY_FDR;
    uint64_t nraw = binfdr ? s->nraw : s->logical.n;
    uint64_t back = valid ? threads_going_back(&s->logical) : 0;
    uint64_t warnings = valid ? (s->skipped != 0) + (s->layout != s->h.type) +
                                    (s->moved != 0) + (back > 20 ? 21 : back)
                              : 0;
    const tk_format *f = tk_format_find("xray");
    {   /* probing peeks */
        tk_error err;
        tk_input *in = tk_input_from_memory(data, size, "fuzz-input", &err);
        (void)tk_format_probe(in, &err);
        TKF_CHECK(tk_input_offset(in) == 0, "probing moved the input");
        tk_input_close(in);
    }
    static const char *const logical[] = {"records", "logical", NULL};
    static const char *const raw[] = {"records", "raw", NULL};
    char skip[24], limit[24];
    uint64_t nskip = size ? data[size / 2] % 5u : 0, nlimit = size ? data[size - 1] % 7u : 3;
    snprintf(skip, sizeof skip, "%llu", (unsigned long long)nskip);
    snprintf(limit, sizeof limit, "%llu", (unsigned long long)nlimit);
    const char *const window[] = {"skip", skip, "limit", limit, NULL};
    static const tk_sink_style styles[] = {TK_SINK_JSON, TK_SINK_TEXT};
    for (int k = 0; k < 2; k++) {
        cmd_out o;
        run(C_INFO, data, size, NULL, styles[k], &o);
        expect_status("info", o.st, &o.err, s);
        if (o.st == TK_OK && styles[k] == TK_SINK_JSON) {
            TKF_CHECK(o.lines == 1, "info --json wrote %zu lines", o.lines);
            char pat[64];
            snprintf(pat, sizeof pat, "\"records\":%zu,", s->logical.n);
            TKF_CHECK(strstr(o.text, pat) != NULL, "info does not say %s", pat);
        }
        free(o.text);

        run(C_DUMP, data, size, NULL, styles[k], &o);
        expect_status("dump", o.st, &o.err, s);
        TKF_CHECK(!s->header_ok || o.lines == nraw, "dump wrote %zu lines for %llu records",
                  o.lines, (unsigned long long)nraw);
        free(o.text);
        run(C_DUMP, data, size, raw, styles[k], &o);
        TKF_CHECK(!s->header_ok || o.lines == nraw, "dump --records raw: %zu lines", o.lines);
        free(o.text);
        run(C_DUMP, data, size, logical, styles[k], &o);
        expect_status("dump --records logical", o.st, &o.err, s);
        TKF_CHECK(!s->header_ok || o.lines == s->logical.n,
                  "dump --records logical wrote %zu lines for %zu records", o.lines,
                  s->logical.n);
        free(o.text);

        /* a window: records [skip, skip + limit) of the raw view */
        run(C_DUMP, data, size, window, styles[k], &o);
        uint64_t avail = nraw > nskip ? nraw - nskip : 0;
        uint64_t shown = avail < nlimit ? avail : nlimit;
        TKF_CHECK(!s->header_ok || o.lines == shown,
                  "dump --skip %s --limit %s wrote %zu lines, expected %llu", skip, limit,
                  o.lines, (unsigned long long)shown);
        if (s->header_ok && !valid && avail >= nlimit)
            TKF_CHECK(o.st == TK_OK, "dump window before the error failed: %s",
                      o.err.message);
        free(o.text);

        run(C_VALIDATE, data, size, NULL, styles[k], &o);
        expect_status("validate", o.st, &o.err, s);
        if (o.st == TK_OK)
            TKF_CHECK(o.nwarnings == warnings && o.lines == warnings,
                      "validate: %llu warnings, %zu lines, expected %llu",
                      (unsigned long long)o.nwarnings, o.lines, (unsigned long long)warnings);
        free(o.text);
    }
    cmd_out o;
    run(C_VALIDATE_QUIET, data, size, NULL, TK_SINK_JSON, &o);
    expect_status("validate (no sink)", o.st, &o.err, s);
    free(o.text);

    /* convert to every target */
    /* convert --to xray-fdr writes v5 and takes the input's buffer size
     * when the writer can use it */
    size_t bufsize = 16384;
    int fdr_ok = fdr_holds(s, 5, bufsize);
    for (const char *const *t = tk_format_targets(f); t && *t; t++) {
        if (tk_format_target_is_dir(f, *t))
            continue; /* parquet writes files: its tests feed it bad traces */
        tkf_memfile m;
        tk_status st = tkf_convert("xray", data, size, NULL, *t, &m);
        int to_fdr = strcmp(*t, "xray-fdr") == 0, to_basic = strcmp(*t, "xray-basic") == 0;
        if (valid) {
            if (to_fdr && !fdr_ok)
                TKF_CHECK(st == TK_EUSAGE, "convert --to xray-fdr of what FDR cannot hold: %d",
                          (int)st);
            else
                TKF_CHECK(st == TK_OK, "convert --to %s failed (%d) on a valid trace", *t,
                          (int)st);
        } else {
            TKF_CHECK(st == s->err.status || (to_fdr && st == TK_EUSAGE),
                      "convert --to %s returned %d on a bad trace (reader: %d)", *t, (int)st,
                      (int)s->err.status);
        }
        if (st == TK_OK && strcmp(*t, "jsonl") == 0)
            TKF_CHECK(tkf_check_json_lines(m.buf, m.len) == s->logical.n,
                      "convert --to jsonl: wrong line count");
        if (st == TK_OK && to_basic)
            check_readback("convert --to xray-basic", (uint8_t *)m.buf, m.len, &s->logical,
                           TK_XRAY_BASIC, 3);
        if (st == TK_OK && to_fdr)
            check_readback("convert --to xray-fdr", (uint8_t *)m.buf, m.len, &s->logical,
                           TK_XRAY_FDR, 5);
        if (st == TK_OK && strcmp(*t, "yaml") == 0) {
            seen y;
            memset(&y, 0, sizeof y);
            read_logical((uint8_t *)m.buf, m.len, &y);
            TKF_CHECK(y.header_ok && y.yaml && y.rc == 0 && y.logical.n == s->logical.n,
                      "convert --to yaml: read back %zu of %zu records (%s)", y.logical.n,
                      s->logical.n, y.err.message);
            recs_free(&y.logical);
        }
        tkf_memfile_free(&m);
    }
    tkf_memfile bad;
    TKF_CHECK(tkf_convert("xray", data, size, NULL, "no-such-target", &bad) == TK_EUSAGE,
              "unknown target accepted");
    tkf_memfile_free(&bad);
    static const char *const neg[] = {"skip", "-1", NULL};
    run(C_DUMP, data, size, neg, TK_SINK_TEXT, &o);
    TKF_CHECK(o.st == TK_EUSAGE, "dump --skip -1 returned %d", (int)o.st);
    free(o.text);
    static const char *const badrec[] = {"records", "cooked", NULL};
    run(C_DUMP, data, size, badrec, TK_SINK_TEXT, &o);
    TKF_CHECK(o.st == TK_EUSAGE, "dump --records cooked returned %d", (int)o.st);
    free(o.text);
}

/* ------------------------------------------------------------ analyses */

static size_t account_pass(const recs *l, int deduce, uint64_t memory_limit,
                           tk_xray_account_row **rows)
{
    tk_error err;
    tk_xray_account_options o = {.deduce_sibling_calls = deduce,
                                 .memory_limit = memory_limit};
    tk_xray_account *a = tk_xray_account_new(&o, &err);
    TKF_CHECK(a != NULL, "tk_xray_account_new failed");
    for (size_t i = 0; i < l->n; i++) {
        int rc = tk_xray_account_add(a, &l->v[i].r, &err);
        TKF_CHECK(rc >= 0, "account: out of memory at record %zu", i);
        if (rc != TK_XRAY_ACCOUNT_OK) {
            int32_t stack[4];
            tk_xray_account_stack(a, l->v[i].r.tid, stack, 4);
            TKF_CHECK(tk_xray_account_failure_text(rc)[0] != '\0', "failure without text");
        }
    }
    size_t n;
    TKF_CHECK(tk_xray_account_rows(a, TK_XRAY_SORT_FUNCID, 0, rows, &n, &err) == TK_OK,
              "account rows failed: %s", err.message);
    TKF_CHECK(n == tk_xray_account_functions(a), "%zu rows for %zu functions", n,
              tk_xray_account_functions(a));
    for (size_t i = 0; i < n; i++) {
        const tk_xray_account_row *w = &(*rows)[i];
        TKF_CHECK(w->count > 0 && w->min <= w->med && w->med <= w->p90 &&
                      w->p90 <= w->p99 && w->p99 <= w->max,
                  "account row of function %d out of order", (int)w->func_id);
        TKF_CHECK(i == 0 || (*rows)[i - 1].func_id < w->func_id, "rows not by id");
    }
    tk_xray_account_free(a);
    return n;
}

static const char *no_name(void *ctx, int32_t id)
{
    (void)ctx;
    return id % 2 ? "odd&<name>" : NULL;
}

static void stacks_pass(const recs *l)
{
    tk_error err;
    tk_xray_stacks *s = tk_xray_stacks_new(&err);
    TKF_CHECK(s != NULL, "tk_xray_stacks_new failed");
    for (size_t i = 0; i < l->n; i++)
        TKF_CHECK(tk_xray_stacks_add(s, &l->v[i].r, &err) >= 0, "stacks: out of memory");
    for (int view = TK_XRAY_STACKS_TOP; view <= TK_XRAY_STACKS_JSON; view++)
        for (int th = TK_XRAY_STACKS_ALL_THREADS; th <= TK_XRAY_STACKS_AGGREGATE; th++) {
            tk_xray_stacks_print_options po = {.view = (tk_xray_stacks_view)view,
                                               .threads = (tk_xray_stacks_threads)th,
                                               .count = th == TK_XRAY_STACKS_AGGREGATE,
                                               .name = no_name};
            tkf_memfile m;
            tkf_memfile_open(&m);
            tk_status st = tk_xray_stacks_print(s, m.fp, &po, &err);
            tkf_memfile_close(&m);
            TKF_CHECK(st == TK_OK, "stacks print (view %d, threads %d): %d", view, th,
                      (int)st);
            if (view == TK_XRAY_STACKS_JSON)
                tkf_check_json_lines(m.buf, m.len);
            tkf_memfile_free(&m);
        }
    tk_xray_stacks_free(s);
}

static void graph_pass(const recs *l, int deduce)
{
    tk_error err;
    tk_xray_graph_options o = {.deduce_sibling_calls = deduce};
    tk_xray_graph *g = tk_xray_graph_new(&o, &err);
    TKF_CHECK(g != NULL, "tk_xray_graph_new failed");
    for (size_t i = 0; i < l->n; i++)
        TKF_CHECK(tk_xray_graph_add(g, &l->v[i].r, &err) >= 0, "graph: out of memory");
    TKF_CHECK(tk_xray_graph_finish(g, 1000, &err) == TK_OK, "graph finish failed");
    for (size_t i = 0; i < tk_xray_graph_edges(g); i++) {
        int32_t from, to;
        tk_xray_graph_stats st;
        TKF_CHECK(tk_xray_graph_edge(g, i, &from, &to, &st) == 0, "edge %zu missing", i);
        /* min, max and sum go through int64_t as in llvm-xray (a TSC
         * running backwards gives a negative minimum): only the
         * percentiles of the sorted durations are ordered */
        TKF_CHECK(st.med <= st.p90 && st.p90 <= st.p99 && st.count > 0,
                  "edge %d -> %d statistics out of order", (int)from, (int)to);
    }
    int32_t id;
    tk_xray_graph_stats st;
    TKF_CHECK(tk_xray_graph_vertex(g, tk_xray_graph_vertices(g), &id, &st) == -1,
              "vertex past the end");
    tk_xray_graph_print_options po = {TK_XRAY_GRAPH_COUNT, TK_XRAY_GRAPH_SUM,
                                      TK_XRAY_GRAPH_P99, TK_XRAY_GRAPH_MIN, no_name, NULL};
    tkf_memfile m;
    tkf_memfile_open(&m);
    TKF_CHECK(tk_xray_graph_print_dot(g, m.fp, &po, &err) == TK_OK, "graph dot failed");
    tkf_memfile_close(&m);
    TKF_CHECK(m.len >= 2 && memcmp(m.buf + m.len - 2, "}\n", 2) == 0,
              "DOT output does not end with }");
    tkf_memfile_free(&m);
    tk_xray_graph_free(g);
}

static void analyses_pass(const seen *s)
{
    for (int deduce = 0; deduce <= 1; deduce++) {
        tk_xray_account_row *mem, *spilled;
        size_t n = account_pass(&s->logical, deduce, 0, &mem);
        /* 8 bytes: every latency beyond the first chunk goes to the file */
        size_t m = account_pass(&s->logical, deduce, 8, &spilled);
        TKF_CHECK(n == m, "spilled account: %zu rows, not %zu", m, n);
        for (size_t i = 0; i < n; i++) {
            const tk_xray_account_row *x = &mem[i], *y = &spilled[i];
            TKF_CHECK(x->func_id == y->func_id && x->count == y->count && x->min == y->min &&
                          x->med == y->med && x->p90 == y->p90 && x->p99 == y->p99 &&
                          x->max == y->max && x->sum == y->sum,
                      "spilled account differs for function %d (deduce %d)",
                      (int)x->func_id, deduce);
        }
        free(mem);
        free(spilled);
        graph_pass(&s->logical, deduce);
    }
    stacks_pass(&s->logical);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    seen s;
    memset(&s, 0, sizeof s);
    read_logical(data, size, &s);
    if (s.header_ok && !s.yaml && s.layout == TK_XRAY_FDR) {
        read_raw(data, size, &s);
        check_tiling(data, size, &s);
    }
    writer_pass(data, size, &s);
    commands_pass(data, size, &s);
    analyses_pass(&s);
    recs_free(&s.logical);
    return 0;
}
