/* The Thrift compact protocol encoder (src/export/parquet/thrift_compact.h)
 * against byte vectors worked out by hand from the protocol's rules:
 * short and long field headers, zigzag varints, bools in the type nibble
 * and as list elements, short and long list headers, nested structs with
 * their own field ids; and a Parquet PageHeader as page.c writes it. */
#include <stdlib.h>
#include <string.h>

#include "export/parquet/pq_int.h"
#include "export/parquet/thrift_compact.h"
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

static void test_fields(void **state)
{
    (void)state;
    tk_pq_buf b = {0};
    tk_tc t;
    tk_tc_init(&t, &b);
    tk_tc_i32(&t, 1, 5);        /* id delta 1 << 4 | type 5: 0x15, zigzag 10 */
    tk_tc_i64(&t, 2, -1);       /* id delta 1: 0x16, zigzag 1 */
    tk_tc_bool(&t, 3, 1);       /* 0x11: the value is the type */
    tk_tc_bool(&t, 4, 0);       /* 0x12 */
    tk_tc_i32(&t, 20, 300);     /* delta 16: long form 0x05, id zigzag 40, 600 = D8 04 */
    tk_tc_binary(&t, 21, "ab", 2); /* 0x18, length 2 */
    tk_tc_end(&t);
    static const uint8_t want[] = {0x15, 0x0A, 0x16, 0x01, 0x11, 0x12, 0x05, 0x28,
                                   0xD8, 0x04, 0x18, 0x02, 0x61, 0x62, 0x00};
    expect_bytes(&b, want, sizeof want);
    tk_pq_buf_free(&b);
}

static void test_nested_and_lists(void **state)
{
    (void)state;
    tk_pq_buf b = {0};
    tk_tc t;
    tk_tc_init(&t, &b);
    tk_tc_struct(&t, 1);          /* 0x1C */
    tk_tc_i32(&t, 1, 1);          /* its own ids: 0x15 0x02 */
    tk_tc_end(&t);                /* 0x00 */
    tk_tc_list(&t, 2, TK_TC_I32, 3); /* 0x19, 3 << 4 | 5 */
    tk_tc_elem_i32(&t, 1);
    tk_tc_elem_i32(&t, -1);
    tk_tc_elem_i32(&t, 2);
    tk_tc_list(&t, 3, TK_TC_STRUCT, 16); /* 0x19, long header 0xFC, 16 */
    for (int i = 0; i < 16; i++) {
        tk_tc_elem_struct(&t);
        tk_tc_end(&t);
    }
    tk_tc_list(&t, 4, TK_TC_TRUE, 2); /* 0x19, 0x21, elements 1 and 2 */
    tk_tc_elem_bool(&t, 1);
    tk_tc_elem_bool(&t, 0);
    tk_tc_i8(&t, 10, -2);         /* delta 6: 0x63, one raw byte */
    tk_tc_i16(&t, 11, -3);        /* 0x14, zigzag 5 */
    tk_tc_i64(&t, 5, 7);          /* going back: long form 0x06, id 10, 14 */
    tk_tc_empty(&t, 6);           /* an empty struct: 0x1C 0x00 */
    tk_tc_end(&t);
    static const uint8_t want[] = {
        0x1C, 0x15, 0x02, 0x00,
        0x19, 0x35, 0x02, 0x01, 0x04,
        0x19, 0xFC, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0x19, 0x21, 0x01, 0x02,
        0x63, 0xFE,
        0x14, 0x05,
        0x06, 0x0A, 0x0E,
        0x1C, 0x00,
        0x00};
    expect_bytes(&b, want, sizeof want);
    tk_pq_buf_free(&b);
}

static void test_varints(void **state)
{
    (void)state;
    tk_pq_buf b = {0};
    tk_tc t;
    tk_tc_init(&t, &b);
    tk_tc_i64(&t, 1, INT64_MIN); /* zigzag 2^64 - 1: ten bytes */
    tk_tc_i64(&t, 2, INT64_MAX); /* zigzag 2^64 - 2 */
    tk_tc_i32(&t, 3, -64);       /* zigzag 127: one byte */
    tk_tc_i32(&t, 4, 64);        /* zigzag 128: 80 01 */
    tk_tc_end(&t);
    static const uint8_t want[] = {
        0x16, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
        0x16, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
        0x15, 0x7F,
        0x15, 0x80, 0x01,
        0x00};
    expect_bytes(&b, want, sizeof want);
    tk_pq_buf_free(&b);
}

/* A DataPageHeader v1 as page.c writes it: PageHeader {1: type 0,
 * 2: uncompressed 100, 3: compressed 50, 5: {1: 10 values, 2: encoding 8,
 * 3: RLE, 4: RLE}}. */
static void test_page_header(void **state)
{
    (void)state;
    tk_pq_buf b = {0};
    tk_pq_page_header(&b, PQ_DATA_PAGE, 100, 50, 10, PQ_RLE_DICTIONARY);
    static const uint8_t want[] = {
        0x15, 0x00, 0x15, 0xC8, 0x01, 0x15, 0x64,
        0x2C, 0x15, 0x14, 0x15, 0x10, 0x15, 0x06, 0x15, 0x06, 0x00,
        0x00};
    expect_bytes(&b, want, sizeof want);
    /* a dictionary page: field 7, DictionaryPageHeader {1: 3, 2: PLAIN} */
    b.len = 0;
    tk_pq_page_header(&b, PQ_DICTIONARY_PAGE, 20, 20, 3, PQ_PLAIN);
    static const uint8_t dict[] = {
        0x15, 0x04, 0x15, 0x28, 0x15, 0x28,
        0x4C, 0x15, 0x06, 0x15, 0x00, 0x00,
        0x00};
    expect_bytes(&b, dict, sizeof dict);
    tk_pq_buf_free(&b);
}

/* Nesting past TK_TC_DEPTH is a writer bug: the buffer says so. */
static void test_depth(void **state)
{
    (void)state;
    tk_pq_buf b = {0};
    tk_tc t;
    tk_tc_init(&t, &b);
    for (int i = 0; i < TK_TC_DEPTH; i++)
        tk_tc_struct(&t, 1);
    assert_true(b.oom);
    tk_pq_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_nested_and_lists),
        cmocka_unit_test(test_varints),
        cmocka_unit_test(test_page_header),
        cmocka_unit_test(test_depth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
