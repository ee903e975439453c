/* Scale in one dimension (issue 23, bench/shapes.sh): the replay's memory
 * map with hundreds of thousands of regions, which a linear scan per map
 * made quadratic (this test then ran for minutes; its TIMEOUT fails it),
 * and the same map kept right against a page-by-page reference under
 * random maps and unmaps. The address tree under it (ucir/addr_tree.c)
 * stays balanced whatever the order of the maps (a sorted array shifted
 * on each insert: quadratic from the top down), and maps from the top
 * down or interleaved with unmaps give what maps from the bottom up give,
 * in the replay and in the regions of the HTML and Perfetto exports. */
#include "ucir_test.h"

#include <tracekit/ucir_replay.h>

#include "ucir/addr_tree.h"
#include "ucir/modules.h"
#include "ucir/regions.h"

#define PAGE 0x1000ull
#define BASE 0x10000000ull

static tk_ucir_replay *machine(void)
{
    tk_ucir_header h;
    memset(&h, 0, sizeof h);
    h.arch = TK_UCIR_ARCH_X86;
    h.mode = TK_UCIR_MODE_64;
    tk_error err;
    tk_ucir_replay *rp = tk_ucir_replay_new(&h, &err);
    assert_non_null(rp);
    return rp;
}

static void op(tk_ucir_replay *rp, tk_ucir_kind kind, uint64_t addr, uint64_t size, uint8_t prot)
{
    tk_ucir_op o = {.kind = kind, .addr = addr, .size = size, .prot = prot};
    tk_ucir_pos pos;
    memset(&pos, 0, sizeof pos);
    tk_error err;
    assert_int_equal(tk_ucir_replay_apply(rp, &o, &pos, &err), 1);
}

/* 300k one-page maps, then one map of 600k pages cut by 300k unmaps */
static void test_many_maps(void **state)
{
    (void)state;
    enum { N = 300000 };
    tk_ucir_replay *rp = machine();
    for (uint64_t i = 0; i < N; i++)
        op(rp, TK_UCIR_MEM_MAP, BASE + 2 * PAGE * i, PAGE, (uint8_t)(1 + i % 7));
    assert_int_equal(tk_ucir_replay_maps(rp, NULL, 0), N);
    op(rp, TK_UCIR_MEM_MAP, BASE, 2 * PAGE * N, 3); /* replaces them all */
    assert_int_equal(tk_ucir_replay_maps(rp, NULL, 0), 1);
    for (uint64_t i = 0; i < N; i++)
        op(rp, TK_UCIR_MEM_UNMAP, BASE + 2 * PAGE * i + PAGE, PAGE, 0);
    tk_ucir_map *m = malloc(N * sizeof *m);
    assert_non_null(m);
    assert_int_equal(tk_ucir_replay_maps(rp, m, N), N);
    for (uint64_t i = 0; i < N; i++) {
        assert_int_equal(m[i].addr, BASE + 2 * PAGE * i);
        assert_int_equal(m[i].size, PAGE);
        assert_int_equal(m[i].prot, 3);
    }
    free(m);
    tk_ucir_replay_free(rp);
}

/* random maps and unmaps over 64 pages against a prot per page */
static void test_maps_reference(void **state)
{
    (void)state;
    enum { PAGES = 64 };
    uint8_t want[PAGES] = {0}; /* 0: unmapped, else prot + 1 */
    uint64_t x = 12345;
    tk_ucir_replay *rp = machine();
    for (int k = 0; k < 20000; k++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        unsigned first = (unsigned)(x >> 33) % PAGES, n = 1 + (unsigned)(x >> 45) % 12;
        if (first + n > PAGES)
            n = PAGES - first;
        uint8_t prot = (uint8_t)((x >> 20) % 8);
        int unmap = (x >> 60) < 5;
        op(rp, unmap ? TK_UCIR_MEM_UNMAP : TK_UCIR_MEM_MAP, BASE + PAGE * first, PAGE * n, prot);
        for (unsigned p = first; p < first + n; p++)
            want[p] = unmap ? 0 : (uint8_t)(prot + 1);
        tk_ucir_map m[PAGES + 1];
        size_t nm = tk_ucir_replay_maps(rp, m, PAGES + 1);
        assert_true(nm <= PAGES);
        uint8_t got[PAGES] = {0};
        for (size_t i = 0; i < nm; i++) {
            assert_true(m[i].size > 0 && m[i].size % PAGE == 0 && m[i].addr >= BASE);
            if (i)
                assert_true(m[i - 1].addr + m[i - 1].size <= m[i].addr); /* sorted, disjoint */
            for (uint64_t a = m[i].addr; a < m[i].addr + m[i].size; a += PAGE)
                got[(a - BASE) / PAGE] = (uint8_t)(m[i].prot + 1);
        }
        assert_memory_equal(got, want, PAGES);
    }
    tk_ucir_replay_free(rp);
}

