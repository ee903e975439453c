/* Latency accounting semantics on hand-built record streams: statistics
 * with known answers, sibling-call deduction, recursion-only counting,
 * failures, threads that do not share a TSC floor, and exact statistics
 * when latencies spill to the temporary file. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static tk_xray_record rec(tk_xray_kind kind, int32_t func, uint64_t tsc, uint32_t tid)
{
    tk_xray_record r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.func_id = func;
    r.tsc = tsc;
    r.tid = tid;
    return r;
}

static int add(tk_xray_account *a, tk_xray_kind kind, int32_t func, uint64_t tsc,
               uint32_t tid)
{
    tk_error err;
    tk_xray_record r = rec(kind, func, tsc, tid);
    return tk_xray_account_add(a, &r, &err);
}

static const tk_xray_account_row *row_of(const tk_xray_account_row *rows, size_t n,
                                         int32_t func)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].func_id == func)
            return &rows[i];
    fail_msg("no row for function %d", func);
    return NULL;
}

/* tk_xray_account_rows, which must succeed: the number of rows. */
static size_t rows_of(tk_xray_account *a, tk_xray_account_sort sort, int descending,
                      tk_xray_account_row **rows)
{
    tk_error err;
    size_t n = 0;
    tk_error_clear(&err);
    assert_int_equal(tk_xray_account_rows(a, sort, descending, rows, &n, &err), TK_OK);
    assert_int_equal(err.status, TK_OK);
    return n;
}

/* Latencies 1..100 in shuffled order: element n/2 of the sorted list is 51,
 * floor(0.9n) = 90 -> 91, floor(0.99n) = 99 -> 100. */
static void test_statistics(void **state)
{
    (void)state;
    tk_error err;
    tk_xray_account *a = tk_xray_account_new(NULL, &err);
    uint64_t lat[100], rs = 5, t = 1000;
    for (int i = 0; i < 100; i++)
        lat[i] = (uint64_t)i + 1;
    for (int i = 99; i > 0; i--) {
        uint64_t j = tu_rand_below(&rs, (uint64_t)i + 1), x = lat[i];
        lat[i] = lat[j];
        lat[j] = x;
    }
    for (int i = 0; i < 100; i++) {
        assert_int_equal(add(a, TK_XRAY_ENTER, 7, t, 1), 0);
        assert_int_equal(add(a, TK_XRAY_EXIT, 7, t + lat[i], 1), 0);
        t += 1000;
    }
    tk_xray_account_row *rows;
    assert_int_equal(rows_of(a, TK_XRAY_SORT_FUNCID, 0, &rows), 1);
    assert_int_equal(rows[0].func_id, 7);
    assert_int_equal(rows[0].count, 100);
    assert_int_equal(rows[0].min, 1);
    assert_int_equal(rows[0].med, 51);
    assert_int_equal(rows[0].p90, 91);
    assert_int_equal(rows[0].p99, 100);
    assert_int_equal(rows[0].max, 100);
    assert_int_equal(rows[0].sum, 5050);
    free(rows);
    tk_xray_account_free(a);
}

/* Repeated latencies (one histogram bucket holding many calls). */
static void test_repeated_latencies(void **state)
{
    (void)state;
    tk_error err;
    tk_xray_account *a = tk_xray_account_new(NULL, &err);
    /* 7 calls of 10 ticks, 3 of 20: sorted 10x7,20x3 -> med idx 5 = 10,
     * p90 idx 9 = 20, p99 idx 9 = 20 */
    for (int i = 0; i < 10; i++) {
        uint64_t t = 100 * (uint64_t)i;
        add(a, TK_XRAY_ENTER, 1, t, 1);
        add(a, TK_XRAY_EXIT, 1, t + (i < 7 ? 10 : 20), 1);
    }
    tk_xray_account_row *rows;
    assert_int_equal(rows_of(a, TK_XRAY_SORT_FUNCID, 0, &rows), 1);
    assert_int_equal(rows[0].med, 10);
    assert_int_equal(rows[0].p90, 20);
    assert_int_equal(rows[0].p99, 20);
    assert_int_equal(rows[0].sum, 130);
    free(rows);
    tk_xray_account_free(a);
}

