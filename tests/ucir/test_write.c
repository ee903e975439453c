/* UCIR writer: traces with every op for every architecture read back
 * equal, the spec's byte layout (level 0 keeps the bodies visible), frame
 * batching and keyframes, exact round trips, and what it refuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucir_test.h"

static tk_ucir_header header(uint32_t arch, uint32_t mode, const char *name)
{
    tk_ucir_header h;
    memset(&h, 0, sizeof h);
    h.arch = arch;
    h.mode = mode;
    strcpy(h.arch_name, name);
    strcpy(h.os, "linux");
    return h;
}

typedef struct wr {
    tu_capture c;
    tk_ucir_writer *w;
    tk_error err;
} wr;

static void wr_open(wr *x, const tk_ucir_header *h, const tk_ucir_writer_options *o)
{
    tu_capture_open(&x->c);
    x->w = tk_ucir_writer_new(x->c.fp, h, o, &x->err);
    assert_non_null(x->w);
}

static void wr_op(wr *x, const tk_ucir_op *op)
{
    if (tk_ucir_write(x->w, op, &x->err) != TK_OK)
        fail_msg("write %s: %s", tk_ucir_kind_name(op->kind), x->err.message);
}

static void wr_close(wr *x)
{
    assert_int_equal(tk_ucir_writer_free(x->w, &x->err), TK_OK);
    tu_capture_close(&x->c);
}

static const uint8_t bytes16[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
static const uint64_t args3[3] = {1, 0x7fff0000, UINT64_MAX};

/* Every spec op once (a SYSCALL with nested ops), registers of `arch`. */
static size_t every_op(tk_ucir_op *v, uint32_t reg_a, uint32_t reg_b)
{
    size_t n = 0;
    memset(v, 0, 20 * sizeof *v);
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_FRAME, .keyframe = 1, .op_count = 3};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_MEM_MAP, .addr = 0x10000, .size = 0x1000, .prot = 5};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_MEM_WRITE, .addr = 0x10000, .size = 16, .len = 16, .data = bytes16};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = reg_a, .value = 0x10000};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_FRAME, .op_count = 10}; /* counts: as read */
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_NOP};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_EXEC_ABS, .addr = 0x10000, .size = 4};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = reg_b, .value = UINT64_MAX};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_EXEC_REL, .size = 4};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_SPREG_CHANGE, .reg = reg_a, .len = 16, .data = bytes16};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_MEM_READ, .addr = 0x10004, .size = 3, .len = 3, .data = bytes16 + 4};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_MEM_WRITE, .addr = 0, .size = 0};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_SYSCALL, .num = 0xFFFF, .ret = 3, .argc = 3, .args = args3,
                          .op_count = 3};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_MEM_MAP, .depth = 1, .addr = 0x20000, .size = UINT32_MAX, .prot = 3};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_MEM_WRITE, .depth = 1, .addr = 0x20000, .size = 2, .len = 2, .data = bytes16};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .depth = 1, .reg = reg_a, .value = 3};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_MEM_UNMAP, .addr = 0x20000, .size = 0x1000};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_SYSCALL, .num = 60, .argc = 0, .op_count = 1};
    v[n++] = (tk_ucir_op){.kind = TK_UCIR_EXIT, .depth = 1};
    return n;
}

static void test_every_op_every_arch(void **state)
{
    (void)state;
    static const struct {
        uint32_t arch, mode;
        const char *name;
        uint32_t reg_a, reg_b;
        const char *name_a, *name_b;
    } arches[] = {
        {TK_UCIR_ARCH_X86, TK_UCIR_MODE_32, "x86", 30, 19, "esp", "eax"},
        {TK_UCIR_ARCH_X86, TK_UCIR_MODE_64, "x86_64", 44, 106, "rsp", "r8"},
        {TK_UCIR_ARCH_ARM, 0, "arm", 12, 66, "sp", "r0"},
        {TK_UCIR_ARCH_ARM64, 0, "arm64", 4, 199, "sp", "x0"},
        {TK_UCIR_ARCH_MIPS, TK_UCIR_MODE_32, "mips", 31, 6, "sp", "a0"},
    };
    for (size_t a = 0; a < sizeof arches / sizeof arches[0]; a++) {
        tk_ucir_op v[20];
        size_t n = every_op(v, arches[a].reg_a, arches[a].reg_b);
        tk_ucir_header h = header(arches[a].arch, arches[a].mode, arches[a].name);
        wr x;
        wr_open(&x, &h, NULL);
        for (size_t i = 0; i < n; i++)
            wr_op(&x, &v[i]);
        wr_close(&x);
        urecs r;
        tk_error err;
        assert_int_equal(ucir_read_mem(x.c.buf, x.c.len, 1, &r, &err), 0);
        assert_int_equal(r.h.arch, arches[a].arch);
        assert_int_equal(r.h.mode, arches[a].mode);
        assert_string_equal(r.h.arch_name, arches[a].name);
        assert_int_equal(r.n, n);
        for (size_t i = 0; i < n; i++)
            if (!tk_ucir_op_equal(&v[i], &r.v[i]))
                fail_msg("%s: record %zu (%s) differs", arches[a].name, i, tk_ucir_kind_name(v[i].kind));
        assert_int_equal(r.v[0].op_count, 3);
        assert_int_equal(r.v[4].op_count, 10);
        assert_string_equal(tk_ucir_reg_name(r.h.arch, r.h.mode, r.v[3].reg), arches[a].name_a);
        assert_string_equal(tk_ucir_reg_name(r.h.arch, r.h.mode, r.v[7].reg), arches[a].name_b);
        urecs_free(&r);
        free(x.c.buf);
    }
}

