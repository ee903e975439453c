/* The generic reader's failures (include/tracekit/reader.h): a malformed
 * trace gives the records before the error and then the error the
 * format's reader gives (message, offset or line:col, record), for ever;
 * input no format recognises is TK_EMALFORMED; options the reader does
 * not read are TK_EUSAGE; foreach stops when asked and reading goes on. */
#include <stdlib.h>
#include <string.h>

#include "reader_seq.h"

static const char *const examples[] = {
    "cacheray/heap.trace", "cacheray/heap-be.trace", "casemate/bbm.log",
    "casemate/missing-tlbi.log", "ucir/hello.ucir", "xray/basic-v3.xray",
    "xray/fdr-v5.xray",
};

static uint8_t *example(const char *name, size_t *n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", TK_EXAMPLES_DIR, name);
    uint8_t *d = tu_read_file(path, n);
    assert_non_null(d);
    return d;
}

/* `d` through tk_reader_from_memory against the probe and the format's
 * reader; returns 1 when it read to an error. */
static int agree(const uint8_t *d, size_t n, const char *what)
{
    tk_error perr, gerr;
    tk_input *in = tk_input_from_memory(d, n, "m", &perr);
    const tk_format *f = tk_format_probe(in, &perr);
    tk_input_close(in);
    tk_reader *r = tk_reader_from_memory(d, n, NULL, NULL, &gerr);
    if (!f) {
        if (r)
            fail_msg("%s: read as %s, which the probe refused", what,
                     tk_format_name(tk_reader_format(r)));
        rs_assert_same_error(&perr, &gerr, what);
        return 0;
    }
    rs_seq native = {0}, got = {0};
    rs_read_native(tk_format_name(f), d, n, &native);
    if (native.rc == -2 || !r) {
        if (r || native.rc != -2)
            fail_msg("%s: the reader was%s made, the %s reader was%s", what, r ? "" : " not",
                     tk_format_name(f), native.rc == -2 ? " not" : "");
        rs_assert_same_error(&native.err, &gerr, what);
        rs_free(&native);
        return 0;
    }
    rs_read(r, &got);
    rs_assert_equal(&native, &got, SIZE_MAX, what);
    assert_int_equal(native.rc, got.rc);
    if (got.rc < 0) {
        rs_assert_same_error(&native.err, &got.err, what);
        tk_record rec;
        tk_error again;
        assert_int_equal(tk_reader_next(r, &rec, &again), -1); /* sticky */
        rs_assert_same_error(&got.err, &again, what);
    } else {
        tk_record rec;
        assert_int_equal(tk_reader_next(r, &rec, &gerr), 0);
    }
    tk_reader_free(r);
    int failed = got.rc < 0;
    rs_free(&native);
    rs_free(&got);
    return failed;
}

/* Cuts and byte changes of every example. */
static void test_malformed(void **state)
{
    (void)state;
    int errors = 0;
    uint64_t seed = 18;
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        size_t n;
        uint8_t *d = example(examples[i], &n);
        char what[256];
        static const size_t small[] = {0, 1, 5, 17, 31, 33};
        for (size_t k = 0; k < sizeof small / sizeof small[0]; k++) {
            snprintf(what, sizeof what, "%s cut to %zu bytes", examples[i], small[k]);
            errors += agree(d, small[k] < n ? small[k] : n, what);
        }
        for (size_t k = 1; k <= 8; k++) {
            size_t at = n * k / 9 + k;
            snprintf(what, sizeof what, "%s cut to %zu bytes", examples[i], at);
            errors += agree(d, at < n ? at : n - 1, what);
        }
        for (int k = 0; k < 24; k++) {
            size_t at = (size_t)tu_rand_below(&seed, n);
            uint8_t was = d[at];
            d[at] = k % 3 == 0 ? 0xff : k % 3 == 1 ? (uint8_t)(was ^ 0x5a) : '(';
            snprintf(what, sizeof what, "%s with byte %zu changed", examples[i], at);
            errors += agree(d, n, what);
            d[at] = was;
        }
        free(d);
    }
    assert_true(errors > 50); /* the mutations do break the traces */
}

/* Input that no format claims is malformed (the probe's error). */
static void test_unknown(void **state)
{
    (void)state;
    static const uint8_t zeros[4096];
    static const char text[] = "hello, world\nthis is not a trace\n";
    tk_error err;
    assert_null(tk_reader_from_memory(zeros, sizeof zeros, NULL, NULL, &err));
    assert_int_equal(err.status, TK_EMALFORMED);
    assert_null(tk_reader_from_memory(text, sizeof text - 1, NULL, NULL, &err));
    assert_int_equal(err.status, TK_EMALFORMED);
    assert_non_null(strstr(err.message, "not a recognized trace"));
    assert_null(tk_reader_from_memory(text, 0, NULL, NULL, &err));
    assert_int_equal(err.status, TK_EMALFORMED);
    assert_null(tk_reader_open(TK_EXAMPLES_DIR "/xray/demo.c", NULL, NULL, &err));
    assert_int_equal(err.status, TK_EMALFORMED);
    assert_null(tk_reader_open(TK_EXAMPLES_DIR "/no/such/file", NULL, NULL, &err));
    assert_int_equal(err.status, TK_EIO);
}

