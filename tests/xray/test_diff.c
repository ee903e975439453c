/* tracekit diff's engine on hand-built record streams: a function made
 * slower by a known amount is flagged with the right sign and size, an
 * unchanged one is not, functions of one trace only are listed as such,
 * names match functions across builds (tk_xray_diff_name, YAML maps),
 * the U statistic and p-values equal values computed independently
 * (brute-force enumeration and the formula, in Python, by hand), the
 * quantiles equal account's, and a tiny memory limit (spilling, ranking
 * by many windows) gives identical rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/xray_diff.h>

#include "testutil.h"

static void add(tk_xray_diff *d, int side, tk_xray_kind kind, int32_t func, uint64_t tsc,
                uint32_t tid)
{
    tk_error err;
    tk_xray_record r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.func_id = func;
    r.tsc = tsc;
    r.tid = tid;
    assert_int_equal(tk_xray_diff_add(d, side, &r, &err), 0);
}

/* One call of `func` lasting `lat`, from *t (moved past it). */
static void call(tk_xray_diff *d, int side, int32_t func, uint64_t lat, uint64_t *t)
{
    add(d, side, TK_XRAY_ENTER, func, *t, 1);
    add(d, side, TK_XRAY_EXIT, func, *t + lat, 1);
    *t += lat + 10;
}

static size_t rows_of(tk_xray_diff *d, int stacks, tk_xray_diff_row **rows)
{
    tk_error err;
    size_t n = 0;
    tk_error_clear(&err);
    assert_int_equal(tk_xray_diff_rows(d, stacks, rows, &n, &err), TK_OK);
    return n;
}

static const tk_xray_diff_row *row_of(const tk_xray_diff_row *r, size_t n, int32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].func_id[0] == id || (r[i].func_id[0] < 0 && r[i].func_id[1] == id))
            return &r[i];
    fail_msg("no row for function %d", id);
    return NULL;
}

/* f1 takes 500 ticks more per call in B; f2 (called by f3) keeps its
 * distribution with other samples; f4 only in A, f5 only in B. */
static void feed_known(tk_xray_diff *d, uint64_t self[2][6])
{
    uint64_t rs[2] = {11, 977};
    memset(self, 0, 2 * 6 * sizeof self[0][0]);
    for (int s = 0; s < 2; s++) {
        uint64_t t = 100;
        for (int i = 0; i < 300; i++) {
            uint64_t l1 = 1000 + (s ? 500 : 0) + tu_rand_below(&rs[s], 200);
            call(d, s, 1, l1, &t);
            self[s][1] += l1;
            uint64_t l2 = 800 + tu_rand_below(&rs[s], 400);
            add(d, s, TK_XRAY_ENTER, 3, t, 1);
            call(d, s, 2, l2, &t);
            add(d, s, TK_XRAY_EXIT, 3, t + 7, 1); /* f3's self: 10 + 7 */
            t += 20;
            self[s][2] += l2;
            self[s][3] += 17;
            call(d, s, s ? 5 : 4, 50, &t);
            self[s][s ? 5 : 4] += 50;
        }
    }
}

