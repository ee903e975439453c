/* Fuzz target: Cacheray reader, checker, writer and the common commands.
 *
 * For each byte order (auto, little, big) the input is read to the end
 * through tk_cacheray_next; every record must re-encode to exactly its input
 * bytes (tk_cacheray_encode and the buffered writer), pass through the
 * checker with consistent warnings, and read identically through a pipe
 * (the streaming input; inputs up to 64 KiB) and when placed just before
 * the reader's 4 MiB window edge. Then info, dump, validate and convert run
 * through the format API with JSON and text sinks on memory FILEs, and
 * must agree with what the reader saw; the Perfetto conversion runs once
 * more with --max-tracks 1 --window 1 (its capped paths). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

/* Inputs up to this size are also read through a pipe. */
#define PIPE_MAX ((size_t)1 << 16)

static const char *order_name(tk_endian e)
{
    return e == TK_ENDIAN_BIG ? "big" : e == TK_ENDIAN_LITTLE ? "little" : "auto";
}

/* Write `data` into a pipe and return its read end, or -1 when it does not
 * fit the pipe buffer (then the pipe comparison is skipped). */
static int pipe_with(const uint8_t *data, size_t size)
{
    int fds[2];
    if (size > PIPE_MAX || pipe(fds) != 0)
        return -1;
    (void)fcntl(fds[1], F_SETFL, O_NONBLOCK);
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fds[1], data + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    close(fds[1]);
    if (done < size) {
        close(fds[0]);
        return -1;
    }
    return fds[0];
}

static void check_same_record(const tk_cacheray_record *a,
                              const tk_cacheray_record *b, uint64_t index)
{
    TKF_CHECK(a->type == b->type && a->flags == b->flags && a->size == b->size &&
                  a->addr == b->addr && a->thread == b->thread &&
                  a->elemsize == b->elemsize && a->elemcount == b->elemcount &&
                  a->typename_len == b->typename_len,
              "record %llu differs between the two readings",
              (unsigned long long)index);
    if (a->typename_len)
        TKF_CHECK(a->type_name && b->type_name &&
                      memcmp(a->type_name, b->type_name, a->typename_len) == 0,
                  "record %llu: type name differs between the two readings",
                  (unsigned long long)index);
}

/* Structural sanity of one record read at `off`, `len` bytes long. */
static void check_record(const tk_cacheray_record *rec, const uint8_t *data,
                         uint64_t off, uint64_t len)
{
    switch (rec->type) {
    case TK_CACHERAY_READ:
    case TK_CACHERAY_WRITE:
        TKF_CHECK((rec->flags & ~TK_CACHERAY_FLAG_MASK) == 0, "access flags 0x%02x", rec->flags);
        TKF_CHECK(len == TK_CACHERAY_ACCESS_SIZE, "access of %llu bytes", (unsigned long long)len);
        TKF_CHECK(rec->typename_len == 0 && rec->type_name == NULL, "access with a name");
        break;
    case TK_CACHERAY_RTTA_ADD:
        TKF_CHECK(rec->flags == 0, "rtta_add flags 0x%02x", rec->flags);
        TKF_CHECK(len == TK_CACHERAY_RTTA_ADD_FIXED + (uint64_t)rec->typename_len,
                  "rtta_add length %llu for a %u-byte name", (unsigned long long)len,
                  rec->typename_len);
        /* zero copy: the name points into the input */
        TKF_CHECK((const uint8_t *)rec->type_name == data + off + TK_CACHERAY_RTTA_ADD_FIXED,
                  "rtta_add name does not point at its input bytes");
        break;
    case TK_CACHERAY_RTTA_REMOVE:
        TKF_CHECK(rec->flags == 0, "rtta_remove flags 0x%02x", rec->flags);
        TKF_CHECK(len == TK_CACHERAY_RTTA_REMOVE_SIZE, "rtta_remove of %llu bytes",
                  (unsigned long long)len);
        TKF_CHECK(rec->typename_len == 0 && rec->type_name == NULL, "rtta_remove with a name");
        break;
    default:
        TKF_CHECK(0, "record type %d", (int)rec->type);
    }
    TKF_CHECK(strcmp(tk_cacheray_type_name(rec->type), "unknown") != 0, "unnamed type");
}

