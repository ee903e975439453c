/* UCIR reader: the notes' hex vectors (spec layout and .uc) decoded to the
 * exact values, positions, counts, seeking, pipes, and threaded decoding
 * giving what one thread gives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ucir_test.h"

#ifdef TK_HAVE_SNAPPY
#include <snappy-c.h>
#endif

static void test_spec_vectors(void **state)
{
    (void)state;
    ub b = {0};
    ub_spec_demo(&b);
    urecs r;
    tk_error err;
    assert_int_equal(ucir_read_mem(b.p, b.len, 1, &r, &err), 0);
    assert_int_equal(r.h.variant, TK_UCIR_SPEC);
    assert_int_equal(r.h.version, 0);
    assert_int_equal(r.h.arch, TK_UCIR_ARCH_X86);
    assert_int_equal(r.h.mode, TK_UCIR_MODE_64);
    assert_string_equal(r.h.arch_name, "x86_64");
    assert_string_equal(r.h.os, "linux");
    assert_int_equal(r.n, 18);
    const tk_ucir_op *v = r.v;
    /* frame 0: the setup keyframe */
    assert_int_equal(v[0].kind, TK_UCIR_FRAME);
    assert_true(v[0].keyframe);
    assert_int_equal(v[0].op_count, 5);
    assert_int_equal(r.pos[0].frame_offset, 80);
    assert_int_equal(v[1].kind, TK_UCIR_MEM_MAP);
    assert_int_equal(v[1].addr, 0x400000);
    assert_int_equal(v[1].size, 0x1000);
    assert_int_equal(v[1].prot, TK_UCIR_PROT_READ | TK_UCIR_PROT_EXEC);
    assert_int_equal(v[2].kind, TK_UCIR_MEM_WRITE);
    assert_int_equal(v[2].addr, 0x400000);
    assert_int_equal(v[2].size, 12);
    assert_int_equal(v[2].len, 12);
    assert_memory_equal(v[2].data, "\xb8\x01\x00\x00\x00\xbf\x01\x00\x00\x00\x0f\x05", 12);
    assert_int_equal(r.pos[2].op_offset, 14);
    assert_int_equal(v[3].kind, TK_UCIR_MEM_MAP);
    assert_int_equal(v[3].addr, 0x7ffef000);
    assert_int_equal(v[3].size, 0x11000);
    assert_int_equal(v[3].prot, 3);
    assert_int_equal(v[4].kind, TK_UCIR_MEM_WRITE);
    assert_int_equal(v[4].addr, 0x7fff0000);
    assert_memory_equal(v[4].data, "hi\n", 3);
    assert_int_equal(v[5].kind, TK_UCIR_REG_CHANGE);
    assert_int_equal(v[5].reg, 44);
    assert_string_equal(tk_ucir_reg_name(4, 8, v[5].reg), "rsp");
    assert_int_equal(v[5].value, 0x7fff0000);
    assert_int_equal(r.pos[5].op_offset, 77);
    /* frame 1: two instructions and a write(1, buf, 3) */
    assert_int_equal(v[6].kind, TK_UCIR_FRAME);
    assert_false(v[6].keyframe);
    assert_int_equal(v[6].op_count, 6);
    assert_int_equal(r.pos[6].frame, 1);
    assert_int_equal(v[7].kind, TK_UCIR_EXEC_ABS);
    assert_int_equal(v[7].addr, 0x400000);
    assert_int_equal(v[7].size, 5);
    assert_int_equal(v[8].kind, TK_UCIR_REG_CHANGE);
    assert_int_equal(v[8].reg, 35);
    assert_int_equal(v[8].value, 1);
    assert_int_equal(v[9].kind, TK_UCIR_EXEC_REL);
    assert_int_equal(v[9].size, 5);
    assert_int_equal(v[10].reg, 39);
    assert_int_equal(v[11].kind, TK_UCIR_EXEC_REL);
    assert_int_equal(v[11].size, 2);
    assert_int_equal(v[12].kind, TK_UCIR_SYSCALL);
    assert_int_equal(v[12].num, 1);
    assert_int_equal(v[12].ret, 3);
    assert_int_equal(v[12].argc, 3);
    assert_int_equal(v[12].args[0], 1);
    assert_int_equal(v[12].args[1], 0x7fff0000);
    assert_int_equal(v[12].args[2], 3);
    assert_int_equal(v[12].op_count, 2);
    assert_int_equal(v[12].depth, 0);
    assert_int_equal(r.pos[12].op_offset, 45);
    assert_int_equal(v[13].kind, TK_UCIR_MEM_READ);
    assert_int_equal(v[13].depth, 1);
    assert_int_equal(v[13].addr, 0x7fff0000);
    assert_memory_equal(v[13].data, "hi\n", 3);
    assert_int_equal(v[14].kind, TK_UCIR_REG_CHANGE);
    assert_int_equal(v[14].depth, 1);
    assert_int_equal(v[14].value, 3);
    assert_int_equal(r.pos[14].op_offset, 104);
    /* frame 2: exit(0) */
    assert_int_equal(v[15].kind, TK_UCIR_FRAME);
    assert_int_equal(v[15].op_count, 2);
    assert_int_equal(v[16].kind, TK_UCIR_SYSCALL);
    assert_int_equal(v[16].num, 60);
    assert_int_equal(v[16].argc, 1);
    assert_int_equal(v[16].args[0], 0);
    assert_int_equal(v[16].op_count, 0);
    assert_int_equal(v[17].kind, TK_UCIR_EXIT);
    assert_int_equal(v[17].depth, 0);
    assert_int_equal(r.counts.frames, 3);
    assert_int_equal(r.counts.keyframes, 1);
    assert_int_equal(r.counts.records, 18);
    assert_int_equal(r.counts.inflated, 88 + 115 + 24);
    urecs_free(&r);
    ub_free(&b);
}