/* f -> g -> h, h returns, then f's exit arrives with g's missing. */
static void test_sibling_calls(void **state)
{
    (void)state;
    tk_error err;
    for (int deduce = 0; deduce < 2; deduce++) {
        tk_xray_account_options o = {deduce, 0, 0};
        tk_xray_account *a = tk_xray_account_new(&o, &err);
        add(a, TK_XRAY_ENTER, 1, 100, 9);
        add(a, TK_XRAY_ENTER, 2, 110, 9);
        add(a, TK_XRAY_ENTER, 3, 120, 9);
        assert_int_equal(add(a, TK_XRAY_EXIT, 3, 125, 9), TK_XRAY_ACCOUNT_OK);
        int f = add(a, TK_XRAY_TAIL_EXIT, 1, 200, 9);
        tk_xray_account_row *rows;
        size_t n = rows_of(a, TK_XRAY_SORT_FUNCID, 0, &rows);
        if (!deduce) {
            assert_int_equal(f, TK_XRAY_ACCOUNT_UNMATCHED_EXIT);
            assert_int_equal(n, 1); /* only h */
            int32_t open[4];
            assert_int_equal(tk_xray_account_stack(a, 9, open, 4), 2);
            assert_int_equal(open[0], 1);
            assert_int_equal(open[1], 2);
        } else {
            assert_int_equal(f, TK_XRAY_ACCOUNT_OK);
            assert_int_equal(n, 3);
            assert_int_equal(row_of(rows, n, 1)->sum, 100); /* 200 - 100 */
            assert_int_equal(row_of(rows, n, 2)->sum, 90);  /* 200 - 110 */
            assert_int_equal(row_of(rows, n, 3)->sum, 5);
            assert_int_equal(tk_xray_account_stack(a, 9, NULL, 0), 0);
        }
        free(rows);
        tk_xray_account_free(a);
    }
}

/* Only calls made while a function is recursing count. */
static void test_recursive_only(void **state)
{
    (void)state;
    tk_error err;
    tk_xray_account_options o = {0, 1, 0};
    tk_xray_account *a = tk_xray_account_new(&o, &err);
    add(a, TK_XRAY_ENTER, 5, 0, 1); /* a plain call of 6 first */
    add(a, TK_XRAY_ENTER, 6, 1, 1);
    add(a, TK_XRAY_EXIT, 6, 2, 1);
    add(a, TK_XRAY_ENTER, 5, 10, 1); /* 5 recurses: depth 2 */
    add(a, TK_XRAY_ENTER, 5, 20, 1);
    add(a, TK_XRAY_EXIT, 5, 25, 1);
    add(a, TK_XRAY_EXIT, 5, 40, 1);
    add(a, TK_XRAY_EXIT, 5, 50, 1);
    tk_xray_account_row *rows;
    size_t n = rows_of(a, TK_XRAY_SORT_FUNCID, 0, &rows);
    assert_int_equal(n, 1);
    assert_int_equal(rows[0].func_id, 5);
    assert_int_equal(rows[0].count, 3);
    assert_int_equal(rows[0].sum, 5 + 30 + 50);
    free(rows);
    tk_xray_account_free(a);
}

/* Exits with nothing open fail; events are ignored; threads are separate,
 * and a thread starting earlier than the first record is fine. */
static void test_failures_and_threads(void **state)
{
    (void)state;
    tk_error err;
    tk_xray_account *a = tk_xray_account_new(NULL, &err);
    assert_int_equal(add(a, TK_XRAY_EXIT, 1, 10, 1), TK_XRAY_ACCOUNT_EMPTY_STACK);
    tk_xray_record ev = rec(TK_XRAY_CUSTOM_EVENT, 0, 5, 1);
    assert_int_equal(tk_xray_account_add(a, &ev, &err), 0);
    add(a, TK_XRAY_ENTER, 1, 1000, 1);
    add(a, TK_XRAY_ENTER, 1, 500, 2); /* earlier TSC, other thread */
    assert_int_equal(add(a, TK_XRAY_EXIT, 1, 600, 2), TK_XRAY_ACCOUNT_OK);
    assert_int_equal(add(a, TK_XRAY_EXIT, 2, 1100, 1), TK_XRAY_ACCOUNT_UNMATCHED_EXIT);
    assert_int_equal(add(a, TK_XRAY_EXIT, 1, 1300, 1), TK_XRAY_ACCOUNT_OK);
    tk_xray_account_row *rows;
    assert_int_equal(rows_of(a, TK_XRAY_SORT_SUM, 1, &rows), 1);
    assert_int_equal(rows[0].count, 2);
    assert_int_equal(rows[0].min, 100);
    assert_int_equal(rows[0].max, 300);
    free(rows);
    tk_xray_account_free(a);
}

/* Sorting: by a field, descending, ties broken by function id. */
/* Four functions, ids direct and past the direct table (hashed), one call
 * each of the given latencies. */
static tk_xray_account *four_functions(void)
{
    tk_error err;
    tk_xray_account *a = tk_xray_account_new(NULL, &err);
    int32_t ids[] = {4, 2, 9 + (1 << 20), 3};
    uint64_t lats[] = {50, 10, 50, 30};
    for (int i = 0; i < 4; i++) {
        add(a, TK_XRAY_ENTER, ids[i], 1000 * (uint64_t)i, 1);
        add(a, TK_XRAY_EXIT, ids[i], 1000 * (uint64_t)i + lats[i], 1);
    }
    return a;
}