typedef struct opt_case {
    const char *file;
    const char *key, *value;
    tk_status want;
} opt_case;

static const opt_case opt_cases[] = {
    /* keys the format does not read: the registry's refusal */
    {"cacheray/heap.trace", "func", "2", TK_EUSAGE},
    {"cacheray/heap.trace", "instr-map", "x.yaml", TK_EUSAGE},
    {"casemate/bbm.log", "endian", "big", TK_EUSAGE},
    {"ucir/hello.ucir", "thread", "1", TK_EUSAGE},
    {"xray/basic-v3.xray", "addr", "0x1000", TK_EUSAGE},
    {"xray/basic-v3.xray", "no-such-key", "1", TK_EUSAGE},
    /* keys only a command reads */
    {"cacheray/heap.trace", "out-endian", "big", TK_EUSAGE},
    {"cacheray/heap.trace", "json-hex", "1", TK_EUSAGE},
    {"casemate/bbm.log", "strict", "1", TK_EUSAGE},
    {"ucir/hello.ucir", "level", "9", TK_EUSAGE},
    {"ucir/hello.ucir", "records", "instructions", TK_EUSAGE},
    {"xray/fdr-v5.xray", "records", "raw", TK_EUSAGE},
    {"xray/fdr-v5.xray", "sort", "count", TK_EUSAGE},
    /* values that do not parse or apply */
    {"cacheray/heap.trace", "endian", "middle", TK_EUSAGE},
    {"cacheray/heap.trace", "range", "1ms:2ms", TK_EUSAGE},
    {"cacheray/heap.trace", "thread", "x", TK_EUSAGE},
    {"ucir/hello.ucir", "threads", "5000", TK_EUSAGE},
    {"ucir/hello.ucir", "max-frame", "0", TK_EUSAGE},
    {"casemate/bbm.log", "limit", "-1", TK_EUSAGE},
    /* what the reader reads */
    {"cacheray/heap-be.trace", "endian", "big", TK_OK},
    {"ucir/hello.ucir", "records", "raw", TK_OK},
    {"ucir/hello.ucir", "max-frame", "1M", TK_OK},
    {"xray/fdr-v5.xray", "records", "logical", TK_OK},
    {"xray/fdr-v5.xray", "demangle", "0", TK_OK},
    {"casemate/bbm.log", "skip", "3", TK_OK},
};

static void test_options(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof opt_cases / sizeof opt_cases[0]; i++) {
        const opt_case *c = &opt_cases[i];
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", TK_EXAMPLES_DIR, c->file);
        tk_error err;
        tk_options *o = tk_options_new(&err);
        assert_int_equal(tk_options_set(o, c->key, c->value, &err), TK_OK);
        tk_reader *r = tk_reader_open(path, NULL, o, &err);
        if (c->want == TK_OK && !r)
            fail_msg("%s --%s %s: %s", c->file, c->key, c->value, err.message);
        if (c->want != TK_OK && (r || err.status != c->want))
            fail_msg("%s --%s %s: %s", c->file, c->key, c->value,
                     r ? "accepted" : err.message);
        tk_reader_free(r);
        tk_options_free(o);
    }
}

static int stop_at_five(const tk_record *rec, void *ctx)
{
    uint64_t *n = ctx;
    assert_int_equal(rec->index, *n); /* no selection: indexes count up */
    return ++*n == 5;
}

static int count(const tk_record *rec, void *ctx)
{
    (void)rec;
    ++*(uint64_t *)ctx;
    return 0;
}

/* foreach stops when the callback says, and reading goes on from there;
 * a reading error comes after the records before it. */
