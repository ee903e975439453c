/* Helpers shared by test_read.c and test_write.c (header-only, static):
 * a hand-written XRay encoder (independent of tracekit's writer), owned
 * copies of logical and raw records, running tools, and parsing the
 * YAML that `llvm-xray convert -f yaml` prints. */
#ifndef TK_XRAY_RW_COMMON_H
#define TK_XRAY_RW_COMMON_H

#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* every helper is optional for a test file */
#define RWF static __attribute__((unused))

/* ================================================================ encoder
 * Little-endian, laid out as in docs/formats/xray.md and the notes. */

RWF void xb_zeros(tu_buf *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tu_put8(b, 0);
}

RWF void xb_put16(tu_buf *b, uint16_t v)
{
    tu_put8(b, (uint8_t)v);
    tu_put8(b, (uint8_t)(v >> 8));
}

/* 32-byte file header. */
RWF void xb_header(tu_buf *b, uint16_t version, uint16_t type, uint64_t freq,
                      uint64_t bufsize)
{
    xb_put16(b, version);
    xb_put16(b, type);
    tu_put32(b, 3);
    tu_put64(b, freq);
    tu_put64(b, bufsize);
    tu_put64(b, 0);
}

/* Basic mode: a NORMAL record and an ARG_PAYLOAD record (32 bytes each). */
RWF void xb_basic(tu_buf *b, uint8_t cpu, uint8_t kind, int32_t fid, uint64_t tsc,
                     uint32_t tid, uint32_t pid)
{
    xb_put16(b, 0);
    tu_put8(b, cpu);
    tu_put8(b, kind);
    tu_put32(b, (uint32_t)fid);
    tu_put64(b, tsc);
    tu_put32(b, tid);
    tu_put32(b, pid);
    xb_zeros(b, 8);
}

RWF void xb_basic_arg(tu_buf *b, int32_t fid, uint32_t tid, uint32_t pid, uint64_t arg)
{
    xb_put16(b, 1);
    xb_zeros(b, 2);
    tu_put32(b, (uint32_t)fid);
    tu_put32(b, tid);
    tu_put32(b, pid);
    tu_put64(b, arg);
    xb_zeros(b, 8);
}

/* FDR function record: action 0 enter, 1 exit, 2 tail exit, 3 enter args. */
RWF void xb_fn(tu_buf *b, unsigned action, uint32_t fid, uint32_t delta)
{
    tu_put32(b, fid << 4 | (action & 7) << 1);
    tu_put32(b, delta);
}

/* FDR metadata record: kind, then the body (padded to 15 bytes with `pad`). */
RWF void xb_meta_body(tu_buf *b, unsigned kind, const void *body, size_t n, uint8_t pad)
{
    tu_put8(b, (uint8_t)(kind << 1 | 1));
    tu_putn(b, body, n);
    for (size_t i = n; i < 15; i++)
        tu_put8(b, pad);
}

RWF void le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

RWF void xb_meta1(tu_buf *b, unsigned kind, uint64_t v, int n)
{
    uint8_t body[15] = {0};
    le(body, v, n);
    xb_meta_body(b, kind, body, (size_t)n, 0);
}

RWF void xb_newbuf(tu_buf *b, uint32_t tid) { xb_meta1(b, 0, tid, 4); }
RWF void xb_eob(tu_buf *b) { xb_meta1(b, 1, 0, 0); }
RWF void xb_wrap(tu_buf *b, uint64_t tsc) { xb_meta1(b, 3, tsc, 8); }
RWF void xb_carg(tu_buf *b, uint64_t v) { xb_meta1(b, 6, v, 8); }
RWF void xb_extents(tu_buf *b, uint64_t n) { xb_meta1(b, 7, n, 8); }
RWF void xb_pid(tu_buf *b, uint32_t pid) { xb_meta1(b, 9, pid, 4); }

RWF void xb_cpu(tu_buf *b, uint16_t cpu, uint64_t tsc)
{
    uint8_t body[15] = {0};
    le(body, cpu, 2);
    le(body + 2, tsc, 8);
    xb_meta_body(b, 2, body, 10, 0);
}

