/* Malformed UCIR input: each case with its exact error offset, record
 * index and message (threaded and single-threaded), plus every truncation
 * and many byte flips of a valid trace reading without a crash and with a
 * location inside the input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucir_test.h"

/* header + one frame of `body_hex` claiming `op_count` ops */
static void one_frame(const char *body_hex, uint32_t op_count, const char *message,
                      uint64_t offset, uint64_t record)
{
    ub b = {0};
    ub_spec_header(&b, 4, 8, "x86_64", "linux");
    ub_frame_hex(&b, 1, op_count, body_hex);
    expect_error(b.p, b.len, offset, record, message);
    ub_free(&b);
}

static void test_header(void **state)
{
    (void)state;
    expect_error("", 0, 0, TK_NO_RECORD, "not a UCIR trace (no \"UCIR\" magic)");
    expect_error("UCIS\0\0\0\0", 8, 0, TK_NO_RECORD, "not a UCIR trace (no \"UCIR\" magic)");
    expect_error("UCIR\0\0", 6, 0, TK_NO_RECORD, "truncated header: needs at least 8 bytes, 6 in the input");
    expect_error("UCIR\0\0\0\7", 8, 4, TK_NO_RECORD,
                 "unsupported UCIR version 7 (the 2016 spec has 0, usercorn .uc files 1)");
    ub b = {0};
    ub_spec_header(&b, 4, 8, "x86_64", "linux");
    expect_error(b.p, 50, 0, TK_NO_RECORD, "truncated header: needs 80 bytes, 50 in the input");
    ub_free(&b);
    ub_uc_header(&b, "x86", "linux");
    expect_error(b.p, 60, 0, TK_NO_RECORD, "truncated header: needs 74 bytes, 60 in the input");
    ub_free(&b);
}

static void test_top_level(void **state)
{
    (void)state;
    ub b = {0};
    ub_spec_header(&b, 4, 8, "x86_64", "linux");
    size_t h = b.len;
    ub_u8(&b, 7);
    expect_error(b.p, b.len, 80, 0, "OP_MEM_WRITE outside a frame (the top level holds only OP_FRAME)");
    b.p[h] = 0x2a;
    expect_error(b.p, b.len, 80, 0, "unknown op 0x2a at the top level (expected OP_FRAME)");
    b.len = h;
    ub_hex(&b, "01 00 0000");
    expect_error(b.p, b.len, 80, 0, "truncated OP_FRAME header: needs 10 bytes, 4 left");
    b.len = h;
    ub_hex(&b, "01 00 00000001 00000064");
    for (int i = 0; i < 20; i++)
        ub_u8(&b, 0);
    expect_error(b.p, b.len, 80, 0, "frame 0: truncated: OP_FRAME needs 100 compressed bytes, 20 left");
    /* after a good frame: its records first, then the error at the next */
    b.len = h;
    ub_frame_hex(&b, 1, 2, "00 00");
    size_t second = b.len;
    ub_u8(&b, 3);
    expect_error(b.p, b.len, second, 3, "OP_EXEC_REL outside a frame (the top level holds only OP_FRAME)");
    ub_free(&b);
}

static void test_zlib(void **state)
{
    (void)state;
    ub b = {0}, z = {0};
    ub_spec_header(&b, 4, 8, "x86_64", "linux");
    size_t h = b.len;
    ub_frame_hex(&b, 0, 1, "00");
    b.p[h + 10] = 0x79; /* zlib header check bits */
    expect_error(b.p, b.len, 90, 1, "frame 0: corrupt zlib data");
    b.p[h + 10] = 0x78;
    b.p[b.len - 1] ^= 1; /* Adler-32 */
    expect_error(b.p, b.len, 90, 1, "frame 0: corrupt zlib data");
    /* stream cut short inside the frame's size */
    b.len = h;
    ub_zlib(&z, (const uint8_t *)"\0\0\0", 3);
    ub_hex(&b, "01 00 00000003");
    ub_be(&b, z.len - 2, 4);
    ub_put(&b, z.p, z.len - 2);
    expect_error(b.p, b.len, 90, 1, "frame 0: corrupt zlib data");
    /* bytes after the stream, inside the frame's size */
    b.len = h;
    ub_hex(&b, "01 00 00000003");
    ub_be(&b, z.len + 3, 4);
    ub_put(&b, z.p, z.len);
    ub_hex(&b, "aabbcc");
    expect_error(b.p, b.len, 90, 1, "frame 0: 3 bytes after the end of its zlib stream");
    ub_free(&b);
    ub_free(&z);
}

