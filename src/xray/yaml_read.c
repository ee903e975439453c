/* llvm-xray's YAML trace form, read with libyaml's event parser: the header
 * first, then one record per call, so memory stays flat however long the
 * trace. What llvm-xray 14 accepts is accepted (numbers and booleans as
 * llvm::yaml reads them, unknown keys rejected, repeated keys keep the last
 * value), plus the header versions llvm-xray writes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include <tracekit/xray_yaml.h>

#include "core/strbuf.h"

enum { ST_RECORDS, ST_AFTER, ST_DONE, ST_FAILED };

/* libyaml rejects a raw DEL (0x7F), which llvm-xray writes unescaped inside
 * double-quoted strings. The input handler turns each one into U+10FFFF
 * (one character, so columns stay right; LLVM always escapes U+10FFFF) and
 * strings map it back: in an input with raw DELs, U+10FFFF reads as DEL.
 * UTF-16 input (with a byte order mark) is passed through untouched. */
static const uint8_t del_mark[4] = {0xF4, 0x8F, 0xBF, 0xBF};

struct tk_xray_yaml_reader {
    tk_input *in;
    yaml_parser_t parser;
    int parser_ready;
    tk_xray_header hdr;
    yaml_event_t ev;
    int have_ev;
    int state;
    int in_record;
    /* input handler */
    tk_error in_err;
    int in_failed;
    uint8_t pend[3];
    size_t pend_pos, pend_len;
    uint64_t dels;
    int started, utf16; /* a UTF-16 byte order mark: no DEL mapping */
    /* the current record */
    uint64_t *args;
    size_t nargs, cap_args;
    tk_strbuf data, func;
    int have_func;
    uint64_t index; /* records returned so far */
    tk_error fail;  /* sticky */
};

/* ---- input */

static int read_handler(void *data, unsigned char *buf, size_t size, size_t *size_read)
{
    tk_xray_yaml_reader *r = data;
    size_t n = 0;
    while (n < size && r->pend_pos < r->pend_len)
        buf[n++] = r->pend[r->pend_pos++];
    if (n < size) {
        const uint8_t *p;
        int64_t got = tk_input_window(r->in, size - n, &p, &r->in_err);
        if (got < 0) {
            r->in_failed = 1;
            return 0;
        }
        size_t i = 0, avail = (size_t)got;
        if (!r->started) {
            r->started = 1;
            r->utf16 = avail >= 2 && ((p[0] == 0xFF && p[1] == 0xFE) ||
                                      (p[0] == 0xFE && p[1] == 0xFF));
        }
        if (r->utf16) {
            size_t k = size - n < avail ? size - n : avail;
            memcpy(buf + n, p, k);
            n += k;
            i = k;
        }
        while (i < avail && n < size) {
            size_t room = size - n < avail - i ? size - n : avail - i;
            const uint8_t *del = memchr(p + i, 0x7F, room);
            size_t run = del ? (size_t)(del - (p + i)) : room;
            memcpy(buf + n, p + i, run);
            n += run;
            i += run;
            if (!del)
                continue;
            i++;
            r->dels++;
            size_t k = 0;
            while (k < 4 && n < size)
                buf[n++] = del_mark[k++];
            r->pend_pos = 0;
            r->pend_len = 0;
            while (k < 4)
                r->pend[r->pend_len++] = del_mark[k++];
            break; /* hand the placeholder's tail out first */
        }
        tk_input_advance(r->in, i);
    }
    *size_read = n;
    return 1;
}

/* ---- errors */

static int vfail(tk_xray_yaml_reader *r, tk_error *err, uint64_t line, uint64_t col,
                 const char *fmt, va_list ap)
{
    char msg[sizeof r->fail.message];
    vsnprintf(msg, sizeof msg, fmt, ap);
    tk_error_set_text(&r->fail, TK_EMALFORMED, line, col,
                      r->in_record ? r->index : TK_NO_RECORD, "%s", msg);
    r->state = ST_FAILED;
    if (err)
        *err = r->fail;
    return -1;
}

