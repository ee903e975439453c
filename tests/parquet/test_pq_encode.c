/* Parquet's encodings (src/export/parquet/encode.h, dict.h): byte vectors
 * worked out by hand from Encodings.md (its bit-packing and delta
 * examples among them), and round trips through small decoders written
 * here from the same text: the RLE/bit-packed hybrid at every width,
 * DELTA_BINARY_PACKED over extremes and wrapping deltas, PLAIN booleans,
 * the string dictionary. */
#include <stdlib.h>
#include <string.h>

#include "export/parquet/dict.h"
#include "export/parquet/encode.h"
#include "testutil.h"

static void expect_bytes(const tk_pq_buf *b, const uint8_t *want, size_t n)
{
    assert_false(b->oom);
    if (b->len != n || memcmp(b->p, want, n) != 0) {
        for (size_t i = 0; i < b->len; i++)
            fprintf(stderr, "%02X ", b->p[i]);
        fprintf(stderr, "(got %zu bytes, want %zu)\n", b->len, n);
        fail_msg("bytes differ");
    }
}

/* ---- decoders */
typedef struct rd {
    const uint8_t *p, *end;
} rd;

static uint64_t uleb(rd *r)
{
    uint64_t v = 0;
    for (int s = 0; s < 70; s += 7) {
        assert_true(r->p < r->end);
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7F) << s;
        if (!(b & 0x80))
            return v;
    }
    fail_msg("varint too long");
    return 0;
}

static int64_t zigzag(rd *r)
{
    uint64_t v = uleb(r);
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* `n` values of `w` bits, LSB first, bit by bit. */
static void unpack(rd *r, uint64_t *out, size_t n, unsigned w)
{
    assert_true((size_t)(r->end - r->p) >= (n * w + 7) / 8);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        for (unsigned k = 0; k < w; k++) {
            size_t bit = i * w + k;
            v |= (uint64_t)(r->p[bit / 8] >> (bit % 8) & 1) << k;
        }
        out[i] = v;
    }
    r->p += (n * w + 7) / 8;
}

static void rle_decode(rd *r, uint32_t *out, size_t n, unsigned w)
{
    size_t i = 0;
    while (i < n) {
        uint64_t h = uleb(r);
        if (h & 1) {
            size_t cnt = (size_t)(h >> 1) * 8;
            uint64_t *tmp = malloc(cnt * sizeof *tmp);
            unpack(r, tmp, cnt, w);
            for (size_t k = 0; k < cnt && i < n; k++)
                out[i++] = (uint32_t)tmp[k];
            free(tmp);
        } else {
            size_t cnt = (size_t)(h >> 1);
            assert_true(cnt > 0 && i + cnt <= n);
            uint32_t v = 0;
            for (unsigned k = 0; k < (w + 7) / 8; k++)
                v |= (uint32_t)*r->p++ << (8 * k);
            while (cnt--)
                out[i++] = v;
        }
    }
    assert_true(r->p == r->end);
}

/* Returns the values in uint64 (the caller narrows); `maxw` bounds the
 * miniblock widths. */
static size_t delta_decode(rd *r, uint64_t *out, size_t cap, unsigned maxw)
{
    uint64_t block = uleb(r), minis = uleb(r), n = uleb(r);
    assert_int_equal(block, 128);
    assert_int_equal(minis, 4);
    assert_true(n <= cap);
    if (n == 0) {
        zigzag(r);
        return 0;
    }
    out[0] = (uint64_t)zigzag(r);
    size_t i = 1;
    while (i < n) {
        uint64_t min = (uint64_t)zigzag(r);
        uint8_t widths[4];
        for (int m = 0; m < 4; m++)
            widths[m] = *r->p++;
        for (int m = 0; m < 4 && i < n; m++) {
            assert_true(widths[m] <= maxw);
            uint64_t v[32];
            unpack(r, v, 32, widths[m]);
            for (int k = 0; k < 32 && i < n; k++, i++)
                out[i] = out[i - 1] + min + v[k];
        }
    }
    assert_true(r->p == r->end);
    return (size_t)n;
}

/* ---- bit-packing and the hybrid */
static void test_pack_spec_example(void **state)
{
    (void)state;
    uint64_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    uint8_t out[3];
    tk_pq_pack8(out, v, 3);
    /* Encodings.md: 10001000 11000110 11111010 */
    assert_int_equal(out[0], 0x88);
    assert_int_equal(out[1], 0xC6);
    assert_int_equal(out[2], 0xFA);
    /* width 64 and 0 */
    uint64_t big[8] = {UINT64_MAX, 0, 1, 2, 3, 4, 5, 0x8000000000000000ull};
    uint8_t o64[64];
    tk_pq_pack8(o64, big, 64);
    for (int i = 0; i < 8; i++) {
        uint64_t x;
        memcpy(&x, o64 + 8 * i, 8);
        assert_true(x == big[i]);
    }
}