/* ---- the address tree */

/* The height of subtree n (whose parent is `up`), checking keys in
 * (lo, hi), parent links, stored heights and the AVL balance; *count
 * gets its nodes. */
static int32_t check_subtree(const tk_ucir_atree *t, uint32_t n, uint32_t up, uint64_t lo,
                             uint64_t hi, int have_lo, size_t *count)
{
    if (!n)
        return 0;
    const tk_ucir_anode *a = &t->nodes[n];
    assert_true(a->key < hi && (!have_lo || a->key > lo));
    assert_int_equal(a->parent, up);
    int32_t l = check_subtree(t, a->left, n, lo, a->key, have_lo, count);
    int32_t r = check_subtree(t, a->right, n, a->key, hi, 1, count);
    assert_true(l - r <= 1 && r - l <= 1);
    assert_int_equal(a->height, 1 + (l > r ? l : r));
    (*count)++;
    return a->height;
}

/* The tree holds exactly want[0..n) (sorted), listed in order, with the
 * height of a balanced tree: 1.44 log2(n + 2) at most; floor finds each
 * key from the hint (walking up) and from afar (walking down). */
static void check_tree(tk_ucir_atree *t, const uint64_t *want, size_t n)
{
    size_t count = 0;
    int32_t h = check_subtree(t, t->root, 0, 0, UINT64_MAX, 0, &count);
    assert_int_equal(count, n);
    assert_int_equal(t->n, n);
    int32_t bound = 1;
    for (size_t m = n + 2; m > 1; m /= 2)
        bound++;
    assert_true(h <= bound * 144 / 100 + 1);
    size_t i = 0;
    uint32_t prev = 0;
    for (uint32_t k = tk_ucir_atree_first(t); k; prev = k, k = tk_ucir_atree_next(t, k), i++) {
        assert_true(i < n);
        assert_int_equal(t->nodes[k].key, want[i]);
        assert_int_equal(t->nodes[k].prev, prev);
        assert_int_equal(tk_ucir_atree_floor(t, want[i]), k);
        assert_int_equal(tk_ucir_atree_floor(t, want[i] + 1), k); /* keys are even */
        if (prev)
            assert_int_equal(tk_ucir_atree_floor(t, want[i] - 1), prev);
    }
    assert_int_equal(t->last, prev);
    assert_int_equal(i, n);
    for (size_t j = n; j-- > 0;) { /* downwards: never next to the hint */
        uint32_t k = tk_ucir_atree_floor(t, want[j] + 1);
        assert_true(k && t->nodes[k].key == want[j]);
    }
    if (n)
        assert_int_equal(tk_ucir_atree_floor(t, want[0] - 1), 0);
}

/* Inserts in descending, ascending and random order, erases at random,
 * against a sorted array, the shape checked as it goes. */
static void test_tree(void **state)
{
    (void)state;
    enum { N = 3000 };
    tk_ucir_atree t;
    memset(&t, 0, sizeof t);
    uint64_t *want = malloc(N * sizeof *want), *elems = NULL, rs = 7;
    uint32_t *ids = malloc(N * sizeof *ids);
    assert_true(want && ids);
    size_t n = 0;
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < N / 3; i++) {
            uint64_t key = round == 0 ? 2 * (N - i) : round == 1 ? 2 * (N + 1 + i)
                                                               : 2 * (2 * N + tu_rand(&rs) % N);
            size_t at = 0;
            while (at < n && want[at] < key)
                at++;
            if (at < n && want[at] == key)
                continue;
            assert_int_equal(tk_ucir_atree_reserve(&t, (void **)&elems, sizeof *elems), 0);
            uint32_t k = tk_ucir_atree_insert(&t, key);
            elems[k] = key;
            memmove(want + at + 1, want + at, (n - at) * sizeof *want);
            memmove(ids + at + 1, ids + at, (n - at) * sizeof *ids);
            want[at] = key;
            ids[at] = k;
            n++;
            if (i % 97 == 0)
                check_tree(&t, want, n);
        }
        check_tree(&t, want, n);
    }
    while (n) { /* erase at random: ids and elements stay put */
        size_t at = tu_rand(&rs) % n;
        tk_ucir_atree_erase(&t, ids[at]);
        memmove(want + at, want + at + 1, (n - at - 1) * sizeof *want);
        memmove(ids + at, ids + at + 1, (n - at - 1) * sizeof *ids);
        n--;
        for (size_t i = 0; i < n; i += 53)
            assert_int_equal(elems[ids[i]], want[i]);
        if (n % 101 == 0)
            check_tree(&t, want, n);
    }
    check_tree(&t, want, 0);
    free(want);
    free(ids);
    free(elems);
    tk_ucir_atree_free(&t);
}