static void test_frame_bodies(void **state)
{
    (void)state;
    one_frame("02 0000000000001000 00000004 | 2a", 2, "frame 0 +0xd: unknown op 0x2a", 80, 2);
    one_frame("ff", 1, "frame 0 +0x0: unknown op 0xff", 80, 1);
    one_frame("01 00 00000000 00000000", 1, "frame 0 +0x0: OP_FRAME inside a frame (frames do not nest)", 80, 1);
    one_frame("00 00", 1, "frame 0 +0x1: frame data goes on after its 1 ops (op_count)", 80, 2);
    one_frame("00 00", 3, "frame 0 +0x2: frame ends after 2 of its 3 ops (op_count)", 80, 3);
    one_frame("", 1, "frame 0 +0x0: frame ends after 0 of its 1 ops (op_count)", 80, 1);
    one_frame("02 0000", 1, "frame 0 +0x0: truncated OP_EXEC_ABS: needs 13 bytes, 3 left in the frame", 80, 1);
    one_frame("00 | 04 0023 00000000", 2,
              "frame 0 +0x1: truncated OP_REG_CHANGE: needs 11 bytes, 7 left in the frame", 80, 2);
    one_frame("07 0000000000000000 ffffffffffffffff 00", 1,
              "frame 0 +0x0: truncated OP_MEM_WRITE: needs 17 + 18446744073709551615 bytes, 18 left in the frame",
              80, 1);
    one_frame("06 0000000000000000 0000000000000004 aabb", 1,
              "frame 0 +0x0: truncated OP_MEM_READ: needs 17 + 4 bytes, 19 left in the frame", 80, 1);
    one_frame("05 0001 0010 aa", 1,
              "frame 0 +0x0: truncated OP_SPREG_CHANGE: needs 5 + 16 bytes, 6 left in the frame", 80, 1);
    one_frame("0a 0001 0000000000000000 0005 0000 00", 1,
              "frame 0 +0x0: truncated OP_SYSCALL: needs 15 + 8 * 5 bytes of arguments, 16 left in the frame",
              80, 1);
    one_frame("0a 0001 0000000000000000", 1,
              "frame 0 +0x0: truncated OP_SYSCALL: needs 15 bytes, 11 left in the frame", 80, 1);
    one_frame("0a 0001 0000000000000000 0000 0002 | 00", 1,
              "frame 0 +0x10: frame ends inside OP_SYSCALL after 1 of its 2 nested ops", 80, 3);
    one_frame("0a 0001 0000000000000000 0000 0001 | 0a 0001 0000000000000000 0000 0000", 1,
              "frame 0 +0xf: OP_SYSCALL inside a syscall", 80, 2);
    one_frame("0a 0001 0000000000000000 0000 0001 | 01 00 00000000 00000000", 1,
              "frame 0 +0xf: OP_FRAME inside a frame (frames do not nest)", 80, 2);
    one_frame("0a 0001 0000000000000000 0000 0001 | 0c", 1, "frame 0 +0xf: unknown op 0x0c", 80, 2);

    /* in a later frame: its own offset and index, records counted */
    ub b = {0};
    ub_spec_header(&b, 4, 8, "x86_64", "linux");
    ub_frame_hex(&b, 1, 2, "00 | 03 00000001");
    size_t second = b.len;
    ub_frame_hex(&b, 0, 3, "03 00000001 | 03 00000001 | 42");
    expect_error(b.p, b.len, second, 6, "frame 1 +0xa: unknown op 0x42");
    ub_free(&b);
}