static int fail_at(tk_xray_yaml_reader *r, tk_error *err, const yaml_mark_t *m,
                   const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int fail_at(tk_xray_yaml_reader *r, tk_error *err, const yaml_mark_t *m,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(r, err, m->line + 1, m->column + 1, fmt, ap);
    va_end(ap);
    return rc;
}

/* Where libyaml's reader stopped: its decoder runs ahead of the scanner,
 * so walk the decoded, not yet scanned characters from the scanner's mark. */
static void reader_position(const yaml_parser_t *p, uint64_t *line, uint64_t *col)
{
    uint64_t l = p->mark.line, c = p->mark.column;
    const unsigned char *s = p->buffer.pointer, *e = p->buffer.last;
    while (s && s < e) {
        unsigned char b = *s;
        size_t w = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : 4;
        if (b == '\r' && s + 1 < e && s[1] == '\n') {
            s++;
            continue;
        }
        if (b == '\n' || b == '\r' || (w == 2 && b == 0xC2 && s[1] == 0x85) ||
            (w == 3 && b == 0xE2 && s[1] == 0x80 && (s[2] == 0xA8 || s[2] == 0xA9))) {
            l++;
            c = 0;
        } else {
            c++;
        }
        s += w;
    }
    *line = l + 1;
    *col = c + 1;
}

static int parse_error(tk_xray_yaml_reader *r, tk_error *err)
{
    const yaml_parser_t *p = &r->parser;
    if (r->in_failed) {
        r->fail = r->in_err;
        r->fail.record = r->in_record ? r->index : TK_NO_RECORD;
        r->state = ST_FAILED;
        if (err)
            *err = r->fail;
        return -1;
    }
    if (p->error == YAML_MEMORY_ERROR) {
        tk_error_set(&r->fail, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        r->state = ST_FAILED;
        if (err)
            *err = r->fail;
        return -1;
    }
    if (p->error == YAML_READER_ERROR) {
        uint64_t line, col;
        reader_position(p, &line, &col);
        char what[32] = "";
        if (p->problem_value != -1)
            snprintf(what, sizeof what, " (#x%X)", (unsigned)p->problem_value);
        yaml_mark_t at = {0, (size_t)(line - 1), (size_t)(col - 1)};
        return fail_at(r, err, &at, "not valid YAML text: %s%s",
                       p->problem ? p->problem : "?", what);
    }
    if (p->context)
        return fail_at(r, err, &p->problem_mark, "YAML syntax error: %s (%s at %zu:%zu)",
                       p->problem ? p->problem : "?", p->context,
                       p->context_mark.line + 1, p->context_mark.column + 1);
    return fail_at(r, err, &p->problem_mark, "YAML syntax error: %s",
                   p->problem ? p->problem : "?");
}

/* ---- events */

static int fetch(tk_xray_yaml_reader *r, tk_error *err)
{
    if (r->have_ev) {
        yaml_event_delete(&r->ev);
        r->have_ev = 0;
    }
    if (!yaml_parser_parse(&r->parser, &r->ev))
        return parse_error(r, err);
    r->have_ev = 1;
    if (r->ev.type == YAML_ALIAS_EVENT)
        return fail_at(r, err, &r->ev.start_mark, "aliases (*%s) are not supported",
                       (const char *)r->ev.data.alias.anchor);
    return 0;
}

static const char *sv(const tk_xray_yaml_reader *r) /* scalar value */
{
    return (const char *)r->ev.data.scalar.value;
}
static size_t sl(const tk_xray_yaml_reader *r) { return r->ev.data.scalar.length; }

static int key_is(const tk_xray_yaml_reader *r, const char *k)
{
    return sl(r) == strlen(k) && memcmp(sv(r), k, sl(r)) == 0;
}

/* The current event must be a key: a scalar. Returns its index in `keys`
 * (-1 if unknown, after failing). */
static int read_key(tk_xray_yaml_reader *r, tk_error *err, const char *const *keys,
                    int nkeys, const char *where)
{
    if (r->ev.type != YAML_SCALAR_EVENT)
        return fail_at(r, err, &r->ev.start_mark, "expected a key in %s", where);
    for (int i = 0; i < nkeys; i++)
        if (key_is(r, keys[i]))
            return i;
    return fail_at(r, err, &r->ev.start_mark, "unknown key '%.*s' in %s",
                   (int)(sl(r) > 64 ? 64 : sl(r)), sv(r), where);
}

static const char *node_name(yaml_event_type_t t)
{
    return t == YAML_MAPPING_START_EVENT ? "a mapping"
           : t == YAML_SEQUENCE_START_EVENT ? "a sequence" : "a scalar";
}

/* Fetch the value of `key`, which must be a non-empty scalar. */
static int fetch_scalar(tk_xray_yaml_reader *r, tk_error *err, const char *key)
{
    if (fetch(r, err) != 0)
        return -1;
    if (r->ev.type != YAML_SCALAR_EVENT)
        return fail_at(r, err, &r->ev.start_mark, "'%s' must be a scalar, not %s", key,
                       node_name(r->ev.type));
    if (sl(r) == 0 && r->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
        return fail_at(r, err, &r->ev.start_mark, "missing value for '%s'", key);
    return 0;
}

/* ---- scalars as llvm::yaml reads them */

/* llvm::consumeUnsignedInteger with radix 0, whole string: 0 ok,
 * 1 not a number, 2 too large. */
static int parse_u64(const char *s, size_t n, uint64_t *out)
{
    unsigned radix = 10;
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        radix = 16, s += 2, n -= 2;
    else if (n >= 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
        radix = 2, s += 2, n -= 2;
    else if (n >= 2 && s[0] == '0' && s[1] == 'o')
        radix = 8, s += 2, n -= 2;
    else if (n >= 2 && s[0] == '0' && s[1] >= '0' && s[1] <= '9')
        radix = 8, s += 1, n -= 1;
    if (n == 0)
        return 1;
    uint64_t v = 0;
    int big = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)s[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'z')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'Z')
            d = c - 'A' + 10;
        else
            return 1;
        if (d >= radix)
            return 1;
        if (v > (UINT64_MAX - d) / radix)
            big = 1;
        v = v * radix + d;
    }
    *out = v;
    return big ? 2 : 0;
}

/* llvm::getAsSignedInteger with radix 0 */
static int parse_i64(const char *s, size_t n, int64_t *out)
{
    uint64_t u;
    int neg = n > 0 && s[0] == '-';
    int rc = parse_u64(s + neg, n - (size_t)neg, &u);
    if (rc)
        return rc;
    if (neg ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX)
        return 2;
    *out = neg ? (int64_t)(0 - u) : (int64_t)u;
    return 0;
}

static int read_uint(tk_xray_yaml_reader *r, tk_error *err, const char *key,
                     uint64_t max, uint64_t *out)
{
    if (fetch_scalar(r, err, key) != 0)
        return -1;
    int rc = parse_u64(sv(r), sl(r), out);
    if (rc == 1)
        return fail_at(r, err, &r->ev.start_mark, "invalid number '%.*s' for '%s'",
                       (int)(sl(r) > 64 ? 64 : sl(r)), sv(r), key);
    if (rc == 2 || *out > max)
        return fail_at(r, err, &r->ev.start_mark,
                       "'%.*s' is out of range for '%s' (0 to %llu)",
                       (int)(sl(r) > 64 ? 64 : sl(r)), sv(r), key,
                       (unsigned long long)max);
    return 0;
}

static int read_i32(tk_xray_yaml_reader *r, tk_error *err, const char *key, int32_t *out)
{
    if (fetch_scalar(r, err, key) != 0)
        return -1;
    int64_t v = 0;
    int rc = parse_i64(sv(r), sl(r), &v);
    if (rc == 1)
        return fail_at(r, err, &r->ev.start_mark, "invalid number '%.*s' for '%s'",
                       (int)(sl(r) > 64 ? 64 : sl(r)), sv(r), key);
    if (rc == 2 || v < INT32_MIN || v > INT32_MAX)
        return fail_at(r, err, &r->ev.start_mark,
                       "'%.*s' is out of range for '%s' (-2147483648 to 2147483647)",
                       (int)(sl(r) > 64 ? 64 : sl(r)), sv(r), key);
    *out = (int32_t)v;
    return 0;
}

/* llvm::yaml::parseBool */
static int read_bool(tk_xray_yaml_reader *r, tk_error *err, const char *key, int *out)
{
    static const char *const yes[] = {"y", "Y", "yes", "Yes", "YES", "on", "On", "ON",
                                      "true", "True", "TRUE"};
    static const char *const no[] = {"n", "N", "no", "No", "NO", "off", "Off", "OFF",
                                     "false", "False", "FALSE"};
    if (fetch_scalar(r, err, key) != 0)
        return -1;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (key_is(r, yes[i]))
            return *out = 1, 0;
        if (key_is(r, no[i]))
            return *out = 0, 0;
    }
    return fail_at(r, err, &r->ev.start_mark, "invalid boolean '%.*s' for '%s'",
                   (int)(sl(r) > 64 ? 64 : sl(r)), sv(r), key);
}