/* ---- maps from the top down and interleaved with unmaps */

/* The replay's map after `count` two-page maps, each then half unmapped
 * (its upper page: a trimmed tail; every third one its lower page: a
 * trimmed head), visited in order `order` (0 up, 1 down, 2 interleaved),
 * and a last unmap over the upper half of the area. */
static size_t map_sequence(int order, size_t count, tk_ucir_map *m)
{
    tk_ucir_replay *rp = machine();
    for (size_t j = 0; j < count; j++) {
        size_t i = order == 0 ? j : order == 1 ? count - 1 - j : j % 2 ? j / 2 : count - 1 - j / 2;
        uint64_t a = BASE + 4 * PAGE * i;
        op(rp, TK_UCIR_MEM_MAP, a, 3 * PAGE, (uint8_t)(1 + i % 7));
        op(rp, TK_UCIR_MEM_UNMAP, a + (i % 3 ? 2 : 0) * PAGE, PAGE, 0);
    }
    op(rp, TK_UCIR_MEM_UNMAP, BASE + 4 * PAGE * (count / 2) + PAGE, 4 * PAGE * count, 0);
    size_t n = tk_ucir_replay_maps(rp, m, 2 * count);
    tk_ucir_replay_free(rp);
    return n;
}

static void test_orders(void **state)
{
    (void)state;
    enum { N = 20000 };
    tk_ucir_map *want = calloc(2 * N, sizeof *want), *got = calloc(2 * N, sizeof *got);
    assert_true(want && got);
    size_t n = map_sequence(0, N, want);
    assert_int_equal(n, N / 2 + 1);
    for (size_t i = 0; i < n; i++) { /* as built, from the bottom up */
        uint64_t a = BASE + 4 * PAGE * i;
        assert_int_equal(want[i].addr, a + (i % 3 ? 0 : PAGE));
        assert_int_equal(want[i].size, i == N / 2 ? PAGE : 2 * PAGE);
        assert_int_equal(want[i].prot, 1 + i % 7);
    }
    for (int order = 1; order <= 2; order++) {
        memset(got, 0, 2 * N * sizeof *got);
        assert_int_equal(map_sequence(order, N, got), n);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(got[i].addr, want[i].addr);
            assert_int_equal(got[i].size, want[i].size);
            assert_int_equal(got[i].prot, want[i].prot);
        }
    }
    free(want);
    free(got);
}

/* The regions' spans the same way: each page's span (or none) and the map
 * it came from, for maps from the top down and from the bottom up. */
static void test_regions_orders(void **state)
{
    (void)state;
    enum { N = 20000 };
    tk_ucir_regions r[2];
    tk_error err;
    for (int down = 0; down < 2; down++) {
        tk_ucir_regions_init(&r[down]);
        for (size_t j = 0; j < N; j++) {
            size_t i = down ? N - 1 - j : j;
            uint64_t a = BASE + 4 * PAGE * i;
            assert_int_equal(tk_ucir_regions_map(&r[down], a, 3 * PAGE, 3, "f", 1, &err), TK_OK);
            assert_int_equal(
                tk_ucir_regions_unmap(&r[down], a + (i % 3 ? 2 : 0) * PAGE, PAGE, &err), TK_OK);
            if (i % 5 == 0) /* a hole in the middle: a split */
                assert_int_equal(tk_ucir_regions_unmap(&r[down], a + PAGE, 1, &err), TK_OK);
        }
    }
    for (uint64_t a = BASE - PAGE; a < BASE + 4 * PAGE * N; a += PAGE / 2) {
        tk_ucir_span *s = tk_ucir_regions_find(&r[0], a), *t = tk_ucir_regions_find(&r[1], a);
        uint64_t i = (a - BASE) / (4 * PAGE), off = (a - BASE) % (4 * PAGE);
        int mapped = a >= BASE && off < 3 * PAGE && off / PAGE != (i % 3 ? 2 : 0) &&
                     !(i % 5 == 0 && off == PAGE);
        assert_int_equal(s != NULL, mapped);
        assert_int_equal(t != NULL, mapped);
        if (!mapped)
            continue;
        assert_true(s->lo == t->lo && s->hi == t->hi && s->lo <= a && a < s->hi);
        assert_int_equal(s->map_addr, BASE + 4 * PAGE * i);
        assert_int_equal(t->map_addr, s->map_addr);
        assert_int_equal(t->map_size, 3 * PAGE);
        assert_string_equal(t->label, "f");
    }
    tk_ucir_regions_free(&r[0]);
    tk_ucir_regions_free(&r[1]);
}