static void test_rle_vectors(void **state)
{
    (void)state;
    tk_pq_buf b = {0};
    uint32_t v[16] = {0, 1, 2, 3, 4, 5, 6, 7};
    tk_pq_rle_u32(&b, v, 8, 3); /* one bit-packed group: header 1 << 1 | 1 */
    static const uint8_t packed[] = {0x03, 0x88, 0xC6, 0xFA};
    expect_bytes(&b, packed, sizeof packed);

    uint32_t run[100];
    for (int i = 0; i < 100; i++)
        run[i] = 5;
    b.len = 0;
    tk_pq_rle_u32(&b, run, 100, 3); /* RLE run: 100 << 1 = C8 01, value in 1 byte */
    static const uint8_t rle[] = {0xC8, 0x01, 0x05};
    expect_bytes(&b, rle, sizeof rle);

    /* 1 2 3 then ten 4s: no run starts at a group boundary (0, 8), so two
     * bit-packed groups, the second padded with zeros */
    uint32_t mix[13] = {1, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};
    b.len = 0;
    tk_pq_rle_u32(&b, mix, 13, 3);
    static const uint8_t m[] = {0x05, 0xD1, 0x48, 0x92, 0x24, 0x49, 0x00};
    expect_bytes(&b, m, sizeof m);

    /* a run, then bit-packing, then a run again; width 9: 2-byte values */
    uint32_t abc[26];
    for (int i = 0; i < 26; i++)
        abc[i] = i < 8 ? 300 : i < 16 ? (uint32_t)i : 1;
    b.len = 0;
    tk_pq_rle_u32(&b, abc, 26, 9);
    rd r = {b.p, b.p + b.len};
    assert_int_equal(uleb(&r), 8 << 1); /* RLE of 8 */
    assert_int_equal(r.p[0] | r.p[1] << 8, 300);
    r.p += 2;
    assert_int_equal(uleb(&r), 1 << 1 | 1); /* one group of 8 */
    r.p += 9;
    assert_int_equal(uleb(&r), 10 << 1); /* RLE of 10 */
    assert_int_equal(r.p[0] | r.p[1] << 8, 1);
    assert_true(r.p + 2 == r.end);
    tk_pq_buf_free(&b);
}

static void test_rle_round_trip(void **state)
{
    (void)state;
    enum { N = 5000 };
    uint32_t *v = malloc(N * sizeof *v), *got = malloc(N * sizeof *got);
    uint8_t *v8 = malloc(N);
    uint64_t seed = 12345;
    for (unsigned w = 0; w <= 32; w++) {
        uint32_t mask = w == 32 ? UINT32_MAX : (1u << w) - 1;
        for (size_t n = 0; n <= N; n += n < 40 ? 1 : 997) {
            /* runs of random length (1..40) of random values */
            for (size_t i = 0; i < n;) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                size_t len = 1 + (seed >> 59) % 40;
                uint32_t x = (uint32_t)(seed >> 20) & mask;
                for (; len && i < n; len--, i++)
                    v[i] = x;
            }
            tk_pq_buf b = {0};
            tk_pq_rle_u32(&b, v, n, w);
            rd r = {b.p, b.p + b.len};
            rle_decode(&r, got, n, w);
            assert_memory_equal(v, got, n * sizeof *v);
            if (w <= 8) { /* the byte front end (definition levels) */
                for (size_t i = 0; i < n; i++)
                    v8[i] = (uint8_t)v[i];
                b.len = 0;
                tk_pq_rle_u8(&b, v8, n, w);
                rd r8 = {b.p, b.p + b.len};
                rle_decode(&r8, got, n, w);
                assert_memory_equal(v, got, n * sizeof *v);
            }
            tk_pq_buf_free(&b);
        }
    }
    free(v);
    free(got);
    free(v8);
}