static void test_known_change(void **state)
{
    (void)state;
    tk_error err;
    tk_xray_diff_options o = {.stacks = 1};
    tk_xray_diff *d = tk_xray_diff_new(&o, &err);
    uint64_t self[2][6];
    feed_known(d, self);
    tk_xray_diff_row *r;
    size_t n = rows_of(d, 0, &r);
    assert_int_equal(n, 5);
    /* sorted by the change of self time: f1 first, f4 (gone) last */
    assert_int_equal(r[0].func_id[0], 1);
    assert_int_equal(r[n - 1].func_id[0], 4);
    const tk_xray_diff_row *f1 = row_of(r, n, 1), *f2 = row_of(r, n, 2), *f3 = row_of(r, n, 3);
    assert_int_equal(f1->verdict, TK_XRAY_DIFF_SLOWER);
    assert_int_equal(f1->a.count, 300);
    assert_int_equal(f1->a.self, self[0][1]);
    assert_int_equal(f1->b.self, self[1][1]);
    /* +500 a call, up to the noise of the two samples' means */
    double per_call = ((double)f1->b.self - (double)f1->a.self) / 300;
    assert_true(per_call > 470 && per_call < 530);
    assert_true(f1->p < 1e-10);
    assert_true(f1->u < 1); /* every B call is slower than every A call */
    assert_int_equal(f2->verdict, TK_XRAY_DIFF_SAME);
    assert_true(f2->p > 0.05);
    assert_int_equal(f2->a.self, self[0][2]);
    assert_int_equal(f3->a.self, self[0][3]);
    assert_int_equal(f3->b.self, self[1][3]);
    assert_int_equal(f3->a.sum, self[0][2] + self[0][3]);
    const tk_xray_diff_row *f4 = row_of(r, n, 4), *f5 = row_of(r, n, 5);
    assert_int_equal(f4->verdict, TK_XRAY_DIFF_ONLY_A);
    assert_int_equal(f4->func_id[1], -1);
    assert_int_equal(f4->b.count, 0);
    assert_int_equal(f5->verdict, TK_XRAY_DIFF_ONLY_B);
    assert_int_equal(f5->func_id[0], -1);
    assert_int_equal(f5->b.self, 15000);
    assert_true(f5->p == 1);
    free(r);
    /* call paths: f2 under f3 is its own row */
    n = rows_of(d, 1, &r);
    assert_int_equal(n, 5);
    int found = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(r[i].path, "#3;#2") == 0) {
            found = 1;
            assert_int_equal(r[i].a.self, self[0][2]);
            assert_int_equal(r[i].verdict, TK_XRAY_DIFF_SAME);
        }
    assert_true(found);
    free(r);
    tk_xray_diff_free(d);
}

/* Latencies into both sides from arrays, one call each. */
static tk_xray_diff *diff_of(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
                             uint64_t limit)
{
    tk_error err;
    tk_xray_diff_options o = {.memory_limit = limit};
    tk_xray_diff *d = tk_xray_diff_new(&o, &err);
    uint64_t t = 1;
    for (size_t i = 0; i < na; i++)
        call(d, 0, 1, a[i], &t);
    for (size_t i = 0; i < nb; i++)
        call(d, 1, 1, b[i], &t);
    return d;
}

static void check_test(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, double u,
                       double p, int exact)
{
    tk_xray_diff *d = diff_of(a, na, b, nb, 0);
    tk_xray_diff_row *r;
    assert_int_equal(rows_of(d, 0, &r), 1);
    assert_true(fabs(r[0].u - u) < 1e-9);
    assert_true(fabs(r[0].p - p) < 1e-9 * p + 1e-12);
    assert_int_equal(r[0].exact, exact);
    free(r);
    tk_xray_diff_free(d);
}

/* Reference values from tests' own Python: U by pairs, the exact p by
 * enumerating every arrangement, the approximation by the formula with
 * sum(t^3 - t) = 330. */
static void test_u_and_p(void **state)
{
    (void)state;
    const uint64_t a1[] = {1, 2, 3}, b1[] = {4, 5, 6};
    check_test(a1, 3, b1, 3, 0, 0.1, 1); /* 2 / C(6,3) */
    const uint64_t a2[] = {1, 3, 5, 7}, b2[] = {2, 4, 6, 8, 9};
    check_test(a2, 4, b2, 5, 6, 0.4126984126984127, 1);
    const uint64_t a3[] = {10, 20, 30, 40, 50, 60, 70},
                   b3[] = {15, 25, 35, 45, 55, 65, 75, 85, 95};
    check_test(a3, 7, b3, 9, 21, 0.2991258741258741, 1);
    const uint64_t a4[] = {1, 2, 2, 3, 3, 3, 4, 5, 5, 6, 7, 7, 7, 8, 9, 9, 10, 11, 12, 12, 13},
                   b4[] = {3, 4, 5, 5, 6, 7, 8, 8, 9, 10, 10, 11, 12, 13, 13, 14, 15, 15, 16, 17};
    check_test(a4, 21, b4, 20, 114.5, 0.013000725697110626, 0);
    double z;
    int exact;
    assert_true(tk_xray_diff_mwu_p(3, 0, 5, 0, &z, &exact) == 1);
    /* all equal: no variance, no evidence */
    const uint64_t same[] = {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5};
    check_test(same, 21, same, 21, 220.5, 1, 0);
}

