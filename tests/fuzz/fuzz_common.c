/* Helpers shared by the tracekit fuzz targets: memory FILEs, output
 * oracles (JSON Lines and text well-formedness) and a run of the common
 * commands (info, dump, validate, convert) through the format API. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

const char *tkf_current_input;

uint64_t tkf_hash(const uint8_t *data, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 0x100000001b3ULL;
    return h ^ (h >> 29);
}

void tkf_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "\n%s:%d: fuzz check failed: %s\n  ", file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    if (tkf_current_input)
        fprintf(stderr, "  input: %s\n", tkf_current_input);
    fflush(stderr);
    abort();
}

/* ------------------------------------------------------------ memfiles */

void tkf_memfile_open(tkf_memfile *m)
{
    m->buf = NULL;
    m->len = 0;
    m->fp = open_memstream(&m->buf, &m->len);
    TKF_CHECK(m->fp != NULL, "open_memstream failed");
}

void tkf_memfile_close(tkf_memfile *m)
{
    if (!m->fp)
        return;
    TKF_CHECK(fclose(m->fp) == 0, "closing a memory stream failed");
    m->fp = NULL;
}

void tkf_memfile_free(tkf_memfile *m)
{
    tkf_memfile_close(m);
    free(m->buf);
    m->buf = NULL;
    m->len = 0;
}

/* ------------------------------------------------------------- oracles */

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid
 * (overlong forms, surrogates and code points past U+10FFFF included). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0], cp, min;
    size_t len;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; min = 0x10000; }
    else return 0;
    if (n < len)
        return 0;
    cp = c & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

typedef struct jcur {
    const unsigned char *p, *end;
    int depth;
} jcur;

static int j_more(const jcur *c) { return c->p < c->end; }

static void j_ws(jcur *c)
{
    while (j_more(c) && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r'))
        c->p++;
}

static int j_lit(jcur *c, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0)
        return 0;
    c->p += n;
    return 1;
}

static int j_digits(jcur *c)
{
    const unsigned char *start = c->p;
    while (j_more(c) && *c->p >= '0' && *c->p <= '9')
        c->p++;
    return c->p > start;
}

static int j_number(jcur *c)
{
    if (j_more(c) && *c->p == '-')
        c->p++;
    if (!j_more(c))
        return 0;
    if (*c->p == '0')
        c->p++;
    else if (!j_digits(c))
        return 0;
    if (j_more(c) && *c->p == '.') {
        c->p++;
        if (!j_digits(c))
            return 0;
    }
    if (j_more(c) && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (j_more(c) && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (!j_digits(c))
            return 0;
    }
    return 1;
}

static int is_hex(unsigned ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') ||
           (ch >= 'A' && ch <= 'F');
}

static int j_string(jcur *c)
{
    if (!j_more(c) || *c->p != '"')
        return 0;
    c->p++;
    while (j_more(c)) {
        unsigned ch = *c->p;
        if (ch == '"') {
            c->p++;
            return 1;
        }
        if (ch < 0x20)
            return 0;
        if (ch == '\\') {
            c->p++;
            if (!j_more(c))
                return 0;
            ch = *c->p++;
            if (ch == 'u') {
                for (int i = 0; i < 4; i++, c->p++)
                    if (!j_more(c) || !is_hex(*c->p))
                        return 0;
            } else if (!ch || !strchr("\"\\/bfnrt", (int)ch)) {
                return 0;
            }
            continue;
        }
        size_t n = utf8_seq(c->p, (size_t)(c->end - c->p));
        if (n == 0)
            return 0;
        c->p += n;
    }
    return 0;
}

static int j_value(jcur *c);

/* Members or elements up to `close`, after the opening bracket. */
static int j_container(jcur *c, int object, unsigned char close)
{
    if (++c->depth > 256)
        return 0;
    c->p++;
    j_ws(c);
    if (j_more(c) && *c->p == close) {
        c->p++;
        c->depth--;
        return 1;
    }
    for (;;) {
        j_ws(c);
        if (object) {
            if (!j_string(c))
                return 0;
            j_ws(c);
            if (!j_more(c) || *c->p != ':')
                return 0;
            c->p++;
        }
        if (!j_value(c))
            return 0;
        j_ws(c);
        if (!j_more(c))
            return 0;
        if (*c->p == ',') {
            c->p++;
            continue;
        }
        if (*c->p != close)
            return 0;
        c->p++;
        c->depth--;
        return 1;
    }
}

static int j_value(jcur *c)
{
    j_ws(c);
    if (!j_more(c))
        return 0;
    switch (*c->p) {
    case '{': return j_container(c, 1, '}');
    case '[': return j_container(c, 0, ']');
    case '"': return j_string(c);
    case 't': return j_lit(c, "true");
    case 'f': return j_lit(c, "false");
    case 'n': return j_lit(c, "null");
    default: return j_number(c);
    }
}

size_t tkf_check_json_lines(const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text, *end = p + len;
    size_t lines = 0;
    TKF_CHECK(len == 0 || text[len - 1] == '\n',
              "JSON output does not end with a newline");
    while (p < end) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
        jcur c = {p, nl, 0};
        int ok = j_value(&c);
        if (ok)
            j_ws(&c);
        TKF_CHECK(ok && c.p == nl, "line %zu is not one JSON value: %.*s",
                  lines + 1, (int)(nl - p > 300 ? 300 : nl - p), (const char *)p);
        lines++;
        p = nl + 1;
    }
    return lines;
}

