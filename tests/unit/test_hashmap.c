/* tk_map (src/core/hashmap.h): many keys, exact lookups, insertion order,
 * zeroed values, string keys by length (embedded NULs, prefixes), the
 * recent-keys cache in front of string lookups. */
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "testutil.h"

typedef struct val {
    uint64_t a, b;
} val;

/* Keys spread over the whole range plus low-bit collisions (i << 32). */
static uint64_t key_at(uint64_t i)
{
    return i % 3 == 0 ? i << 32 : i * 0x9E3779B97F4A7C15ULL;
}

static void test_u64_many(void **state)
{
    (void)state;
    enum { N = 100000 };
    tk_map m;
    tk_map_init(&m, sizeof(val));
    for (uint64_t i = 0; i < N; i++) {
        val *v = tk_map_u64(&m, key_at(i));
        assert_non_null(v);
        assert_int_equal(v->a, 0); /* new values start zeroed */
        assert_int_equal(v->b, 0);
        v->a = i;
        v->b = ~i;
    }
    assert_int_equal(m.n, N);
    /* lookups find the same entries; nothing new is added */
    for (uint64_t i = 0; i < N; i++) {
        val *v = tk_map_u64(&m, key_at(i));
        assert_int_equal(v->a, i);
        assert_int_equal(v->b, ~i);
        v->a++;
    }
    assert_int_equal(m.n, N);
    /* insertion order is kept */
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(m.ukeys[i], key_at(i));
        assert_int_equal(((val *)tk_map_value(&m, i))->a, i + 1);
    }
    /* extremes are ordinary keys */
    *(uint64_t *)tk_map_u64(&m, UINT64_MAX) = 5;
    assert_int_equal(*(uint64_t *)tk_map_u64(&m, UINT64_MAX), 5);
    assert_int_equal(m.n, N + 1);
    tk_map_free(&m);
    assert_int_equal(m.n, 0);
    assert_null(m.slots);
}

static void test_str_many(void **state)
{
    (void)state;
    enum { N = 20000 };
    tk_map m;
    tk_map_init(&m, sizeof(uint64_t));
    char key[64];
    for (int i = 0; i < N; i++) {
        int len = snprintf(key, sizeof key, "struct.type%d", i);
        uint64_t *v = tk_map_str(&m, key, (size_t)len);
        assert_non_null(v);
        assert_int_equal(*v, 0);
        *v = (uint64_t)i * 7;
    }
    assert_int_equal(m.n, N);
    for (int i = N - 1; i >= 0; i--) {
        int len = snprintf(key, sizeof key, "struct.type%d", i);
        assert_int_equal(*(uint64_t *)tk_map_str(&m, key, (size_t)len), (uint64_t)i * 7);
    }
    assert_int_equal(m.n, N);
    /* keys are stored as NUL-terminated copies with their length */
    assert_string_equal(m.skeys[123], "struct.type123");
    assert_int_equal(m.skey_len[123], strlen("struct.type123"));
    tk_map_free(&m);
}

static void test_str_by_length(void **state)
{
    (void)state;
    tk_map m;
    tk_map_init(&m, 0); /* value_size 0 still gives a usable byte */
    const char *keys[][2] = {{"a\0b", "3"}, {"a\0c", "3"}, {"a", "1"},
                             {"ab", "2"}, {"abc", "3"}, {"", "0"}};
    for (size_t i = 0; i < 6; i++) {
        unsigned char *v = tk_map_str(&m, keys[i][0], (size_t)(keys[i][1][0] - '0'));
        assert_non_null(v);
        *v = (unsigned char)(i + 1);
    }
    assert_int_equal(m.n, 6);
    for (size_t i = 0; i < 6; i++) {
        unsigned char *v = tk_map_str(&m, keys[i][0], (size_t)(keys[i][1][0] - '0'));
        assert_int_equal(*v, i + 1);
    }
    /* a NULL key of length 0 is the empty key */
    assert_int_equal(*(unsigned char *)tk_map_str(&m, NULL, 0), 6);
    assert_int_equal(m.n, 6);
    assert_memory_equal(m.skeys[1], "a\0c", 4);
    tk_map_free(&m);
    /* a freed map can be initialised and used again */
    tk_map_init(&m, 8);
    assert_non_null(tk_map_u64(&m, 1));
    assert_int_equal(m.n, 1);
    tk_map_free(&m);
}

/* tk_map_str_recent finds what tk_map_str finds, also for keys that share
 * a cache slot (same length, first, middle and last bytes) taking turns,
 * and creates new keys zeroed. */
static void test_str_recent(void **state)
{
    (void)state;
    tk_map m;
    tk_map_init(&m, sizeof(val));
    tk_map_recent r = {{0}};
    const char *keys[] = {"axxb", "ayxb", "azxb", "", "a", "struct.node", "double"};
    const size_t nk = sizeof keys / sizeof *keys;
    for (size_t round = 0; round < 3; round++) {
        for (size_t i = 0; i < nk; i++) {
            for (size_t rep = 0; rep < 2; rep++) {
                val *v = tk_map_str_recent(&m, &r, keys[i], strlen(keys[i]));
                assert_non_null(v);
                assert_ptr_equal(v, tk_map_find_str(&m, keys[i], strlen(keys[i])));
                assert_int_equal(v->a, round == 0 && rep == 0 ? 0 : i + 1);
                v->a = i + 1;
            }
        }
        assert_int_equal(m.n, nk);
    }
    assert_ptr_equal(tk_map_str_recent(&m, &r, NULL, 0), tk_map_find_str(&m, "", 0));
    tk_map_free(&m);
}

static void test_hashes(void **state)
{
    (void)state;
    assert_int_equal(tk_hash_u64(0), 0); /* murmur3 finaliser fixes 0 */
    assert_true(tk_hash_u64(1) != tk_hash_u64(2));
    assert_int_equal(tk_hash_bytes("abc", 3), tk_hash_bytes("abcd", 3));
    assert_true(tk_hash_bytes("abc", 3) != tk_hash_bytes("abd", 3));
    assert_true(tk_hash_bytes("", 0) != tk_hash_bytes("\0", 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u64_many),
        cmocka_unit_test(test_str_many),
        cmocka_unit_test(test_str_by_length),
        cmocka_unit_test(test_str_recent),
        cmocka_unit_test(test_hashes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
