/* The probe table (tk_format_probe): every example is its format; a cut
 * header is its format's truncation error; zeros, garbage and too little
 * of a Cacheray record are "not a recognized trace". */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

/* The format name probed from `d` (NULL when none), error in *err. */
static const char *probe_mem(const void *d, size_t n, tk_error *err)
{
    tk_input *in = tk_input_from_memory(d, n, "mem", err);
    assert_non_null(in);
    const tk_format *f = tk_format_probe(in, err);
    tk_input_close(in);
    return f ? tk_format_name(f) : NULL;
}

static void assert_unrecognized(const void *d, size_t n)
{
    tk_error err;
    tk_error_clear(&err);
    const char *name = probe_mem(d, n, &err);
    if (name)
        fail_msg("%zu bytes probed as %s", n, name);
    assert_int_equal(err.status, TK_EMALFORMED);
    assert_string_equal(err.message, "not a recognized trace (use --format)");
    assert_true(err.offset == TK_NO_OFFSET);
}

/* Validate `d` as format `name` (forced when given, else probed). */
static tk_status validate_mem(const void *d, size_t n, const char *name,
                              uint64_t *nwarn, tk_error *err)
{
    tk_input *in = tk_input_from_memory(d, n, "mem", err);
    assert_non_null(in);
    const tk_format *f = name ? tk_format_find(name) : tk_format_probe(in, err);
    assert_non_null(f);
    tk_status st = tk_validate(f, in, NULL, NULL, nwarn, err);
    tk_input_close(in);
    return st;
}

static void test_examples(void **state)
{
    (void)state;
    static const char *const dirs[] = {"cacheray", "casemate", "ucir", "xray"};
    int seen = 0;
    for (size_t k = 0; k < 4; k++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", TK_EXAMPLES_DIR, dirs[k]);
        DIR *d = opendir(dir);
        assert_non_null(d);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            const char *path = tu_path(dir, e->d_name), *dot = strrchr(e->d_name, '.');
            struct stat sb;
            if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) ||
                (dot && (!strcmp(dot, ".c") || !strcmp(dot, ".md") || !strcmp(dot, ".txt"))))
                continue;
            size_t n;
            uint8_t *data = tu_read_file(path, &n);
            assert_non_null(data);
            tk_error err;
            const char *name = probe_mem(data, n, &err);
            if (!name || strcmp(name, dirs[k]) != 0)
                fail_msg("%s probed as %s", path, name ? name : err.message);
            seen++;
            free(data);
        }
        closedir(d);
    }
    assert_true(seen >= 7);
}

/* 4 to 31 bytes of an XRay file: XRay's own "too small" error at offset 0,
 * never a Cacheray record (basic-v3 starts 03 00, an rtta_remove tag). */
static void test_xray_prefix(void **state)
{
    (void)state;
    static const char *const files[] = {"basic-v3.xray", "fdr-v5.xray"};
    for (size_t k = 0; k < 2; k++) {
        size_t size;
        uint8_t *data = tu_read_file(tu_path(TK_EXAMPLES_DIR "/xray", files[k]), &size);
        assert_non_null(data);
        for (size_t n = 1; n < 32; n++) {
            if (n < 4) { /* not even the version and mode */
                assert_unrecognized(data, n);
                continue;
            }
            tk_error err;
            const char *name = probe_mem(data, n, &err);
            assert_non_null(name);
            assert_string_equal(name, "xray");
            uint64_t nwarn;
            assert_int_equal(validate_mem(data, n, NULL, &nwarn, &err), TK_EMALFORMED);
            char want[80];
            snprintf(want, sizeof want, "file too small for an XRay header (%zu of 32 bytes)", n);
            assert_string_equal(err.message, want);
            assert_int_equal(err.offset, 0);
        }
        free(data);
    }
}

static void test_ucir_prefix(void **state)
{
    (void)state;
    tk_error err;
    uint64_t nwarn;
    assert_string_equal(probe_mem("UCIR\0\0", 6, &err), "ucir");
    assert_int_equal(validate_mem("UCIR\0\0", 6, NULL, &nwarn, &err), TK_EMALFORMED);
    assert_string_equal(err.message, "truncated header: needs at least 8 bytes, 6 in the input");
    assert_int_equal(err.offset, 0);
    assert_unrecognized("UCI", 3);
}

/* Zeros are no trace, however many (the first 4 KiB decide); --format
 * still reads them. */
