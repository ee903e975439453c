/* Cacheray checker: each warning kind with its exact code and message, the
 * live-region bookkeeping (an overlapping RTTA_ADD ends what it overlaps,
 * removal by exact start only), and a random comparison with a naive
 * model. */
#include <stdlib.h>
#include <string.h>

#include "cacheray/cacheray_int.h"
#include "testutil.h"

static tk_cacheray_checker *chk;
static tk_cacheray_warning w[16];

static int setup(void **state)
{
    (void)state;
    tk_error err;
    chk = tk_cacheray_checker_new(&err);
    return chk ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tk_cacheray_checker_free(chk); /* with regions still live: no leak */
    return 0;
}

static int access_(uint8_t size)
{
    tk_error err;
    tk_cacheray_record r = {TK_CACHERAY_READ, 0, size, 0x1234, 0, 0, 0, 0, NULL};
    return tk_cacheray_check(chk, &r, 0x36, 3, w, 16, &err);
}

static int add(uint64_t addr, uint32_t elemsize, uint32_t elemcount)
{
    tk_error err;
    tk_cacheray_record r = {TK_CACHERAY_RTTA_ADD, 0, 0, addr, 0, elemsize, elemcount, 1, "T"};
    return tk_cacheray_check(chk, &r, 0x100, 9, w, 16, &err);
}

static int rm(uint64_t addr)
{
    tk_error err;
    tk_cacheray_record r = {TK_CACHERAY_RTTA_REMOVE, 0, 0, addr, 0, 0, 0, 0, NULL};
    return tk_cacheray_check(chk, &r, 0x200, 11, w, 16, &err);
}

static void expect_warning(int i, tk_cacheray_warning_kind kind, const char *code,
                           const char *message, uint64_t addr)
{
    assert_int_equal(w[i].kind, kind);
    assert_string_equal(w[i].code, code);
    assert_string_equal(w[i].message, message);
    assert_int_equal(w[i].addr, addr);
}

static void test_zero_size(void **state)
{
    (void)state;
    tk_error err;
    assert_int_equal(access_(4), 0);
    assert_int_equal(access_(0), 1);
    expect_warning(0, TK_CACHERAY_WARN_ZERO_SIZE, "zero-size", "access of 0 bytes", 0x1234);
    assert_int_equal(w[0].offset, 0x36);
    assert_int_equal(w[0].record, 3);
    tk_cacheray_record wr = {TK_CACHERAY_WRITE, TK_CACHERAY_ATOMIC, 0, 9, 0, 0, 0, 0, NULL};
    assert_int_equal(tk_cacheray_check(chk, &wr, 0, 0, w, 16, &err), 1);
    assert_int_equal(tk_cacheray_checker_live(chk), 0);
}

static void test_remove_by_exact_start(void **state)
{
    (void)state;
    assert_int_equal(rm(0x1000), 1);
    expect_warning(0, TK_CACHERAY_WARN_REMOVE_UNKNOWN, "remove-unknown",
                   "rtta_remove with no live region starting there", 0x1000);
    assert_int_equal(w[0].offset, 0x200);
    assert_int_equal(w[0].record, 11);
    assert_int_equal(add(0x1000, 16, 4), 0); /* [0x1000, 0x1040) */
    assert_int_equal(tk_cacheray_checker_live(chk), 1);
    assert_int_equal(rm(0x1010), 1); /* inside, not the start */
    assert_int_equal(w[0].kind, TK_CACHERAY_WARN_REMOVE_UNKNOWN);
    assert_int_equal(rm(0x0fff), 1);
    assert_int_equal(tk_cacheray_checker_live(chk), 1);
    assert_int_equal(rm(0x1000), 0);
    assert_int_equal(tk_cacheray_checker_live(chk), 0);
    assert_int_equal(rm(0x1000), 1); /* already gone */
}