/* Feed the checker; check its warnings against the record and keep a model
 * of the live region count. Returns the warning count. */
static int check_warnings(tk_cacheray_checker *c, tk_cacheray_checker *c0,
                          const tk_cacheray_record *rec, uint64_t off,
                          uint64_t index, uint64_t *live_model, int *model_ok)
{
    tk_error err;
    tk_cacheray_warning w[4];
    int n = tk_cacheray_check(c, rec, off, index, w, 4, &err);
    TKF_CHECK(n >= 0, "tk_cacheray_check failed");
    /* a checker given no room must count the same */
    TKF_CHECK(tk_cacheray_check(c0, rec, off, index, NULL, 0, &err) == n,
              "warning count depends on the room given");
    int empty = 0, wraps = 0, overlaps = 0, unknown = 0, zero = 0;
    for (int i = 0; i < n && i < 4; i++) {
        TKF_CHECK(w[i].offset == off && w[i].record == index && w[i].addr == rec->addr,
                  "warning %d located wrongly", i);
        TKF_CHECK(w[i].code && w[i].code[0] && w[i].message && w[i].message[0],
                  "warning without code or message");
        switch (w[i].kind) {
        case TK_CACHERAY_WARN_ZERO_SIZE: zero++; break;
        case TK_CACHERAY_WARN_REMOVE_UNKNOWN: unknown++; break;
        case TK_CACHERAY_WARN_OVERLAP: overlaps++; break;
        case TK_CACHERAY_WARN_EMPTY_REGION: empty++; break;
        case TK_CACHERAY_WARN_REGION_WRAPS: wraps++; break;
        default: TKF_CHECK(0, "warning kind %d", (int)w[i].kind);
        }
    }
    uint64_t bytes = (uint64_t)rec->elemsize * rec->elemcount;
    switch (rec->type) {
    case TK_CACHERAY_READ:
    case TK_CACHERAY_WRITE:
        /* validate skips the checker for accesses of non-zero size */
        TKF_CHECK(n == (rec->size == 0) && zero == n, "access: %d warnings", n);
        break;
    case TK_CACHERAY_RTTA_REMOVE:
        TKF_CHECK(n <= 1 && unknown == n, "rtta_remove: %d warnings", n);
        if (n == 0) {
            TKF_CHECK(*live_model > 0 || !*model_ok, "removed a region that was not live");
            (*live_model)--;
        }
        break;
    case TK_CACHERAY_RTTA_ADD:
        if (n > 4) { /* warnings beyond the room: the model loses track */
            *model_ok = 0;
            break;
        }
        /* docs/formats/cacheray.md: empty-region = elemsize or elemcount
         * 0; region-wraps = the region runs past 2^64 (ending exactly
         * there is fine) */
        TKF_CHECK(empty == (bytes == 0), "empty-region warning wrong");
        TKF_CHECK(wraps == (bytes > 0 && rec->addr + (bytes - 1) < rec->addr),
                  "region-wraps warning wrong (addr 0x%llx, %llu bytes)",
                  (unsigned long long)rec->addr, (unsigned long long)bytes);
        TKF_CHECK(empty + wraps + overlaps == n && zero + unknown == 0,
                  "rtta_add: unexpected warnings");
        *live_model = *live_model + 1 - (uint64_t)overlaps;
        break;
    }
    if (*model_ok)
        TKF_CHECK(tk_cacheray_checker_live(c) == *live_model,
                  "checker says %llu live regions, expected %llu",
                  (unsigned long long)tk_cacheray_checker_live(c),
                  (unsigned long long)*live_model);
    return n;
}

