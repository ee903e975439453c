/* Selections (src/core/select.c): the grammar of --thread, --range, --addr
 * and --func, the spans they make, matching, and the errors. */
#include <string.h>

#include "core/select.h"
#include "testutil.h"

/* The selection one option makes (NULL with *err filled when it is bad). */
static tk_selection *sel1(const char *key, const char *value, tk_error *err)
{
    tk_options *o = tk_options_new(err);
    assert_non_null(o);
    assert_int_equal(tk_options_set(o, key, value, err), TK_OK);
    tk_error_clear(err);
    tk_selection *s = tk_selection_new(o, err);
    tk_options_free(o);
    /* the one-value check says the same */
    tk_error e2;
    tk_error_clear(&e2);
    assert_int_equal(tk_selection_check(key, value, &e2), s ? TK_OK : TK_EUSAGE);
    return s;
}

static tk_selection *ok(const char *key, const char *value)
{
    tk_error err;
    tk_selection *s = sel1(key, value, &err);
    if (!s)
        fail_msg("--%s %s: %s", key, value, err.message);
    return s;
}

static void bad(const char *key, const char *value, const char *message_part)
{
    tk_error err;
    tk_selection *s = sel1(key, value, &err);
    if (s)
        fail_msg("--%s '%s' was accepted", key, value);
    assert_int_equal(err.status, TK_EUSAGE);
    if (!strstr(err.message, message_part))
        fail_msg("--%s '%s': message '%s' lacks '%s'", key, value, err.message, message_part);
}

static void spans_are(const tk_span *v, size_t n, const uint64_t *want, size_t nwant)
{
    assert_int_equal(n, nwant / 2);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(v[i].lo, want[2 * i]);
        assert_int_equal(v[i].hi, want[2 * i + 1]);
    }
}

static void test_threads(void **state)
{
    (void)state;
    tk_selection *s = ok("thread", "1,5-9");
    static const uint64_t a[] = {1, 1, 5, 9};
    spans_are(s->threads, s->nthreads, a, 4);
    assert_true(tk_sel_thread(s, 1) && tk_sel_thread(s, 5) && tk_sel_thread(s, 9));
    assert_false(tk_sel_thread(s, 0) || tk_sel_thread(s, 2) || tk_sel_thread(s, 10));
    assert_false(tk_selection_empty(s));
    assert_string_equal(tk_selection_option(s), "--thread");
    tk_selection_free(s);
    /* sorted; overlapping and adjacent ranges merged; hex ids */
    s = ok("thread", "13,7-12,5-9,0x20,0xFFFFFFFFFFFFFFFF");
    static const uint64_t b[] = {5, 13, 32, 32, UINT64_MAX, UINT64_MAX};
    spans_are(s->threads, s->nthreads, b, 6);
    assert_true(tk_sel_thread(s, UINT64_MAX));
    tk_selection_free(s);
    bad("thread", "", "ids and FIRST-LAST");
    bad("thread", "5-3", "ids and FIRST-LAST");
    bad("thread", "1,", "ids and FIRST-LAST");
    bad("thread", "-1", "ids and FIRST-LAST");
    bad("thread", "1-", "ids and FIRST-LAST");
    bad("thread", "one", "ids and FIRST-LAST");
    bad("thread", "18446744073709551616", "ids and FIRST-LAST");
}

static void range_is(const char *text, uint64_t from, uint64_t to, unsigned kinds)
{
    tk_selection *s = ok("range", text);
    assert_true(s->has_range);
    assert_int_equal(s->from, from);
    assert_int_equal(s->to, to);
    assert_int_equal(s->range_kinds, kinds);
    tk_selection_free(s);
}

static void test_ranges(void **state)
{
    (void)state;
    range_is("10:20", 10, 20, TK_SEL_PLAIN);
    range_is(":20", 0, 20, TK_SEL_PLAIN);
    range_is("10:", 10, UINT64_MAX, TK_SEL_PLAIN);
    range_is("0x10:0x20", 16, 32, TK_SEL_PLAIN);
    range_is("1K:2m", 1024, 2 << 20, TK_SEL_SCALED);
    range_is("5:1G", 5, 1 << 30, TK_SEL_PLAIN | TK_SEL_SCALED);
    range_is("10ms:2.5s", 10000000, 2500000000u, TK_SEL_TIME);
    range_is("1.5us:", 1500, UINT64_MAX, TK_SEL_TIME);
    range_is("0.000000001s:3ns", 1, 3, TK_SEL_TIME);
    range_is("1\xC2\xB5s:2\xCE\xBCs", 1000, 2000, TK_SEL_TIME);
    range_is("100:1ms", 100, 1000000, TK_SEL_PLAIN | TK_SEL_TIME);
    const char *unit = "not FROM:TO";
    bad("range", ":", unit);
    bad("range", "", unit);
    bad("range", "10", unit);
    bad("range", "10:20:30", unit);
    bad("range", "1.5:3", unit);           /* a fraction needs a unit */
    bad("range", "1.0000000001s:2s", unit); /* finer than a ns */
    bad("range", "0x10ms:1s", unit);
    bad("range", "1x:2", unit);
    bad("range", "-1:2", unit);
    bad("range", "1h:2h", unit);
    bad("range", "18446744073709551616:", unit);
    bad("range", "16777216T:", unit);
    bad("range", "20000000000s:", unit); /* past 2^64 ns */
    bad("range", "20:10", "is empty");
    bad("range", "10:10", "is empty");
    bad("range", "10ms:5ms", "is empty");
}