RWF void xb_wall(tu_buf *b, uint64_t sec, uint32_t usec)
{
    uint8_t body[15] = {0};
    le(body, sec, 8);
    le(body + 8, usec, 4);
    xb_meta_body(b, 4, body, 12, 0);
}

/* Custom event v1–4: size, absolute TSC, (v4) cpu; then the payload. */
RWF void xb_custom_abs(tu_buf *b, int32_t size, uint64_t tsc, uint16_t cpu,
                          const void *payload, size_t n)
{
    uint8_t body[15] = {0};
    le(body, (uint32_t)size, 4);
    le(body + 4, tsc, 8);
    le(body + 12, cpu, 2);
    xb_meta_body(b, 5, body, 14, 0);
    tu_putn(b, payload, n);
}

/* Custom event v5: size, signed delta. */
RWF void xb_custom5(tu_buf *b, int32_t size, int32_t delta, const void *payload, size_t n)
{
    uint8_t body[15] = {0};
    le(body, (uint32_t)size, 4);
    le(body + 4, (uint32_t)delta, 4);
    xb_meta_body(b, 5, body, 8, 0);
    tu_putn(b, payload, n);
}

RWF void xb_typed(tu_buf *b, int32_t size, int32_t delta, uint16_t type,
                     const void *payload, size_t n)
{
    uint8_t body[15] = {0};
    le(body, (uint32_t)size, 4);
    le(body + 4, (uint32_t)delta, 4);
    le(body + 8, type, 2);
    xb_meta_body(b, 8, body, 10, 0);
    tu_putn(b, payload, n);
}

/* The usual block preamble: NewBuffer, WallClockTime, [Pid], NewCPUId. */
RWF void xb_preamble(tu_buf *b, unsigned version, uint32_t tid, uint32_t pid,
                        uint16_t cpu, uint64_t tsc)
{
    xb_newbuf(b, tid);
    xb_wall(b, 100, 250);
    if (version >= 3)
        xb_pid(b, pid);
    xb_cpu(b, cpu, tsc);
}

/* Patch a u64 at `at` (e.g. an extents size written before its buffer). */
RWF void xb_patch64(tu_buf *b, size_t at, uint64_t v)
{
    le(b->p + at, v, 8);
}

/* ================================================================ records */

/* An owned logical record. */
typedef struct xr_rec {
    int kind;
    uint16_t cpu, event_type;
    int32_t func_id;
    uint64_t tsc;
    uint32_t tid, pid;
    uint32_t nargs;
    uint64_t *args;
    uint32_t data_len;
    uint8_t *data;
    uint64_t offset, index;
} xr_rec;

typedef struct xr_list {
    xr_rec *v;
    size_t n, cap;
} xr_list;

RWF xr_rec *xr_push(xr_list *l)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        assert_non_null(l->v);
    }
    xr_rec *r = &l->v[l->n++];
    memset(r, 0, sizeof *r);
    return r;
}

/* Deep copy of `src` appended to `l`. */
RWF xr_rec *xr_add(xr_list *l, const tk_xray_record *src)
{
    xr_rec *r = xr_push(l);
    r->kind = (int)src->kind;
    r->cpu = src->cpu;
    r->event_type = src->event_type;
    r->func_id = src->func_id;
    r->tsc = src->tsc;
    r->tid = src->tid;
    r->pid = src->pid;
    r->nargs = src->nargs;
    if (src->nargs) {
        r->args = malloc(src->nargs * sizeof *r->args);
        assert_non_null(r->args);
        memcpy(r->args, src->args, src->nargs * sizeof *r->args);
    }
    r->data_len = src->data_len;
    if (src->data_len) {
        r->data = malloc(src->data_len);
        assert_non_null(r->data);
        memcpy(r->data, src->data, src->data_len);
    }
    return r;
}