/* Read the whole input in one byte order. Fills `ex` and the order used. */
static void read_pass(const uint8_t *data, size_t size, tk_endian endian,
                      int with_pipe, tkf_expect *ex, tk_endian *used_out)
{
    tk_error err, perr;
    tk_error_clear(&err);
    tk_error_clear(&perr);
    tk_input *in = tk_input_from_memory(data, size, "fuzz-input", &err);
    TKF_CHECK(in != NULL, "tk_input_from_memory: %s", err.message);
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, endian, &err);
    TKF_CHECK(r != NULL, "tk_cacheray_reader_new: %s", err.message);
    tk_endian used = tk_cacheray_reader_endian(r);
    TKF_CHECK(endian == TK_ENDIAN_AUTO ? used == TK_ENDIAN_LITTLE || used == TK_ENDIAN_BIG
                                       : used == endian,
              "reader uses order %d, asked %d", (int)used, (int)endian);
    TKF_CHECK(tk_cacheray_reader_tell(r) == 0 &&
                  tk_cacheray_reader_offset(r) == TK_NO_OFFSET &&
                  tk_cacheray_reader_index(r) == TK_NO_RECORD,
              "fresh reader not at the start");

    /* the same bytes through a pipe, read in lockstep */
    int pfd = with_pipe ? pipe_with(data, size) : -1;
    tk_input *pin = NULL;
    tk_cacheray_reader *pr = NULL;
    if (pfd >= 0) {
        pin = tk_input_from_fd(pfd, "fuzz-pipe", &perr);
        TKF_CHECK(pin != NULL, "tk_input_from_fd: %s", perr.message);
        TKF_CHECK(tk_input_size(pin) == -1, "a pipe has a size");
        pr = tk_cacheray_reader_new(pin, endian, &perr);
        TKF_CHECK(pr != NULL, "tk_cacheray_reader_new (pipe): %s", perr.message);
        TKF_CHECK(tk_cacheray_reader_endian(pr) == used,
                  "byte order detected differently through a pipe");
    }

    tk_cacheray_checker *c = tk_cacheray_checker_new(&err), *c0 = tk_cacheray_checker_new(&err);
    TKF_CHECK(c && c0, "tk_cacheray_checker_new failed");
    tkf_memfile wout;
    tkf_memfile_open(&wout);
    tk_cacheray_writer *w = tk_cacheray_writer_new(wout.fp, used, &err);
    TKF_CHECK(w != NULL, "tk_cacheray_writer_new: %s", err.message);
    uint8_t *enc = malloc(size + TK_CACHERAY_RTTA_ADD_FIXED);
    TKF_CHECK(enc != NULL, "out of memory");

    uint64_t pos = 0, count = 0, warnings = 0, live = 0;
    int model_ok = 1, rc;
    tk_cacheray_record rec, prec;
    for (;;) {
        memset(&rec, 0xA5, sizeof rec); /* nothing stale may survive */
        rc = tk_cacheray_next(r, &rec, &err);
        if (pr) {
            int prc = tk_cacheray_next(pr, &prec, &perr);
            TKF_CHECK(prc == rc, "record %llu: memory input says %d, pipe %d (%s)",
                      (unsigned long long)count, rc, prc, rc < 0 ? err.message : perr.message);
            if (rc > 0) {
                check_same_record(&rec, &prec, count);
                TKF_CHECK(tk_cacheray_reader_offset(pr) == tk_cacheray_reader_offset(r) &&
                              tk_cacheray_reader_index(pr) == tk_cacheray_reader_index(r) &&
                              tk_cacheray_reader_tell(pr) == tk_cacheray_reader_tell(r),
                          "pipe reader position differs at record %llu",
                          (unsigned long long)count);
            } else if (rc < 0) {
                TKF_CHECK(perr.status == err.status && perr.offset == err.offset &&
                              perr.record == err.record,
                          "pipe error differs: '%s' vs '%s'", perr.message, err.message);
            }
        }
        if (rc <= 0)
            break;

        uint64_t off = tk_cacheray_reader_offset(r), end = tk_cacheray_reader_tell(r);
        TKF_CHECK(off == pos, "record %llu at offset %llu, expected %llu",
                  (unsigned long long)count, (unsigned long long)off, (unsigned long long)pos);
        TKF_CHECK(tk_cacheray_reader_index(r) == count, "record index %llu, expected %llu",
                  (unsigned long long)tk_cacheray_reader_index(r), (unsigned long long)count);
        TKF_CHECK(end > off && end <= size, "record end %llu", (unsigned long long)end);
        check_record(&rec, data, off, end - off);

        /* re-encoding gives back the input bytes */
        size_t n = tk_cacheray_encode(&rec, used, enc);
        TKF_CHECK(n == end - off && memcmp(enc, data + off, n) == 0,
                  "record %llu at 0x%llx re-encodes differently (%zu bytes)",
                  (unsigned long long)count, (unsigned long long)off, n);
        TKF_CHECK(tk_cacheray_write(w, &rec, &err) == TK_OK, "tk_cacheray_write: %s",
                  err.message);

        warnings += (uint64_t)check_warnings(c, c0, &rec, off, count, &live, &model_ok);
        pos = end;
        count++;
    }

    if (rc == 0) {
        TKF_CHECK(pos == size, "clean end after %llu of %zu bytes",
                  (unsigned long long)pos, size);
        TKF_CHECK(tk_cacheray_reader_tell(r) == size, "tell at the end");
        TKF_CHECK(tk_cacheray_next(r, &rec, &err) == 0, "reading past the end");
    } else {
        TKF_CHECK(err.status == TK_EMALFORMED, "reader error status %d: %s",
                  (int)err.status, err.message);
        TKF_CHECK(err.offset != TK_NO_OFFSET && err.offset >= pos && err.offset < size,
                  "error offset %llu outside the bad record (at %llu, input %zu bytes)",
                  (unsigned long long)err.offset, (unsigned long long)pos, size);
        TKF_CHECK(err.record == count, "error names record %llu, expected %llu",
                  (unsigned long long)err.record, (unsigned long long)count);
        TKF_CHECK(err.message[0] != '\0', "error without a message");
        tk_error again;
        tk_error_clear(&again);
        TKF_CHECK(tk_cacheray_next(r, &rec, &again) == -1, "reading went on after an error");
    }

    /* the writer reproduced every byte read */
    TKF_CHECK(tk_cacheray_writer_free(w, &err) == TK_OK, "writer flush: %s", err.message);
    tkf_memfile_close(&wout);
    TKF_CHECK(wout.len == pos && (pos == 0 || memcmp(wout.buf, data, pos) == 0),
              "writer output (%zu bytes) differs from the %llu bytes read", wout.len,
              (unsigned long long)pos);
    tkf_memfile_free(&wout);

    free(enc);
    tk_cacheray_checker_free(c);
    tk_cacheray_checker_free(c0);
    tk_cacheray_reader_free(pr);
    tk_input_close(pin);
    if (pfd >= 0)
        close(pfd);
    tk_cacheray_reader_free(r);
    tk_input_close(in);

    ex->valid = rc == 0;
    ex->records = count;
    ex->warnings = warnings;
    ex->convert_identity = 1; /* --to cacheray keeps the input's order */
    *used_out = used;
}