static void test_limits(void **state)
{
    (void)state;
    ub b = {0}, body = {0};
    ub_spec_header(&b, 4, 8, "x86_64", "linux");
    for (int i = 0; i < 200; i++)
        ub_u8(&body, 0);
    ub z = {0};
    ub_zlib(&z, body.p, body.len);
    ub_hex(&b, "01 00 000000c8");
    ub_be(&b, z.len, 4);
    ub_put(&b, z.p, z.len);
    tk_error err;
    for (unsigned threads = 1; threads <= 2; threads++) {
        tk_input *in = tk_input_from_memory(b.p, b.len, "mem", &err);
        tk_ucir_reader_options o = {threads, 100};
        tk_ucir_reader *r = tk_ucir_reader_new(in, &o, &err);
        tk_ucir_op op;
        assert_int_equal(tk_ucir_next(r, &op, &err), -1);
        /* 200 stored bytes are 211 compressed: more than 100 can become */
        assert_string_equal(err.message, "frame 0: 211 compressed bytes cannot inflate within max-frame (100 bytes)");
        assert_int_equal(err.offset, 80);
        tk_ucir_reader_free(r);
        o.max_frame = 199;
        assert_int_equal(tk_input_rewind(in, &err), TK_OK);
        r = tk_ucir_reader_new(in, &o, &err);
        assert_non_null(r);
        assert_int_equal(tk_ucir_next(r, &op, &err), 1);
        assert_int_equal(tk_ucir_next(r, &op, &err), -1);
        assert_string_equal(err.message, "frame 0: inflates to more than max-frame (199 bytes)");
        assert_int_equal(err.offset, 90);
        assert_int_equal(err.record, 1);
        tk_ucir_reader_free(r);
        tk_input_close(in);
    }
    ub_free(&b);
    ub_free(&z);
    ub_free(&body);
}

static void uc_case(const char *ops_hex, const char *message, uint64_t record)
{
    ub b = {0}, ops = {0};
    ub_uc_header(&b, "x86_64", "linux");
    ub_hex(&ops, ops_hex);
    ub_uc_chunks(&b, ops.p, ops.len, 65536);
    expect_error(b.p, b.len, 84, record, message);
    ub_free(&b);
    ub_free(&ops);
}

static void test_uc(void **state)
{
    (void)state;
    uc_case("0e", "stream +0x0: unknown op 0x0e", 0);
    uc_case("01 0000000000000000 01000000 | 01 0000000000000000 00000000",
            "stream +0xd: FRAME inside a frame (frames do not nest)", 1);
    uc_case("0c 01000000 0000000000000000 00 0100 | 02 0000000000000000 00000000",
            "stream +0x10: KEYFRAME inside a SYSCALL (frames do not nest)", 1);
    uc_case("0c 01000000 0000000000000000 00 0100 | 0c 01000000 0000000000000000 00 0000",
            "stream +0x10: SYSCALL inside a SYSCALL", 1);
    uc_case("01 0000000000000000 02000000 | 00", "stream +0xe: the stream ends inside frame 0, 1 ops short", 2);
    uc_case("0c 01000000 0000000000000000 00 0200 | 00",
            "stream +0x11: the stream ends inside a SYSCALL, 1 nested ops short", 2);
    uc_case("03 0000", "stream +0x0: truncated JMP: needs 13 bytes, 3 left in the stream", 0);
    uc_case("08 0000000000000000 10000000 aabb",
            "stream +0x0: truncated MEM_WRITE: needs 29 bytes, 15 left in the stream", 0);

    /* the Snappy layer */
    ub b = {0}, ops = {0};
    ub_uc_header(&b, "x86", "linux");
    size_t h = b.len;
    ub_hex(&ops, "00 00 00");
    ub_uc_chunks(&b, ops.p, ops.len, 65536);
    b.p[b.len - 1] ^= 1;
    expect_error(b.p, b.len, 84, 0, "Snappy chunk CRC mismatch");
    b.len = h;
    ub_hex(&b, "05 010000 00");
    expect_error(b.p, b.len, 84, 0, "reserved unskippable Snappy chunk type 0x05");
    b.len = h;
    ub_hex(&b, "01 0a0000 00");
    expect_error(b.p, b.len, 84, 0, "truncated Snappy chunk: needs 14 bytes, 5 left");
    b.len = h - 10;
    ub_hex(&b, "01 050000 00000000 00");
    expect_error(b.p, b.len, 74, 0, "the stream does not start with a Snappy stream identifier");
    /* padding and skippable chunks are skipped */
    b.len = 0;
    ub_uc_header(&b, "x86", "linux");
    ub_hex(&b, "fe 020000 0000 | 80 010000 00");
    ub_uc_chunks(&b, ops.p, ops.len, 2);
    urecs r;
    tk_error err;
    if (ucir_read_mem(b.p, b.len, 1, &r, &err) != 0)
        fail_msg("%s", err.message);
    assert_int_equal(r.n, 3);
    urecs_free(&r);
    ub_free(&b);
    ub_free(&ops);
}