/* The record as the library's struct (pointers into `r`). */
RWF tk_xray_record xr_view(const xr_rec *r)
{
    tk_xray_record t;
    memset(&t, 0, sizeof t);
    t.kind = (tk_xray_kind)r->kind;
    t.cpu = r->cpu;
    t.event_type = r->event_type;
    t.func_id = r->func_id;
    t.tsc = r->tsc;
    t.tid = r->tid;
    t.pid = r->pid;
    t.nargs = r->nargs;
    t.args = r->args;
    t.data_len = r->data_len;
    t.data = r->data;
    return t;
}

RWF void xr_free(xr_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].args);
        free(l->v[i].data);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Read every logical record of `d`. Returns the last tk_xray_next result
 * (0 clean end, -1 error in err), or -2 if the header was refused. */
RWF int xr_read(const uint8_t *d, size_t n, xr_list *out, tk_error *err,
                   uint64_t *skipped)
{
    tk_error_clear(err);
    tk_input *in = tk_input_from_memory(d, n, "mem", err);
    assert_non_null(in);
    tk_xray_reader *r = tk_xray_reader_new(in, err);
    if (!r) {
        tk_input_close(in);
        return -2;
    }
    tk_xray_record rec;
    int rc;
    while ((rc = tk_xray_next(r, &rec, err)) > 0) {
        xr_rec *x = xr_add(out, &rec);
        x->offset = tk_xray_reader_offset(r);
        x->index = tk_xray_reader_index(r);
    }
    if (skipped)
        *skipped = tk_xray_reader_skipped(r);
    tk_xray_reader_free(r);
    tk_input_close(in);
    return rc;
}

/* The layout tk_xray_reader_layout reports for `d`, or -1 if refused. */
RWF int xr_layout(const uint8_t *d, size_t n)
{
    tk_error err;
    tk_input *in = tk_input_from_memory(d, n, "mem", &err);
    assert_non_null(in);
    tk_xray_reader *r = tk_xray_reader_new(in, &err);
    int layout = r ? tk_xray_reader_layout(r) : -1;
    tk_xray_reader_free(r);
    tk_input_close(in);
    return layout;
}

/* Raw FDR records (payloads copied). */
typedef struct xr_raw {
    tk_xray_fdr_record *v;
    size_t n, cap;
} xr_raw;

RWF int xr_read_raw(const uint8_t *d, size_t n, xr_raw *out, tk_error *err)
{
    tk_error_clear(err);
    tk_input *in = tk_input_from_memory(d, n, "mem", err);
    assert_non_null(in);
    tk_xray_reader *r = tk_xray_reader_new(in, err);
    if (!r) {
        tk_input_close(in);
        return -2;
    }
    tk_xray_fdr_record x;
    int rc;
    while ((rc = tk_xray_next_fdr(r, &x, err)) > 0) {
        if (out->n == out->cap) {
            out->cap = out->cap ? 2 * out->cap : 64;
            out->v = realloc(out->v, out->cap * sizeof *out->v);
            assert_non_null(out->v);
        }
        if (x.payload) {
            uint8_t *p = malloc((size_t)x.size);
            assert_non_null(p);
            memcpy(p, x.payload, (size_t)x.size);
            x.payload = p;
        }
        out->v[out->n++] = x;
    }
    tk_xray_reader_free(r);
    tk_input_close(in);
    return rc;
}

RWF void xr_raw_free(xr_raw *l)
{
    for (size_t i = 0; i < l->n; i++)
        free((void *)l->v[i].payload);
    free(l->v);
    memset(l, 0, sizeof *l);
}

RWF int xr_is_func(int kind) { return kind <= TK_XRAY_ENTER_ARG; }