/* The single-op vectors of the spec, one per frame. */
static void test_spec_single_ops(void **state)
{
    (void)state;
    ub b = {0};
    ub_spec_header(&b, 4, 4, "x86", "linux");
    ub_frame_hex(&b, 0, 4,
                 "02 0000000000001000 00000007 | 03 00000003 | 08 0000000000001000 00002000 07 |"
                 "09 0000000000001000 00002000");
    ub_frame_hex(&b, 0, 3, "00 | 05 0101 0003 aabbcc | 0b");
    urecs r;
    tk_error err;
    assert_int_equal(ucir_read_mem(b.p, b.len, 1, &r, &err), 0);
    assert_int_equal(r.n, 9);
    assert_int_equal(r.v[1].kind, TK_UCIR_EXEC_ABS);
    assert_int_equal(r.v[1].addr, 0x1000);
    assert_int_equal(r.v[1].size, 7);
    assert_int_equal(r.v[2].kind, TK_UCIR_EXEC_REL);
    assert_int_equal(r.v[2].size, 3);
    assert_int_equal(r.v[3].kind, TK_UCIR_MEM_MAP);
    assert_int_equal(r.v[3].size, 0x2000);
    assert_int_equal(r.v[3].prot, 7);
    assert_int_equal(r.v[4].kind, TK_UCIR_MEM_UNMAP);
    assert_int_equal(r.v[4].addr, 0x1000);
    assert_int_equal(r.v[4].size, 0x2000);
    assert_int_equal(r.v[6].kind, TK_UCIR_NOP);
    assert_int_equal(r.v[7].kind, TK_UCIR_SPREG_CHANGE);
    assert_int_equal(r.v[7].reg, 0x101);
    assert_int_equal(r.v[7].len, 3);
    assert_memory_equal(r.v[7].data, "\xaa\xbb\xcc", 3);
    assert_int_equal(r.v[8].kind, TK_UCIR_EXIT);
    urecs_free(&r);
    ub_free(&b);
}

