/* tk_strbuf (src/core/strbuf.h): appends, number rendering and the JSON and
 * text string escapers every sink value goes through. */
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/numfmt.h"
#include "core/strbuf.h"
#include "testutil.h"

/* Render with `fn` into a fresh buffer and compare exactly. */
#define EXPECT(call, want)                                                   \
    do {                                                                     \
        tk_strbuf b_ = {0};                                                  \
        tk_strbuf *b = &b_;                                                  \
        call;                                                                \
        assert_int_equal(b->len, strlen(want));                              \
        assert_string_equal(b->p ? b->p : "", want);                         \
        sb_free(b);                                                          \
    } while (0)

static void test_appends_grow(void **state)
{
    (void)state;
    tk_strbuf b = {0};
    for (int i = 0; i < 1000; i++)
        sb_puts(&b, "0123456789");
    sb_putc(&b, '!');
    sb_pad(&b, '-', 5);
    sb_putn(&b, "abc\0def", 7); /* embedded NUL kept */
    assert_int_equal(b.len, 10000 + 1 + 5 + 7);
    assert_memory_equal(b.p + 9990, "0123456789!-----abc\0def", 24);
    assert_int_equal(b.p[b.len], '\0');
    size_t cap = b.cap;
    sb_reset(&b);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, cap); /* storage kept */
    sb_free(&b);
    assert_null(b.p);
    assert_int_equal(b.cap, 0);
}

/* tk_array_grow_zeroed: doubling from `first` past the index, old values
 * kept, new ones zero, no change when the index fits. */
static void test_array_grow_zeroed(void **state)
{
    (void)state;
    void *p = NULL;
    size_t n = 0;
    assert_int_equal(tk_array_grow_zeroed(&p, &n, 100, sizeof(uint32_t), 16), 0);
    assert_int_equal(n, 128);
    uint32_t *v = p;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(v[i], 0);
        v[i] = (uint32_t)i + 1;
    }
    assert_int_equal(tk_array_grow_zeroed(&p, &n, 1000, sizeof(uint32_t), 16), 0);
    assert_int_equal(n, 1024);
    v = p;
    for (size_t i = 0; i < n; i++)
        assert_int_equal(v[i], i < 128 ? i + 1 : 0);
    assert_int_equal(tk_array_grow_zeroed(&p, &n, 5, sizeof(uint32_t), 16), 0);
    assert_int_equal(n, 1024);
    assert_int_equal(tk_array_grow_zeroed(&p, &n, SIZE_MAX / 2, sizeof(uint32_t), 16), -1);
    assert_int_equal(n, 1024);
    free(p);
}

static void test_integers(void **state)
{
    (void)state;
    EXPECT(sb_u64(b, 0), "0");
    EXPECT(sb_u64(b, 1234567890123ULL), "1234567890123");
    EXPECT(sb_u64(b, UINT64_MAX), "18446744073709551615");
    EXPECT(sb_i64(b, -1), "-1");
    EXPECT(sb_i64(b, INT64_MIN), "-9223372036854775808");
    EXPECT(sb_i64(b, INT64_MAX), "9223372036854775807");
    EXPECT(sb_hex(b, 0), "0x0");
    EXPECT(sb_hex(b, 0xabc), "0xabc");
    EXPECT(sb_hex(b, UINT64_MAX), "0xffffffffffffffff");
    EXPECT(sb_printf(b, "%d-%s-%05.1f", 42, "x", 2.25), "42-x-002.2");
}

static void test_f64_shortest(void **state)
{
    (void)state;
    EXPECT(sb_f64(b, 0.1), "0.1");
    EXPECT(sb_f64(b, 1.0), "1");
    EXPECT(sb_f64(b, -2.5), "-2.5");
    EXPECT(sb_f64(b, 1e300), "1e+300");
    EXPECT(sb_f64(b, 1.0 / 3.0), "0.3333333333333333");
    EXPECT(sb_f64(b, 0.1 + 0.2), "0.30000000000000004"); /* needs 17 digits */
    EXPECT(sb_f64(b, 80.0), "80");
    EXPECT(sb_f64(b, NAN), "null");
    EXPECT(sb_f64(b, INFINITY), "null");
    EXPECT(sb_f64(b, -INFINITY), "null");
    /* random doubles read back exactly */
    uint64_t rs = 42;
    for (int i = 0; i < 2000; i++) {
        double v;
        uint64_t bits = tu_rand(&rs);
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v))
            continue;
        tk_strbuf b = {0};
        sb_f64(&b, v);
        assert_true(strtod(b.p, NULL) == v);
        sb_free(&b);
    }
}