/* The reader hands out windows of at most 4 MiB (WINDOW_CAP in
 * src/cacheray/read.c) and refills when fewer than 29 bytes are left, so a
 * record near that edge takes another path. The edge pass places the input
 * just before the edge, after filler records, and checks it reads exactly
 * as on its own. The filler is a few RTTA_ADD records with long names (the
 * first longer than the writer's 256 KiB buffer), built once per byte order
 * in a buffer kept across inputs: only the last filler record's length
 * changes, so the pass costs little. One input in WRITE_ONE_IN also goes
 * through the writer, whose buffer then fills, flushes and is bypassed. */
#define EDGE ((size_t)4 << 20)
#define FILL_FIRST (TK_CACHERAY_RTTA_ADD_FIXED + ((size_t)300 << 10))
#define FILL_REC (TK_CACHERAY_RTTA_ADD_FIXED + ((size_t)64 << 10))
#define FILL_N (1 + (EDGE - 64 - FILL_FIRST) / FILL_REC) /* the last takes the rest */
#define FILL_AT(i) ((i) == 0 ? 0 : FILL_FIRST + ((i) - 1) * FILL_REC)
#define WRITE_ONE_IN 8

static uint8_t *edge_buf[2];
static size_t edge_cap[2];

/* An RTTA_ADD header at `p` for a name of `len` bytes (the bytes there are
 * left as they are). */