/* Level 0 stores the body as is: the spec vectors appear in the file. */
static void test_layout(void **state)
{
    (void)state;
    tk_ucir_header h = header(4, 8, "x86_64");
    tk_ucir_writer_options o = {0, 0, 0};
    wr x;
    wr_open(&x, &h, &o);
    wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_EXEC_ABS, .addr = 0x1000, .size = 7});
    wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_EXEC_REL, .size = 3});
    wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_MEM_MAP, .addr = 0x1000, .size = 0x2000, .prot = 7});
    wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_MEM_UNMAP, .addr = 0x1000, .size = 0x2000});
    uint64_t args[3] = {1, 0x7fff0000, 3};
    wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_SYSCALL, .num = 1, .ret = 3, .argc = 3, .args = args, .op_count = 1});
    wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = 35, .value = 3});
    wr_close(&x);
    ub want = {0};
    ub_hex(&want, "55434952 00000000 00000004 00000008 7838365f3634");
    assert_true(x.c.len > 80);
    assert_memory_equal(x.c.buf, want.p, want.len);
    ub_free(&want);
    ub_hex(&want, "02 0000000000001000 00000007 | 03 00000003 | 08 0000000000001000 00002000 07 |"
                  "09 0000000000001000 00002000 |"
                  "0a 0001 0000000000000003 0003 0001 0000000000000001 000000007fff0000 0000000000000003"
                  "04 0023 0000000000000003");
    /* OP_FRAME header: not a keyframe, 5 ops; then zlib 78 01, a stored block */
    assert_int_equal(x.c.buf[80], 1);
    assert_int_equal(x.c.buf[81], 0);
    assert_memory_equal(x.c.buf + 82, "\0\0\0\5", 4);
    assert_memory_equal(x.c.buf + 90 + 2 + 5, want.p, want.len);
    ub_free(&want);
    free(x.c.buf);
}

/* Frames close at max_ops / max_bytes, never inside a SYSCALL. */
static void test_batching(void **state)
{
    (void)state;
    tk_ucir_header h = header(4, 8, "x86_64");
    tk_ucir_writer_options o = {10, 0, 6};
    wr x;
    wr_open(&x, &h, &o);
    for (int i = 0; i < 25; i++)
        wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_EXEC_REL, .size = 2});
    wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_FRAME, .keyframe = 1});
    for (int i = 0; i < 9; i++)
        wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_NOP});
    wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_SYSCALL, .op_count = 4});
    for (int i = 0; i < 4; i++)
        wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_NOP});
    wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_EXIT});
    wr_close(&x);
    urecs r;
    tk_error err;
    assert_int_equal(ucir_read_mem(x.c.buf, x.c.len, 2, &r, &err), 0);
    uint32_t want_ops[] = {10, 10, 5, 10, 1};
    int want_key[] = {0, 0, 0, 1, 0};
    size_t f = 0;
    for (size_t i = 0; i < r.n; i++) {
        if (r.v[i].kind != TK_UCIR_FRAME)
            continue;
        assert_true(f < 5);
        assert_int_equal(r.v[i].op_count, want_ops[f]);
        assert_int_equal(r.v[i].keyframe, want_key[f]);
        f++;
    }
    assert_int_equal(f, 5);
    urecs_free(&r);
    free(x.c.buf);

    /* by bytes: 1000-byte frames of 17+100-byte writes close after 9 */
    o = (tk_ucir_writer_options){0, 1000, 6};
    wr_open(&x, &h, &o);
    uint8_t data[100] = {0};
    for (int i = 0; i < 20; i++)
        wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_MEM_WRITE, .size = 100, .len = 100, .data = data});
    wr_close(&x);
    assert_int_equal(ucir_read_mem(x.c.buf, x.c.len, 1, &r, &err), 0);
    assert_int_equal(r.v[0].op_count, 9);
    assert_int_equal(r.counts.frames, 3);
    urecs_free(&r);
    free(x.c.buf);
}