/* Heavy-tailed latencies with many ties, sides of different sizes. */
static void fill_random(uint64_t *v, size_t n, uint64_t seed, uint64_t shift)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t x = tu_rand_below(&seed, 100);
        v[i] = x < 90 ? 100 + tu_rand_below(&seed, 300) + shift
                      : tu_rand_below(&seed, (uint64_t)1 << (20 + x % 20));
    }
}

static void test_spill_identical(void **state)
{
    (void)state;
    size_t na = 20000, nb = 15000;
    uint64_t *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
    fill_random(a, na, 3, 0);
    fill_random(b, nb, 4, 5);
    tk_xray_diff *big = diff_of(a, na, b, nb, 0), *tiny = diff_of(a, na, b, nb, 4096);
    tk_xray_diff_row *r1, *r2;
    assert_int_equal(rows_of(big, 0, &r1), 1);
    assert_int_equal(rows_of(tiny, 0, &r2), 1);
    assert_int_equal(tk_xray_diff_spilled(big), 0);
    assert_true(tk_xray_diff_spilled(tiny) > 10000);
    assert_memory_equal(&r1[0].a, &r2[0].a, sizeof r1[0].a);
    assert_memory_equal(&r1[0].b, &r2[0].b, sizeof r1[0].b);
    assert_true(r1[0].u == r2[0].u && r1[0].p == r2[0].p);
    /* the quantiles are account's */
    tk_error err;
    tk_xray_account *acc = tk_xray_account_new(NULL, &err);
    uint64_t t = 1;
    for (size_t i = 0; i < na; i++) {
        tk_xray_record rec = {.kind = TK_XRAY_ENTER, .func_id = 1, .tsc = t, .tid = 1};
        tk_xray_account_add(acc, &rec, &err);
        rec.kind = TK_XRAY_EXIT;
        rec.tsc = t + a[i];
        tk_xray_account_add(acc, &rec, &err);
        t += a[i] + 10;
    }
    tk_xray_account_row *ar;
    size_t an;
    assert_int_equal(tk_xray_account_rows(acc, TK_XRAY_SORT_FUNCID, 0, &ar, &an, &err), TK_OK);
    assert_int_equal(ar[0].med, r2[0].a.med);
    assert_int_equal(ar[0].p90, r2[0].a.p90);
    assert_int_equal(ar[0].p99, r2[0].a.p99);
    assert_int_equal(ar[0].sum, r2[0].a.sum);
    /* and U by brute force over the pairs of a sample's prefix */
    free(ar);
    tk_xray_account_free(acc);
    free(r1);
    free(r2);
    tk_xray_diff_free(big);
    tk_xray_diff_free(tiny);
    tk_xray_diff *small = diff_of(a, 900, b, 700, 1024);
    assert_int_equal(rows_of(small, 0, &r1), 1);
    double u = 0;
    for (size_t i = 0; i < 900; i++)
        for (size_t j = 0; j < 700; j++)
            u += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
    assert_true(r1[0].u == u);
    free(r1);
    tk_xray_diff_free(small);
    free(a);
    free(b);
}

static void test_names(void **state)
{
    (void)state;
    tk_error err;
    tk_xray_diff *d = tk_xray_diff_new(NULL, &err);
    assert_int_equal(tk_xray_diff_name(d, 0, 1, "foo", &err), TK_OK);
    assert_int_equal(tk_xray_diff_name(d, 1, 9, "foo", &err), TK_OK);
    assert_int_equal(tk_xray_diff_name(d, 1, 9, "bar", &err), TK_EUSAGE);
    uint64_t t = 1;
    call(d, 0, 1, 100, &t);
    call(d, 1, 9, 100, &t);
    call(d, 1, 1, 100, &t); /* B's id 1 is unnamed: another row */
    tk_xray_diff_row *r;
    assert_int_equal(rows_of(d, 0, &r), 2);
    const tk_xray_diff_row *foo = r[0].name ? &r[0] : &r[1];
    assert_string_equal(foo->name, "foo");
    assert_int_equal(foo->func_id[0], 1);
    assert_int_equal(foo->func_id[1], 9);
    assert_int_equal(foo->a.count, 1);
    assert_int_equal(foo->b.count, 1);
    free(r);
    tk_xray_diff_free(d);
}