size_t tkf_check_text_lines(const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t lines = 0;
    TKF_CHECK(len == 0 || text[len - 1] == '\n',
              "text output does not end with a newline");
    for (size_t i = 0; i < len;) {
        unsigned ch = p[i];
        if (ch == '\n') {
            lines++;
            i++;
            continue;
        }
        TKF_CHECK(ch >= 0x20 && ch != 0x7F,
                  "control byte 0x%02x in text output at %zu", ch, i);
        size_t n = utf8_seq(p + i, len - i);
        TKF_CHECK(n > 0, "invalid UTF-8 in text output at %zu", i);
        i += n;
    }
    return lines;
}

/* ------------------------------------------------------------- options */

tk_options *tkf_options(const char *const *kv)
{
    tk_error err;
    tk_options *o = tk_options_new(&err);
    TKF_CHECK(o != NULL, "tk_options_new failed");
    for (size_t i = 0; kv && kv[i]; i += 2)
        TKF_CHECK(tk_options_set(o, kv[i], kv[i + 1], &err) == TK_OK,
                  "tk_options_set(%s) failed: %s", kv[i], err.message);
    return o;
}

/* ------------------------------------------------------------ commands */

/* An error must be complete and format safely into any buffer. */
static void check_error(const tk_error *err, tk_status st)
{
    char line[600], tiny[8];
    TKF_CHECK(err->status == st, "error status %d, returned %d",
              (int)err->status, (int)st);
    TKF_CHECK(err->message[0] != '\0', "error without a message");
    TKF_CHECK(memchr(err->message, '\0', sizeof err->message) != NULL,
              "error message not terminated");
    tk_error_format(err, "fuzz-input", line, sizeof line);
    TKF_CHECK(strlen(line) > 0 && strlen(line) < sizeof line, "bad formatted error");
    tk_error_format(err, NULL, tiny, sizeof tiny);
    TKF_CHECK(strlen(tiny) < sizeof tiny, "formatted error overran its buffer");
    tk_error_format(err, "x", tiny, 1);
    TKF_CHECK(tiny[0] == '\0', "formatted error overran a 1-byte buffer");
}

/* A malformed trace must be TK_EMALFORMED with a location; a valid one OK. */
static void check_status(const char *what, tk_status st, const tk_error *err,
                         int expect_ok, size_t size)
{
    const char *msg = err ? err->message : "";
    if (expect_ok) {
        TKF_CHECK(st == TK_OK, "%s failed on a valid input: %s", what, msg);
        return;
    }
    TKF_CHECK(st == TK_EMALFORMED, "%s returned %d (%s), expected malformed",
              what, (int)st, msg);
    if (!err) /* already checked by the caller */
        return;
    check_error(err, st);
    TKF_CHECK(err->offset == TK_NO_OFFSET || err->offset <= size,
              "%s: error offset %llu past the input (%zu bytes)", what,
              (unsigned long long)err->offset, size);
}

enum { CMD_INFO, CMD_DUMP, CMD_VALIDATE, CMD_VALIDATE_QUIET };

typedef struct cmd_result {
    tk_status st;
    tk_error err;
    uint64_t nwarnings;
    size_t lines;
} cmd_result;