static void test_foreach(void **state)
{
    (void)state;
    tk_error err;
    tk_reader *r = tk_reader_open(TK_EXAMPLES_DIR "/cacheray/heap.trace", NULL, NULL, &err);
    assert_non_null(r);
    uint64_t n = 0;
    assert_int_equal(tk_reader_foreach(r, stop_at_five, &n, &err), TK_OK);
    assert_int_equal(n, 5);
    tk_record rec;
    assert_int_equal(tk_reader_next(r, &rec, &err), 1);
    assert_int_equal(rec.index, 5);
    n = 6;
    assert_int_equal(tk_reader_foreach(r, count, &n, &err), TK_OK);
    assert_int_equal(n, 400);
    assert_int_equal(tk_reader_next(r, &rec, &err), 0); /* the end stays */
    assert_int_equal(tk_reader_foreach(r, count, &n, &err), TK_OK);
    assert_int_equal(n, 400);
    tk_reader_free(r);

    size_t size;
    uint8_t *d = example("xray/basic-v3.xray", &size);
    r = tk_reader_from_memory(d, size - 7, NULL, NULL, &err);
    assert_non_null(r);
    n = 0;
    assert_int_equal(tk_reader_foreach(r, count, &n, &err), TK_EMALFORMED);
    assert_int_equal(n, 91); /* the last of 92 records is cut */
    assert_int_equal(err.record, 91);
    tk_reader_free(r);
    free(d);
}

/* skip and limit as dump counts them; limit 0 reads nothing. */
static void test_skip_limit(void **state)
{
    (void)state;
    tk_error err;
    tk_options *o = tk_options_new(&err);
    assert_int_equal(tk_options_set(o, "limit", "0", &err), TK_OK);
    size_t size;
    uint8_t *d = example("cacheray/heap.trace", &size);
    tk_reader *r = tk_reader_from_memory(d, size, NULL, o, &err);
    tk_record rec;
    assert_int_equal(tk_reader_next(r, &rec, &err), 0);
    tk_reader_free(r);
    assert_int_equal(tk_options_set(o, "limit", "3", &err), TK_OK);
    assert_int_equal(tk_options_set(o, "skip", "398", &err), TK_OK);
    r = tk_reader_from_memory(d, size, NULL, o, &err);
    rs_seq s = {0};
    rs_read(r, &s);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.v[0].index, 398);
    assert_int_equal(s.rc, 0);
    tk_reader_free(r);
    rs_free(&s);
    /* an error among the records skipped is still the error */
    r = tk_reader_from_memory(d, 100, NULL, o, &err);
    rs_read(r, &s);
    assert_int_equal(s.n, 0);
    assert_int_equal(s.rc, -1);
    assert_int_equal(s.err.status, TK_EMALFORMED);
    tk_reader_free(r);
    rs_free(&s);
    tk_options_free(o);
    free(d);
}

/* The format's own options reach its reader: a byte order forced on
 * Cacheray, UCIR's largest frame. */
static void test_format_options(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = example("cacheray/heap-be.trace", &n);
    tk_error err, want;
    tk_options *o = tk_options_new(&err);
    assert_int_equal(tk_options_set(o, "endian", "little", &err), TK_OK);
    tk_reader *r = tk_reader_from_memory(d, n, NULL, o, &err);
    assert_non_null(r);
    tk_record rec;
    assert_int_equal(tk_reader_next(r, &rec, &err), -1);
    tk_reader_free(r);
    tk_input *in = tk_input_from_memory(d, n, "m", &want);
    tk_cacheray_reader *cr = tk_cacheray_reader_new(in, TK_ENDIAN_LITTLE, &want);
    tk_cacheray_record c;
    assert_int_equal(tk_cacheray_next(cr, &c, &want), -1);
    rs_assert_same_error(&want, &err, "heap-be.trace read little-endian");
    tk_cacheray_reader_free(cr);
    tk_input_close(in);
    tk_options_free(o);
    free(d);

    d = example("ucir/hello.ucir", &n);
    o = tk_options_new(&err);
    assert_int_equal(tk_options_set(o, "max-frame", "100", &err), TK_OK);
    rs_seq got = {0}, native = {0};
    r = tk_reader_from_memory(d, n, NULL, o, &err);
    assert_non_null(r);
    rs_read(r, &got);
    tk_reader_free(r);
    in = tk_input_from_memory(d, n, "m", &want);
    tk_ucir_reader_options ro = {.threads = 1, .max_frame = 100};
    tk_ucir_reader *ur = tk_ucir_reader_new(in, &ro, &want);
    tk_ucir_op op;
    while ((native.rc = tk_ucir_next(ur, &op, &native.err)) > 0)
        native.n++;
    tk_ucir_reader_free(ur);
    tk_input_close(in);
    assert_int_equal(got.rc, -1);
    assert_int_equal(native.rc, -1);
    assert_int_equal(got.n, native.n);
    rs_assert_same_error(&native.err, &got.err, "hello.ucir with frames of 100 bytes at most");
    rs_free(&got);
    tk_options_free(o);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_malformed), cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_options),   cmocka_unit_test(test_foreach),
        cmocka_unit_test(test_skip_limit), cmocka_unit_test(test_format_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
