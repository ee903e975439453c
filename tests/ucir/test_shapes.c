/* Scale in one dimension (issue 23, bench/shapes.sh): the replay's memory
 * map with hundreds of thousands of regions, which a linear scan per map
 * made quadratic (this test then ran for minutes; its TIMEOUT fails it),
 * and the same map kept right against a page-by-page reference under
 * random maps and unmaps. */
#include "ucir_test.h"

#include <tracekit/ucir_replay.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_maps),
        cmocka_unit_test(test_maps_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