/* ---- delta */
static void test_delta_vectors(void **state)
{
    (void)state;
    tk_pq_buf b = {0};
    /* Encodings.md's example 1 with our block (128, 4 miniblocks):
     * header 128 4 5 zz(1); block: zz(min delta 1), widths 0 0 0 0 */
    int64_t v1[] = {1, 2, 3, 4, 5};
    tk_pq_delta_i64(&b, v1, 5);
    static const uint8_t w1[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0};
    expect_bytes(&b, w1, sizeof w1);
    /* example 2: deltas -2 -2 -2 1 1 1 1, min -2 (zz 3), width 2, the
     * first miniblock's 32 values in 8 bytes: 0 0 0 3 3 3 3 0... */
    int64_t v2[] = {7, 5, 3, 1, 2, 3, 4, 5};
    b.len = 0;
    tk_pq_delta_i64(&b, v2, 8);
    static const uint8_t w2[] = {0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0, 0, 0,
                                 0xC0, 0x3F, 0, 0, 0, 0, 0, 0};
    expect_bytes(&b, w2, sizeof w2);
    /* the same through INT32 */
    int32_t v3[] = {7, 5, 3, 1, 2, 3, 4, 5};
    b.len = 0;
    tk_pq_delta_i32(&b, v3, 8);
    expect_bytes(&b, w2, sizeof w2);
    /* no values: the header only, first value 0 */
    b.len = 0;
    tk_pq_delta_i64(&b, NULL, 0);
    static const uint8_t w0[] = {0x80, 0x01, 0x04, 0x00, 0x00};
    expect_bytes(&b, w0, sizeof w0);
    tk_pq_buf_free(&b);
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void test_delta_round_trip(void **state)
{
    (void)state;
    enum { N = 4100 };
    int64_t *v = malloc(N * sizeof *v);
    int32_t *v32 = malloc(N * sizeof *v32);
    uint64_t *got = malloc(N * sizeof *got);
    uint64_t s = 88172645463325252ull;
    static const size_t sizes[] = {1, 2, 31, 33, 127, 128, 129, 130, 1000, 4097, N};
    for (int pattern = 0; pattern < 4; pattern++) {
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            size_t n = sizes[si];
            for (size_t i = 0; i < n; i++) {
                uint64_t x = rnd(&s);
                /* sorted-ish, random, extremes alternating, constant */
                v[i] = pattern == 0 ? (int64_t)(i * 1000 + x % 50)
                     : pattern == 1 ? (int64_t)x
                     : pattern == 2 ? (i % 2 ? INT64_MAX : INT64_MIN)
                                    : -42;
                v32[i] = pattern == 2 ? (i % 2 ? INT32_MAX : INT32_MIN) : (int32_t)v[i];
            }
            tk_pq_buf b = {0};
            tk_pq_delta_i64(&b, v, n);
            rd r = {b.p, b.p + b.len};
            assert_int_equal(delta_decode(&r, got, N, 64), n);
            for (size_t i = 0; i < n; i++)
                assert_true((int64_t)got[i] == v[i]);
            b.len = 0;
            tk_pq_delta_i32(&b, v32, n);
            rd r32 = {b.p, b.p + b.len};
            assert_int_equal(delta_decode(&r32, got, N, 32), n); /* no width past 32 */
            for (size_t i = 0; i < n; i++)
                assert_true((int32_t)(uint32_t)got[i] == v32[i]);
            if (pattern == 3) /* constant: all widths 0, a few bytes a block */
                assert_true(b.len < 10 + (n / 128 + 1) * 6);
            tk_pq_buf_free(&b);
        }
    }
    free(v);
    free(v32);
    free(got);
}

/* ---- PLAIN booleans, the dictionary */
static void test_bool_plain(void **state)
{
    (void)state;
    tk_pq_buf b = {0};
    uint8_t v[] = {1, 0, 1, 1, 0, 0, 0, 1, 1};
    tk_pq_bool_plain(&b, v, 9);
    static const uint8_t want[] = {0x8D, 0x01};
    expect_bytes(&b, want, sizeof want);
    tk_pq_buf_free(&b);
}

static void test_dict(void **state)
{
    (void)state;
    tk_pq_dict d = {0};
    assert_int_equal(tk_pq_dict_add(&d, "a", 1), 0);
    assert_int_equal(tk_pq_dict_add(&d, "bc", 2), 1);
    assert_int_equal(tk_pq_dict_add(&d, "a", 1), 0);
    assert_int_equal(tk_pq_dict_add(&d, "", 0), 2);
    assert_int_equal(tk_pq_dict_add(&d, "b", 1), 3); /* a prefix is another value */
    static const uint8_t plain[] = {1, 0, 0, 0, 'a', 2, 0, 0, 0, 'b', 'c', 0, 0, 0, 0,
                                    1, 0, 0, 0, 'b'};
    expect_bytes(&d.plain, plain, sizeof plain);
    /* many entries: the table grows, lookups stay exact */
    char key[32];
    for (int i = 0; i < 50000; i++) {
        int n = snprintf(key, sizeof key, "key-%d", i);
        assert_int_equal(tk_pq_dict_add(&d, key, (size_t)n), 4 + i);
    }
    for (int i = 49999; i >= 0; i -= 7) {
        int n = snprintf(key, sizeof key, "key-%d", i);
        assert_int_equal(tk_pq_dict_add(&d, key, (size_t)n), 4 + i);
        size_t len;
        const uint8_t *e = tk_pq_dict_entry(&d, (uint32_t)(4 + i), &len);
        assert_int_equal(len, n);
        assert_memory_equal(e, key, len);
    }
    tk_pq_dict_reset(&d); /* a new chunk starts empty */
    assert_int_equal(tk_pq_dict_add(&d, "key-7", 5), 0);
    assert_int_equal(d.plain.len, 9);
    tk_pq_dict_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack_spec_example),
        cmocka_unit_test(test_rle_vectors),
        cmocka_unit_test(test_rle_round_trip),
        cmocka_unit_test(test_delta_vectors),
        cmocka_unit_test(test_delta_round_trip),
        cmocka_unit_test(test_bool_plain),
        cmocka_unit_test(test_dict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