/* The notes' .uc vectors (§6) in one stream, chunked at odd sizes. */
static void uc_demo(ub *b, size_t chunk)
{
    ub ops = {0};
    ub_hex(&ops, "02 0000000000000000 01000000 05 2300 0000000000000000"); /* KEYFRAME */
    ub_hex(&ops, "01 0000000000000000 0c000000"
                 "00"
                 "03 0000400000000000 10000000"
                 "04 03"
                 "05 2300 0100000000000000"
                 "06 ff00 0400 01020304"
                 "07 0010000000000000 04000000"
                 "08 0010000000000000 02000000 dead"
                 "09 0000400000000000 0010000000000000 05 0000000000000000 0010000000000000"
                 "   0300 0600 657865 2f62696e2f78"
                 "0a 0000400000000000 0010000000000000"
                 "0b 0000400000000000 0010000000000000 01"
                 "0c 01000000 0500000000000000 03 0100 0100000000000000 0010000000000000"
                 "   0500000000000000 05 2300 0500000000000000"
                 "0d");
    ub_hex(&ops, "01 0000000000000000 02000000 03 0000400000000000 08000000 04 03");
    ub_uc_header(b, "x86_64", "linux");
    ub_uc_chunks(b, ops.p, ops.len, chunk);
    ub_free(&ops);
}

static void test_uc_vectors(void **state)
{
    (void)state;
    static const size_t chunks[] = {1, 7, 64, 65536};
    for (size_t c = 0; c < 4; c++) {
        ub b = {0};
        uc_demo(&b, chunks[c]);
        urecs r;
        tk_error err;
        int rc = ucir_read_mem(b.p, b.len, 1, &r, &err);
        if (rc != 0)
            fail_msg("chunk %zu: %s", chunks[c], err.message);
        assert_int_equal(r.h.variant, TK_UCIR_USERCORN);
        assert_int_equal(r.h.version, 1);
        assert_int_equal(r.h.arch, TK_UCIR_ARCH_X86);
        assert_int_equal(r.h.mode, TK_UCIR_MODE_64);
        assert_string_equal(r.h.arch_name, "x86_64");
        assert_int_equal(r.n, 2 + 14 + 3);
        const tk_ucir_op *v = r.v;
        assert_int_equal(v[0].kind, TK_UCIR_FRAME);
        assert_true(v[0].keyframe);
        assert_int_equal(v[0].op_count, 1);
        assert_int_equal(v[1].kind, TK_UCIR_REG_CHANGE);
        assert_int_equal(v[1].reg, 35);
        assert_int_equal(v[2].kind, TK_UCIR_FRAME);
        assert_false(v[2].keyframe);
        assert_int_equal(v[2].op_count, 12);
        assert_int_equal(r.pos[2].frame, 1);
        assert_int_equal(r.pos[2].frame_offset, 24);
        assert_int_equal(v[3].kind, TK_UCIR_NOP);
        assert_int_equal(v[4].kind, TK_UCIR_JMP);
        assert_int_equal(v[4].addr, 0x400000);
        assert_int_equal(v[4].size, 0x10);
        assert_int_equal(v[5].kind, TK_UCIR_STEP);
        assert_int_equal(v[5].size, 3);
        assert_int_equal(v[6].kind, TK_UCIR_REG_CHANGE);
        assert_int_equal(v[6].reg, 35);
        assert_int_equal(v[6].value, 1);
        assert_int_equal(v[7].kind, TK_UCIR_SPREG_CHANGE);
        assert_int_equal(v[7].reg, 255);
        assert_memory_equal(v[7].data, "\x01\x02\x03\x04", 4);
        assert_int_equal(v[8].kind, TK_UCIR_MEM_READ);
        assert_int_equal(v[8].addr, 0x1000);
        assert_int_equal(v[8].size, 4);
        assert_int_equal(v[8].len, 0);
        assert_int_equal(v[9].kind, TK_UCIR_MEM_WRITE);
        assert_int_equal(v[9].size, 2);
        assert_memory_equal(v[9].data, "\xde\xad", 2);
        assert_int_equal(v[10].kind, TK_UCIR_MEM_MAP);
        assert_int_equal(v[10].addr, 0x400000);
        assert_int_equal(v[10].size, 0x1000);
        assert_int_equal(v[10].prot, 5);
        assert_int_equal(v[10].map_off, 0);
        assert_int_equal(v[10].map_len, 0x1000);
        assert_int_equal(v[10].desc_len, 3);
        assert_memory_equal(v[10].desc, "exe", 3);
        assert_int_equal(v[10].path_len, 6);
        assert_memory_equal(v[10].path, "/bin/x", 6);
        assert_int_equal(v[11].kind, TK_UCIR_MEM_UNMAP);
        assert_int_equal(v[11].size, 0x1000);
        assert_int_equal(v[12].kind, TK_UCIR_MEM_PROT);
        assert_int_equal(v[12].prot, 1);
        assert_int_equal(v[13].kind, TK_UCIR_SYSCALL);
        assert_int_equal(v[13].num, 1);
        assert_int_equal(v[13].ret, 5);
        assert_int_equal(v[13].argc, 3);
        assert_int_equal(v[13].args[1], 0x1000);
        assert_int_equal(v[13].args[2], 5);
        assert_int_equal(v[13].op_count, 1);
        assert_int_equal(v[14].kind, TK_UCIR_REG_CHANGE);
        assert_int_equal(v[14].depth, 1);
        assert_int_equal(v[14].value, 5);
        assert_int_equal(v[15].kind, TK_UCIR_EXIT);
        assert_int_equal(v[15].depth, 0);
        assert_int_equal(v[16].kind, TK_UCIR_FRAME);
        assert_int_equal(v[16].op_count, 2);
        assert_int_equal(v[17].kind, TK_UCIR_JMP);
        assert_int_equal(v[17].size, 8);
        assert_int_equal(v[18].kind, TK_UCIR_STEP);
        assert_int_equal(r.counts.frames, 3);
        assert_int_equal(r.counts.keyframes, 1);
        urecs_free(&r);
        ub_free(&b);
    }
}

