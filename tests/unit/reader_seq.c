/* Record headers from tk_reader, from the format readers, and from dump's
 * JSON Lines (reader_seq.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "reader_seq.h"

void rs_free(rs_seq *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

void rs_push(rs_seq *s, const rs_rec *r)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        assert_non_null(s->v);
    }
    s->v[s->n++] = *r;
}

static void set_kind(rs_rec *r, const char *kind)
{
    snprintf(r->kind, sizeof r->kind, "%s", kind);
}

rs_rec rs_of(const tk_record *rec)
{
    rs_rec r;
    memset(&r, 0, sizeof r);
    set_kind(&r, rec->kind);
    r.index = rec->index;
    r.offset = rec->offset;
    r.line = rec->line;
    r.has_thread = rec->has_thread;
    r.thread = rec->thread;
    r.has_time = rec->has_time;
    r.time = rec->time;
    return r;
}

void rs_read(tk_reader *r, rs_seq *s)
{
    tk_record rec;
    while ((s->rc = tk_reader_next(r, &rec, &s->err)) > 0) {
        rs_rec x = rs_of(&rec);
        rs_push(s, &x);
    }
}

/* The sink's snake_case of a format's own name (docs/json.md). */
static void set_snake(rs_rec *r, const char *name)
{
    set_kind(r, name);
    for (char *p = r->kind; *p; p++)
        if (*p == '-' || *p == ' ')
            *p = '_';
}

static void native_cacheray(tk_input *in, rs_seq *s)
{
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, TK_ENDIAN_AUTO, &s->err);
    if (!r) {
        s->rc = -2;
        return;
    }
    tk_cacheray_record c;
    while ((s->rc = tk_cacheray_next(r, &c, &s->err)) > 0) {
        rs_rec x = {.index = tk_cacheray_reader_index(r), .offset = tk_cacheray_reader_offset(r),
                    .has_thread = 1, .thread = c.thread};
        set_snake(&x, tk_cacheray_type_name(c.type));
        rs_push(s, &x);
    }
    tk_cacheray_reader_free(r);
}

static void native_casemate(tk_input *in, rs_seq *s)
{
    tk_casemate_reader *r = tk_casemate_reader_new(in, &s->err);
    if (!r) {
        s->rc = -2;
        return;
    }
    tk_casemate_record c;
    while ((s->rc = tk_casemate_next(r, &c, &s->err)) > 0) {
        rs_rec x = {.index = tk_casemate_reader_index(r), .offset = TK_NO_OFFSET,
                    .line = tk_casemate_reader_line(r), .has_thread = 1, .thread = c.tid};
        set_snake(&x, tk_casemate_kind_name(c.kind));
        rs_push(s, &x);
    }
    tk_casemate_reader_free(r);
}

static void native_ucir(tk_input *in, rs_seq *s)
{
    tk_ucir_reader_options ro = {.threads = 1};
    tk_ucir_reader *r = tk_ucir_reader_new(in, &ro, &s->err);
    if (!r) { /* a bad header: the reader is never made */
        s->rc = -2;
        return;
    }
    tk_ucir_op op;
    tk_ucir_pos pos;
    while ((s->rc = tk_ucir_next(r, &op, &s->err)) > 0) {
        tk_ucir_reader_pos(r, &pos);
        rs_rec x = {.index = pos.record, .offset = pos.frame_offset};
        set_snake(&x, tk_ucir_kind_name(op.kind));
        rs_push(s, &x);
    }
    tk_ucir_reader_free(r);
}

static void native_xray(tk_input *in, rs_seq *s)
{
    tk_xray_reader *r = tk_xray_reader_new(in, &s->err);
    if (!r) {
        s->rc = -2;
        return;
    }
    tk_xray_record x;
    while ((s->rc = tk_xray_next(r, &x, &s->err)) > 0) {
        rs_rec y = {.index = tk_xray_reader_index(r), .offset = tk_xray_reader_offset(r),
                    .has_thread = 1, .thread = x.tid, .has_time = 1, .time = x.tsc};
        set_snake(&y, tk_xray_kind_name(x.kind));
        rs_push(s, &y);
    }
    tk_xray_reader_free(r);
}

