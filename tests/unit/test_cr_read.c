/* Cacheray reader: every record type and flag in both byte orders, exact
 * offsets and indices, zero-copy names, structural errors (memory, file and
 * pipe) and byte-order detection. Traces are built by hand (testutil). */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

enum { FROM_MEMORY, FROM_FILE, FROM_PIPE };

/* ---- one of everything */

static const tk_cacheray_record all_records[] = {
    {TK_CACHERAY_READ, 0, 1, 0x0102030405060708ULL, 0x1112131415161718ULL, 0, 0, 0, NULL},
    {TK_CACHERAY_READ, TK_CACHERAY_ATOMIC, 2, 0x7ffea8b2a640ULL, 0, 0, 0, 0, NULL},
    {TK_CACHERAY_READ, TK_CACHERAY_UNALIGNED, 4, 0x7ffea8b2a641ULL, 1, 0, 0, 0, NULL},
    {TK_CACHERAY_READ, TK_CACHERAY_ATOMIC | TK_CACHERAY_UNALIGNED, 8, 0x10, 2, 0, 0, 0, NULL},
    {TK_CACHERAY_WRITE, 0, 16, 0x8b96b0, 3, 0, 0, 0, NULL},
    {TK_CACHERAY_WRITE, TK_CACHERAY_ATOMIC, 8, 0x8b96b8, 4, 0, 0, 0, NULL},
    {TK_CACHERAY_WRITE, TK_CACHERAY_UNALIGNED, 2, 0x8b96b9, 5, 0, 0, 0, NULL},
    {TK_CACHERAY_WRITE, TK_CACHERAY_ATOMIC | TK_CACHERAY_UNALIGNED, 255, UINT64_MAX, UINT64_MAX, 0, 0, 0, NULL},
    {TK_CACHERAY_RTTA_ADD, 0, 0, 0x8b96b0, 0, 24, 1, 12, "struct.Basic"},
    {TK_CACHERAY_RTTA_ADD, 0, 0, 0xfffffffffffffff0ULL, 7, 0xFFFFFFFFu, 0x01020304u, 0, ""},
    {TK_CACHERAY_RTTA_REMOVE, 0, 0, 0x8b96b0, 0, 0, 0, 0, NULL},
    {TK_CACHERAY_READ, 0, 0, 0, 0, 0, 0, 0, NULL},
};
#define NALL (sizeof all_records / sizeof all_records[0])
static const uint64_t all_offsets[NALL + 1] = {0,   18,  36,  54,  72,  90, 108,
                                               126, 144, 185, 214, 231, 249};

static void build(tu_buf *b, const tk_cacheray_record *v, size_t n)
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

static void check_all(tk_endian e)
{
    tu_buf b = {.big = e == TK_ENDIAN_BIG};
    build(&b, all_records, NALL);
    assert_int_equal(b.len, all_offsets[NALL]);
    tk_error err;
    tk_input *in = tk_input_from_memory(b.p, b.len, "all", &err);
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, e, &err);
    assert_non_null(r);
    assert_int_equal(tk_cacheray_reader_endian(r), e);
    assert_int_equal(tk_cacheray_reader_offset(r), TK_NO_OFFSET);
    assert_int_equal(tk_cacheray_reader_index(r), TK_NO_RECORD);
    assert_int_equal(tk_cacheray_reader_tell(r), 0);
    tk_cacheray_record rec;
    for (size_t i = 0; i < NALL; i++) {
        assert_int_equal(tk_cacheray_next(r, &rec, &err), 1);
        tu_assert_rec_equal(&all_records[i], &rec);
        assert_int_equal(tk_cacheray_reader_offset(r), all_offsets[i]);
        assert_int_equal(tk_cacheray_reader_index(r), i);
        assert_int_equal(tk_cacheray_reader_tell(r), all_offsets[i + 1]);
        if (rec.type == TK_CACHERAY_RTTA_ADD) /* zero copy: points into the input */
            assert_ptr_equal(rec.type_name, b.p + all_offsets[i] + 29);
        else
            assert_int_equal(rec.typename_len, 0);
        if (rec.type != TK_CACHERAY_READ && rec.type != TK_CACHERAY_WRITE)
            assert_int_equal(rec.size, 0);
    }
    assert_int_equal(tk_cacheray_next(r, &rec, &err), 0);
    assert_int_equal(tk_cacheray_next(r, &rec, &err), 0); /* stays at the end */
    assert_int_equal(tk_cacheray_reader_tell(r), b.len);
    assert_int_equal(tk_cacheray_reader_index(r), NALL - 1);
    tk_cacheray_reader_free(r);
    tk_input_close(in);
    tu_buf_free(&b);
}