static void filler_header(uint8_t *p, size_t len, tk_endian order)
{
    tk_cacheray_record f;
    memset(&f, 0, sizeof f);
    f.type = TK_CACHERAY_RTTA_ADD;
    f.addr = 0x5555555a0000ULL;
    f.thread = 1;
    f.elemsize = f.elemcount = 1;
    tk_cacheray_encode(&f, order, p); /* typename_len 0: copies no name */
    for (int i = 0; i < 4; i++)
        p[25 + i] = (uint8_t)(len >> (order == TK_ENDIAN_BIG ? 24 - 8 * i : 8 * i));
}

static void edge_pass(const uint8_t *data, size_t size, tk_endian order)
{
    int o = order == TK_ENDIAN_BIG;
    uint64_t h = tkf_hash(data, size);
    size_t shift = 1 + (size_t)(h >> 8) % 64;
    size_t fill = EDGE - shift; /* the input starts 1..64 bytes before the edge */
    if (edge_cap[o] < EDGE + size) {
        free(edge_buf[o]);
        edge_cap[o] = EDGE + size;
        edge_buf[o] = calloc(1, edge_cap[o]);
        TKF_CHECK(edge_buf[o] != NULL, "out of memory");
        for (size_t i = 0; i + 1 < FILL_N; i++)
            filler_header(edge_buf[o] + FILL_AT(i),
                          (i == 0 ? FILL_FIRST : FILL_REC) - TK_CACHERAY_RTTA_ADD_FIXED, order);
    }
    uint8_t *buf = edge_buf[o];
    size_t n = FILL_N, last = FILL_AT(n - 1);
    filler_header(buf + last, fill - last - TK_CACHERAY_RTTA_ADD_FIXED, order);
    if (size)
        memcpy(buf + fill, data, size);

    tk_error err, serr;
    tk_error_clear(&err);
    tk_error_clear(&serr);
    tk_input *in = tk_input_from_memory(buf, fill + size, "edge", &err);
    tk_input *sin = tk_input_from_memory(data, size, "alone", &serr);
    TKF_CHECK(in && sin, "tk_input_from_memory failed");
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, order, &err);
    tk_cacheray_reader *sr = tk_cacheray_reader_new(sin, order, &serr);
    TKF_CHECK(r && sr, "tk_cacheray_reader_new failed");
    tkf_memfile wout = {0};
    tk_cacheray_writer *w = NULL;
    if (h % WRITE_ONE_IN == 0) {
        tkf_memfile_open(&wout);
        w = tk_cacheray_writer_new(wout.fp, order, &err);
        TKF_CHECK(w != NULL, "tk_cacheray_writer_new: %s", err.message);
    }
    tk_cacheray_record rec, srec;
    for (size_t i = 0; i < n; i++) {
        TKF_CHECK(tk_cacheray_next(r, &rec, &err) == 1, "filler record %zu: %s", i,
                  err.message);
        TKF_CHECK(!w || tk_cacheray_write(w, &rec, &err) == TK_OK, "write: %s", err.message);
    }
    TKF_CHECK(tk_cacheray_reader_tell(r) == fill, "filler ends at %llu, not %zu",
              (unsigned long long)tk_cacheray_reader_tell(r), fill);
    for (uint64_t k = 0;; k++) {
        int rc = tk_cacheray_next(r, &rec, &err), src = tk_cacheray_next(sr, &srec, &serr);
        TKF_CHECK(rc == src, "record %llu near the window edge (input at edge-%zu): %d, alone: %d (%s)",
                  (unsigned long long)k, shift, rc, src, rc < 0 ? err.message : serr.message);
        if (rc < 0)
            TKF_CHECK(err.status == serr.status && err.offset == serr.offset + fill &&
                          err.record == serr.record + n,
                      "error near the window edge differs: '%s' vs '%s'", err.message,
                      serr.message);
        if (rc <= 0)
            break;
        check_same_record(&rec, &srec, k);
        TKF_CHECK(tk_cacheray_reader_offset(r) == tk_cacheray_reader_offset(sr) + fill,
                  "record %llu offset differs near the window edge", (unsigned long long)k);
        TKF_CHECK(!w || tk_cacheray_write(w, &rec, &err) == TK_OK, "write: %s", err.message);
    }
    if (w) {
        uint64_t end = tk_cacheray_reader_tell(r);
        TKF_CHECK(tk_cacheray_writer_free(w, &err) == TK_OK, "writer flush: %s", err.message);
        tkf_memfile_close(&wout);
        TKF_CHECK(wout.len == end && memcmp(wout.buf, buf, wout.len) == 0,
                  "writer output (%zu bytes) differs from the %llu bytes read", wout.len,
                  (unsigned long long)end);
        tkf_memfile_free(&wout);
    }
    tk_cacheray_reader_free(r);
    tk_cacheray_reader_free(sr);
    tk_input_close(in);
    tk_input_close(sin);
}

