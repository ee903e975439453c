/* tk_topk (src/core/topk.h) against a full sort of the same items: every
 * k from 0 past n, orders with many ties (broken by index), already
 * sorted and reversed input. */
#include <stdlib.h>
#include <string.h>

#include "core/topk.h"
#include "testutil.h"

typedef struct items {
    const unsigned *key;
} items;

/* Bigger keys first, ties by index. */
static int before(const void *ctx, size_t a, size_t b)
{
    const items *it = ctx;
    return it->key[a] != it->key[b] ? it->key[a] > it->key[b] : a < b;
}

static const items *sort_ctx;

static int cmp_full(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return before(sort_ctx, x, y) ? -1 : before(sort_ctx, y, x) ? 1 : 0;
}

/* tk_topk's answer for every k equals the first k of a full sort. */
static void check_all_k(const unsigned *key, size_t n)
{
    items it = {key};
    size_t *all = malloc((n ? n : 1) * sizeof *all);
    assert_non_null(all);
    for (size_t i = 0; i < n; i++)
        all[i] = i;
    sort_ctx = &it;
    qsort(all, n, sizeof *all, cmp_full);
    for (size_t k = 0; k <= n + 2; k++) {
        size_t count = 99;
        size_t *top = tk_topk(n, k, before, &it, &count);
        assert_non_null(top);
        assert_int_equal(count, k < n ? k : n);
        assert_memory_equal(top, all, count * sizeof *top);
        free(top);
    }
    free(all);
}

static void test_random_keys(void **state)
{
    (void)state;
    uint64_t rng = 7;
    enum { N = 300 };
    unsigned key[N];
    for (unsigned range = 1; range <= 1000; range *= 10) { /* 1: all tied */
        for (size_t i = 0; i < N; i++)
            key[i] = (unsigned)tu_rand_below(&rng, range);
        check_all_k(key, N);
    }
}

static void test_sorted_and_reversed(void **state)
{
    (void)state;
    enum { N = 200 };
    unsigned up[N], down[N];
    for (unsigned i = 0; i < N; i++) {
        up[i] = i;
        down[i] = N - i;
    }
    check_all_k(up, N);
    check_all_k(down, N);
    check_all_k(up, 0);
    check_all_k(up, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_keys),
        cmocka_unit_test(test_sorted_and_reversed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