static void test_overlap_ends_regions(void **state)
{
    (void)state;
    assert_int_equal(add(0x1000, 0x100, 1), 0);
    assert_int_equal(add(0x2000, 0x80, 2), 0);
    assert_int_equal(add(0x3000, 0x100, 1), 0);
    assert_int_equal(add(0x1100, 0x10, 1), 0); /* adjacent is not overlapping */
    assert_int_equal(tk_cacheray_checker_live(chk), 4);
    /* [0x10f0, 0x2010) covers 0x1100 and reaches into 0x1000 and 0x2000 */
    assert_int_equal(add(0x10f0, 0xf20, 1), 3);
    expect_warning(0, TK_CACHERAY_WARN_OVERLAP, "overlap", "rtta_add overlaps a live region, which it ends",
                   0x10f0);
    assert_int_equal(w[0].other_addr, 0x1000);
    assert_int_equal(w[1].other_addr, 0x1100);
    assert_int_equal(w[2].other_addr, 0x2000);
    assert_int_equal(w[2].offset, 0x100);
    assert_int_equal(w[2].record, 9);
    assert_int_equal(tk_cacheray_checker_live(chk), 2); /* 0x3000 and the new one */
    assert_int_equal(rm(0x1000), 1);                     /* ended by the overlap */
    assert_int_equal(rm(0x2000), 1);
    assert_int_equal(rm(0x3000), 0);
    assert_int_equal(rm(0x10f0), 0);
    assert_int_equal(tk_cacheray_checker_live(chk), 0);
}

static void test_overlap_same_start_and_inside(void **state)
{
    (void)state;
    assert_int_equal(add(0x1000, 16, 1), 0);
    assert_int_equal(add(0x1000, 8, 1), 1); /* same start */
    assert_int_equal(w[0].other_addr, 0x1000);
    assert_int_equal(tk_cacheray_checker_live(chk), 1);
    assert_int_equal(add(0x1004, 1, 1), 1); /* strictly inside [0x1000, 0x1008) */
    assert_int_equal(w[0].other_addr, 0x1000);
    assert_int_equal(tk_cacheray_checker_live(chk), 1);
    assert_int_equal(rm(0x1000), 1);
    assert_int_equal(rm(0x1004), 0);
}

static void test_overlap_many_capped(void **state)
{
    (void)state;
    tk_error err;
    for (uint64_t i = 0; i < 5; i++)
        assert_int_equal(add(0x1000 + 0x100 * i, 0x10, 1), 0);
    tk_cacheray_record big = {TK_CACHERAY_RTTA_ADD, 0, 0, 0x800, 0, 0x1000, 1, 0, NULL};
    tk_cacheray_warning two[2];
    memset(two, 0, sizeof two);
    /* all five counted, only `cap` written */
    assert_int_equal(tk_cacheray_check(chk, &big, 0, 0, two, 2, &err), 5);
    assert_int_equal(two[0].other_addr, 0x1000);
    assert_int_equal(two[1].other_addr, 0x1100);
    assert_int_equal(tk_cacheray_checker_live(chk), 1);
    tk_cacheray_record again = big;
    assert_int_equal(tk_cacheray_check(chk, &again, 0, 0, NULL, 0, &err), 1);
}

static void test_empty_region(void **state)
{
    (void)state;
    assert_int_equal(add(0x1000, 0, 5), 1);
    expect_warning(0, TK_CACHERAY_WARN_EMPTY_REGION, "empty-region",
                   "rtta_add of an empty region (elemsize or elemcount 0)", 0x1000);
    assert_int_equal(tk_cacheray_checker_live(chk), 1); /* still tracked */
    assert_int_equal(add(0x2000, 8, 0), 1);
    assert_int_equal(w[0].kind, TK_CACHERAY_WARN_EMPTY_REGION);
    /* an empty region at a live start overlaps it */
    assert_int_equal(add(0x1000, 0, 0), 2);
    assert_int_equal(w[0].kind, TK_CACHERAY_WARN_EMPTY_REGION);
    assert_int_equal(w[1].kind, TK_CACHERAY_WARN_OVERLAP);
    assert_int_equal(w[1].other_addr, 0x1000);
    assert_int_equal(tk_cacheray_checker_live(chk), 2);
    assert_int_equal(rm(0x1000), 0);
    assert_int_equal(rm(0x2000), 0);
}