static void test_all_little(void **state)
{
    (void)state;
    check_all(TK_ENDIAN_LITTLE);
}

static void test_all_big(void **state)
{
    (void)state;
    check_all(TK_ENDIAN_BIG);
}

/* The byte example from the notes (first records of struct-test.trace). */
static void test_notes_bytes(void **state)
{
    (void)state;
    static const uint8_t bytes[] = {
        0x02, 0xb0, 0x96, 0x8b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0x18, 0, 0, 0, 0x01, 0, 0, 0, 0x0c, 0, 0, 0, 's', 't', 'r', 'u', 'c',
        't', '.', 'B', 'a', 's', 'i', 'c',
        0x01, 0xb0, 0x96, 0x8b, 0, 0, 0, 0, 0, 0x04, 0, 0, 0, 0, 0, 0, 0, 0};
    tu_recs got;
    tk_error err;
    assert_int_equal(tu_read_mem(bytes, sizeof bytes, TK_ENDIAN_AUTO, &got, &err), 0);
    assert_int_equal(got.n, 2);
    tk_cacheray_record want[2] = {
        {TK_CACHERAY_RTTA_ADD, 0, 0, 0x8b96b0, 0, 24, 1, 12, "struct.Basic"},
        {TK_CACHERAY_WRITE, 0, 4, 0x8b96b0, 0, 0, 0, 0, NULL}};
    tu_assert_rec_equal(&want[0], &got.v[0]);
    tu_assert_rec_equal(&want[1], &got.v[1]);
    assert_int_equal(got.offset[1], 41);
    tu_recs_free(&got);
}

/* ---- structural errors */

/* Read `d` from memory, a file or a pipe; expect `nok` records, then the
 * error, then -1 again. */
static void expect_error(int kind, const uint8_t *d, size_t n, tk_endian e, uint64_t nok,
                         uint64_t off, uint64_t rec, const char *msg)
{
    tk_error err;
    tk_input *in = NULL;
    char *dir = NULL;
    pid_t pid = 0;
    int rfd = -1;
    if (kind == FROM_MEMORY) {
        in = tk_input_from_memory(d, n, "m", &err);
    } else if (kind == FROM_FILE) {
        dir = tu_tmpdir();
        tu_write_file(tu_path(dir, "t.trace"), d, n);
        in = tk_input_open(tu_path(dir, "t.trace"), &err);
    } else {
        pid = tu_pipe_feed(d, n, n, &rfd);
        in = tk_input_from_fd(rfd, "p", &err);
    }
    assert_non_null(in);
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, e, &err);
    tk_cacheray_record x;
    for (uint64_t i = 0; i < nok; i++)
        assert_int_equal(tk_cacheray_next(r, &x, &err), 1);
    tk_error_clear(&err);
    assert_int_equal(tk_cacheray_next(r, &x, &err), -1);
    assert_int_equal(err.status, TK_EMALFORMED);
    assert_string_equal(err.message, msg);
    assert_int_equal(err.offset, off);
    assert_int_equal(err.record, rec);
    assert_int_equal(tk_cacheray_next(r, &x, &err), -1); /* reading stopped */
    tk_cacheray_reader_free(r);
    tk_input_close(in);
    if (dir)
        tu_rmdir(dir);
    if (pid)
        tu_pipe_wait(pid, rfd);
}

/* Two good records (an access and an RTTA_ADD: 18 + 33 bytes) first. */
static void prefix(tu_buf *b)
{
    tu_access(b, TK_CACHERAY_READ, 0x1000, 4, 0);
    tu_add(b, 0x2000, 0, 8, 2, "long", 4);
}

