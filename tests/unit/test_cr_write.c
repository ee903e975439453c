/* Cacheray writer: bytes equal to a hand-written encoding, read(write(x))
 * == x for random records (both byte orders, names past the 256 KiB write
 * buffer), write(read(file)) == file for the examples, and rejections. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define WRITE_BUFFER ((size_t)1 << 18) /* src/cacheray/write.c */

/* Write `n` records through a writer; returns the bytes (caller frees). */
static char *write_all(const tk_cacheray_record *v, size_t n, tk_endian e, size_t *len)
{
    tu_capture c;
    tu_capture_open(&c);
    tk_error err;
    tk_cacheray_writer *w = tk_cacheray_writer_new(c.fp, e, &err);
    assert_non_null(w);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(tk_cacheray_write(w, &v[i], &err), TK_OK);
    assert_int_equal(tk_cacheray_writer_free(w, &err), TK_OK);
    char *out = tu_capture_close(&c);
    *len = c.len;
    return out;
}

/* The same records encoded by testutil's independent encoder. */
static void encode_by_hand(tu_buf *b, const tk_cacheray_record *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const tk_cacheray_record *r = &v[i];
        if (r->type <= TK_CACHERAY_WRITE)
            tu_access(b, (uint8_t)(r->type | r->flags), r->addr, r->size, r->thread);
        else if (r->type == TK_CACHERAY_RTTA_ADD)
            tu_add(b, r->addr, r->thread, r->elemsize, r->elemcount, r->type_name,
                   r->typename_len);
        else
            tu_remove(b, r->addr, r->thread);
    }
}

/* write -> bytes equal the hand encoding -> read back equal records. */
static void roundtrip(const tk_cacheray_record *v, size_t n, tk_endian e)
{
    size_t len;
    char *bytes = write_all(v, n, e, &len);
    tu_buf want = {.big = e == TK_ENDIAN_BIG};
    encode_by_hand(&want, v, n);
    assert_int_equal(len, want.len);
    assert_memory_equal(bytes, want.p, len);
    tu_recs got;
    tk_error err;
    assert_int_equal(tu_read_mem((const uint8_t *)bytes, len, e, &got, &err), 0);
    assert_int_equal(got.n, n);
    for (size_t i = 0; i < n; i++)
        tu_assert_rec_equal(&v[i], &got.v[i]);
    tu_recs_free(&got);
    tu_buf_free(&want);
    free(bytes);
}

/* Random records; a few names are longer than the write buffer. */
static tk_cacheray_record *random_records(uint64_t seed, size_t n, char **pool)
{
    enum { POOL = 1 << 20 };
    uint64_t rs = seed;
    char *p = malloc(POOL);
    for (size_t i = 0; i < POOL; i++)
        p[i] = (char)tu_rand(&rs);
    tk_cacheray_record *v = calloc(n, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        tk_cacheray_record *r = &v[i];
        uint64_t k = tu_rand_below(&rs, 10);
        r->addr = tu_rand(&rs);
        r->thread = tu_rand_below(&rs, 4) ? tu_rand_below(&rs, 8) : tu_rand(&rs);
        if (k < 7) {
            r->type = (tk_cacheray_type)(k & 1);
            r->flags = (uint8_t)(tu_rand_below(&rs, 4) << 6);
            r->size = (uint8_t)tu_rand(&rs);
        } else if (k < 9) {
            r->type = TK_CACHERAY_RTTA_ADD;
            r->elemsize = (uint32_t)tu_rand(&rs);
            r->elemcount = (uint32_t)tu_rand(&rs);
            r->typename_len = (uint32_t)(tu_rand_below(&rs, 150) == 0
                                             ? WRITE_BUFFER + tu_rand_below(&rs, POOL - WRITE_BUFFER)
                                             : tu_rand_below(&rs, 64));
            r->type_name = p + tu_rand_below(&rs, POOL - r->typename_len + 1);
        } else {
            r->type = TK_CACHERAY_RTTA_REMOVE;
        }
    }
    *pool = p;
    return v;
}

static void test_random_roundtrip(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        char *pool;
        size_t n = 3000;
        tk_cacheray_record *v = random_records(seed, n, &pool);
        int longs = 0;
        for (size_t i = 0; i < n; i++)
            longs += v[i].typename_len > WRITE_BUFFER;
        assert_true(longs > 0); /* the seeds do reach the direct path */
        roundtrip(v, n, TK_ENDIAN_LITTLE);
        roundtrip(v, n, TK_ENDIAN_BIG);
        free(v);
        free(pool);
    }
}

