/* tk_options: string storage and the unsigned-number parser behind --skip,
 * --limit and friends. */
#include <string.h>

#include "testutil.h"

static tk_options *opts;

static int setup(void **state)
{
    (void)state;
    tk_error err;
    opts = tk_options_new(&err);
    return opts ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tk_options_free(opts);
    return 0;
}

static uint64_t parse_ok(const char *text)
{
    tk_error err;
    tk_error_clear(&err);
    uint64_t v = 12345;
    assert_int_equal(tk_options_set(opts, "n", text, &err), TK_OK);
    assert_int_equal(tk_options_get_u64(opts, "n", 7, &v, &err), TK_OK);
    return v;
}

static void parse_bad(const char *text)
{
    tk_error err;
    tk_error_clear(&err);
    uint64_t v = 12345;
    char want[256];
    assert_int_equal(tk_options_set(opts, "limit", text, &err), TK_OK);
    assert_int_equal(tk_options_get_u64(opts, "limit", 7, &v, &err), TK_EUSAGE);
    assert_int_equal(err.status, TK_EUSAGE);
    snprintf(want, sizeof want, "--limit: '%s' is not a non-negative number", text);
    assert_string_equal(err.message, want);
    assert_int_equal(v, 7); /* the default, never a partial parse */
}

static void test_set_get_replace(void **state)
{
    (void)state;
    tk_error err;
    assert_null(tk_options_get(opts, "endian"));
    assert_null(tk_options_get(NULL, "endian"));
    assert_int_equal(tk_options_set(opts, "endian", "big", &err), TK_OK);
    assert_string_equal(tk_options_get(opts, "endian"), "big");
    assert_int_equal(tk_options_set(opts, "endian", "little", &err), TK_OK);
    assert_string_equal(tk_options_get(opts, "endian"), "little");
    /* many keys (past the initial capacity) stay distinct */
    char key[32], val[32];
    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof key, "k%d", i);
        snprintf(val, sizeof val, "v%d", i * 3);
        assert_int_equal(tk_options_set(opts, key, val, &err), TK_OK);
    }
    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof key, "k%d", i);
        snprintf(val, sizeof val, "v%d", i * 3);
        assert_string_equal(tk_options_get(opts, key), val);
    }
    assert_string_equal(tk_options_get(opts, "endian"), "little");
}

static void test_unset_gives_default(void **state)
{
    (void)state;
    tk_error err;
    uint64_t v = 0;
    assert_int_equal(tk_options_get_u64(opts, "absent", 99, &v, &err), TK_OK);
    assert_int_equal(v, 99);
    assert_int_equal(tk_options_get_u64(NULL, "absent", UINT64_MAX, &v, &err), TK_OK);
    assert_int_equal(v, UINT64_MAX);
}

static void test_numbers_and_suffixes(void **state)
{
    (void)state;
    assert_int_equal(parse_ok("0"), 0);
    assert_int_equal(parse_ok("10"), 10);
    assert_int_equal(parse_ok("0x10"), 16);
    assert_int_equal(parse_ok("0XfF"), 255);
    assert_int_equal(parse_ok("4K"), 4096);
    assert_int_equal(parse_ok("4k"), 4096);
    assert_int_equal(parse_ok("3M"), 3u << 20);
    assert_int_equal(parse_ok("3m"), 3u << 20);
    assert_int_equal(parse_ok("2G"), (uint64_t)2 << 30);
    assert_int_equal(parse_ok("2g"), (uint64_t)2 << 30);
    assert_int_equal(parse_ok("0x10K"), 16384);
    assert_int_equal(parse_ok("18446744073709551615"), UINT64_MAX);
    assert_int_equal(parse_ok("17179869183G"), (uint64_t)17179869183 << 30);
}

static void test_rejects(void **state)
{
    (void)state;
    parse_bad("-1");
    parse_bad("-0");
    parse_bad("");
    parse_bad("abc");
    parse_bad("10x");
    parse_bad("1KB");
    parse_bad("1.5");
    parse_bad("4 K");
    parse_bad("0x");
    parse_bad("1T");
    parse_bad("18446744073709551616");  /* 2^64 */
    parse_bad("17179869184G");          /* 2^64 after the shift */
    parse_bad("18014398509481984K");    /* 2^64 after the shift */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_set_get_replace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unset_gives_default, setup, teardown),
        cmocka_unit_test_setup_teardown(test_numbers_and_suffixes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rejects, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