static void test_counts_only(void **state)
{
    (void)state;
    tk_error err;
    tk_error_clear(&err);
    tk_selection *s = ok("range", "1K:2K");
    assert_int_equal(tk_sel_check_counts(s, "cacheray", "record indexes", &err), TK_OK);
    tk_selection_free(s);
    s = ok("range", "1:2ms");
    assert_int_equal(tk_sel_check_counts(s, "cacheray", "record indexes", &err), TK_EUSAGE);
    assert_string_equal(err.message,
                        "--range '1:2ms': cacheray ranges are record indexes, not times");
    assert_true(tk_sel_in_range(s, 1) && !tk_sel_in_range(s, 0));
    tk_selection_free(s);
}

static void test_addrs(void **state)
{
    (void)state;
    tk_selection *s = ok("addr", "0x1000-0x2000,0x3000+4K,0x5000,96+32");
    static const uint64_t a[] = {96, 127, 0x1000, 0x1fff, 0x3000, 0x3fff, 0x5000, 0x5000};
    spans_are(s->addrs, s->naddrs, a, 8);
    /* an access overlaps: its first byte, its last, or across */
    assert_true(tk_sel_addr(s, 0xff8, 8) == 0 && tk_sel_addr(s, 0xff9, 8) == 1);
    assert_true(tk_sel_addr(s, 0x1fff, 1) && !tk_sel_addr(s, 0x2000, 1));
    assert_true(tk_sel_addr(s, 0x4fff, 2) && !tk_sel_addr(s, 0x5001, 0));
    assert_true(tk_sel_addr(s, 0x5000, 0) && tk_sel_addr(s, 0x4000, 0x2000));
    assert_true(tk_sel_addr(s, 0, 97) && !tk_sel_addr(s, 0, 96));
    tk_selection_free(s);
    /* up to the top of the address space, and accesses wrapping past it */
    s = ok("addr", "0xfffffffffffffff0+16");
    assert_true(tk_sel_addr(s, UINT64_MAX, 8) && tk_sel_addr(s, 0xffffffffffffffe0, 0x100));
    tk_selection_free(s);
    s = ok("addr", "0-0xffffffffffffffff,0xffffffffffffffff");
    assert_int_equal(s->naddrs, 1); /* adjacent: merged */
    tk_selection_free(s);
    const char *msg = "LO-HI (HI excluded)";
    bad("addr", "0x2000-0x1000", msg);
    bad("addr", "0x1000-0x1000", msg);
    bad("addr", "0x1000+0", msg);
    bad("addr", "0xffffffffffffffff+2", msg);
    bad("addr", "0x1000:64", msg);
    bad("addr", "rsp", msg);
    bad("addr", "0x1000,", msg);
}

static void test_func_and_none(void **state)
{
    (void)state;
    tk_error err;
    tk_selection *s = ok("func", "main");
    assert_string_equal(s->func, "main");
    assert_string_equal(tk_selection_option(s), "--func");
    tk_selection_free(s);
    bad("func", "", "names no function");
    tk_options *o = tk_options_new(&err);
    tk_error_clear(&err);
    assert_int_equal(tk_options_set(o, "endian", "big", &err), TK_OK);
    s = tk_selection_new(o, &err);
    assert_non_null(s);
    assert_true(tk_selection_empty(s));
    assert_null(tk_selection_option(s));
    assert_null(tk_sel_option_given(o));
    assert_int_equal(tk_sel_refuse(s, "bbm", "why", &err), TK_OK);
    assert_int_equal(tk_options_set(o, "addr", "1", &err), TK_OK);
    assert_string_equal(tk_sel_option_given(o), "--addr");
    tk_selection_free(s);
    s = tk_selection_new(o, &err);
    assert_int_equal(tk_sel_refuse(s, "bbm", "a verdict is the whole log's", &err), TK_EUSAGE);
    assert_string_equal(err.message, "bbm takes no --addr: a verdict is the whole log's");
    tk_selection *d = tk_sel_dup(s, &err);
    assert_non_null(d);
    assert_int_equal(d->naddrs, 1);
    assert_true(d->addrs != s->addrs);
    tk_selection_free(d);
    tk_selection_free(s);
    tk_options_free(o);
    assert_true(tk_selection_empty(NULL));
    assert_int_equal(tk_selection_check("threads", "1", &err), TK_EUSAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_counts_only),
        cmocka_unit_test(test_addrs),
        cmocka_unit_test(test_func_and_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