static void test_region_wraps(void **state)
{
    (void)state;
    assert_int_equal(add(0xffffffffffffff00ULL, 0x100, 2), 1);
    expect_warning(0, TK_CACHERAY_WARN_REGION_WRAPS, "region-wraps",
                   "rtta_add region runs past the end of the address space",
                   0xffffffffffffff00ULL);
    /* clamped to the end of the address space: a later region there overlaps */
    assert_int_equal(add(0xfffffffffffffff0ULL, 4, 1), 1);
    assert_int_equal(w[0].kind, TK_CACHERAY_WARN_OVERLAP);
    assert_int_equal(w[0].other_addr, 0xffffffffffffff00ULL);
    /* the size is computed in 64 bits: 0xffffffff * 0xffffffff fits */
    assert_int_equal(add(0x1000, 0xffffffffu, 0xffffffffu), 0);
    assert_int_equal(add(0x7fff00000000ULL, 8, 1), 1);
    assert_int_equal(w[0].other_addr, 0x1000);
}

static void test_region_ends_at_top(void **state)
{
    (void)state;
    /* [0xfff...f0, 2^64) reaches the end without passing it: no warning,
     * and its last byte is still part of it. */
    assert_int_equal(add(0xfffffffffffffff0ULL, 16, 1), 0);
    assert_int_equal(add(0xffffffffffffffffULL, 1, 1), 1);
    assert_int_equal(w[0].kind, TK_CACHERAY_WARN_OVERLAP);
    assert_int_equal(w[0].other_addr, 0xfffffffffffffff0ULL);
    assert_int_equal(tk_cacheray_checker_live(chk), 1);
}

/* More warnings than `cap`: the count is right and the checker keeps all
 * of them for callers such as validate. */
static void test_warnings_beyond_cap(void **state)
{
    (void)state;
    tk_error err;
    for (uint64_t i = 0; i < 20; i++)
        assert_int_equal(add(0x10000 + 0x100 * i, 0x10, 1), 0);
    tk_cacheray_record r = {TK_CACHERAY_RTTA_ADD, 0, 0, 0x10000, 0, 0x100, 20, 1, "T"};
    tk_cacheray_warning one[1];
    assert_int_equal(tk_cacheray_check(chk, &r, 0x200, 21, one, 1, &err), 20);
    assert_int_equal(one[0].other_addr, 0x10000);
    const tk_cacheray_warning *all = tk_cacheray_checker_warnings(chk);
    for (int i = 0; i < 20; i++) {
        assert_int_equal(all[i].kind, TK_CACHERAY_WARN_OVERLAP);
        assert_int_equal(all[i].other_addr, 0x10000 + 0x100 * (uint64_t)i);
        assert_int_equal(all[i].record, 21);
    }
    assert_int_equal(tk_cacheray_checker_live(chk), 1);
}

/* ---- random comparison with a list-based model */

typedef struct model {
    uint64_t start[8192], last[8192]; /* inclusive; empty regions flagged */
    int empty[8192];
    uint32_t tag[8192];               /* tk_cacheray_checker_tag's */
    size_t n;
    uint32_t removed;                 /* the tag an RTTA_REMOVE ended */
} model;

static void model_drop(model *m, size_t i)
{
    m->n--;
    m->start[i] = m->start[m->n];
    m->last[i] = m->last[m->n];
    m->empty[i] = m->empty[m->n];
    m->tag[i] = m->tag[m->n];
}

/* Warnings the model expects for `r`: kinds and other_addr in order. */
static int model_check(model *m, const tk_cacheray_record *r, tk_cacheray_warning *out)
{
    int k = 0;
    m->removed = TK_CACHERAY_NO_TAG;
    if (r->type == TK_CACHERAY_RTTA_REMOVE) {
        for (size_t i = 0; i < m->n; i++)
            if (m->start[i] == r->addr) {
                m->removed = m->tag[i];
                model_drop(m, i);
                return 0;
            }
        out[k++].kind = TK_CACHERAY_WARN_REMOVE_UNKNOWN;
        return k;
    }
    uint64_t size = (uint64_t)r->elemsize * r->elemcount;
    uint64_t s = r->addr, e = s + size - 1;
    int empty = size == 0;
    if (empty)
        out[k++].kind = TK_CACHERAY_WARN_EMPTY_REGION;
    else if (e < s) {
        out[k++].kind = TK_CACHERAY_WARN_REGION_WRAPS;
        e = UINT64_MAX;
    }
    for (;;) { /* overlapped regions in ascending start order */
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < m->n; i++)
            if ((m->start[i] == s ||
                 (!empty && !m->empty[i] && m->start[i] <= e && s <= m->last[i])) &&
                (best == SIZE_MAX || m->start[i] < m->start[best]))
                best = i;
        if (best == SIZE_MAX)
            break;
        out[k].kind = TK_CACHERAY_WARN_OVERLAP;
        out[k].offset = m->tag[best]; /* the tag it ended, for the test */
        out[k++].other_addr = m->start[best];
        model_drop(m, best);
    }
    m->tag[m->n] = TK_CACHERAY_NO_TAG;
    m->start[m->n] = s;
    m->last[m->n] = empty ? s : e;
    m->empty[m->n++] = empty;
    return k;
}

