/* Fuzz target: the generic reader (include/tracekit/reader.h) against the
 * format readers it stands on.
 *
 * The input is read with its format detected, then forced to each format
 * in turn; each time the records' positions (index, then offset or line)
 * and the end must be the format reader's: the same count, the same
 * error (status, message, place), which then stays; a reader that cannot
 * be made, the same error; input the probe refuses, the probe's error.
 * foreach counts what next returns; a "limit" and a "skip" derived from
 * the input cut the same sequence. Seeds: every format's corpus
 * (CMakeLists.txt). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

/* What one reading saw: how many records, a hash of their positions, and
 * how it ended (0, -1 with err, -2: no reader). */
typedef struct seen {
    uint64_t n, hash;
    int rc;
    tk_error err;
} seen;

static void add(seen *s, uint64_t index, uint64_t where)
{
    s->hash = (s->hash ^ index) * 0x100000001b3ULL;
    s->hash = (s->hash ^ where) * 0x100000001b3ULL;
    s->n++;
}

static void native_cacheray(tk_input *in, seen *s)
{
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, TK_ENDIAN_AUTO, &s->err);
    tk_cacheray_record rec;
    if (!r) {
        s->rc = -2;
        return;
    }
    while ((s->rc = tk_cacheray_next(r, &rec, &s->err)) > 0)
        add(s, tk_cacheray_reader_index(r), tk_cacheray_reader_offset(r));
    tk_cacheray_reader_free(r);
}

static void native_casemate(tk_input *in, seen *s)
{
    tk_casemate_reader *r = tk_casemate_reader_new(in, &s->err);
    tk_casemate_record rec;
    if (!r) {
        s->rc = -2;
        return;
    }
    while ((s->rc = tk_casemate_next(r, &rec, &s->err)) > 0)
        add(s, tk_casemate_reader_index(r), tk_casemate_reader_line(r));
    tk_casemate_reader_free(r);
}

static void native_ucir(tk_input *in, seen *s)
{
    tk_ucir_reader_options ro = {.threads = 1};
    tk_ucir_reader *r = tk_ucir_reader_new(in, &ro, &s->err);
    tk_ucir_op op;
    tk_ucir_pos pos;
    if (!r) {
        s->rc = -2;
        return;
    }
    while ((s->rc = tk_ucir_next(r, &op, &s->err)) > 0) {
        tk_ucir_reader_pos(r, &pos);
        add(s, pos.record, pos.frame_offset);
    }
    tk_ucir_reader_free(r);
}

static void native_xray(tk_input *in, seen *s)
{
    tk_xray_reader *r = tk_xray_reader_new(in, &s->err);
    tk_xray_record rec;
    if (!r) {
        s->rc = -2;
        return;
    }
    while ((s->rc = tk_xray_next(r, &rec, &s->err)) > 0)
        add(s, tk_xray_reader_index(r), tk_xray_reader_offset(r));
    tk_xray_reader_free(r);
}

static void native(const char *format, const uint8_t *data, size_t size, seen *s)
{
    tk_error err;
    tk_input *in = tk_input_from_memory(data, size, "<memory>", &err);
    TKF_CHECK(in != NULL, "tk_input_from_memory failed");
    memset(s, 0, sizeof *s);
    if (strcmp(format, "cacheray") == 0)
        native_cacheray(in, s);
    else if (strcmp(format, "casemate") == 0)
        native_casemate(in, s);
    else if (strcmp(format, "xray") == 0)
        native_xray(in, s);
    else
        native_ucir(in, s);
    tk_input_close(in);
}

static void same_error(const tk_error *a, const tk_error *b, const char *what)
{
    TKF_CHECK(a->status == b->status && strcmp(a->message, b->message) == 0 &&
                  a->offset == b->offset && a->line == b->line && a->col == b->col &&
                  a->record == b->record,
              "%s: error '%s' (%d, offset %llu, line %llu, record %llu), the format "
              "reader's '%s' (%d, offset %llu, line %llu, record %llu)",
              what, b->message, (int)b->status, (unsigned long long)b->offset,
              (unsigned long long)b->line, (unsigned long long)b->record, a->message,
              (int)a->status, (unsigned long long)a->offset, (unsigned long long)a->line,
              (unsigned long long)a->record);
}

/* One generic record: its kind in docs/json.md's spelling, its place. */
static void take(seen *s, const tk_record *rec)
{
    TKF_CHECK(rec->kind && rec->kind[0] && !strchr(rec->kind, '-') && rec->kind[0] != '?',
              "record %llu: kind '%s'", (unsigned long long)rec->index,
              rec->kind ? rec->kind : "(null)");
    add(s, rec->index, rec->format == TK_RECORD_CASEMATE ? rec->line : rec->offset);
}

static int hash_record(const tk_record *rec, void *ctx)
{
    take(ctx, rec);
    return 0;
}