static int read_string(tk_xray_yaml_reader *r, tk_error *err, const char *key,
                       tk_strbuf *b)
{
    if (fetch_scalar(r, err, key) != 0)
        return -1;
    sb_reset(b);
    const char *s = sv(r);
    size_t n = sl(r);
    if (r->dels == 0) {
        sb_putn(b, s, n);
    } else {
        for (size_t i = 0; i < n;) {
            if (i + 4 <= n && memcmp(s + i, del_mark, 4) == 0) {
                sb_putc(b, 0x7F);
                i += 4;
            } else {
                sb_putc(b, s[i++]);
            }
        }
    }
    if (b->oom) {
        tk_error_set(&r->fail, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        r->state = ST_FAILED;
        if (err)
            *err = r->fail;
        return -1;
    }
    return 0;
}

/* ---- header */

enum { H_VERSION, H_TYPE, H_CONSTANT, H_NONSTOP, H_FREQ, H_NKEYS };
static const char *const header_keys[H_NKEYS] = {"version", "type", "constant-tsc",
                                                 "nonstop-tsc", "cycle-frequency"};

static int parse_header(tk_xray_yaml_reader *r, tk_error *err)
{
    if (fetch(r, err) != 0)
        return -1;
    if (r->ev.type != YAML_MAPPING_START_EVENT)
        return fail_at(r, err, &r->ev.start_mark,
                       "'header' must be a mapping (version, type, constant-tsc, "
                       "nonstop-tsc, cycle-frequency), not %s",
                       node_name(r->ev.type));
    yaml_mark_t first = r->ev.start_mark, vmark = first, tmark = first;
    unsigned seen = 0;
    uint64_t version = 0, type = 0, freq = 0;
    int constant = 0, nonstop = 0;
    for (;;) {
        if (fetch(r, err) != 0)
            return -1;
        if (r->ev.type == YAML_MAPPING_END_EVENT)
            break;
        int k = read_key(r, err, header_keys, H_NKEYS, "the header");
        if (k < 0)
            return -1;
        if (!seen)
            first = r->ev.start_mark;
        seen |= 1u << k;
        int rc;
        switch (k) {
        case H_VERSION:
            rc = read_uint(r, err, "version", UINT16_MAX, &version);
            vmark = r->ev.start_mark;
            break;
        case H_TYPE:
            rc = read_uint(r, err, "type", UINT16_MAX, &type);
            tmark = r->ev.start_mark;
            break;
        case H_CONSTANT: rc = read_bool(r, err, "constant-tsc", &constant); break;
        case H_NONSTOP: rc = read_bool(r, err, "nonstop-tsc", &nonstop); break;
        default: rc = read_uint(r, err, "cycle-frequency", UINT64_MAX, &freq); break;
        }
        if (rc != 0)
            return -1;
    }
    for (int k = 0; k < H_NKEYS; k++)
        if (!(seen & (1u << k)))
            return fail_at(r, err, &first, "missing required key '%s' in the header",
                           header_keys[k]);
    if (type > TK_XRAY_FDR)
        return fail_at(r, err, &tmark, "unsupported trace type %llu (0 basic, 1 FDR)",
                       (unsigned long long)type);
    unsigned max = type == TK_XRAY_BASIC ? 3 : 5;
    if (version < 1 || version > max)
        return fail_at(r, err, &vmark,
                       "unsupported version %llu for %s mode (1 to %u; llvm-xray "
                       "reads only 1)",
                       (unsigned long long)version, type ? "FDR" : "basic", max);
    tk_xray_header *h = &r->hdr;
    memset(h, 0, sizeof *h);
    h->version = (uint16_t)version;
    h->type = (uint16_t)type;
    h->bitfield = (uint32_t)constant | (uint32_t)nonstop << 1;
    h->cycle_frequency = freq;
    uint8_t *raw = h->raw;
    raw[0] = (uint8_t)version;
    raw[1] = (uint8_t)(version >> 8);
    raw[2] = (uint8_t)type;
    raw[3] = (uint8_t)(type >> 8);
    raw[4] = (uint8_t)h->bitfield;
    for (int i = 0; i < 8; i++)
        raw[8 + i] = (uint8_t)(freq >> (8 * i));
    return 0;
}

/* ---- records */

enum { R_TYPE, R_FUNC_ID, R_FUNCTION, R_ARGS, R_CPU, R_THREAD, R_PROCESS, R_KIND,
       R_TSC, R_DATA, R_NKEYS };
static const char *const record_keys[R_NKEYS] = {
    "type", "func-id", "function", "args", "cpu", "thread", "process", "kind", "tsc",
    "data"};

static int push_arg(tk_xray_yaml_reader *r, tk_error *err, uint64_t v)
{
    if (r->nargs == r->cap_args) {
        size_t cap = r->cap_args ? 2 * r->cap_args : 8;
        uint64_t *p = realloc(r->args, cap * sizeof *p);
        if (!p) {
            tk_error_set(&r->fail, TK_ENOMEM, TK_NO_OFFSET, r->index, "out of memory");
            r->state = ST_FAILED;
            if (err)
                *err = r->fail;
            return -1;
        }
        r->args = p;
        r->cap_args = cap;
    }
    r->args[r->nargs++] = v;
    return 0;
}

static int read_args(tk_xray_yaml_reader *r, tk_error *err)
{
    r->nargs = 0;
    if (fetch(r, err) != 0)
        return -1;
    if (r->ev.type == YAML_SCALAR_EVENT && sl(r) == 0 &&
        r->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
        return 0; /* `args:` with nothing: no arguments, as in LLVM */
    if (r->ev.type != YAML_SEQUENCE_START_EVENT)
        return fail_at(r, err, &r->ev.start_mark,
                       "'args' must be a sequence of numbers, not %s",
                       node_name(r->ev.type));
    for (;;) {
        if (fetch(r, err) != 0)
            return -1;
        if (r->ev.type == YAML_SEQUENCE_END_EVENT)
            return 0;
        if (r->ev.type != YAML_SCALAR_EVENT)
            return fail_at(r, err, &r->ev.start_mark,
                           "'args' must be a sequence of numbers, not of %ss",
                           node_name(r->ev.type) + 2);
        uint64_t v;
        int rc = parse_u64(sv(r), sl(r), &v);
        if (rc == 1 || (rc == 0 && sl(r) == 0))
            return fail_at(r, err, &r->ev.start_mark, "invalid number '%.*s' in 'args'",
                           (int)(sl(r) > 64 ? 64 : sl(r)), sv(r));
        if (rc == 2)
            return fail_at(r, err, &r->ev.start_mark,
                           "'%.*s' is out of range for 'args' (0 to %llu)",
                           (int)(sl(r) > 64 ? 64 : sl(r)), sv(r),
                           (unsigned long long)UINT64_MAX);
        if (push_arg(r, err, v) != 0)
            return -1;
    }
}

static int read_kind(tk_xray_yaml_reader *r, tk_error *err, tk_xray_kind *kind)
{
    if (fetch_scalar(r, err, "kind") != 0)
        return -1;
    for (int k = TK_XRAY_ENTER; k <= TK_XRAY_TYPED_EVENT; k++)
        if (key_is(r, tk_xray_kind_name((tk_xray_kind)k)))
            return *kind = (tk_xray_kind)k, 0;
    return fail_at(r, err, &r->ev.start_mark,
                   "unknown kind '%.*s' (function-enter, function-exit, "
                   "function-tail-exit, function-enter-arg, custom-event or typed-event)",
                   (int)(sl(r) > 64 ? 64 : sl(r)), sv(r));
}

static int parse_record(tk_xray_yaml_reader *r, tk_xray_record *rec, tk_error *err)
{
    yaml_mark_t first = r->ev.start_mark;
    unsigned seen = 0;
    uint64_t type = 0, cpu = 0, tid = 0, pid = 0, tsc = 0;
    int32_t func_id = 0;
    tk_xray_kind kind = TK_XRAY_ENTER;
    r->nargs = 0;
    r->have_func = 0;
    sb_reset(&r->func);
    sb_reset(&r->data);
    for (;;) {
        if (fetch(r, err) != 0)
            return -1;
        if (r->ev.type == YAML_MAPPING_END_EVENT)
            break;
        int k = read_key(r, err, record_keys, R_NKEYS, "a record");
        if (k < 0)
            return -1;
        if (!seen)
            first = r->ev.start_mark;
        seen |= 1u << k;
        int rc;
        switch (k) {
        case R_TYPE: rc = read_uint(r, err, "type", UINT16_MAX, &type); break;
        case R_FUNC_ID: rc = read_i32(r, err, "func-id", &func_id); break;
        case R_FUNCTION:
            rc = read_string(r, err, "function", &r->func);
            r->have_func = 1;
            break;
        case R_ARGS: rc = read_args(r, err); break;
        case R_CPU: rc = read_uint(r, err, "cpu", UINT16_MAX, &cpu); break;
        case R_THREAD: rc = read_uint(r, err, "thread", UINT32_MAX, &tid); break;
        case R_PROCESS: rc = read_uint(r, err, "process", UINT32_MAX, &pid); break;
        case R_KIND: rc = read_kind(r, err, &kind); break;
        case R_TSC: rc = read_uint(r, err, "tsc", UINT64_MAX, &tsc); break;
        default: rc = read_string(r, err, "data", &r->data); break;
        }
        if (rc != 0)
            return -1;
    }
    static const int required[] = {R_TYPE, R_CPU, R_KIND, R_TSC};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!(seen & (1u << required[i])))
            return fail_at(r, err, &first, "missing required key '%s' in a record",
                           record_keys[required[i]]);
    memset(rec, 0, sizeof *rec);
    rec->kind = kind;
    rec->cpu = (uint16_t)cpu;
    rec->event_type = (uint16_t)type;
    rec->func_id = func_id;
    rec->tsc = tsc;
    rec->tid = (uint32_t)tid;
    rec->pid = (uint32_t)pid;
    rec->nargs = (uint32_t)r->nargs;
    rec->args = r->nargs ? r->args : NULL;
    rec->data_len = (uint32_t)r->data.len;
    rec->data = r->data.len ? (const uint8_t *)r->data.p : NULL;
    return 0;
}

/* ---- the document */

static const char *const top_keys[] = {"header", "records"};

/* After the header: the value of `records`. */
static int open_records(tk_xray_yaml_reader *r, tk_error *err)
{
    if (fetch(r, err) != 0)
        return -1;
    if (r->ev.type == YAML_SEQUENCE_START_EVENT) {
        r->state = ST_RECORDS;
        return 0;
    }
    if (r->ev.type == YAML_SCALAR_EVENT && sl(r) == 0 &&
        r->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        r->state = ST_AFTER; /* `records:` with nothing: no records */
        return 0;
    }
    return fail_at(r, err, &r->ev.start_mark,
                   "'records' must be a sequence of record mappings, not %s",
                   node_name(r->ev.type));
}

tk_xray_yaml_reader *tk_xray_yaml_reader_new(tk_input *in, tk_error *err)
{
    tk_xray_yaml_reader *r = calloc(1, sizeof *r);
    if (!r || !yaml_parser_initialize(&r->parser)) {
        free(r);
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    r->parser_ready = 1;
    r->in = in;
    yaml_parser_set_input(&r->parser, read_handler, r);
    if (fetch(r, err) != 0) /* stream start */
        goto fail;
    if (fetch(r, err) != 0)
        goto fail;
    if (r->ev.type != YAML_DOCUMENT_START_EVENT) {
        fail_at(r, err, &r->ev.start_mark,
                "no YAML document (an XRay YAML trace is a mapping with 'header' "
                "and 'records')");
        goto fail;
    }
    if (fetch(r, err) != 0)
        goto fail;
    if (r->ev.type != YAML_MAPPING_START_EVENT) {
        fail_at(r, err, &r->ev.start_mark,
                "the document must be a mapping with 'header' and 'records', not %s",
                node_name(r->ev.type));
        goto fail;
    }
    yaml_mark_t first = r->ev.start_mark;
    int have_first = 0, have_header = 0;
    for (;;) {
        if (fetch(r, err) != 0)
            goto fail;
        if (r->ev.type == YAML_MAPPING_END_EVENT) {
            fail_at(r, err, &first, "missing required key '%s'",
                    have_header ? "records" : "header");
            goto fail;
        }
        int k = read_key(r, err, top_keys, 2, "the document");
        if (k < 0)
            goto fail;
        if (!have_first) {
            first = r->ev.start_mark;
            have_first = 1;
        }
        if (k == 0) {
            if (parse_header(r, err) != 0)
                goto fail;
            have_header = 1;
            continue;
        }
        if (!have_header) {
            fail_at(r, err, &r->ev.start_mark,
                    "'records' comes before 'header' (tracekit reads the header "
                    "first)");
            goto fail;
        }
        if (open_records(r, err) != 0)
            goto fail;
        return r;
    }
fail:
    tk_xray_yaml_reader_free(r);
    return NULL;
}

void tk_xray_yaml_reader_free(tk_xray_yaml_reader *r)
{
    if (!r)
        return;
    if (r->have_ev)
        yaml_event_delete(&r->ev);
    if (r->parser_ready)
        yaml_parser_delete(&r->parser);
    free(r->args);
    sb_free(&r->data);
    sb_free(&r->func);
    free(r);
}

const tk_xray_header *tk_xray_yaml_reader_header(const tk_xray_yaml_reader *r)
{
    return &r->hdr;
}

const char *tk_xray_yaml_reader_function(const tk_xray_yaml_reader *r)
{
    return r->have_func ? (r->func.p ? r->func.p : "") : NULL;
}

/* The rest of the top mapping after the records, then the document end.
 * Anything after the first document is not read (as llvm-xray). */
static int finish(tk_xray_yaml_reader *r, tk_error *err)
{
    if (fetch(r, err) != 0)
        return -1;
    if (r->ev.type != YAML_MAPPING_END_EVENT) {
        int k = read_key(r, err, top_keys, 2, "the document");
        if (k < 0)
            return -1;
        return fail_at(r, err, &r->ev.start_mark,
                       k == 0 ? "'header' after 'records' (tracekit reads the header "
                                "first)"
                              : "duplicate key 'records'");
    }
    if (fetch(r, err) != 0) /* document end */
        return -1;
    r->state = ST_DONE;
    return 0;
}

int tk_xray_yaml_next(tk_xray_yaml_reader *r, tk_xray_record *rec, tk_error *err)
{
    for (;;) {
        switch (r->state) {
        case ST_FAILED:
            if (err)
                *err = r->fail;
            return -1;
        case ST_DONE:
            return 0;
        case ST_AFTER:
            r->in_record = 0;
            if (finish(r, err) != 0)
                return -1;
            continue;
        default:
            break;
        }
        r->in_record = 1;
        if (fetch(r, err) != 0)
            return -1;
        if (r->ev.type == YAML_SEQUENCE_END_EVENT) {
            r->state = ST_AFTER;
            continue;
        }
        if (r->ev.type != YAML_MAPPING_START_EVENT)
            return fail_at(r, err, &r->ev.start_mark,
                           "expected a record mapping ({ type: ..., cpu: ..., kind: "
                           "..., tsc: ... }), not %s",
                           node_name(r->ev.type));
        if (parse_record(r, rec, err) != 0)
            return -1;
        r->index++;
        return 1;
    }
}

/* ---- probe */

static size_t line_end(const uint8_t *h, size_t n, size_t i)
{
    while (i < n && h[i] != '\n')
        i++;
    return i;
}

static int starts(const uint8_t *h, size_t n, size_t i, const char *s)
{
    size_t k = strlen(s);
    return i + k <= n && memcmp(h + i, s, k) == 0;
}

int tk_xray_yaml_probe(const uint8_t *h, size_t n)
{
    size_t i = 0;
    if (starts(h, n, 0, "\xEF\xBB\xBF"))
        i = 3;
    int dashes = 0, header = 0, version = 0, type = 0;
    /* line by line: comments and blank lines, `---`, `header:` and the
     * header's keys (block or flow) */
    while (i < n) {
        size_t e = line_end(h, n, i), j = i;
        while (j < e && (h[j] == ' ' || h[j] == '\t' || h[j] == '\r'))
            j++;
        if (j == e || h[j] == '#') {
            i = e + 1;
            continue;
        }
        if (!header) {
            if (!dashes && j == i && starts(h, e, i, "---") &&
                (i + 3 == e || h[i + 3] == ' ' || h[i + 3] == '\r')) {
                dashes = 1;
            } else if (j == i && starts(h, e, i, "header:")) {
                header = 1;
                size_t k = i + 7;
                while (k < e && (h[k] == ' ' || h[k] == '\t' || h[k] == '\r'))
                    k++;
                if (k < e && h[k] != '#' && h[k] != '{')
                    return 0; /* header: <scalar> */
                for (; k < e && h[k] != '#'; k++) { /* flow form */
                    if (starts(h, e, k, "version:"))
                        version = 1;
                    if (starts(h, e, k, "type:"))
                        type = 1;
                }
            } else {
                return 0;
            }
        } else {
            if (j == i) /* the header mapping ended */
                break;
            if (starts(h, e, j, "version:"))
                version = 1;
            else if (starts(h, e, j, "type:"))
                type = 1;
        }
        if (version && type)
            break;
        i = e + 1;
    }
    if (!header)
        return 0;
    if (version && type)
        return dashes ? 100 : 80;
    if (i >= n) /* the head ends inside the header */
        return dashes ? 50 : 30;
    return 10;
}