/* A valid trace survives conversion to the other byte order and back. */
static void swap_roundtrip(const uint8_t *data, size_t size, tk_endian used)
{
    const char *from = order_name(used);
    const char *to = order_name(used == TK_ENDIAN_BIG ? TK_ENDIAN_LITTLE : TK_ENDIAN_BIG);
    const char *const there[] = {"endian", from, "out-endian", to, NULL};
    const char *const back[] = {"endian", to, "out-endian", from, NULL};
    tkf_memfile a, b;
    tk_status st = tkf_convert("cacheray", data, size, there, "cacheray", &a);
    TKF_CHECK(st == TK_OK && a.len == size, "convert to %s: status %d, %zu bytes", to,
              (int)st, a.len);
    st = tkf_convert("cacheray", (const uint8_t *)a.buf, a.len, back, "cacheray", &b);
    TKF_CHECK(st == TK_OK && b.len == size && (size == 0 || memcmp(b.buf, data, size) == 0),
              "convert %s -> %s -> %s does not round-trip", from, to, from);
    tkf_memfile_free(&a);
    tkf_memfile_free(&b);
}

/* The Perfetto conversion under the tightest caps (--max-tracks 1,
 * --window 1): past the first lane of a type and the first thread, the
 * "regions without a lane" and "other threads" counters take the rest.
 * It succeeds exactly when the default conversion does, and writes
 * whole TracePackets (field 1, length-delimited) and nothing else. */
static void perfetto_capped(const uint8_t *data, size_t size, int valid)
{
    const char *const caps[] = {"max-tracks", "1", "window", "1", NULL};
    tkf_memfile m;
    tk_status st = tkf_convert("cacheray", data, size, caps, "perfetto", &m);
    TKF_CHECK(valid ? st == TK_OK : st == TK_EMALFORMED,
              "convert --to perfetto --max-tracks 1 --window 1 returned %d", (int)st);
    const uint8_t *p = (const uint8_t *)m.buf, *end = p + (st == TK_OK ? m.len : 0);
    while (p < end) {
        TKF_CHECK(*p++ == 0x0a, "perfetto output: not a TracePacket at byte %zu",
                  (size_t)(p - 1 - (const uint8_t *)m.buf));
        uint64_t len = 0;
        for (unsigned shift = 0; p < end && shift < 64; shift += 7) {
            len |= (uint64_t)(*p & 0x7f) << shift;
            if (!(*p++ & 0x80))
                break;
        }
        TKF_CHECK(len <= (uint64_t)(end - p), "perfetto output: a packet runs past the end");
        p += len;
    }
    tkf_memfile_free(&m);
}