static void run_cmd(int cmd, const tk_format *f, tk_input *in,
                    const tk_options *o, tk_sink_style style, cmd_result *res)
{
    tk_error err;
    tkf_memfile m;
    tk_error ferr;
    TKF_CHECK(tk_input_rewind(in, &res->err) == TK_OK, "rewinding memory failed");
    tk_error_clear(&res->err);
    tkf_memfile_open(&m);
    tk_sink *s = tk_sink_new(m.fp, style, &err);
    TKF_CHECK(s != NULL, "tk_sink_new failed");
    TKF_CHECK(tk_sink_get_style(s) == style, "sink style lost");
    res->nwarnings = 12345;
    switch (cmd) {
    case CMD_INFO: res->st = tk_info(f, in, o, s, &res->err); break;
    case CMD_DUMP: res->st = tk_dump(f, in, o, s, &res->err); break;
    case CMD_VALIDATE:
        res->st = tk_validate(f, in, o, s, &res->nwarnings, &res->err);
        break;
    default:
        res->st = tk_validate(f, in, o, NULL, &res->nwarnings, &res->err);
        break;
    }
    tk_error_clear(&ferr);
    TKF_CHECK(tk_sink_finish(s, &ferr) == TK_OK, "tk_sink_finish: %s", ferr.message);
    tk_sink_free(s);
    tkf_memfile_close(&m);
    res->lines = style == TK_SINK_JSON ? tkf_check_json_lines(m.buf, m.len)
                                       : tkf_check_text_lines(m.buf, m.len);
    if (cmd == CMD_VALIDATE_QUIET)
        TKF_CHECK(m.len == 0, "validate wrote to a sink it was not given");
    tkf_memfile_free(&m);
}

tk_status tkf_convert(const char *format, const uint8_t *data, size_t size,
                      const char *const *kv, const char *target,
                      tkf_memfile *out)
{
    const tk_format *f = tk_format_find(format);
    TKF_CHECK(f != NULL, "unknown format %s", format);
    tk_options *o = tkf_options(kv);
    tk_error err;
    tk_error_clear(&err);
    tk_input *in = tk_input_from_memory(data, size, "fuzz-input", &err);
    TKF_CHECK(in != NULL, "tk_input_from_memory: %s", err.message);
    tkf_memfile_open(out);
    tk_status st = tk_convert(f, in, o, target, out->fp, &err);
    tkf_memfile_close(out);
    if (st != TK_OK)
        check_error(&err, st);
    tk_input_close(in);
    tk_options_free(o);
    return st;
}