/* Past TK_UCIR_MAX_SPANS live spans, later maps are not followed: from
 * the top down, the lowest pages are the ones left out. */
static void test_regions_limit(void **state)
{
    (void)state;
    const uint64_t n = TK_UCIR_MAX_SPANS + 100;
    tk_ucir_regions r;
    tk_ucir_regions_init(&r);
    tk_error err;
    for (uint64_t j = 0; j < n; j++)
        assert_int_equal(tk_ucir_regions_map(&r, BASE + 2 * PAGE * (n - 1 - j), PAGE, 1, "", 0,
                                             &err), TK_OK);
    assert_int_equal(r.tree.n, TK_UCIR_MAX_SPANS);
    for (uint64_t i = 0; i < n; i += 7) {
        tk_ucir_span *s = tk_ucir_regions_find(&r, BASE + 2 * PAGE * i + 1);
        assert_int_equal(s != NULL, i >= 100);
        assert_null(tk_ucir_regions_find(&r, BASE + 2 * PAGE * i + PAGE));
    }
    /* full: a split keeps only the left part */
    assert_int_equal(tk_ucir_regions_unmap(&r, BASE + 2 * PAGE * 200 + 16, 16, &err), TK_OK);
    assert_non_null(tk_ucir_regions_find(&r, BASE + 2 * PAGE * 200 + 15));
    assert_null(tk_ucir_regions_find(&r, BASE + 2 * PAGE * 200 + 32));
    assert_int_equal(r.tree.n, TK_UCIR_MAX_SPANS);
    tk_ucir_regions_free(&r);
}

/* ---- drcov's modules */

/* Random lookups; where no module holds the address, a module around it
 * (of random extent: over earlier ones, inside or across them) is added,
 * as drcov does. Each lookup gives the first module added holding the
 * address, as a scan of the list in order does, and adds visit at most
 * one union interval each in all (a walk over all the earlier modules a
 * new one spans made many overlapping modules quadratic). */
static void test_modules_reference(void **state)
{
    (void)state;
    enum { N = 3000, SPACE = 1 << 22 };
    uint64_t (*ref)[2] = malloc(N * sizeof *ref), rs = 11;
    assert_non_null(ref);
    tk_ucir_modules m;
    memset(&m, 0, sizeof m);
    uint32_t n = 0;
    for (int q = 0; q < 200000 && n < N; q++) {
        uint64_t addr = tu_rand(&rs) % SPACE;
        int64_t want = -1;
        for (uint32_t i = 0; i < n && want < 0; i++)
            if (ref[i][0] <= addr && addr <= ref[i][1])
                want = i;
        assert_int_equal(tk_ucir_modules_find(&m, addr), want);
        if (want >= 0)
            continue;
        uint64_t below = tu_rand(&rs) % (q % 41 ? 1024 : SPACE / 256);
        uint64_t above = tu_rand(&rs) % (q % 37 ? 1024 : SPACE / 256);
        ref[n][0] = addr > below ? addr - below : 0;
        ref[n][1] = addr + above;
        assert_int_equal(tk_ucir_modules_add(&m, ref[n][0], ref[n][1], n), 0);
        n++;
        assert_true(m.visits <= n);
    }
    assert_int_equal(n, N);
    for (int q = 0; q < 20000; q++) {
        uint64_t addr = tu_rand(&rs) % (SPACE + SPACE / 64);
        int64_t want = -1;
        for (uint32_t i = 0; i < n && want < 0; i++)
            if (ref[i][0] <= addr && addr <= ref[i][1])
                want = i;
        assert_int_equal(tk_ucir_modules_find(&m, addr), want);
    }
    /* the top of the address space, inclusive */
    assert_int_equal(tk_ucir_modules_add(&m, UINT64_MAX - 10, UINT64_MAX, n), 0);
    assert_int_equal(tk_ucir_modules_find(&m, UINT64_MAX), n);
    assert_int_equal(tk_ucir_modules_find(&m, UINT64_MAX - 11), -1);
    tk_ucir_modules_free(&m);
    free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_maps),
        cmocka_unit_test(test_maps_reference),
        cmocka_unit_test(test_tree),
        cmocka_unit_test(test_orders),
        cmocka_unit_test(test_regions_orders),
        cmocka_unit_test(test_regions_limit),
        cmocka_unit_test(test_modules_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