/* Every truncation and many byte flips: no crash, an error inside the
 * input, and single- and multi-threaded reading agree. */
static void test_sweep(void **state)
{
    (void)state;
    ub b = {0};
    ub_spec_header(&b, 4, 8, "x86_64", "linux");
    ub_frame_hex(&b, 1, 3, "08 0000000000400000 00001000 05 | 04 002c 000000007fff0000 | 00");
    ub_frame_hex(&b, 0, 3,
                 "02 0000000000400000 00000005 | 03 00000002 |"
                 "0a 0001 0000000000000003 0001 0001 0000000000000001 04 0023 0000000000000003");
    uint64_t seed = 7;
    urecs all;
    tk_error err;
    assert_int_equal(ucir_read_mem(b.p, b.len, 1, &all, &err), 0);
    size_t second = all.pos[4].frame_offset;
    assert_int_equal(all.v[4].kind, TK_UCIR_FRAME);
    urecs_free(&all);
    for (size_t cut = 0; cut <= b.len; cut++) {
        urecs r1, r2;
        tk_error e1, e2;
        int a = ucir_read_mem(b.p, cut, 1, &r1, &e1);
        int c = ucir_read_mem(b.p, cut, 2, &r2, &e2);
        assert_int_equal(a, c);
        assert_int_equal(r1.n, r2.n);
        /* clean exactly at frame boundaries */
        assert_int_equal(a == 0, cut == 80 || cut == second || cut == b.len);
        if (a < 0)
            assert_true(e1.offset <= cut && e1.message[0]);
        urecs_free(&r1);
        urecs_free(&r2);
    }
    for (int i = 0; i < 3000; i++) {
        ub m = {0};
        ub_put(&m, b.p, b.len);
        for (int k = 0; k < 1 + i % 3; k++)
            m.p[tu_rand_below(&seed, m.len)] ^= (uint8_t)(1 + tu_rand_below(&seed, 255));
        urecs r1, r2;
        tk_error e1, e2;
        int a = ucir_read_mem(m.p, m.len, 1, &r1, &e1);
        int c = ucir_read_mem(m.p, m.len, 3, &r2, &e2);
        assert_int_equal(a, c);
        assert_int_equal(r1.n, r2.n);
        if (a == -1)
            assert_string_equal(e1.message, e2.message);
        urecs_free(&r1);
        urecs_free(&r2);
        ub_free(&m);
    }
    ub_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_top_level),
        cmocka_unit_test(test_zlib),
        cmocka_unit_test(test_frame_bodies),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_uc),
        cmocka_unit_test(test_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