/* Rewrite what was read with the writer's settings: same bytes. */
static void rewrite(const void *d, size_t n, const tk_ucir_writer_options *o, tu_capture *out)
{
    urecs r;
    tk_error err;
    assert_int_equal(ucir_read_mem(d, n, 1, &r, &err), 0);
    wr x;
    wr_open(&x, &r.h, o);
    for (size_t i = 0; i < r.n; i++)
        wr_op(&x, &r.v[i]);
    wr_close(&x);
    *out = x.c;
    urecs_free(&r);
}

static void test_round_trips(void **state)
{
    (void)state;
    uint64_t seed = 42;
    for (int round = 0; round < 30; round++) {
        tk_ucir_writer_options o = {(uint32_t)tu_rand_below(&seed, 50),
                                    tu_rand_below(&seed, 3) * 300, (int)tu_rand_below(&seed, 10)};
        tk_ucir_header h = header(TK_UCIR_ARCH_ARM64, 0, "arm64");
        h.os[20] = 'x'; /* bytes after the NUL are kept */
        wr x;
        wr_open(&x, &h, &o);
        uint8_t data[64];
        uint64_t args[4];
        size_t nops = tu_rand_below(&seed, 400);
        for (size_t i = 0; i < nops; i++) {
            uint64_t r = tu_rand(&seed);
            for (size_t k = 0; k < sizeof data; k++)
                data[k] = (uint8_t)(r >> (k % 8));
            for (size_t k = 0; k < 4; k++)
                args[k] = r * (k + 1);
            tk_ucir_op op;
            memset(&op, 0, sizeof op);
            op.kind = (tk_ucir_kind)(r % 12);
            op.addr = r >> 3;
            op.size = (r >> 5) % 64;
            op.reg = (uint32_t)(r >> 11) & 0xFFFF;
            op.value = ~r;
            op.prot = (uint8_t)(r >> 13);
            op.keyframe = (r >> 17) & 1;
            if (op.kind == TK_UCIR_MEM_READ || op.kind == TK_UCIR_MEM_WRITE ||
                op.kind == TK_UCIR_SPREG_CHANGE) {
                op.len = op.size;
                op.data = data;
            }
            if (op.kind == TK_UCIR_SYSCALL) {
                op.num = (uint32_t)r & 0xFFFF;
                op.argc = (uint32_t)(r >> 20) % 5;
                op.args = args;
                op.op_count = (uint32_t)(r >> 24) % 3;
                op.ret = r;
            }
            wr_op(&x, &op);
            if (op.kind == TK_UCIR_SYSCALL)
                for (uint32_t k = 0; k < op.op_count; k++)
                    wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = k, .value = r});
        }
        wr_close(&x);
        /* write -> read -> write: byte-identical */
        tu_capture again;
        rewrite(x.c.buf, x.c.len, &o, &again);
        assert_int_equal(again.len, x.c.len);
        assert_memory_equal(again.buf, x.c.buf, x.c.len);
        /* read -> write (other settings) -> read: equal records */
        tk_ucir_writer_options other = {0, 0, 9};
        tu_capture third;
        rewrite(x.c.buf, x.c.len, &other, &third);
        urecs a, b;
        tk_error err;
        assert_int_equal(ucir_read_mem(x.c.buf, x.c.len, 1, &a, &err), 0);
        assert_int_equal(ucir_read_mem(third.buf, third.len, 3, &b, &err), 0);
        assert_int_equal(a.n, b.n);
        for (size_t i = 0; i < a.n; i++)
            assert_true(tk_ucir_op_equal(&a.v[i], &b.v[i]));
        assert_memory_equal(a.h.os, b.h.os, sizeof a.h.os);
        urecs_free(&a);
        urecs_free(&b);
        free(x.c.buf);
        free(again.buf);
        free(third.buf);
    }
}