static const char *map_name(void *m, int32_t id) { return tk_xray_map_name(m, id); }

/* Two builds whose ids are swapped: YAML maps match them by name. */
static void test_yaml_maps(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    static const char ya[] =
        "---\n"
        "- { id: 1, address: 0x10, function: 0x10, kind: function-enter, "
        "always-instrument: false, function-name: alpha }\n"
        "- { id: 2, address: 0x20, function: 0x20, kind: function-enter, "
        "always-instrument: false, function-name: beta }\n...\n";
    static const char yb[] =
        "---\n"
        "- { id: 1, address: 0x10, function: 0x10, kind: function-enter, "
        "always-instrument: false, function-name: beta }\n"
        "- { id: 2, address: 0x20, function: 0x20, kind: function-enter, "
        "always-instrument: false, function-name: alpha }\n...\n";
    char pa[4096], pb[4096];
    snprintf(pa, sizeof pa, "%s", tu_path(dir, "a.yaml"));
    snprintf(pb, sizeof pb, "%s", tu_path(dir, "b.yaml"));
    tu_write_file(pa, ya, sizeof ya - 1);
    tu_write_file(pb, yb, sizeof yb - 1);
    tk_error err;
    tk_xray_map *ma = tk_xray_map_open(pa, &err), *mb = tk_xray_map_open(pb, &err);
    assert_non_null(ma);
    assert_non_null(mb);
    tk_xray_diff_options o = {.name = {map_name, map_name}, .name_ctx = {ma, mb}};
    tk_xray_diff *d = tk_xray_diff_new(&o, &err);
    uint64_t t = 1;
    for (int i = 0; i < 30; i++) {
        call(d, 0, 1, 100 + (uint64_t)i, &t); /* alpha */
        call(d, 0, 2, 500 + (uint64_t)i, &t); /* beta */
        call(d, 1, 2, 300 + (uint64_t)i, &t); /* alpha, slower */
        call(d, 1, 1, 500 + (uint64_t)i, &t); /* beta */
    }
    tk_xray_diff_row *r;
    assert_int_equal(rows_of(d, 0, &r), 2);
    assert_string_equal(r[0].name, "alpha");
    assert_int_equal(r[0].func_id[0], 1);
    assert_int_equal(r[0].func_id[1], 2);
    assert_int_equal(r[0].verdict, TK_XRAY_DIFF_SLOWER);
    assert_int_equal(r[0].b.self - r[0].a.self, 30 * 200);
    assert_string_equal(r[1].name, "beta");
    assert_int_equal(r[1].verdict, TK_XRAY_DIFF_SAME);
    assert_true(r[1].p == 1);
    free(r);
    tk_xray_diff_free(d);
    tk_xray_map_free(ma);
    tk_xray_map_free(mb);
    tu_rmdir(dir);
}

/* B's calls take fewer ticks at a double frequency: the same time. */
static void test_frequencies(void **state)
{
    (void)state;
    tk_error err;
    tk_xray_diff_options o = {.freq = {1000000000, 2000000000}};
    tk_xray_diff *d = tk_xray_diff_new(&o, &err);
    assert_true(tk_xray_diff_units_per_second(d) == 1e12);
    uint64_t t = 1;
    for (int i = 0; i < 50; i++) {
        call(d, 0, 1, 1000 + (uint64_t)i, &t);
        call(d, 1, 1, 2000 + 2 * (uint64_t)i, &t);
    }
    tk_xray_diff_row *r;
    assert_int_equal(rows_of(d, 0, &r), 1);
    assert_int_equal(r[0].a.sum, r[0].b.sum);
    assert_int_equal(r[0].a.med, 1025000);
    assert_int_equal(r[0].verdict, TK_XRAY_DIFF_SAME);
    free(r);
    tk_xray_diff_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_change), cmocka_unit_test(test_u_and_p),
        cmocka_unit_test(test_spill_identical), cmocka_unit_test(test_names),
        cmocka_unit_test(test_yaml_maps), cmocka_unit_test(test_frequencies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