void rs_read_native(const char *format, const uint8_t *d, size_t n, rs_seq *s)
{
    tk_error err;
    tk_input *in = tk_input_from_memory(d, n, "<memory>", &err);
    assert_non_null(in);
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

/* ---- JSON Lines: the few members the headers need (flat numbers and
 * strings; a key is found with its quotes and colon, so "offset" does
 * not match "frame_offset") */

static const char *member(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(line, pat);
    return p ? p + strlen(pat) : NULL;
}

static int json_u64(const char *line, const char *key, uint64_t *v)
{
    const char *p = member(line, key);
    if (!p || *p < '0' || *p > '9')
        return 0;
    *v = strtoull(p, NULL, 10);
    return 1;
}

static void parse_line(tk_record_format f, const char *line, rs_rec *r)
{
    memset(r, 0, sizeof *r);
    const char *k = member(line, "kind");
    assert_non_null(k);
    assert_true(*k == '"');
    size_t len = strcspn(k + 1, "\"");
    assert_true(len < sizeof r->kind);
    memcpy(r->kind, k + 1, len);
    assert_true(json_u64(line, "record", &r->index));
    r->offset = TK_NO_OFFSET;
    if (f == TK_RECORD_UCIR)
        assert_true(json_u64(line, "frame_offset", &r->offset));
    else if (f == TK_RECORD_CASEMATE)
        assert_true(json_u64(line, "line", &r->line));
    else if (!json_u64(line, "offset", &r->offset)) /* XRay YAML: null */
        assert_non_null(strstr(line, "\"offset\":null"));
    if (f != TK_RECORD_UCIR) {
        r->has_thread = 1;
        assert_true(json_u64(line, "thread", &r->thread));
    }
    if (f == TK_RECORD_XRAY) {
        r->has_time = 1;
        assert_true(json_u64(line, "tsc", &r->time));
    }
}

void rs_parse_jsonl(tk_record_format format, const char *text, rs_seq *s)
{
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = strndup(p, len);
        assert_non_null(line);
        if (len) {
            rs_rec r;
            parse_line(format, line, &r);
            rs_push(s, &r);
        }
        free(line);
        p += len + (nl != NULL);
    }
}

/* The standard output of a command, and its exit status in *status. */
static char *run(const char *cmd, int *status)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    tu_capture c;
    tu_capture_open(&c);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        fwrite(buf, 1, n, c.fp);
    int st = pclose(p);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    return tu_capture_close(&c);
}

int rs_cli_dump(const char *tracekit, const char *args, const char *file,
                tk_record_format format, rs_seq *s)
{
    char cmd[8192];
    int status;
    snprintf(cmd, sizeof cmd, "'%s' dump --json %s '%s' 2>/dev/null", tracekit, args, file);
    char *out = run(cmd, &status);
    rs_parse_jsonl(format, out, s);
    free(out);
    return status;
}

int64_t rs_cli_count(const char *tracekit, const char *file)
{
    char cmd[8192];
    int status;
    uint64_t n = 0;
    snprintf(cmd, sizeof cmd, "'%s' info --json '%s' 2>/dev/null", tracekit, file);
    char *out = run(cmd, &status);
    int found = json_u64(out, "records", &n);
    free(out);
    return status == 0 && found ? (int64_t)n : -1;
}

tk_record_format rs_format_of(const char *name)
{
    if (strcmp(name, "cacheray") == 0)
        return TK_RECORD_CACHERAY;
    if (strcmp(name, "casemate") == 0)
        return TK_RECORD_CASEMATE;
    if (strcmp(name, "xray") == 0)
        return TK_RECORD_XRAY;
    return TK_RECORD_UCIR;
}

static void fail_at(const char *what, size_t i, const rs_rec *a, const rs_rec *b)
{
    fail_msg("%s: record %zu differs: want %s index %llu offset %llx line %llu thread %d:%llu "
             "time %d:%llu, got %s index %llu offset %llx line %llu thread %d:%llu "
             "time %d:%llu",
             what, i, a->kind, (unsigned long long)a->index, (unsigned long long)a->offset,
             (unsigned long long)a->line, a->has_thread, (unsigned long long)a->thread,
             a->has_time, (unsigned long long)a->time, b->kind, (unsigned long long)b->index,
             (unsigned long long)b->offset, (unsigned long long)b->line, b->has_thread,
             (unsigned long long)b->thread, b->has_time, (unsigned long long)b->time);
}

void rs_assert_equal(const rs_seq *want, const rs_seq *got, size_t n, const char *what)
{
    if (n == SIZE_MAX && want->n != got->n)
        fail_msg("%s: %zu records, want %zu", what, got->n, want->n);
    if (n > want->n)
        n = want->n;
    if (n > got->n)
        fail_msg("%s: %zu records, want at least %zu", what, got->n, n);
    for (size_t i = 0; i < n; i++) {
        const rs_rec *a = &want->v[i], *b = &got->v[i];
        if (strcmp(a->kind, b->kind) != 0 || a->index != b->index || a->offset != b->offset ||
            a->line != b->line || a->has_thread != b->has_thread || a->thread != b->thread ||
            a->has_time != b->has_time || a->time != b->time)
            fail_at(what, i, a, b);
    }
}

void rs_assert_same_error(const tk_error *want, const tk_error *got, const char *what)
{
    if (want->status != got->status || strcmp(want->message, got->message) != 0 ||
        want->offset != got->offset || want->line != got->line || want->col != got->col ||
        want->record != got->record)
        fail_msg("%s: error %d '%s' (offset %llx line %llu:%llu record %llu), want %d '%s' "
                 "(offset %llx line %llu:%llu record %llu)",
                 what, (int)got->status, got->message, (unsigned long long)got->offset,
                 (unsigned long long)got->line, (unsigned long long)got->col,
                 (unsigned long long)got->record, (int)want->status, want->message,
                 (unsigned long long)want->offset, (unsigned long long)want->line,
                 (unsigned long long)want->col, (unsigned long long)want->record);
}