static void expect_refused(const tk_ucir_op *op, const char *message)
{
    tk_ucir_header h = header(4, 8, "x86_64");
    wr x;
    wr_open(&x, &h, NULL);
    tk_status st = tk_ucir_write(x.w, op, &x.err);
    assert_int_equal(st, TK_EUSAGE);
    assert_string_equal(x.err.message, message);
    wr_close(&x);
    free(x.c.buf);
}

static void test_refusals(void **state)
{
    (void)state;
    expect_refused(&(tk_ucir_op){.kind = TK_UCIR_JMP}, "cannot write jmp: a .uc op the 2016 spec has no place for");
    expect_refused(&(tk_ucir_op){.kind = TK_UCIR_MEM_PROT}, "cannot write mem_prot: a .uc op the 2016 spec has no place for");
    expect_refused(&(tk_ucir_op){.kind = TK_UCIR_EXEC_REL, .size = 1ull << 32},
                   "cannot write exec_rel: instruction size past 32 bits");
    expect_refused(&(tk_ucir_op){.kind = TK_UCIR_MEM_MAP, .size = 1ull << 32},
                   "cannot write mem_map: region size past 32 bits");
    expect_refused(&(tk_ucir_op){.kind = TK_UCIR_MEM_WRITE, .size = 4, .len = 2, .data = bytes16},
                   "cannot write mem_write: data length differs from size (the spec stores size bytes)");
    expect_refused(&(tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = 0x10000},
                   "cannot write reg_change: register enum past 16 bits");
    expect_refused(&(tk_ucir_op){.kind = TK_UCIR_SYSCALL, .num = 0x10000},
                   "cannot write syscall: syscall number past 16 bits");
    expect_refused(&(tk_ucir_op){.kind = (tk_ucir_kind)99}, "cannot write ?: a .uc op the 2016 spec has no place for");

    /* nesting */
    tk_ucir_header h = header(4, 8, "x86_64");
    wr x;
    wr_open(&x, &h, NULL);
    wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_SYSCALL, .op_count = 2});
    assert_int_equal(tk_ucir_write(x.w, &(tk_ucir_op){.kind = TK_UCIR_SYSCALL}, &x.err), TK_EUSAGE);
    assert_string_equal(x.err.message, "cannot write syscall: OP_SYSCALL inside a syscall");
    assert_int_equal(tk_ucir_write(x.w, &(tk_ucir_op){.kind = TK_UCIR_FRAME}, &x.err), TK_EUSAGE);
    wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_NOP});
    assert_int_equal(tk_ucir_writer_frame_end(x.w, &x.err), TK_EUSAGE);
    assert_string_equal(x.err.message, "frame closed with 1 nested ops of a SYSCALL missing");
    wr_op(&x, &(tk_ucir_op){.kind = TK_UCIR_NOP});
    wr_close(&x);
    free(x.c.buf);

    /* header and options */
    tk_error err;
    tk_ucir_header uc = h;
    uc.variant = TK_UCIR_USERCORN;
    assert_null(tk_ucir_writer_new(stdout, &uc, NULL, &err));
    assert_int_equal(err.status, TK_EUSAGE);
    tk_ucir_writer_options bad = {0, 0, 10};
    assert_null(tk_ucir_writer_new(stdout, &h, &bad, &err));
    assert_string_equal(err.message, "compression level 10 is not in 0..9");
}

static void test_op_size(void **state)
{
    (void)state;
    assert_int_equal(tk_ucir_op_size(&(tk_ucir_op){.kind = TK_UCIR_NOP}), 1);
    assert_int_equal(tk_ucir_op_size(&(tk_ucir_op){.kind = TK_UCIR_FRAME}), 10);
    assert_int_equal(tk_ucir_op_size(&(tk_ucir_op){.kind = TK_UCIR_EXEC_ABS}), 13);
    assert_int_equal(tk_ucir_op_size(&(tk_ucir_op){.kind = TK_UCIR_MEM_READ, .size = 3}), 20);
    assert_int_equal(tk_ucir_op_size(&(tk_ucir_op){.kind = TK_UCIR_MEM_READ, .size = UINT64_MAX}), 0);
    assert_int_equal(tk_ucir_op_size(&(tk_ucir_op){.kind = TK_UCIR_SYSCALL, .argc = 2}), 31);
    assert_int_equal(tk_ucir_op_size(&(tk_ucir_op){.kind = TK_UCIR_STEP}), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_op_every_arch),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_batching),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_op_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