/* Names around the buffer size: buffered exactly full, then direct. */
static void test_buffer_boundaries(void **state)
{
    (void)state;
    size_t big = (size_t)3 << 20;
    char *name = malloc(big);
    for (size_t i = 0; i < big; i++)
        name[i] = (char)('A' + i % 7);
    tk_cacheray_record v[64];
    size_t n = 0;
    const size_t lens[] = {WRITE_BUFFER - 29, WRITE_BUFFER - 28, WRITE_BUFFER, big, 0, 1};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        v[n++] = (tk_cacheray_record){TK_CACHERAY_READ, TK_CACHERAY_ATOMIC, 8, 0x1000 + i, 1, 0, 0, 0, NULL};
        v[n++] = (tk_cacheray_record){TK_CACHERAY_RTTA_ADD, 0, 0, 0x2000 + i, 2, 4, 5,
                                      (uint32_t)lens[i], name};
        v[n++] = (tk_cacheray_record){TK_CACHERAY_RTTA_REMOVE, 0, 0, 0x2000 + i, 2, 0, 0, 0, NULL};
    }
    roundtrip(v, n, TK_ENDIAN_LITTLE);
    roundtrip(v, n, TK_ENDIAN_BIG);
    free(name);
}

/* tk_cacheray_encode on its own, against the hand encoding. */
static void test_encode(void **state)
{
    (void)state;
    const tk_cacheray_record v[] = {
        {TK_CACHERAY_WRITE, TK_CACHERAY_UNALIGNED, 4, 0x0102030405060708ULL, 0xa1a2a3a4a5a6a7a8ULL, 0, 0, 0, NULL},
        {TK_CACHERAY_RTTA_ADD, 0, 0, 0x8b96b0, 0, 24, 1, 12, "struct.Basic"},
        {TK_CACHERAY_RTTA_REMOVE, 0, 0, 0x8b96b0, 9, 0, 0, 0, NULL}};
    const size_t sizes[] = {18, 41, 17};
    for (int big = 0; big < 2; big++) {
        for (size_t i = 0; i < 3; i++) {
            uint8_t buf[64];
            tu_buf want = {.big = big};
            encode_by_hand(&want, &v[i], 1);
            assert_int_equal(tk_cacheray_encode(&v[i], big ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE, buf),
                             sizes[i]);
            assert_int_equal(want.len, sizes[i]);
            assert_memory_equal(buf, want.p, sizes[i]);
            tu_buf_free(&want);
        }
    }
    /* the notes' byte example */
    uint8_t buf[64];
    static const uint8_t write_le[18] = {0x01, 0xb0, 0x96, 0x8b, 0, 0, 0, 0, 0, 0x04};
    tk_cacheray_record w = {TK_CACHERAY_WRITE, 0, 4, 0x8b96b0, 0, 0, 0, 0, NULL};
    assert_int_equal(tk_cacheray_encode(&w, TK_ENDIAN_LITTLE, buf), 18);
    assert_memory_equal(buf, write_le, 18);
}

/* write(read(example)) is the example, byte for byte, and the two heap
 * examples are the same records in either byte order. */
static void test_examples_rewrite(void **state)
{
    (void)state;
    char **ex = tu_examples("cacheray");
    for (char **p = ex; *p; p++) {
        size_t n;
        uint8_t *file = tu_read_file(*p, &n);
        tk_endian e = tk_cacheray_detect_endian(file, n);
        tu_recs got;
        tk_error err;
        assert_int_equal(tu_read_mem(file, n, e, &got, &err), 0);
        size_t len;
        char *again = write_all(got.v, got.n, e, &len);
        assert_int_equal(len, n);
        assert_memory_equal(again, file, n);
        free(again);
        /* the other byte order, then back */
        tk_endian other = e == TK_ENDIAN_BIG ? TK_ENDIAN_LITTLE : TK_ENDIAN_BIG;
        char *swapped = write_all(got.v, got.n, other, &len);
        assert_int_equal(len, n);
        tu_recs back;
        assert_int_equal(tu_read_mem((uint8_t *)swapped, len, TK_ENDIAN_AUTO, &back, &err), 0);
        assert_int_equal(back.n, got.n);
        char *again2 = write_all(back.v, back.n, e, &len);
        assert_memory_equal(again2, file, n);
        free(again2);
        free(swapped);
        tu_recs_free(&back);
        tu_recs_free(&got);
        free(file);
    }
    tu_free_list(ex);

    size_t nle, nbe, len;
    uint8_t *le = tu_read_file(TK_EXAMPLES_DIR "/cacheray/heap.trace", &nle);
    uint8_t *be = tu_read_file(TK_EXAMPLES_DIR "/cacheray/heap-be.trace", &nbe);
    if (le && be) {
        tu_recs got;
        tk_error err;
        assert_int_equal(tu_read_mem(be, nbe, TK_ENDIAN_BIG, &got, &err), 0);
        char *out = write_all(got.v, got.n, TK_ENDIAN_LITTLE, &len);
        assert_int_equal(len, nle);
        assert_memory_equal(out, le, nle);
        free(out);
        tu_recs_free(&got);
    }
    free(le);
    free(be);
}