static void test_zeros(void **state)
{
    (void)state;
    uint8_t *zeros = calloc(1, 8192);
    assert_non_null(zeros);
    static const size_t sizes[] = {1, 17, 18, 36, 1800, 4096, 8192};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        assert_unrecognized(zeros, sizes[i]);
    tk_error err;
    uint64_t nwarn = 0;
    assert_int_equal(validate_mem(zeros, 1800, "cacheray", &nwarn, &err), TK_OK);
    assert_int_equal(nwarn, 100); /* 100 reads of 0 bytes */
    free(zeros);
}

/* Random bytes of every short length never pass for a binary trace; the
 * rare one that is text casemate accepts (a '!' line) must read as such. */
static void test_short_garbage(void **state)
{
    (void)state;
    uint64_t seed = 42;
    uint8_t buf[64];
    int logs = 0;
    for (int trial = 0; trial < 20000; trial++) {
        size_t n = 1 + (size_t)tu_rand_below(&seed, sizeof buf);
        for (size_t i = 0; i < n; i++)
            buf[i] = (uint8_t)tu_rand(&seed);
        if (trial & 1)
            buf[0] &= 0x03; /* a valid Cacheray tag */
        tk_error err;
        const char *name = probe_mem(buf, n, &err);
        if (!name)
            continue;
        if (strcmp(name, "casemate") != 0)
            fail_msg("%zu random bytes (trial %d) probed as %s", n, trial, name);
        uint64_t nwarn;
        assert_int_equal(validate_mem(buf, n, NULL, &nwarn, &err), TK_OK);
        logs++;
    }
    assert_true(logs < 20);
    assert_unrecognized("hello", 5);
    assert_unrecognized("!\x01\x02binary", 9);
}

/* Cacheray has no magic: its records must decode and look real (3 in 4). */
static void test_cacheray_plausible(void **state)
{
    (void)state;
    tu_buf b = {0};
    tk_error err;
    for (int i = 0; i < 3; i++)
        tu_access(&b, TK_CACHERAY_READ, 0x7ffe1000 + 8 * (uint64_t)i, 8, 1);
    tu_access(&b, TK_CACHERAY_WRITE, 0x7ffe2000, 0, 1); /* zero size: not real */
    assert_string_equal(probe_mem(b.p, b.len, &err), "cacheray");
    tu_access(&b, TK_CACHERAY_WRITE, 0, 4, 1); /* address 0: not real; 3 of 5 */
    assert_unrecognized(b.p, b.len);
    tu_buf_free(&b);

    tu_access(&b, TK_CACHERAY_READ, 0x1234567890abcdefULL, 8, 1); /* not canonical */
    assert_unrecognized(b.p, b.len);
    tu_buf_free(&b);
    tu_access(&b, TK_CACHERAY_READ, 0x7ffe1000, 8, (uint64_t)1 << 40); /* thread id */
    assert_unrecognized(b.p, b.len);
    tu_buf_free(&b);
    tu_add(&b, 0x601000, 1, 16, 4, "struct\x01", 7); /* unprintable name */
    assert_unrecognized(b.p, b.len);
    tu_buf_free(&b);

    /* big-endian, an RTTA pair, and a last record cut short: still
     * Cacheray (the reader then says where it ends) */
    b.big = 1;
    tu_add(&b, 0x601000, 7, 16, 4, "struct.point", 12);
    tu_remove(&b, 0x601000, 7);
    tu_access(&b, TK_CACHERAY_READ, 0x601008, 4, 7);
    assert_string_equal(probe_mem(b.p, b.len - 5, &err), "cacheray");
    uint64_t nwarn;
    assert_int_equal(validate_mem(b.p, b.len - 5, NULL, &nwarn, &err), TK_EMALFORMED);
    assert_string_equal(err.message, "truncated read record: needs 18 bytes, 13 left");
    /* less than one whole record: only --format reads it */
    assert_unrecognized(b.p, 20);
    tu_buf_free(&b);
}

/* A casemate log with nothing but its '!' line scores the threshold. */
static void test_threshold(void **state)
{
    (void)state;
    tk_error err;
    assert_string_equal(probe_mem("! BBM valid->valid\n", 19, &err), "casemate");
    assert_unrecognized("; only a comment\n", 17);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_xray_prefix),
        cmocka_unit_test(test_ucir_prefix),
        cmocka_unit_test(test_zeros),
        cmocka_unit_test(test_short_garbage),
        cmocka_unit_test(test_cacheray_plausible),
        cmocka_unit_test(test_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