/* Bad option values are usage errors, found before any reading. */
static void bad_options(const uint8_t *data, size_t size)
{
    const tk_format *f = tk_format_find("cacheray");
    const char *const bad_endian[] = {"endian", "middle", NULL};
    const char *const bad_out[] = {"out-endian", "auto-ish", NULL};
    tk_options *o = tkf_options(bad_endian);
    tk_error err;
    tk_error_clear(&err);
    tk_input *in = tk_input_from_memory(data, size, "fuzz-input", &err);
    TKF_CHECK(in != NULL, "tk_input_from_memory: %s", err.message);
    uint64_t nw;
    tkf_memfile m;
    tkf_memfile_open(&m);
    tk_sink *s = tk_sink_new(m.fp, TK_SINK_JSON, &err);
    TKF_CHECK(s != NULL, "tk_sink_new failed");
    TKF_CHECK(tk_info(f, in, o, s, &err) == TK_EUSAGE, "info --endian middle");
    TKF_CHECK(tk_dump(f, in, o, s, &err) == TK_EUSAGE, "dump --endian middle");
    TKF_CHECK(tk_validate(f, in, o, s, &nw, &err) == TK_EUSAGE, "validate --endian middle");
    TKF_CHECK(tk_sink_finish(s, &err) == TK_OK, "tk_sink_finish");
    tk_sink_free(s);
    tkf_memfile_free(&m);
    tk_input_close(in);
    tk_options_free(o);
    TKF_CHECK(tkf_convert("cacheray", data, size, bad_endian, "jsonl", &m) == TK_EUSAGE,
              "convert --endian middle");
    tkf_memfile_free(&m);
    TKF_CHECK(tkf_convert("cacheray", data, size, bad_out, "cacheray", &m) == TK_EUSAGE,
              "convert --out-endian auto-ish");
    tkf_memfile_free(&m);
}

/* The writer rejects what the reader would reject, never crashes. */
static void writer_rejects(const uint8_t *data, size_t size)
{
    if (size < 2)
        return;
    tk_cacheray_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = (tk_cacheray_type)(data[0] & 7);
    rec.flags = data[1];
    rec.size = 8;
    if (rec.type == TK_CACHERAY_RTTA_ADD && size > 2) { /* a name, or a length without one */
        rec.typename_len = data[2] % 4u;
        rec.type_name = data[2] & 0x80 ? NULL : "abcd";
    }
    int ok = rec.type <= TK_CACHERAY_WRITE ? (rec.flags & ~TK_CACHERAY_FLAG_MASK) == 0
             : rec.type <= TK_CACHERAY_RTTA_REMOVE ? rec.flags == 0 : 0;
    if (rec.typename_len && !rec.type_name)
        ok = 0;
    tkf_memfile m;
    tk_error err;
    tk_error_clear(&err);
    tkf_memfile_open(&m);
    TKF_CHECK(tk_cacheray_writer_new(m.fp, TK_ENDIAN_AUTO, &err) == NULL &&
                  err.status == TK_EUSAGE,
              "a writer without a byte order was accepted");
    tk_cacheray_writer *w = tk_cacheray_writer_new(m.fp, TK_ENDIAN_LITTLE, &err);
    TKF_CHECK(w != NULL, "tk_cacheray_writer_new: %s", err.message);
    tk_status st = tk_cacheray_write(w, &rec, &err);
    TKF_CHECK(ok ? st == TK_OK : st == TK_EUSAGE,
              "writing type %d flags 0x%02x returned %d", (int)rec.type, rec.flags, (int)st);
    TKF_CHECK(tk_cacheray_writer_free(w, &err) == TK_OK, "writer flush: %s", err.message);
    tkf_memfile_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const tk_endian orders[] = {TK_ENDIAN_AUTO, TK_ENDIAN_LITTLE, TK_ENDIAN_BIG};
    tk_endian guess = tk_cacheray_detect_endian(data, size);
    TKF_CHECK(guess == TK_ENDIAN_LITTLE || guess == TK_ENDIAN_BIG, "detected order %d",
              (int)guess);
    int swapped = 0;
    for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++) {
        tkf_expect ex;
        tk_endian used;
        /* The pipe comparison and the byte-order round trip exercise the
         * same code in every order: once per input keeps the fuzzer fast
         * (each allocates large buffers). */
        read_pass(data, size, orders[i], orders[i] == TK_ENDIAN_AUTO, &ex, &used);
        const char *const kv[] = {"endian", order_name(orders[i]), NULL};
        tkf_run_commands("cacheray", data, size, kv, &ex);
        if (orders[i] == TK_ENDIAN_AUTO) {
            edge_pass(data, size, used);
            perfetto_capped(data, size, ex.valid);
        }
        if (ex.valid && !swapped) {
            swap_roundtrip(data, size, used);
            swapped = 1;
        }
    }
    writer_rejects(data, size);
    bad_options(data, size);
    return 0;
}