static void test_printf_long(void **state)
{
    (void)state;
    char big[3000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    tk_strbuf b = {0};
    sb_puts(&b, "<");
    sb_printf(&b, "%s>", big);
    assert_int_equal(b.len, 3001);
    assert_int_equal(b.p[0], '<');
    assert_int_equal(b.p[2999], 'q');
    assert_int_equal(b.p[3000], '>');
    assert_int_equal(b.p[3001], '\0');
    sb_free(&b);
}

static void test_json_escapes(void **state)
{
    (void)state;
    EXPECT(sb_json_str(b, "", 0), "\"\"");
    EXPECT(sb_json_str(b, "plain text", 10), "\"plain text\"");
    EXPECT(sb_json_str(b, "a\"b\\c", 5), "\"a\\\"b\\\\c\"");
    EXPECT(sb_json_str(b, "\n\r\t\b\f", 5), "\"\\n\\r\\t\\b\\f\"");
    EXPECT(sb_json_str(b, "\x01\x1f\x7f", 3), "\"\\u0001\\u001f\x7f\"");
    EXPECT(sb_json_str(b, "a\0b", 3), "\"a\\u0000b\"");
    /* valid UTF-8 passes through: é (2 bytes), € (3), 😀 (4) */
    EXPECT(sb_json_str(b, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9),
           "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    /* invalid bytes become U+FFFD one byte at a time */
    EXPECT(sb_json_str(b, "\xff", 1), "\"\\ufffd\"");
    EXPECT(sb_json_str(b, "a\x80z", 3), "\"a\\ufffdz\"");
    EXPECT(sb_json_str(b, "\xc0\xaf", 2), "\"\\ufffd\\ufffd\"");         /* overlong */
    EXPECT(sb_json_str(b, "\xed\xa0\x80", 3), "\"\\ufffd\\ufffd\\ufffd\""); /* surrogate */
    EXPECT(sb_json_str(b, "\xe2\x82", 2), "\"\\ufffd\\ufffd\"");         /* cut short */
    EXPECT(sb_json_str(b, "\xf4\x90\x80\x80", 4),                       /* > U+10FFFF */
           "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
    EXPECT(sb_json_str(b, "\xe0\x80\xaf", 3), "\"\\ufffd\\ufffd\\ufffd\""); /* overlong 3 */
}

static void test_text_strings(void **state)
{
    (void)state;
    EXPECT(sb_text_str(b, "struct.node", 11, 1), "struct.node");
    EXPECT(sb_text_str(b, "", 0, 1), "\"\"");
    EXPECT(sb_text_str(b, "", 0, 0), "");
    EXPECT(sb_text_str(b, "a b", 3, 1), "\"a b\"");
    EXPECT(sb_text_str(b, "a=b", 3, 1), "\"a=b\"");
    EXPECT(sb_text_str(b, "say \"hi\" \\o", 11, 1), "\"say \\\"hi\\\" \\\\o\"");
    /* unquoted text keeps quotes and backslashes as they are */
    EXPECT(sb_text_str(b, "a\\b\"", 4, 0), "a\\b\"");
    EXPECT(sb_text_str(b, "\x01\n\x7f", 3, 1), "\\x01\\x0a\\x7f");
    EXPECT(sb_text_str(b, "\xc3\xa9t\xff", 4, 1), "\xc3\xa9t\\xff");
    EXPECT(sb_text_str(b, "a\0", 2, 1), "a\\x00");
}

static void test_strdup(void **state)
{
    (void)state;
    tk_strbuf b = {0};
    char *s = sb_strdup(&b); /* never written: still a valid "" */
    assert_string_equal(s, "");
    free(s);
    sb_puts(&b, "xyz");
    s = sb_strdup(&b);
    assert_string_equal(s, "xyz");
    free(s);
    sb_free(&b);
}

/* ---- numbers for people (core/numfmt.h): fixed notation, units, percent */

static void test_duration_unit(void **state)
{
    (void)state;
    assert_int_equal(tk_num_duration_unit(0.0), TK_UNIT_S);
    assert_int_equal(tk_num_duration_unit(NAN), TK_UNIT_S);
    assert_int_equal(tk_num_duration_unit(INFINITY), TK_UNIT_S);
    assert_int_equal(tk_num_duration_unit(2.5), TK_UNIT_S);
    assert_int_equal(tk_num_duration_unit(1.0), TK_UNIT_S);
    assert_int_equal(tk_num_duration_unit(0.9994), TK_UNIT_MS);
    /* rounds to 1.000 s: not 999.9996 ms (which would print as 1000.000ms) */
    assert_int_equal(tk_num_duration_unit(0.9999996), TK_UNIT_S);
    assert_int_equal(tk_num_duration_unit(0.027444515), TK_UNIT_MS);
    assert_int_equal(tk_num_duration_unit(1e-3), TK_UNIT_MS);
    assert_int_equal(tk_num_duration_unit(9.99e-4), TK_UNIT_US);
    assert_int_equal(tk_num_duration_unit(1.6903e-05), TK_UNIT_US);
    assert_int_equal(tk_num_duration_unit(-2e-3), TK_UNIT_MS); /* by magnitude */
    assert_int_equal(tk_num_duration_unit(1e-6), TK_UNIT_US);
    assert_int_equal(tk_num_duration_unit(9.9e-7), TK_UNIT_NS);
    assert_int_equal(tk_num_duration_unit(1e-12), TK_UNIT_NS);
    assert_int_equal(tk_num_duration_unit(1e300), TK_UNIT_S);
}

static void test_durations(void **state)
{
    (void)state;
    EXPECT(tk_num_duration(b, 0.00123456, TK_UNIT_MS), "1.235ms");
    EXPECT(tk_num_duration(b, 0.027444515, TK_UNIT_MS), "27.445ms");
    EXPECT(tk_num_duration(b, 1.6903e-05, TK_UNIT_MS), "0.017ms");
    EXPECT(tk_num_duration(b, 1.6903e-05, TK_UNIT_US), "16.903\xC2\xB5s");
    EXPECT(tk_num_duration(b, 2.5e-10, TK_UNIT_NS), "0.250ns");
    EXPECT(tk_num_duration(b, 96.684e-6, TK_UNIT_S), "0.000s");
    EXPECT(tk_num_duration(b, 0.0, TK_UNIT_S), "0.000s");
    EXPECT(tk_num_duration(b, -0.0, TK_UNIT_S), "0.000s");
    EXPECT(tk_num_duration(b, -1.5e-3, TK_UNIT_MS), "-1.500ms");
    EXPECT(tk_num_duration(b, -1e-7, TK_UNIT_MS), "0.000ms"); /* no "-0.000" */
    EXPECT(tk_num_duration(b, 1e9, TK_UNIT_S), "1000000000.000s");
    EXPECT(tk_num_duration(b, 42.0, 99), "42.000s"); /* a bad unit: seconds */
    EXPECT(tk_num_duration(b, NAN, TK_UNIT_MS), "nan");
    EXPECT(tk_num_duration(b, INFINITY, TK_UNIT_MS), "inf");
    EXPECT(tk_num_duration(b, -INFINITY, TK_UNIT_NS), "-inf");
}

static void test_percent_and_fixed(void **state)
{
    (void)state;
    EXPECT(tk_num_percent(b, 0.227273), "22.73%");
    EXPECT(tk_num_percent(b, 0.571429), "57.14%");
    EXPECT(tk_num_percent(b, 1.0), "100.00%");
    EXPECT(tk_num_percent(b, 0.0), "0.00%");
    EXPECT(tk_num_percent(b, 0.00004), "0.00%");
    EXPECT(tk_num_percent(b, -0.00001), "0.00%");
    EXPECT(tk_num_percent(b, -0.5), "-50.00%");
    EXPECT(tk_num_percent(b, NAN), "nan");
    EXPECT(tk_num_fixed(b, 2.5, 0), "2");     /* round half to even */
    EXPECT(tk_num_fixed(b, 0.125, 2), "0.12"); /* 0.125 is exact: even */
    EXPECT(tk_num_fixed(b, -0.004, 2), "0.00");
    EXPECT(tk_num_fixed(b, -0.006, 2), "-0.01");
}

/* tk_num_printf_f against printf itself: random magnitudes, exact ties
 * (k/2 at every scale: 2.5, 0.125, 0.0000005 as near as a double gets),
 * values a hair off ties, negatives, zeros, non-finite, narrow buffers. */
static void expect_like_printf(double v, int width, int decimals, size_t cap)
{
    char want[400], got[400];
    int wn = snprintf(want, cap, "%*.*f", width, decimals, v);
    memset(got, 'x', sizeof got);
    size_t gn = tk_num_printf_f(got, cap, v, width, decimals);
    if ((size_t)wn != gn || strcmp(want, got) != 0)
        fail_msg("%.17g %%%d.%df (cap %zu): printf \"%s\" (%d), got \"%s\" (%zu)", v, width,
                 decimals, cap, want, wn, got, gn);
}

static void test_printf_f(void **state)
{
    (void)state;
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int decimals = (int)(x % 10), width = (int)(x >> 8) % 14;
        double mant = (double)(x >> 11) / 9007199254740992.0;
        double v = ldexp(mant, (int)((x >> 4) % 64) - 40);
        expect_like_printf(v, width, decimals, 400);
        double tie = (double)((x >> 20) % 2000001) / 2.0 / pow(10.0, decimals);
        expect_like_printf(tie, width, decimals, 400);
        expect_like_printf(nextafter(tie, 0.0), width, decimals, 400);
        expect_like_printf(nextafter(tie, 1e300), width, decimals, 400);
        expect_like_printf(-v, width, decimals, 400);
    }
    double special[] = {0.0, -0.0, 2.5, 0.125, 0.0000005, 1e15, 4503599627370495.5, 1e300,
                        NAN, INFINITY, -INFINITY, 5e-324};
    for (size_t i = 0; i < sizeof special / sizeof *special; i++)
        for (int d = 0; d <= 9; d++) {
            expect_like_printf(special[i], 9, d, 400);
            expect_like_printf(special[i], 0, d, 4); /* truncated like snprintf */
        }
    char u[32];
    assert_int_equal(tk_num_printf_u(u, 0, 3), 3);
    assert_string_equal(u, "  0");
    assert_int_equal(tk_num_printf_u(u, UINT64_MAX, 10), 20);
    assert_string_equal(u, "18446744073709551615");
}

static void test_plain(void **state)
{
    (void)state;
    EXPECT(tk_num_plain(b, 0.0), "0");
    EXPECT(tk_num_plain(b, -0.0), "0");
    EXPECT(tk_num_plain(b, 0.25), "0.25");
    EXPECT(tk_num_plain(b, 80.0), "80");
    EXPECT(tk_num_plain(b, -2.5), "-2.5");
    EXPECT(tk_num_plain(b, 1.6903e-05), "0.000016903");
    EXPECT(tk_num_plain(b, 0.027444515), "0.0274445");
    EXPECT(tk_num_plain(b, 1.0 / 3.0), "0.333333");
    EXPECT(tk_num_plain(b, 123456.7), "123457");
    EXPECT(tk_num_plain(b, 9.9999996), "10");
    EXPECT(tk_num_plain(b, 1e-10), "0");   /* below 9 decimals */
    EXPECT(tk_num_plain(b, -1e-300), "0"); /* and no "-0" */
    EXPECT(tk_num_plain(b, 1e15), "1000000000000000");
    EXPECT(tk_num_plain(b, NAN), "nan");
    EXPECT(tk_num_plain(b, INFINITY), "inf");
    EXPECT(tk_num_plain(b, -INFINITY), "-inf");
}

/* No rendering of any magnitude uses an exponent. */
static void test_never_scientific(void **state)
{
    (void)state;
    uint64_t seed = 17;
    for (int i = 0; i < 20000; i++) {
        int exp10 = (int)tu_rand_below(&seed, 630) - 320;
        double mant = (double)(tu_rand_below(&seed, 1000000) + 1) / 1e5;
        double v = (i & 1 ? -mant : mant) * pow(10.0, exp10);
        tk_strbuf b = {0};
        tk_num_plain(&b, v);
        sb_putc(&b, ' ');
        tk_num_percent(&b, v);
        sb_putc(&b, ' ');
        tk_num_duration(&b, v, tk_num_duration_unit(fabs(v)));
        for (int u = TK_UNIT_NS; u <= TK_UNIT_S; u++) {
            sb_putc(&b, ' ');
            tk_num_duration(&b, v, u);
        }
        if (strpbrk(b.p, "eE"))
            fail_msg("%.17g rendered as '%s'", v, b.p);
        sb_free(&b);
    }
    /* the largest finite double: all its 309 digits, no exponent */
    tk_strbuf b = {0};
    tk_num_plain(&b, DBL_MAX);
    assert_int_equal(b.len, 309);
    assert_memory_equal(b.p, "17976931348623157", 17);
    assert_null(strpbrk(b.p, "eE."));
    sb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_appends_grow),
        cmocka_unit_test(test_array_grow_zeroed),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_f64_shortest),
        cmocka_unit_test(test_printf_long),
        cmocka_unit_test(test_json_escapes),
        cmocka_unit_test(test_text_strings),
        cmocka_unit_test(test_strdup),
        cmocka_unit_test(test_duration_unit),
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_percent_and_fixed),
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_printf_f),
        cmocka_unit_test(test_never_scientific),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