static void test_random_against_model(void **state)
{
    (void)state;
    tk_error err;
    static model m;
    memset(&m, 0, sizeof m);
    uint64_t rs = 99, next = 0x10000;
    tk_cacheray_warning want[64], got[64];
    for (int i = 0; i < 20000; i++) {
        tk_cacheray_record r = {0};
        int near_top = tu_rand_below(&rs, 50) == 0;
        uint64_t base = near_top ? 0xfffffffffffff000ULL : 0x10000;
        r.addr = base + 8 * tu_rand_below(&rs, 500);
        /* runs in address order (the checker's path without a search),
         * with removals and a step back now and then */
        if (!near_top && (i / 1000) % 2 == 1) {
            if (i % 1000 == 0) /* from among the regions live */
                next = 0x10000 + 8 * tu_rand_below(&rs, 500);
            next += 8 * tu_rand_below(&rs, 6);
            r.addr = next - 8 * (tu_rand_below(&rs, 8) == 0);
        }
        if (tu_rand_below(&rs, 3) == 0) {
            r.type = TK_CACHERAY_RTTA_REMOVE;
        } else {
            r.type = TK_CACHERAY_RTTA_ADD;
            r.elemsize = (uint32_t)tu_rand_below(&rs, 24);
            r.elemcount = (uint32_t)tu_rand_below(&rs, 4);
        }
        assert_true(m.n < 8192);
        int nw = model_check(&m, &r, want);
        int ng = tk_cacheray_check(chk, &r, 0, (uint64_t)i, got, 64, &err);
        assert_int_equal(ng, nw);
        for (int k = 0; k < nw; k++) {
            assert_int_equal(got[k].kind, want[k].kind);
            if (want[k].kind == TK_CACHERAY_WARN_OVERLAP) {
                assert_int_equal(got[k].other_addr, want[k].other_addr);
                assert_int_equal(tk_cacheray_checker_ended(chk, k), want[k].offset);
            }
            assert_int_equal(got[k].record, (uint64_t)i);
        }
        if (r.type == TK_CACHERAY_RTTA_REMOVE)
            assert_int_equal(tk_cacheray_checker_removed(chk), m.removed);
        else if (i % 2) { /* every other region tagged with its record */
            tk_cacheray_checker_tag(chk, (uint32_t)i);
            m.tag[m.n - 1] = (uint32_t)i;
        }
        assert_int_equal(tk_cacheray_checker_live(chk), m.n);
    }
}

/* ---- region_tree.c's lookups (the simulator's), against the model */

static void count_ended(void *ctx, tk_cr_region *r)
{
    (void)r;
    ++*(int *)ctx;
}

/* What tk_cr_regions_around must say for addr: the non-empty regions
 * starting last at or before it and first after it. */
static void expect_around(tk_cr_regions *t, const model *m, uint64_t addr)
{
    size_t best = SIZE_MAX, after = SIZE_MAX;
    for (size_t i = 0; i < m->n; i++) {
        if (m->empty[i])
            continue;
        if (m->start[i] <= addr && (best == SIZE_MAX || m->start[i] > m->start[best]))
            best = i;
        if (m->start[i] > addr && (after == SIZE_MAX || m->start[i] < m->start[after]))
            after = i;
    }
    const tk_cr_region *a, *b = tk_cr_regions_around(t, addr, &a);
    assert_true((b == NULL) == (best == SIZE_MAX));
    if (b)
        assert_int_equal(b->last, m->last[best]);
    assert_true((a == NULL) == (after == SIZE_MAX));
    if (a)
        assert_int_equal(a->start, m->start[after]);
}