RWF int cmp_u64v(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

/* Total order for multiset comparison (func id only for functions, event
 * type only for typed events). */
RWF int xr_cmp(const void *pa, const void *pb)
{
    const xr_rec *a = pa, *b = pb;
    int c;
    if ((c = cmp_u64v(a->tid, b->tid)) || (c = cmp_u64v(a->pid, b->pid)) ||
        (c = cmp_u64v(a->tsc, b->tsc)) || (c = a->kind - b->kind) ||
        (c = cmp_u64v(a->cpu, b->cpu)))
        return c;
    if (xr_is_func(a->kind) && (c = cmp_u64v((uint32_t)a->func_id, (uint32_t)b->func_id)))
        return c;
    if (a->kind == TK_XRAY_TYPED_EVENT && (c = a->event_type - b->event_type))
        return c;
    if ((c = cmp_u64v(a->nargs, b->nargs)))
        return c;
    for (uint32_t i = 0; i < a->nargs; i++)
        if ((c = cmp_u64v(a->args[i], b->args[i])))
            return c;
    if ((c = cmp_u64v(a->data_len, b->data_len)))
        return c;
    return a->data_len ? memcmp(a->data, b->data, a->data_len) : 0;
}

RWF void xr_print(const char *tag, const xr_rec *r)
{
    print_message("%s: kind %d func %d tsc %" PRIu64 " cpu %u tid %u pid %u type %u nargs %u",
                  tag, r->kind, r->func_id, r->tsc, r->cpu, r->tid, r->pid, r->event_type,
                  r->nargs);
    for (uint32_t i = 0; i < r->nargs; i++)
        print_message(" %s%" PRIu64, i ? "" : "args ", r->args[i]);
    print_message(" data '%.*s'\n", (int)r->data_len, r->data ? (const char *)r->data : "");
}

/* The two lists hold the same records, in any order. */
RWF void xr_assert_same_set(xr_list *want, xr_list *got, const char *what)
{
    qsort(want->v, want->n, sizeof *want->v, xr_cmp);
    qsort(got->v, got->n, sizeof *got->v, xr_cmp);
    size_t n = want->n < got->n ? want->n : got->n;
    for (size_t i = 0; i < n; i++)
        if (xr_cmp(&want->v[i], &got->v[i]) != 0) {
            print_message("%s: records differ at sorted position %zu of %zu/%zu\n", what, i,
                          want->n, got->n);
            xr_print("want", &want->v[i]);
            xr_print("got ", &got->v[i]);
            fail();
        }
    if (want->n != got->n)
        print_message("%s: %zu records expected, %zu read\n", what, want->n, got->n);
    assert_int_equal(want->n, got->n);
}

/* Field by field, in order. */
RWF void xr_assert_rec_equal(const xr_rec *w, const xr_rec *g)
{
    if (xr_cmp(w, g) != 0 || (xr_is_func(w->kind) ? 0 : w->func_id != g->func_id)) {
        xr_print("want", w);
        xr_print("got ", g);
        fail();
    }
}

/* ================================================================ tools */

RWF int have_tool(const char *path)
{
    return path && path[0] == '/' && access(path, X_OK) == 0;
}

/* Run `cmd` with /bin/sh; its stdout in *out (malloc'd, NUL-terminated).
 * Returns the exit status (-1 if it did not exit normally). */
RWF int run_cmd(const char *cmd, char **out, size_t *len)
{
    fflush(NULL);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap + 1);
    assert_non_null(buf);
    while ((got = fread(buf + n, 1, cap - n, p)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            assert_non_null(buf);
        }
    }
    buf[n] = '\0';
    int st = pclose(p);
    if (out)
        *out = buf;
    else
        free(buf);
    if (len)
        *len = n;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

RWF int run_quiet(const char *cmd)
{
    char *c = NULL;
    int n = asprintf(&c, "%s >/dev/null 2>&1", cmd);
    assert_true(n > 0);
    int st = run_cmd(c, NULL, NULL);
    free(c);
    return st;
}

/* tracekit dump through the library: text (or JSON) output, status. */
RWF char *tk_dump_text(const uint8_t *d, size_t n, const char *records, int json,
                          tk_status *st, tk_error *err)
{
    tk_error_clear(err);
    tk_input *in = tk_input_from_memory(d, n, "mem", err);
    assert_non_null(in);
    const tk_format *f = tk_format_find("xray");
    assert_non_null(f);
    tk_options *o = tk_options_new(err);
    if (records)
        assert_int_equal(tk_options_set(o, "records", records, err), TK_OK);
    tu_capture c;
    tk_sink *s = tu_sink_open(&c, json ? TK_SINK_JSON : TK_SINK_TEXT);
    *st = tk_dump(f, in, o, s, err);
    char *text = tu_sink_text(s, &c);
    tk_options_free(o);
    tk_input_close(in);
    return text;
}

RWF char *tk_info_json(const uint8_t *d, size_t n)
{
    tk_error err;
    tk_error_clear(&err);
    tk_input *in = tk_input_from_memory(d, n, "mem", &err);
    assert_non_null(in);
    tk_options *o = tk_options_new(&err);
    tu_capture c;
    tk_sink *s = tu_sink_open(&c, TK_SINK_JSON);
    assert_int_equal(tk_info(tk_format_find("xray"), in, o, s, &err), TK_OK);
    char *text = tu_sink_text(s, &c);
    tk_options_free(o);
    tk_input_close(in);
    return text;
}

/* The number after "key": in a JSON text (first occurrence after `from`). */
RWF uint64_t json_u64(const char *json, const char *from, const char *key)
{
    const char *p = from ? strstr(json, from) : json;
    assert_non_null(p);
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    p = strstr(p, pat);
    if (!p)
        fail_msg("no %s in %s", pat, json);
    return strtoull(p + strlen(pat), NULL, 10);
}

/* Compare `llvm-xray fdr-dump` output with tracekit's dump line by line.
 * tracekit closes the typed-event line that llvm-xray leaves open (the
 * one difference, by design); payloads here are printable. In v1 traces
 * llvm-xray also parses the padding after each EndOfBuffer (one
 * "<Function Enter: #0 delta = +0>" per 8 bytes, and the filler custom
 * event tracekit's writer puts there when the padding is not a multiple
 * of 8) where tracekit skips it: those lines are passed over. */
RWF int is_v1_padding(const char *a, size_t la)
{
    static const char pad[] = "<Function Enter: #0 delta = +0>";
    static const char filler[] = "<Custom Event: tsc = 0, cpu = 0, size = ";
    if (la == sizeof pad - 1 && memcmp(a, pad, la) == 0)
        return 1;
    if (la < sizeof filler - 1 || memcmp(a, filler, sizeof filler - 1) != 0)
        return 0;
    unsigned long size = strtoul(a + sizeof filler - 1, NULL, 10);
    char want[80];
    snprintf(want, sizeof want, "%s%lu, data = '%.*s'>", filler, size, (int)size, "padding");
    return size >= 1 && size <= 7 && la == strlen(want) && memcmp(a, want, la) == 0;
}

RWF void assert_same_dump(const char *xr_out, const char *tk_out, const char *what)
{
    const char *a = xr_out, *b = tk_out;
    size_t line = 0;
    int after_eob = 0;
    while (*a || *b) {
        line++;
        const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
        size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
        if (after_eob && is_v1_padding(a, la)) {
            a = ea ? ea + 1 : a + la;
            continue;
        }
        after_eob = la == 15 && memcmp(a, "<End of Buffer>", 15) == 0;
        int typed = la > 13 && strncmp(a, "<Typed Event:", 13) == 0;
        int same = typed ? lb == la + 1 && memcmp(a, b, la) == 0 && b[la] == '>'
                         : la == lb && memcmp(a, b, la) == 0;
        if (!same)
            fail_msg("%s: dump line %zu differs:\n  llvm-xray: %.*s\n  tracekit:  %.*s", what,
                     line, (int)la, a, (int)lb, b);
        a = ea ? ea + 1 : a + la;
        b = eb ? eb + 1 : b + lb;
    }
}

/* ------------------------------------------------ llvm-xray YAML records */

RWF const char *yaml_field(const char *line, const char *end, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, " %s: ", key);
    size_t n = strlen(pat);
    for (const char *p = line; p + n <= end; p++)
        if (memcmp(p, pat, n) == 0)
            return p + n;
    return NULL;
}