#ifdef TK_HAVE_SNAPPY
/* The same ops in Snappy-compressed chunks (as usercorn writes them) read
 * the same; a chunk that does not decompress is an error at its offset. */
static void test_uc_compressed(void **state)
{
    (void)state;
    ub plain = {0};
    uc_demo(&plain, 65536);
    urecs want;
    tk_error err;
    assert_int_equal(ucir_read_mem(plain.p, plain.len, 1, &want, &err), 0);
    /* ops = the chunk data after the header, identifier and chunk header */
    const uint8_t *ops = plain.p + 74 + 10 + 8;
    size_t nops = plain.len - 74 - 10 - 8;
    for (size_t chunk = 5; chunk <= 65536; chunk *= 8) {
        ub b = {0};
        ub_uc_header(&b, "x86_64", "linux");
        for (size_t at = 0; at < nops; at += chunk) {
            size_t k = nops - at < chunk ? nops - at : chunk;
            size_t clen = snappy_max_compressed_length(k);
            char *c = malloc(clen);
            assert_int_equal(snappy_compress((const char *)ops + at, k, c, &clen), SNAPPY_OK);
            ub_u8(&b, 0x00);
            ub_le(&b, clen + 4, 3);
            ub_le(&b, t_crc32c(ops + at, k), 4);
            ub_put(&b, c, clen);
            free(c);
        }
        urecs got;
        assert_int_equal(ucir_read_mem(b.p, b.len, 1, &got, &err), 0);
        assert_int_equal(got.n, want.n);
        for (size_t i = 0; i < got.n; i++)
            assert_true(tk_ucir_op_equal(&got.v[i], &want.v[i]));
        assert_int_equal(got.counts.inflated, nops);
        urecs_free(&got);
        ub_free(&b);
    }
    ub b = {0};
    ub_uc_header(&b, "x86_64", "linux");
    ub_hex(&b, "00 080000 00000000 ffffffff"); /* a length varint past 64 KiB */
    expect_error(b.p, b.len, 84, 0, "corrupt Snappy chunk");
    ub_free(&b);
    urecs_free(&want);
    ub_free(&plain);
}
#endif