static void expect_reject(const tk_cacheray_record *rec, const char *msg)
{
    tu_capture c;
    tu_capture_open(&c);
    tk_error err;
    tk_cacheray_writer *w = tk_cacheray_writer_new(c.fp, TK_ENDIAN_LITTLE, &err);
    assert_int_equal(tk_cacheray_write(w, rec, &err), TK_EUSAGE);
    assert_int_equal(err.status, TK_EUSAGE);
    assert_string_equal(err.message, msg);
    assert_int_equal(tk_cacheray_writer_free(w, &err), TK_OK);
    free(tu_capture_close(&c));
    assert_int_equal(c.len, 0); /* nothing written */
}

static void test_rejects(void **state)
{
    (void)state;
    tk_cacheray_record r = {TK_CACHERAY_RTTA_ADD, TK_CACHERAY_ATOMIC, 0, 1, 0, 1, 1, 1, "x"};
    expect_reject(&r, "flag bits 0x40 are not allowed on a rtta_add record");
    r.flags = TK_CACHERAY_UNALIGNED | TK_CACHERAY_ATOMIC;
    expect_reject(&r, "flag bits 0xc0 are not allowed on a rtta_add record");
    r = (tk_cacheray_record){TK_CACHERAY_RTTA_REMOVE, TK_CACHERAY_UNALIGNED, 0, 1, 0, 0, 0, 0, NULL};
    expect_reject(&r, "flag bits 0x80 are not allowed on a rtta_remove record");
    r = (tk_cacheray_record){TK_CACHERAY_READ, 0x01, 4, 1, 0, 0, 0, 0, NULL};
    expect_reject(&r, "flag bits 0x01 are not allowed on a read record");
    r = (tk_cacheray_record){(tk_cacheray_type)7, 0, 4, 1, 0, 0, 0, 0, NULL};
    expect_reject(&r, "unknown cacheray record type 7");
    r = (tk_cacheray_record){TK_CACHERAY_RTTA_ADD, 0, 0, 1, 0, 1, 1, 5, NULL};
    expect_reject(&r, "rtta_add record without its type name");

    tk_error err;
    assert_null(tk_cacheray_writer_new(stdout, TK_ENDIAN_AUTO, &err));
    assert_int_equal(err.status, TK_EUSAGE);
    assert_string_equal(err.message, "cacheray writer needs an explicit byte order");
}

/* A write error surfaces as TK_EIO, from a write or from the final flush. */
static void test_write_error(void **state)
{
    (void)state;
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        skip();
    tk_error err;
    tk_cacheray_writer *w = tk_cacheray_writer_new(full, TK_ENDIAN_LITTLE, &err);
    tk_cacheray_record r = {TK_CACHERAY_READ, 0, 4, 0x1000, 0, 0, 0, 0, NULL};
    tk_status st = TK_OK;
    for (int i = 0; i < 20000 && st == TK_OK; i++)
        st = tk_cacheray_write(w, &r, &err);
    tk_status fst = tk_cacheray_writer_free(w, st == TK_OK ? &err : NULL);
    if (st == TK_OK)
        st = fst;
    assert_int_equal(st, TK_EIO);
    assert_string_equal(err.message, "writing cacheray output failed");
    fclose(full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode),
        cmocka_unit_test(test_random_roundtrip),
        cmocka_unit_test(test_buffer_boundaries),
        cmocka_unit_test(test_examples_rewrite),
        cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_write_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