RWF int yaml_kind(const char *p)
{
    static const char *const names[] = {"function-enter,", "function-exit,",
                                        "function-tail-exit,", "function-enter-arg,",
                                        "custom-event,", "typed-event,"};
    for (int k = 0; k < 6; k++)
        if (strncmp(p, names[k], strlen(names[k])) == 0)
            return k;
    fail_msg("unknown kind in YAML: %.30s", p);
    return -1;
}

/* Parse the records of `llvm-xray convert -f yaml` output. Func ids of
 * events are dropped (llvm-xray leaves the last function's id there) and
 * so is `type` for everything but typed events (it is sticky too). The
 * data value is unquoted ('' quoting only: the payloads used here need no
 * escapes). Returns the header version. */
RWF unsigned parse_llvm_yaml(const char *text, xr_list *out)
{
    const char *v = strstr(text, "version:");
    assert_non_null(v);
    unsigned version = (unsigned)strtoul(v + 8, NULL, 10);
    for (const char *p = text; (p = strstr(p, "\n  - { ")) != NULL;) {
        p += 7;
        const char *end = strstr(p, " }\n");
        assert_non_null(end);
        const char *line = p - 2;
        xr_rec *r = xr_push(out);
        const char *f = yaml_field(line, end, "kind");
        assert_non_null(f);
        r->kind = yaml_kind(f);
        r->tsc = strtoull(yaml_field(line, end, "tsc"), NULL, 10);
        r->cpu = (uint16_t)strtoul(yaml_field(line, end, "cpu"), NULL, 10);
        f = yaml_field(line, end, "thread");
        r->tid = f ? (uint32_t)strtoul(f, NULL, 10) : 0;
        f = yaml_field(line, end, "process");
        r->pid = f ? (uint32_t)strtoul(f, NULL, 10) : 0;
        if (xr_is_func(r->kind))
            r->func_id = (int32_t)strtol(yaml_field(line, end, "func-id"), NULL, 10);
        if (r->kind == TK_XRAY_TYPED_EVENT)
            r->event_type = (uint16_t)strtoul(yaml_field(line, end, "type"), NULL, 10);
        f = yaml_field(line, end, "args");
        if (f) {
            assert_int_equal(f[0], '[');
            r->args = malloc(64 * sizeof *r->args);
            assert_non_null(r->args);
            const char *q = f + 1;
            for (;;) {
                while (*q == ' ' || *q == ',')
                    q++;
                if (*q == ']')
                    break;
                assert_true(r->nargs < 64);
                char *e;
                r->args[r->nargs++] = strtoull(q, &e, 10);
                assert_true(e > q);
                q = e;
            }
        }
        f = yaml_field(line, end, "data");
        assert_non_null(f);
        size_t n = (size_t)(end - f);
        r->data = malloc(n + 1);
        assert_non_null(r->data);
        if (n >= 2 && f[0] == '\'' && f[n - 1] == '\'') {
            size_t k = 0;
            for (size_t i = 1; i + 1 < n; i++) {
                r->data[k++] = (uint8_t)f[i];
                if (f[i] == '\'' && f[i + 1] == '\'')
                    i++;
            }
            r->data_len = (uint32_t)k;
        } else {
            assert_true(n == 0 || f[0] != '"');
            memcpy(r->data, f, n);
            r->data_len = (uint32_t)n;
        }
        if (r->data_len == 0) {
            free(r->data);
            r->data = NULL;
        }
        p = end;
    }
    return version;
}

/* Write `d` to DIR/name; returns the path (static, rotating). */
RWF const char *put_file(const char *dir, const char *name, const void *d, size_t n)
{
    const char *p = tu_path(dir, name);
    tu_write_file(p, d, n);
    return p;
}

/* llvm-xray convert -f yaml FILE → records; returns its exit status. */
RWF int llvm_yaml_records(const char *xray, const char *file, xr_list *out,
                             unsigned *version)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' convert -f yaml '%s' 2>/dev/null", xray, file);
    char *text;
    int st = run_cmd(cmd, &text, NULL);
    if (st == 0) {
        unsigned v = parse_llvm_yaml(text, out);
        if (version)
            *version = v;
    }
    free(text);
    return st;
}

#endif