/* A writer-built trace of many frames: every thread count reads the same. */
static void many_frames(tu_capture *c, uint64_t seed, size_t nops)
{
    tu_capture_open(c);
    tk_ucir_header h;
    memset(&h, 0, sizeof h);
    h.arch = 2;
    strcpy(h.arch_name, "arm64");
    strcpy(h.os, "linux");
    tk_error err;
    tk_ucir_writer_options wo = {97, 0, 1};
    tk_ucir_writer *w = tk_ucir_writer_new(c->fp, &h, &wo, &err);
    assert_non_null(w);
    uint8_t data[40];
    uint64_t args[2] = {7, 9};
    for (size_t i = 0; i < nops; i++) {
        uint64_t r = tu_rand(&seed);
        tk_ucir_op op;
        memset(&op, 0, sizeof op);
        switch (r % 7) {
        case 0: op.kind = TK_UCIR_EXEC_ABS; op.addr = r >> 20; op.size = 4; break;
        case 1: op.kind = TK_UCIR_EXEC_REL; op.size = 4; break;
        case 2: op.kind = TK_UCIR_REG_CHANGE; op.reg = 199 + (r >> 8) % 29; op.value = r; break;
        case 3:
            op.kind = TK_UCIR_MEM_WRITE;
            op.addr = r >> 16;
            op.size = op.len = (r >> 8) % sizeof data;
            memset(data, (int)(r & 0xFF), sizeof data);
            op.data = data;
            break;
        case 4: op.kind = TK_UCIR_FRAME; op.keyframe = (r >> 9) & 1; break;
        case 5: op.kind = TK_UCIR_SYSCALL; op.num = 64; op.argc = 2; op.args = args; op.op_count = 0; break;
        default: op.kind = TK_UCIR_NOP; break;
        }
        assert_int_equal(tk_ucir_write(w, &op, &err), TK_OK);
    }
    assert_int_equal(tk_ucir_writer_free(w, &err), TK_OK);
    tu_capture_close(c);
}

static void assert_same(const urecs *a, const urecs *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        if (!tk_ucir_op_equal(&a->v[i], &b->v[i]))
            fail_msg("record %zu differs", i);
        assert_memory_equal(&a->pos[i], &b->pos[i], sizeof a->pos[i]);
    }
}

static void test_threads_same(void **state)
{
    (void)state;
    tu_capture c;
    many_frames(&c, 11, 20000);
    urecs one;
    tk_error err;
    assert_int_equal(ucir_read_mem(c.buf, c.len, 1, &one, &err), 0);
    assert_true(one.counts.frames > 100);
    for (unsigned t = 2; t <= 8; t *= 2) {
        urecs more;
        assert_int_equal(ucir_read_mem(c.buf, c.len, t, &more, &err), 0);
        assert_same(&one, &more);
        assert_memory_equal(&one.counts, &more.counts, sizeof one.counts);
        urecs_free(&more);
    }
    /* and a corrupt frame deep inside reports the same error */
    size_t at = one.pos[one.n / 2].frame_offset;
    c.buf[at + 12] ^= 0xFF;
    urecs a, b;
    tk_error ea, eb;
    assert_int_equal(ucir_read_mem(c.buf, c.len, 1, &a, &ea), -1);
    assert_int_equal(ucir_read_mem(c.buf, c.len, 4, &b, &eb), -1);
    assert_string_equal(ea.message, eb.message);
    assert_int_equal(ea.offset, eb.offset);
    assert_int_equal(ea.record, eb.record);
    assert_same(&a, &b);
    urecs_free(&a);
    urecs_free(&b);
    urecs_free(&one);
    free(c.buf);
}

/* Seeking to any frame start continues exactly as the first reading. */
static void test_seek(void **state)
{
    (void)state;
    tu_capture c;
    many_frames(&c, 5, 3000);
    urecs all;
    tk_error err;
    assert_int_equal(ucir_read_mem(c.buf, c.len, 1, &all, &err), 0);
    for (unsigned threads = 1; threads <= 3; threads += 2) {
        tk_input *in = tk_input_from_memory(c.buf, c.len, "mem", &err);
        tk_ucir_reader_options o = {threads, 0};
        tk_ucir_reader *r = tk_ucir_reader_new(in, &o, &err);
        assert_non_null(r);
        tk_ucir_op op;
        tk_ucir_pos pos;
        for (size_t i = all.n; i-- > 0;) {
            if (all.v[i].kind != TK_UCIR_FRAME || i % 3)
                continue;
            assert_int_equal(tk_ucir_reader_seek(r, all.pos[i].frame_offset, all.pos[i].frame, i, &err),
                             TK_OK);
            for (size_t k = i; k < all.n && k < i + 50; k++) {
                assert_int_equal(tk_ucir_next(r, &op, &err), 1);
                tk_ucir_reader_pos(r, &pos);
                assert_true(tk_ucir_op_equal(&op, &all.v[k]));
                assert_memory_equal(&pos, &all.pos[k], sizeof pos);
            }
        }
        assert_int_equal(tk_ucir_reader_seek(r, 10, 0, 0, &err), TK_EUSAGE);
        assert_int_equal(tk_ucir_reader_seek(r, c.len + 5, 0, 0, &err), TK_EUSAGE);
        tk_ucir_reader_free(r);
        tk_input_close(in);
    }
    urecs_free(&all);
    free(c.buf);
}