static void test_sorting(void **state)
{
    (void)state;
    tk_xray_account *a = four_functions();
    tk_xray_account_row *rows;
    assert_int_equal(rows_of(a, TK_XRAY_SORT_MAX, 1, &rows), 4);
    assert_int_equal(rows[0].func_id, 4);
    assert_int_equal(rows[1].func_id, 9 + (1 << 20));
    assert_int_equal(rows[2].func_id, 3);
    assert_int_equal(rows[3].func_id, 2);
    assert_int_equal(rows[0].med, 50);
    assert_int_equal(rows[2].p99, 30);
    assert_int_equal(rows[3].sum, 10);
    free(rows);
    /* the rows were handed over: a second call is refused */
    tk_error err;
    size_t n = 7;
    tk_error_clear(&err);
    assert_int_equal(tk_xray_account_rows(a, TK_XRAY_SORT_FUNCID, 0, &rows, &n, &err),
                     TK_EUSAGE);
    assert_null(rows);
    assert_int_equal(n, 0);
    tk_xray_account_free(a);
    a = four_functions();
    assert_int_equal(rows_of(a, TK_XRAY_SORT_FUNCID, 0, &rows), 4);
    assert_int_equal(rows[0].func_id, 2);
    assert_int_equal(rows[3].func_id, 9 + (1 << 20));
    free(rows);
    tk_xray_account_free(a);
}

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Latency of call i of function f, from distributions that stress the
 * selection: constant, few distinct values, narrow, wide (64-bit), and
 * heavy ties at the quantiles. */
static uint64_t latency(int f, uint64_t i)
{
    switch (f % 6) {
    case 0: return 42;
    case 1: return 1000 + rng() % 3;
    case 2: return 5000 + rng() % 70000;
    case 3: return rng() >> (24 + rng() % 40); /* up to 2^40: a thread's clock
                                                  must not wrap */
    case 4: return i % 10 < 8 ? 777 : rng() % 100000;
    default: return i * 7 % 1000003;
    }
}

/* Sorted reference statistics. */
static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Many calls of 12 functions, accounted with a tiny memory limit (most
 * latencies spill, some lists need histogram narrowing) and with the
 * default: the same rows, equal to sorting each function's latencies. */
static void test_spill_exact(void **state)
{
    (void)state;
    tk_error err;
    enum { NF = 12 };
    static const uint64_t calls[NF] = {1, 2, 15, 16, 17, 100, 5000, 20000,
                                        60000, 100000, 150000, 3};
    uint64_t *lat[NF];
    for (int f = 0; f < NF; f++) {
        lat[f] = malloc(calls[f] * sizeof *lat[f]);
        assert_non_null(lat[f]);
        for (uint64_t i = 0; i < calls[f]; i++)
            lat[f][i] = latency(f, i);
    }
    tk_xray_account_row *rows[2];
    size_t n[2];
    for (int run = 0; run < 2; run++) {
        tk_xray_account_options o = {0, 0, run == 0 ? 4096 : 0};
        tk_xray_account *a = tk_xray_account_new(&o, &err);
        /* interleave the functions' calls on two threads */
        uint64_t next[NF] = {0}, tsc = 1;
        for (int left = 1; left;) {
            left = 0;
            for (int f = 0; f < NF; f++)
                for (int b = 0; b < 7 && next[f] < calls[f]; b++, next[f]++) {
                    left = 1;
                    uint32_t tid = (uint32_t)(f & 1);
                    assert_int_equal(add(a, TK_XRAY_ENTER, f, tsc, tid), 0);
                    assert_int_equal(add(a, TK_XRAY_EXIT, f, tsc + lat[f][next[f]], tid), 0);
                    tsc += lat[f][next[f]] + 1; /* a thread's time never goes back */
                }
        }
        if (run == 0)
            assert_true(tk_xray_account_spilled(a) > 300000);
        else
            assert_int_equal(tk_xray_account_spilled(a), 0);
        n[run] = rows_of(a, TK_XRAY_SORT_FUNCID, 0, &rows[run]);
        assert_int_equal(n[run], NF);
        tk_xray_account_free(a);
    }
    for (int f = 0; f < NF; f++) {
        qsort(lat[f], calls[f], sizeof *lat[f], cmp_u64);
        uint64_t c = calls[f], sum = 0;
        for (uint64_t i = 0; i < c; i++)
            sum += lat[f][i];
        for (int run = 0; run < 2; run++) {
            const tk_xray_account_row *r = row_of(rows[run], n[run], f);
            assert_int_equal(r->count, c);
            assert_int_equal(r->min, lat[f][0]);
            assert_int_equal(r->max, lat[f][c - 1]);
            assert_int_equal(r->sum, sum);
            assert_int_equal(r->med, lat[f][c / 2]);
            assert_int_equal(r->p90, lat[f][(uint64_t)((double)c * 0.9)]);
            assert_int_equal(r->p99, lat[f][(uint64_t)((double)c * 0.99)]);
        }
        free(lat[f]);
    }
    free(rows[0]);
    free(rows[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_statistics),
        cmocka_unit_test(test_repeated_latencies),
        cmocka_unit_test(test_sibling_calls),
        cmocka_unit_test(test_recursive_only),
        cmocka_unit_test(test_failures_and_threads),
        cmocka_unit_test(test_sorting),
        cmocka_unit_test(test_spill_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