/* Lookups in address order (from the last answer, a step at a time),
 * backwards and at random, between random adds and removes. */
static void test_tree_lookups_against_model(void **state)
{
    (void)state;
    static model m;
    memset(&m, 0, sizeof m);
    tk_cr_regions *t = tk_cr_regions_new();
    assert_non_null(t);
    uint64_t rs = 7;
    tk_cacheray_warning want[64];
    for (int i = 0; i < 6000; i++) {
        tk_cacheray_record r = {0};
        r.addr = 0x10000 + 8 * tu_rand_below(&rs, 400);
        r.type = tu_rand_below(&rs, 3) ? TK_CACHERAY_RTTA_ADD : TK_CACHERAY_RTTA_REMOVE;
        r.elemsize = (uint32_t)tu_rand_below(&rs, 24);
        r.elemcount = (uint32_t)tu_rand_below(&rs, 3);
        int nw = model_check(&m, &r, want), ended = 0, overlaps = 0;
        for (int k = 0; k < nw; k++)
            overlaps += want[k].kind == TK_CACHERAY_WARN_OVERLAP;
        if (r.type == TK_CACHERAY_RTTA_ADD) {
            assert_non_null(tk_cr_regions_add(t, r.addr, (uint64_t)r.elemsize * r.elemcount,
                                              count_ended, &ended));
        } else {
            /* the model warns only when no region starts there */
            assert_int_equal(tk_cr_regions_remove(t, r.addr, count_ended, &ended), nw == 0);
            overlaps = nw == 0;
        }
        assert_int_equal(ended, overlaps);
        assert_int_equal(tk_cr_regions_count(t), m.n);
        if (i % 50)
            continue;
        for (uint64_t a = 0xfff0; a < 0x10000 + 8 * 420; a += 1 + tu_rand_below(&rs, 12))
            expect_around(t, &m, a);
        for (uint64_t a = 0x10000 + 8 * 420; a > 0xfff0; a -= 1 + tu_rand_below(&rs, 40))
            expect_around(t, &m, a);
        for (int k = 0; k < 50; k++)
            expect_around(t, &m, 0xfff0 + tu_rand_below(&rs, 8 * 420));
    }
    tk_cr_regions_free(t);
}

/* 200k empty regions alive at once (bench/shapes.sh, "empty"): each add
 * used to walk back over all the empty ones before it (minutes; now a
 * tree lookup), and a region over all of them still ends none of them. */
static void test_many_empty_regions(void **state)
{
    (void)state;
    enum { N = 200000 };
    for (uint64_t i = 0; i < N; i++)
        assert_int_equal(add(0x100000 + 64 * i, 8, 0), 1); /* empty-region */
    assert_int_equal(add(0x100000 + 64 * N, 8, 1), 0);
    assert_int_equal(add(0x100008, 8, 8 * N), 1); /* overlaps the one above */
    expect_warning(0, TK_CACHERAY_WARN_OVERLAP, "overlap",
                   "rtta_add overlaps a live region, which it ends", 0x100008);
    assert_int_equal(w[0].other_addr, 0x100000 + 64 * N);
    assert_int_equal(tk_cacheray_checker_live(chk), N + 1);
    assert_int_equal(add(0x100000 + 64 * 7, 4, 2), 2); /* the big one and the empty one */
    assert_int_equal(w[0].other_addr, 0x100008);
    assert_int_equal(w[1].other_addr, 0x100000 + 64 * 7);
    assert_int_equal(rm(0x100000 + 64 * 9), 0);
    assert_int_equal(tk_cacheray_checker_live(chk), N - 1);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_zero_size),
        T(test_remove_by_exact_start),
        T(test_overlap_ends_regions),
        T(test_overlap_same_start_and_inside),
        T(test_overlap_many_capped),
        T(test_empty_region),
        T(test_region_wraps),
        T(test_region_ends_at_top),
        T(test_warnings_beyond_cap),
        T(test_random_against_model),
        T(test_many_empty_regions),
        T(test_tree_lookups_against_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