/* Options: "threads" 1 for UCIR (no worker threads per input), and `kv`. */
static tk_options *options_for(const char *format, const char *const *kv)
{
    static const char *const none[] = {NULL};
    tk_options *o = tkf_options(kv ? kv : none);
    tk_error err;
    if (strcmp(format, "ucir") == 0 || strcmp(format, "usercorn") == 0)
        TKF_CHECK(tk_options_set(o, "threads", "1", &err) == TK_OK, "tk_options_set");
    return o;
}

/* The generic reader on `data` (`format` NULL: detected as `probed`)
 * against `want`: the first `head` records through next, the rest
 * through foreach. */
static void compare(const char *format, const char *probed, const uint8_t *data, size_t size,
                    const seen *want, uint64_t head, const char *what)
{
    tk_options *o = options_for(format ? format : probed ? probed : "", NULL);
    seen got;
    memset(&got, 0, sizeof got);
    tk_reader *r = tk_reader_from_memory(data, size, format, o, &got.err);
    tk_options_free(o);
    if (!r) {
        TKF_CHECK(want->rc == -2, "%s: no reader (%s); the format's reader read %llu records",
                  what, got.err.message, (unsigned long long)want->n);
        same_error(&want->err, &got.err, what);
        return;
    }
    TKF_CHECK(want->rc != -2, "%s: a reader where the format's failed (%s)", what,
              want->err.message);
    tk_record rec;
    while (got.n < head && (got.rc = tk_reader_next(r, &rec, &got.err)) > 0)
        take(&got, &rec);
    if (got.n == head) { /* the rest pushed */
        tk_status st = tk_reader_foreach(r, hash_record, &got, &got.err);
        got.rc = st == TK_OK ? 0 : -1;
    }
    TKF_CHECK(got.n == want->n && got.hash == want->hash && got.rc == want->rc,
              "%s: %llu records ending %d, the format reader's %llu ending %d%s", what,
              (unsigned long long)got.n, got.rc, (unsigned long long)want->n, want->rc,
              got.n == want->n && got.rc == want->rc ? " (positions differ)" : "");
    if (got.rc < 0) {
        same_error(&want->err, &got.err, what);
        tk_error again;
        TKF_CHECK(tk_reader_next(r, &rec, &again) == -1, "%s: the error did not stay", what);
        same_error(&got.err, &again, what);
    } else {
        TKF_CHECK(tk_reader_next(r, &rec, &got.err) == 0, "%s: the end did not stay", what);
    }
    tk_reader_free(r);
}

/* "skip" and "limit" cut the sequence as dump does: an error after the
 * window is not reached. */
static void window(const char *format, const uint8_t *data, size_t size, const seen *all,
                   uint64_t h)
{
    uint64_t skip = all->n ? h % (all->n + 1) : 0, limit = (h >> 16) % 8;
    char sk[24], li[24];
    snprintf(sk, sizeof sk, "%llu", (unsigned long long)skip);
    snprintf(li, sizeof li, "%llu", (unsigned long long)limit);
    const char *const kv[] = {"skip", sk, "limit", li, NULL};
    tk_options *o = options_for(format, kv);
    tk_error err;
    tk_reader *r = tk_reader_from_memory(data, size, format, o, &err);
    tk_options_free(o);
    TKF_CHECK(r != NULL, "skip/limit: no reader (%s)", err.message);
    uint64_t n = 0;
    tk_record rec;
    int rc;
    while ((rc = tk_reader_next(r, &rec, &err)) > 0)
        n++;
    uint64_t left = all->n - skip, want = left < limit ? left : limit;
    int want_rc = all->rc < 0 && left < limit ? -1 : 0;
    TKF_CHECK(n == want && rc == want_rc, "skip %llu limit %llu: %llu records ending %d, "
              "want %llu ending %d", (unsigned long long)skip, (unsigned long long)limit,
              (unsigned long long)n, rc, (unsigned long long)want, want_rc);
    tk_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const formats[] = {"cacheray", "casemate", "ucir", "xray"};
    uint64_t h = tkf_hash(data, size);
    seen want;
    /* detected: the probe's format, or its error */
    tk_error perr;
    tk_input *in = tk_input_from_memory(data, size, "<memory>", &perr);
    TKF_CHECK(in != NULL, "tk_input_from_memory failed");
    const tk_format *f = tk_format_probe(in, &perr);
    tk_input_close(in);
    const char *probed = f ? tk_format_name(f) : NULL;
    if (f) {
        native(probed, data, size, &want);
    } else {
        memset(&want, 0, sizeof want);
        want.rc = -2;
        want.err = perr;
    }
    compare(NULL, probed, data, size, &want, h % 4, "detected");
    if (want.rc != -2)
        window(probed, data, size, &want, h >> 24);
    /* forced: each format's reader, whatever the bytes */
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        native(formats[i], data, size, &want);
        compare(formats[i], NULL, data, size, &want, (h >> 8) % 5, formats[i]);
    }
    return 0;
}