/* A pipe reads like memory; it cannot seek back. */
static void test_pipe(void **state)
{
    (void)state;
    tu_capture c;
    many_frames(&c, 8, 4000);
    urecs mem;
    tk_error err;
    assert_int_equal(ucir_read_mem(c.buf, c.len, 1, &mem, &err), 0);
    for (unsigned threads = 1; threads <= 2; threads++) {
        int fd;
        pid_t pid = tu_pipe_feed(c.buf, c.len, 3 + threads, &fd);
        tk_input *in = tk_input_from_fd(fd, "pipe", &err);
        tk_ucir_reader_options o = {threads, 0};
        tk_ucir_reader *r = tk_ucir_reader_new(in, &o, &err);
        assert_non_null(r);
        tk_ucir_op op;
        size_t n = 0;
        while (tk_ucir_next(r, &op, &err) > 0) {
            assert_true(n < mem.n && tk_ucir_op_equal(&op, &mem.v[n]));
            n++;
        }
        assert_int_equal(n, mem.n);
        assert_int_equal(tk_ucir_reader_seek(r, mem.pos[1].frame_offset, 0, 0, &err),
                         TK_EUNSUPPORTED);
        tk_ucir_reader_free(r);
        tk_input_close(in);
        tu_pipe_wait(pid, fd);
    }
    urecs_free(&mem);
    free(c.buf);
}

static void test_names(void **state)
{
    (void)state;
    char buf[16];
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_X86, 8, 35), "rax");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_X86, 4, 26), "eip");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_X86, 8, 113), "r15");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_X86, 8, 140), "xmm18");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_X86, 8, 251), "gs_base");
    assert_null(tk_ucir_reg_name(TK_UCIR_ARCH_X86, 8, 252));
    assert_null(tk_ucir_reg_name(TK_UCIR_ARCH_X86, 8, 0));
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_ARM, 0, 66), "r0");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_ARM, 0, 78), "r12");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_ARM, 0, 12), "sp");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_ARM, 0, 117), "control");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_ARM64, 0, 199), "x0");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_ARM64, 0, 227), "x28");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_ARM64, 0, 1), "x29");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_ARM64, 0, 260), "pc");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_ARM64, 0, 289), "vbar_el3");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_MIPS, 4, 2), "zero");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_MIPS, 4, 31), "sp");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_MIPS, 4, 33), "ra");
    assert_string_equal(tk_ucir_reg_name(TK_UCIR_ARCH_MIPS, 4, 138), "cp0_userlocal");
    assert_null(tk_ucir_reg_name(TK_UCIR_ARCH_SPARC, 4, 5));
    assert_string_equal(tk_ucir_reg_label(TK_UCIR_ARCH_SPARC, 4, 5, buf, sizeof buf), "reg5");
    assert_string_equal(tk_ucir_reg_label(TK_UCIR_ARCH_MIPS, 4, 999, buf, sizeof buf), "reg999");
    assert_string_equal(tk_ucir_kind_name(TK_UCIR_MEM_PROT), "mem_prot");
    assert_string_equal(tk_ucir_kind_name((tk_ucir_kind)99), "?");
    assert_string_equal(tk_ucir_arch_name(TK_UCIR_ARCH_ARM64), "arm64");
    assert_null(tk_ucir_arch_name(77));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_vectors),
        cmocka_unit_test(test_spec_single_ops),
        cmocka_unit_test(test_uc_vectors),
#ifdef TK_HAVE_SNAPPY
        cmocka_unit_test(test_uc_compressed),
#endif
        cmocka_unit_test(test_threads_same),
        cmocka_unit_test(test_seek),
        cmocka_unit_test(test_pipe),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