void tkf_run_commands(const char *format, const uint8_t *data, size_t size,
                      const char *const *kv, const tkf_expect *ex)
{
    const tk_format *f = tk_format_find(format);
    TKF_CHECK(f != NULL, "unknown format %s", format);
    TKF_CHECK(strcmp(tk_format_name(f), format) == 0, "format name mismatch");
    tk_options *o = tkf_options(kv);
    tk_error err;
    tk_error_clear(&err);
    tk_input *in = tk_input_from_memory(data, size, "fuzz-input", &err);
    TKF_CHECK(in != NULL, "tk_input_from_memory: %s", err.message);
    TKF_CHECK(tk_input_size(in) == (int64_t)size, "memory input size");

    /* Probing peeks: any answer is fine, but the position must not move. */
    const tk_format *probed = tk_format_probe(in, &err);
    if (!probed)
        check_error(&err, TK_EMALFORMED);
    TKF_CHECK(tk_input_offset(in) == 0, "probing moved the input");

    /* A skip/limit window for dump, derived from the data. */
    char skip[24], limit[24];
    uint64_t nskip = size ? data[size / 2] % 5u : 0;
    uint64_t nlimit = size ? data[size - 1] % 7u : 3;
    snprintf(skip, sizeof skip, "%llu", (unsigned long long)nskip);
    snprintf(limit, sizeof limit, "%llu", (unsigned long long)nlimit);
    tk_options *ow = tkf_options(kv);
    TKF_CHECK(tk_options_set(ow, "skip", skip, &err) == TK_OK &&
              tk_options_set(ow, "limit", limit, &err) == TK_OK, "tk_options_set");
    uint64_t avail = ex->records > nskip ? ex->records - nskip : 0;
    uint64_t shown = avail < nlimit ? avail : nlimit;

    static const tk_sink_style styles[] = {TK_SINK_JSON, TK_SINK_TEXT};
    for (size_t k = 0; k < 2; k++) {
        tk_sink_style style = styles[k];
        const char *sname = style == TK_SINK_JSON ? "json" : "text";
        cmd_result r;

        run_cmd(CMD_INFO, f, in, o, style, &r);
        check_status("info", r.st, &r.err, ex->valid, size);
        if (style == TK_SINK_JSON)
            TKF_CHECK(r.st == TK_OK ? r.lines == 1 : r.lines <= 1,
                      "info --json wrote %zu lines", r.lines);
        else if (r.st == TK_OK)
            TKF_CHECK(r.lines >= 1, "info wrote nothing");

        run_cmd(CMD_DUMP, f, in, o, style, &r);
        check_status("dump", r.st, &r.err, ex->valid, size);
        TKF_CHECK(r.lines == ex->records, "dump (%s) wrote %zu lines for %llu records",
                  sname, r.lines, (unsigned long long)ex->records);

        run_cmd(CMD_DUMP, f, in, ow, style, &r);
        check_status("dump --skip --limit", r.st, &r.err,
                     ex->valid || avail >= nlimit, size);
        TKF_CHECK(r.lines == shown,
                  "dump (%s) --skip %s --limit %s wrote %zu lines, expected %llu",
                  sname, skip, limit, r.lines, (unsigned long long)shown);

        run_cmd(CMD_VALIDATE, f, in, o, style, &r);
        check_status("validate", r.st, &r.err, ex->valid, size);
        TKF_CHECK(r.nwarnings == ex->warnings, "validate counted %llu warnings, expected %llu",
                  (unsigned long long)r.nwarnings, (unsigned long long)ex->warnings);
        TKF_CHECK(r.lines <= r.nwarnings, "validate listed %zu of %llu warnings",
                  r.lines, (unsigned long long)r.nwarnings);
        TKF_CHECK(r.nwarnings == 0 || r.lines > 0, "validate listed no warnings");

        if (k == 0) {
            run_cmd(CMD_VALIDATE_QUIET, f, in, o, style, &r);
            check_status("validate (no sink)", r.st, &r.err, ex->valid, size);
            TKF_CHECK(r.nwarnings == ex->warnings, "validate (no sink) counted %llu warnings",
                      (unsigned long long)r.nwarnings);
        }
    }

    /* convert to every target; an unknown target is a usage error */
    for (const char *const *t = tk_format_targets(f); t && *t; t++) {
        if (tk_format_target_is_dir(f, *t))
            continue; /* parquet writes files: its tests feed it bad traces */
        tkf_memfile m;
        tk_status st = tkf_convert(format, data, size, kv, *t, &m);
        check_status("convert", st, NULL, ex->valid, size);
        if (st == TK_OK && strcmp(*t, "jsonl") == 0) {
            size_t lines = tkf_check_json_lines(m.buf, m.len);
            TKF_CHECK(lines == ex->records, "convert --to jsonl wrote %zu lines for %llu records",
                      lines, (unsigned long long)ex->records);
        }
        if (st == TK_OK && strcmp(*t, format) == 0 && ex->convert_identity)
            TKF_CHECK(m.len == size && (size == 0 || memcmp(m.buf, data, size) == 0),
                      "convert --to %s did not reproduce the input (%zu of %zu bytes)",
                      format, m.len, size);
        tkf_memfile_free(&m);
    }
    /* a bad common option is a usage error */
    const char *const neg[] = {"skip", "-1", NULL};
    tk_options *on = tkf_options(kv);
    TKF_CHECK(tk_options_set(on, neg[0], neg[1], &err) == TK_OK, "tk_options_set");
    TKF_CHECK(tk_input_rewind(in, &err) == TK_OK, "rewind");
    tkf_memfile nm;
    tkf_memfile_open(&nm);
    tk_sink *ns = tk_sink_new(nm.fp, TK_SINK_TEXT, &err);
    TKF_CHECK(ns != NULL, "tk_sink_new failed");
    TKF_CHECK(tk_dump(f, in, on, ns, &err) == TK_EUSAGE, "dump --skip -1 returned %d",
              (int)err.status);
    check_error(&err, TK_EUSAGE);
    tk_sink_free(ns);
    tkf_memfile_free(&nm);
    tk_options_free(on);

    tkf_memfile bad;
    tk_status st = tkf_convert(format, data, size, kv, "no-such-target", &bad);
    TKF_CHECK(st == TK_EUSAGE, "convert to an unknown target returned %d", (int)st);
    tkf_memfile_free(&bad);

    tk_options_free(ow);
    tk_options_free(o);
    tk_input_close(in);
}