static void check_unknown_and_flags(int kind, int big)
{
    tk_endian e = big ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE;
    static const struct {
        uint8_t tag;
        const char *msg;
    } cases[] = {
        {0x04, "unknown record tag 0x04"},
        {0x3f, "unknown record tag 0x3f"},
        {0x44, "unknown record tag 0x44"},
        {0xff, "unknown record tag 0xff"},
        {0x42, "rtta_add record with flag bits 0x40 (flags are only allowed on read and write)"},
        {0x82, "rtta_add record with flag bits 0x80 (flags are only allowed on read and write)"},
        {0x43, "rtta_remove record with flag bits 0x40 (flags are only allowed on read and write)"},
        {0xc3, "rtta_remove record with flag bits 0xc0 (flags are only allowed on read and write)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_buf b = {.big = big};
        prefix(&b);
        tu_put8(&b, cases[i].tag); /* then a full record's worth of bytes */
        for (int k = 0; k < 60; k++)
            tu_put8(&b, 0);
        expect_error(kind, b.p, b.len, e, 2, 51, 2, cases[i].msg);
        tu_buf_free(&b);
    }
}

static void test_unknown_tags_and_flags(void **state)
{
    (void)state;
    for (int big = 0; big < 2; big++) {
        check_unknown_and_flags(FROM_MEMORY, big);
        check_unknown_and_flags(FROM_PIPE, big);
    }
}

/* A trace of two good records plus `tail` (a cut record). */
static void expect_cut(int kind, int big, const uint8_t *tail, size_t n, const char *msg,
                       uint64_t off_delta)
{
    tu_buf b = {.big = big};
    prefix(&b);
    tu_putn(&b, tail, n);
    expect_error(kind, b.p, b.len, big ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE, 2, 51 + off_delta,
                 2, msg);
    tu_buf_free(&b);
}

static void check_truncated(int kind, int big)
{
    uint8_t t[64] = {0};
    t[0] = TK_CACHERAY_READ;
    expect_cut(kind, big, t, 5, "truncated read record: needs 18 bytes, 5 left", 0);
    t[0] = TK_CACHERAY_WRITE | TK_CACHERAY_ATOMIC;
    expect_cut(kind, big, t, 17, "truncated write record: needs 18 bytes, 17 left", 0);
    t[0] = TK_CACHERAY_READ;
    expect_cut(kind, big, t, 1, "truncated read record: needs 18 bytes, 1 left", 0);
    t[0] = TK_CACHERAY_RTTA_REMOVE;
    expect_cut(kind, big, t, 16, "truncated rtta_remove record: needs 17 bytes, 16 left", 0);
    t[0] = TK_CACHERAY_RTTA_ADD;
    expect_cut(kind, big, t, 28, "truncated rtta_add record: needs 29 bytes, 28 left", 0);
    expect_cut(kind, big, t, 1, "truncated rtta_add record: needs 29 bytes, 1 left", 0);
}

static void test_truncated_records(void **state)
{
    (void)state;
    for (int big = 0; big < 2; big++) {
        check_truncated(FROM_MEMORY, big);
        check_truncated(FROM_FILE, big);
        check_truncated(FROM_PIPE, big);
    }
}

/* RTTA_ADD whose name length runs past the end: reported at the length
 * field (record offset + 25). */
static void check_name_past_end(int kind, int big)
{
    const char *where = kind == FROM_PIPE ? "input" : "file";
    char msg[200];
    tu_buf b = {.big = big};
    prefix(&b);
    tu_add(&b, 0x3000, 0, 4, 1, "0123456789", 10);
    b.len -= 10;
    tu_putn(&b, "abc", 3); /* 3 of the 10 name bytes */
    snprintf(msg, sizeof msg,
             "rtta_add type name of 10 bytes runs past the end of the %s (3 bytes left)", where);
    expect_error(kind, b.p, b.len, big ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE, 2, 51 + 25, 2, msg);
    /* one byte short */
    b.len -= 3;
    tu_putn(&b, "012345678", 9);
    snprintf(msg, sizeof msg,
             "rtta_add type name of 10 bytes runs past the end of the %s (9 bytes left)", where);
    expect_error(kind, b.p, b.len, big ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE, 2, 51 + 25, 2, msg);
    b.len -= 9;
    tu_putn(&b, "abc", 3);
    /* an absurd length, nothing after the fixed part */
    b.len -= 3 + 4;
    tu_put32(&b, 0xFFFFFFFFu);
    snprintf(msg, sizeof msg,
             "rtta_add type name of 4294967295 bytes runs past the end of the %s (0 bytes left)",
             where);
    if (kind != FROM_PIPE) /* a pipe would try to buffer 4 GiB first */
        expect_error(kind, b.p, b.len, big ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE, 2, 51 + 25, 2,
                     msg);
    tu_buf_free(&b);
}

static void test_name_past_end(void **state)
{
    (void)state;
    for (int big = 0; big < 2; big++) {
        check_name_past_end(FROM_MEMORY, big);
        check_name_past_end(FROM_FILE, big);
        check_name_past_end(FROM_PIPE, big);
    }
}

/* Offsets stay exact past the pipe buffer (1 MiB) and the reader window. */
static void test_error_offset_far_into_pipe(void **state)
{
    (void)state;
    enum { N = 100000 };
    tu_buf b = {0};
    for (uint64_t i = 0; i < N; i++)
        tu_access(&b, (uint8_t)(i & 1), 0x7ffe00000000ULL + 8 * i, 8, i % 3);
    tu_put8(&b, TK_CACHERAY_WRITE);
    tu_put64(&b, 1);
    expect_error(FROM_PIPE, b.p, b.len, TK_ENDIAN_AUTO, N, 18ULL * N, N,
                 "truncated write record: needs 18 bytes, 9 left");
    expect_error(FROM_MEMORY, b.p, b.len, TK_ENDIAN_AUTO, N, 18ULL * N, N,
                 "truncated write record: needs 18 bytes, 9 left");
    tu_recs got; /* and every record's offset on the way */
    tk_error err;
    assert_int_equal(tu_read_mem(b.p, b.len - 9, TK_ENDIAN_AUTO, &got, &err), 0);
    assert_int_equal(got.n, N);
    for (uint64_t i = 0; i < N; i++)
        if (got.offset[i] != 18 * i)
            fail_msg("record %llu at offset %llu", (unsigned long long)i,
                     (unsigned long long)got.offset[i]);
    tu_recs_free(&got);
    tu_buf_free(&b);
}

/* ---- names longer than any window or buffer */

static void test_long_names(void **state)
{
    (void)state;
    enum { LONG = (5 << 20) + 3 };
    char *name = malloc(LONG);
    for (size_t i = 0; i < LONG; i++)
        name[i] = (char)('a' + i % 26);
    for (int big = 0; big < 2; big++) {
        tu_buf b = {.big = big};
        tu_access(&b, TK_CACHERAY_READ, 0x1000, 4, 0);
        tu_add(&b, 0x2000, 1, 8, 3, name, LONG);
        tu_remove(&b, 0x2000, 1);
        tu_add(&b, 0x4000, 1, 8, 3, name, 300000);
        tk_cacheray_record want[4] = {
            {TK_CACHERAY_READ, 0, 4, 0x1000, 0, 0, 0, 0, NULL},
            {TK_CACHERAY_RTTA_ADD, 0, 0, 0x2000, 1, 8, 3, LONG, name},
            {TK_CACHERAY_RTTA_REMOVE, 0, 0, 0x2000, 1, 0, 0, 0, NULL},
            {TK_CACHERAY_RTTA_ADD, 0, 0, 0x4000, 1, 8, 3, 300000, name}};
        for (int k = 0; k < 2; k++) {
            int kind = k ? FROM_PIPE : FROM_MEMORY;
            tk_error err;
            tk_input *in;
            pid_t pid = 0;
            int rfd = -1;
            if (kind == FROM_MEMORY) {
                in = tk_input_from_memory(b.p, b.len, "m", &err);
            } else {
                pid = tu_pipe_feed(b.p, b.len, 9, &rfd);
                in = tk_input_from_fd(rfd, "p", &err);
            }
            tu_recs got;
            assert_int_equal(tu_read_all(in, big ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE, &got, &err), 0);
            assert_int_equal(got.n, 4);
            for (int i = 0; i < 4; i++)
                tu_assert_rec_equal(&want[i], &got.v[i]);
            assert_int_equal(got.offset[2], 18 + 29 + LONG);
            assert_int_equal(got.offset[3], 18 + 29 + LONG + 17);
            tu_recs_free(&got);
            tk_input_close(in);
            if (pid)
                tu_pipe_wait(pid, rfd);
        }
        tu_buf_free(&b);
    }
    free(name);
}

/* ---- byte-order detection */

static void access_only(tu_buf *b, int n)
{
    for (int i = 0; i < n; i++)
        tu_access(b, (uint8_t)(i % 3 == 0), 0x7ffea8b2a640ULL + 4 * (uint64_t)(i % 100), 4, 0);
}

static tk_endian detect(const tu_buf *b) { return tk_cacheray_detect_endian(b->p, b->len); }

static void test_detect_built(void **state)
{
    (void)state;
    for (int big = 0; big < 2; big++) {
        tk_endian want = big ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE;
        tu_buf b = {.big = big};
        access_only(&b, 1);
        assert_int_equal(detect(&b), want); /* one access is enough */
        access_only(&b, 500);
        assert_int_equal(detect(&b), want);
        tu_buf_free(&b);

        b.big = big; /* annotations only */
        tu_add(&b, 0x5555555a0000ULL, 0, 8, 100, "double", 6);
        tu_remove(&b, 0x5555555a0000ULL, 0);
        assert_int_equal(detect(&b), want);
        /* the reader's automatic choice decodes the values */
        tu_recs got;
        tk_error err;
        assert_int_equal(tu_read_mem(b.p, b.len, TK_ENDIAN_AUTO, &got, &err), 0);
        assert_int_equal(got.n, 2);
        assert_int_equal(got.v[0].addr, 0x5555555a0000ULL);
        assert_int_equal(got.v[0].elemcount, 100);
        tu_recs_free(&got);
        tu_buf_free(&b);
    }
}

static void test_detect_ties_to_little(void **state)
{
    (void)state;
    uint8_t zero[18 * 100] = {0};
    assert_int_equal(tk_cacheray_detect_endian(zero, sizeof zero), TK_ENDIAN_LITTLE);
    assert_int_equal(tk_cacheray_detect_endian(zero, 0), TK_ENDIAN_LITTLE);
    assert_int_equal(tk_cacheray_detect_endian(zero, 5), TK_ENDIAN_LITTLE);
    tk_error err;
    tk_input *in = tk_input_from_memory(zero, sizeof zero, "z", &err);
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, TK_ENDIAN_AUTO, &err);
    assert_int_equal(tk_cacheray_reader_endian(r), TK_ENDIAN_LITTLE);
    tk_cacheray_reader_free(r);
    tk_input_close(in);
}

