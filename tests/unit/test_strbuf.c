/* tk_strbuf (src/core/strbuf.h): appends, number rendering and the JSON and
 * text string escapers every sink value goes through. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_appends_grow),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_f64_shortest),
        cmocka_unit_test(test_printf_long),
        cmocka_unit_test(test_json_escapes),
        cmocka_unit_test(test_text_strings),
        cmocka_unit_test(test_strdup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