static void test_detect_examples(void **state)
{
    (void)state;
    char **ex = tu_examples("cacheray");
    int seen = 0;
    for (char **p = ex; *p; p++) {
        size_t n;
        uint8_t *d = tu_read_file(*p, &n);
        tk_endian want = strstr(*p, "-be.") ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE;
        assert_int_equal(tk_cacheray_detect_endian(d, n), want);
        tk_error err;
        tk_input *in = tk_input_open(*p, &err);
        tk_cacheray_reader *r = tk_cacheray_reader_new(in, TK_ENDIAN_AUTO, &err);
        assert_int_equal(tk_cacheray_reader_endian(r), want);
        tk_cacheray_reader_free(r);
        tk_input_close(in);
        free(d);
        seen++;
    }
    assert_true(seen >= 2);
    tu_free_list(ex);
}

static void test_type_names(void **state)
{
    (void)state;
    assert_string_equal(tk_cacheray_type_name(TK_CACHERAY_READ), "read");
    assert_string_equal(tk_cacheray_type_name(TK_CACHERAY_WRITE), "write");
    assert_string_equal(tk_cacheray_type_name(TK_CACHERAY_RTTA_ADD), "rtta_add");
    assert_string_equal(tk_cacheray_type_name(TK_CACHERAY_RTTA_REMOVE), "rtta_remove");
    assert_string_equal(tk_cacheray_type_name((tk_cacheray_type)9), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_little),
        cmocka_unit_test(test_all_big),
        cmocka_unit_test(test_notes_bytes),
        cmocka_unit_test(test_unknown_tags_and_flags),
        cmocka_unit_test(test_truncated_records),
        cmocka_unit_test(test_name_past_end),
        cmocka_unit_test(test_error_offset_far_into_pipe),
        cmocka_unit_test(test_long_names),
        cmocka_unit_test(test_detect_built),
        cmocka_unit_test(test_detect_ties_to_little),
        cmocka_unit_test(test_detect_examples),
        cmocka_unit_test(test_type_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
