/* The UCIR replay engine: state per instruction on the spec's vector,
 * keyframes, memory maps, .uc attribution, and seeking through the
 * checkpoint index against a linear replay of random traces. */
#include <time.h>
#include <unistd.h>

#include "ucir_test.h"

enum { RAX = 35, RBX = 37, RDI = 39, RSP = 44 };

static tk_ucir_reader *reader_mem(const ub *b, tk_input **in)
{
    tk_error err;
    *in = tk_input_from_memory(b->p, b->len, "mem", &err);
    assert_non_null(*in);
    tk_ucir_reader *r = tk_ucir_reader_new(*in, NULL, &err);
    if (!r)
        fail_msg("%s", err.message);
    return r;
}

static uint64_t reg(const tk_ucir_replay *rp, uint32_t num)
{
    uint64_t v = 0xdeadbeef;
    assert_true(tk_ucir_replay_reg(rp, num, &v));
    return v;
}

static void expect_mem(tk_ucir_replay *rp, uint64_t addr, const char *hex_or_unknown)
{
    ub want = {0};
    size_t n = strlen(hex_or_unknown) / 2;
    int unknown = hex_or_unknown[0] == '?';
    if (!unknown)
        ub_hex(&want, hex_or_unknown);
    uint8_t buf[64], known[64];
    tk_error err;
    assert_int_equal(tk_ucir_replay_read(rp, addr, n, buf, known, &err), TK_OK);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(known[i], !unknown);
        if (!unknown)
            assert_int_equal(buf[i], want.p[i]);
    }
    ub_free(&want);
}

static void test_spec_demo_states(void **state)
{
    (void)state;
    tk_error err;
    ub b = {0};
    ub_spec_demo(&b);
    tk_input *in;
    tk_ucir_reader *r = reader_mem(&b, &in);
    tk_ucir_replay *rp = tk_ucir_replay_new(tk_ucir_reader_header(r), &err);
    tk_ucir_replay_info info;

    assert_int_equal(tk_ucir_replay_run_to(rp, r, 0, &err), 1);
    tk_ucir_replay_info_get(rp, &info);
    assert_int_equal(info.instruction, 0);
    assert_true(info.pc_known);
    assert_int_equal(info.pc, 0x400000);
    assert_int_equal(reg(rp, RAX), 1);
    assert_int_equal(reg(rp, RSP), 0x7fff0000);
    uint64_t v;
    assert_false(tk_ucir_replay_reg(rp, RDI, &v)); /* set by instruction 1 */
    tk_ucir_map maps[4];
    assert_int_equal(tk_ucir_replay_maps(rp, maps, 4), 2);
    assert_int_equal(maps[0].addr, 0x400000);
    assert_int_equal(maps[0].size, 0x1000);
    assert_int_equal(maps[0].prot, 5);
    assert_int_equal(maps[1].addr, 0x7ffef000);
    assert_int_equal(maps[1].size, 0x11000);
    assert_int_equal(maps[1].prot, 3);
    expect_mem(rp, 0x400000, "b801000000bf010000000f05");
    expect_mem(rp, 0x40000c, "????");
    expect_mem(rp, 0x7fff0000, "68690a");
    expect_mem(rp, 0x7fff0003, "??");

    assert_int_equal(tk_ucir_replay_run_to(rp, r, 1, &err), 1);
    tk_ucir_replay_info_get(rp, &info);
    assert_int_equal(info.pc, 0x400005);
    assert_int_equal(reg(rp, RDI), 1);
    assert_int_equal(reg(rp, RAX), 1);

    /* the syscall and its nested effects belong to instruction 2 */
    assert_int_equal(tk_ucir_replay_run_to(rp, r, 2, &err), 1);
    tk_ucir_replay_info_get(rp, &info);
    assert_int_equal(info.pc, 0x40000a);
    assert_int_equal(reg(rp, RAX), 3);
    /* the ops up to the next EXEC are its effects: the exit syscall of
     * the last frame too */
    assert_int_equal(info.syscalls, 2);
    assert_true(info.exited);

    /* no instruction 3: the final state, with the exit */
    assert_int_equal(tk_ucir_replay_run_to(rp, r, 3, &err), 0);
    tk_ucir_replay_info_get(rp, &info);
    assert_int_equal(info.instruction, 2);
    assert_int_equal(info.instructions, 3);
    assert_int_equal(info.syscalls, 2);
    assert_true(info.exited);
    assert_int_equal(info.records, 3 + 5 + 6 + 2 + 2); /* frames, ops, nested ops */
    tk_ucir_replay_free(rp);
    tk_ucir_reader_free(r);
    tk_input_close(in);
    ub_free(&b);
}

/* Later keyframes summarise the frame after them: a linear replay skips
 * them (their deliberately different content must never show). */
static void test_later_keyframes_skipped(void **state)
{
    (void)state;
    tk_error err;
    ub b = {0};
    ub_spec_header(&b, 4, 8, "x86_64", "linux");
    ub_frame_hex(&b, 1, 1, "04 0023 0000000000000001");
    ub_frame_hex(&b, 0, 2, "02 0000000000001000 00000004 | 04 0023 0000000000000002");
    ub_frame_hex(&b, 1, 2, "04 0023 0000000000000063 | 04 0025 0000000000000007");
    ub_frame_hex(&b, 0, 2, "03 00000004 | 04 0023 0000000000000005");
    tk_input *in;
    tk_ucir_reader *r = reader_mem(&b, &in);
    tk_ucir_replay *rp = tk_ucir_replay_new(tk_ucir_reader_header(r), &err);
    assert_int_equal(tk_ucir_replay_run_to(rp, r, 0, &err), 1);
    assert_int_equal(reg(rp, RAX), 2);
    assert_int_equal(tk_ucir_replay_run_all(rp, r, &err), 0);
    tk_ucir_replay_info info;
    tk_ucir_replay_info_get(rp, &info);
    assert_int_equal(info.instruction, 1);
    assert_int_equal(info.pc, 0x1004);
    assert_int_equal(reg(rp, RAX), 5);
    uint64_t v;
    assert_false(tk_ucir_replay_reg(rp, RBX, &v));
    assert_int_equal(info.skipped_records, 2);
    assert_int_equal(info.frames, 4);
    tk_ucir_replay_free(rp);
    tk_ucir_reader_free(r);
    tk_input_close(in);
    ub_free(&b);
}

static void test_maps_and_unmaps(void **state)
{
    (void)state;
    tk_error err;
    ub b = {0};
    ub_spec_header(&b, 4, 8, "x86_64", "linux");
    ub_frame_hex(&b, 1, 5,
                 "08 0000000000001000 00003000 07"
                 "07 0000000000001ff8 0000000000000010 00112233445566778899aabbccddeeff"
                 "09 0000000000002000 00001000"
                 "08 0000000000001800 00001000 01"
                 "02 0000000000001000 00000001");
    tk_input *in;
    tk_ucir_reader *r = reader_mem(&b, &in);
    tk_ucir_replay *rp = tk_ucir_replay_new(tk_ucir_reader_header(r), &err);
    assert_int_equal(tk_ucir_replay_run_all(rp, r, &err), 0);
    tk_ucir_map m[8];
    assert_int_equal(tk_ucir_replay_maps(rp, m, 8), 3);
    assert_int_equal(m[0].addr, 0x1000);
    assert_int_equal(m[0].size, 0x800);
    assert_int_equal(m[0].prot, 7);
    assert_int_equal(m[1].addr, 0x1800);
    assert_int_equal(m[1].size, 0x1000);
    assert_int_equal(m[1].prot, 1);
    assert_int_equal(m[2].addr, 0x3000);
    assert_int_equal(m[2].size, 0x1000);
    assert_int_equal(m[2].prot, 7);
    /* the write crossed a page; the unmap forgot its second half */
    expect_mem(rp, 0x1ff8, "0011223344556677");
    expect_mem(rp, 0x2000, "????????????????");
    tk_ucir_replay_info info;
    tk_ucir_replay_info_get(rp, &info);
    assert_int_equal(info.instruction, 0);
    tk_ucir_replay_free(rp);
    tk_ucir_reader_free(r);
    tk_input_close(in);
    ub_free(&b);
}

/* .uc: effects come before their STEP; a SYSCALL right after a STEP is
 * that instruction's; JMP gives the address. */
static void test_uc_attribution(void **state)
{
    (void)state;
    tk_error err;
    ub ops = {0};
    ub_hex(&ops, "02 0000000000000000 01000000  05 2c00 0070000000000000");
    ub_hex(&ops, "01 0000000000000000 06000000"
                 "  03 0000400000000000 10000000"
                 "  05 2300 0100000000000000"
                 "  04 03"
                 "  08 0070000000000000 02000000 dead"
                 "  04 02"
                 "  0c 01000000 0500000000000000 00 0100  05 2300 0500000000000000");
    ub_hex(&ops, "01 0000000000000000 02000000  03 0001400000000000 04000000  04 04");
    ub b = {0};
    ub_uc_header(&b, "x86_64", "linux");
    ub_uc_chunks(&b, ops.p, ops.len, 7);
    tk_input *in;
    tk_ucir_reader *r = reader_mem(&b, &in);
    tk_ucir_replay *rp = tk_ucir_replay_new(tk_ucir_reader_header(r), &err);
    tk_ucir_replay_info info;
    assert_int_equal(tk_ucir_replay_run_to(rp, r, 0, &err), 1);
    tk_ucir_replay_info_get(rp, &info);
    assert_int_equal(info.instruction, 0);
    assert_int_equal(info.pc, 0x400000);
    assert_int_equal(reg(rp, RAX), 1);
    assert_int_equal(reg(rp, RSP), 0x7000);
    expect_mem(rp, 0x7000, "????");

    assert_int_equal(tk_ucir_replay_run_to(rp, r, 1, &err), 1);
    tk_ucir_replay_info_get(rp, &info);
    assert_int_equal(info.pc, 0x400003);
    expect_mem(rp, 0x7000, "dead");
    assert_int_equal(reg(rp, RAX), 5);
    assert_int_equal(info.syscalls, 1);

    assert_int_equal(tk_ucir_replay_run_to(rp, r, 2, &err), 1);
    tk_ucir_replay_info_get(rp, &info);
    assert_int_equal(info.pc, 0x400100);
    assert_int_equal(tk_ucir_replay_run_to(rp, r, 3, &err), 0);
    tk_ucir_replay_info_get(rp, &info);
    assert_int_equal(info.instructions, 3);
    /* no index for .uc */
    char *dir = tu_tmpdir();
    tu_write_file(tu_path(dir, "t.uc"), b.p, b.len);
    tk_input *in2 = tk_input_open(tu_path(dir, "t.uc"), &err);
    tk_ucir_reader *r2 = tk_ucir_reader_new(in2, NULL, &err);
    assert_int_equal(tk_ucir_index_build(r2, tu_path(dir, "t.uc"), tu_path(dir, "t.idx"), NULL,
                                         &err),
                     TK_EUNSUPPORTED);
    assert_int_equal(tu_dir_count(dir), 1); /* no index left behind */
    tk_ucir_reader_free(r2);
    tk_input_close(in2);
    tu_rmdir(dir);
    tk_ucir_replay_free(rp);
    tk_ucir_reader_free(r);
    tk_input_close(in);
    ub_free(&b);
    ub_free(&ops);
}

/* ---- exports */

static char *export_demo(int drcov, size_t *len)
{
    ub b = {0};
    ub_spec_demo(&b);
    tk_input *in;
    tk_ucir_reader *r = reader_mem(&b, &in);
    tu_capture c;
    tu_capture_open(&c);
    tk_error err;
    uint64_t unmapped = 99;
    tk_status st = drcov ? tk_ucir_export_drcov(r, c.fp, &unmapped, &err)
                         : tk_ucir_export_tenet(r, c.fp, &err);
    if (st != TK_OK)
        fail_msg("%s", err.message);
    if (drcov)
        assert_int_equal(unmapped, 0);
    char *text = tu_capture_close(&c);
    *len = c.len;
    tk_ucir_reader_free(r);
    tk_input_close(in);
    ub_free(&b);
    return text;
}

/* Each line: the registers changed before the instruction, its address,
 * its memory accesses (the syscall's read belongs to instruction 2). */
static void test_tenet_demo(void **state)
{
    (void)state;
    size_t n;
    char *text = export_demo(0, &n);
    assert_string_equal(text, "rsp=0x7fff0000,rip=0x400000\n"
                              "rax=0x1,rip=0x400005\n"
                              "rdi=0x1,rip=0x40000a,mr=0x7fff0000:68690a\n");
    free(text);
}

/* Three straight-line instructions in the r-x map: one 12-byte block. */
static void test_drcov_demo(void **state)
{
    (void)state;
    size_t n;
    char *text = export_demo(1, &n);
    const char *head = "DRCOV VERSION: 2\nDRCOV FLAVOR: drcov-64\n"
                       "Module Table: version 2, count 1\n"
                       "Columns: id, base, end, entry, path\n"
                       "0, 0x0000000000400000, 0x0000000000401000, 0x0000000000000000, map_0x400000\n"
                       "BB Table: 1 bbs\n";
    assert_memory_equal(text, head, strlen(head));
    static const uint8_t bb[8] = {0, 0, 0, 0, 12, 0, 0, 0};
    assert_memory_equal(text + strlen(head), bb, 8);
    free(text);
}

/* ---- seeking against a linear replay */

#define MEM_BASE 0x10000
#define MEM_SPAN (24 * 4096)

typedef struct snap {
    tk_ucir_replay_info info;
    size_t nregs, nmaps;
    uint32_t nums[64];
    uint64_t vals[64];
    tk_ucir_map maps[64];
    uint8_t mem[MEM_SPAN], known[MEM_SPAN];
} snap;

static void take(tk_ucir_replay *rp, snap *s)
{
    tk_error err;
    memset(s, 0, sizeof *s);
    tk_ucir_replay_info_get(rp, &s->info);
    s->nregs = tk_ucir_replay_regs(rp, s->nums, s->vals, 64);
    s->nmaps = tk_ucir_replay_maps(rp, s->maps, 64);
    assert_true(s->nregs <= 64 && s->nmaps <= 64);
    assert_int_equal(tk_ucir_replay_read(rp, MEM_BASE, MEM_SPAN, s->mem, s->known, &err), TK_OK);
}

static int same_maps(const snap *a, const snap *b)
{
    for (size_t i = 0; i < a->nmaps; i++)
        if (a->maps[i].addr != b->maps[i].addr || a->maps[i].size != b->maps[i].size ||
            a->maps[i].prot != b->maps[i].prot)
            return 0;
    return 1;
}

static void same(const snap *a, const snap *b, uint64_t n)
{
    if (memcmp(&a->info, &b->info, sizeof a->info) != 0 || a->nregs != b->nregs ||
        a->nmaps != b->nmaps || memcmp(a->nums, b->nums, sizeof a->nums) != 0 ||
        memcmp(a->vals, b->vals, sizeof a->vals) != 0 ||
        !same_maps(a, b) ||
        memcmp(a->mem, b->mem, MEM_SPAN) != 0 || memcmp(a->known, b->known, MEM_SPAN) != 0)
        fail_msg("seek to instruction %llu: state differs from the linear replay",
                 (unsigned long long)n);
}

static void put(tk_ucir_writer *w, const tk_ucir_op *op)
{
    tk_error err;
    if (tk_ucir_write(w, op, &err) != TK_OK)
        fail_msg("write: %s", err.message);
}

/* Random instructions with register and memory effects, maps, unmaps,
 * syscalls, and keyframes whose (random) content must be skipped. */
static uint64_t write_random(const char *path, uint64_t seed, uint64_t instructions)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    tk_ucir_header h;
    memset(&h, 0, sizeof h);
    h.variant = TK_UCIR_SPEC;
    h.arch = 4;
    h.mode = 8;
    strcpy(h.arch_name, "x86_64");
    strcpy(h.os, "linux");
    tk_ucir_writer_options o = {37, 0, 1};
    tk_error err;
    tk_ucir_writer *w = tk_ucir_writer_new(f, &h, &o, &err);
    assert_non_null(w);
    uint8_t data[300];
    uint64_t s = seed, args[3] = {1, 2, 3};
    tk_ucir_op op;
    memset(&op, 0, sizeof op);
    op.kind = TK_UCIR_FRAME;
    op.keyframe = 1;
    put(w, &op);
    memset(&op, 0, sizeof op);
    op.kind = TK_UCIR_MEM_MAP;
    op.addr = MEM_BASE;
    op.size = MEM_SPAN;
    op.prot = 3;
    put(w, &op);
    for (uint64_t i = 0; i < instructions; i++) {
        memset(&op, 0, sizeof op);
        if (tu_rand_below(&s, 300) == 0) { /* a keyframe, then its frame */
            op.kind = TK_UCIR_FRAME;
            op.keyframe = 1;
            put(w, &op);
            memset(&op, 0, sizeof op);
            op.kind = TK_UCIR_REG_CHANGE;
            op.reg = RAX;
            op.value = tu_rand(&s);
            put(w, &op);
            op.kind = TK_UCIR_MEM_WRITE;
            op.addr = MEM_BASE + tu_rand_below(&s, MEM_SPAN - 8);
            op.size = op.len = 8;
            op.data = data;
            memset(data, 0xEE, 8);
            put(w, &op);
            memset(&op, 0, sizeof op);
            op.kind = TK_UCIR_FRAME;
            put(w, &op);
            memset(&op, 0, sizeof op);
        }
        op.kind = tu_rand_below(&s, 4) ? TK_UCIR_EXEC_REL : TK_UCIR_EXEC_ABS;
        op.addr = 0x400000 + tu_rand_below(&s, 0x1000);
        op.size = 1 + tu_rand_below(&s, 15);
        put(w, &op);
        for (uint64_t e = tu_rand_below(&s, 4); e; e--) {
            memset(&op, 0, sizeof op);
            switch (tu_rand_below(&s, 10)) {
            case 0: case 1: case 2: case 3:
                op.kind = TK_UCIR_REG_CHANGE;
                op.reg = (uint32_t)(35 + tu_rand_below(&s, 10));
                op.value = tu_rand(&s);
                break;
            case 4: case 5: case 6: case 7:
                op.kind = tu_rand_below(&s, 3) ? TK_UCIR_MEM_WRITE : TK_UCIR_MEM_READ;
                op.size = op.len = 1 + tu_rand_below(&s, tu_rand_below(&s, 8) ? 16 : 300);
                op.addr = MEM_BASE + tu_rand_below(&s, MEM_SPAN - op.size);
                for (uint64_t k = 0; k < op.len; k++)
                    data[k] = (uint8_t)tu_rand(&s);
                op.data = data;
                break;
            case 8:
                op.kind = tu_rand_below(&s, 2) ? TK_UCIR_MEM_MAP : TK_UCIR_MEM_UNMAP;
                op.addr = MEM_BASE + 4096 * tu_rand_below(&s, 24);
                op.size = 4096 * (1 + tu_rand_below(&s, 3));
                op.prot = (uint8_t)tu_rand_below(&s, 8);
                break;
            default:
                op.kind = TK_UCIR_SYSCALL;
                op.num = (uint32_t)tu_rand_below(&s, 400);
                op.ret = tu_rand(&s);
                op.args = args;
                op.argc = 3;
                op.op_count = 1;
                put(w, &op);
                memset(&op, 0, sizeof op);
                op.kind = TK_UCIR_REG_CHANGE;
                op.depth = 1;
                op.reg = RAX;
                op.value = tu_rand(&s);
                break;
            }
            put(w, &op);
        }
    }
    assert_int_equal(tk_ucir_writer_free(w, &err), TK_OK);
    assert_int_equal(fclose(f), 0);
    return instructions;
}

static tk_ucir_reader *reader_file(const char *path, tk_input **in, unsigned threads)
{
    tk_error err;
    *in = tk_input_open(path, &err);
    assert_non_null(*in);
    tk_ucir_reader_options o = {threads, 0};
    tk_ucir_reader *r = tk_ucir_reader_new(*in, &o, &err);
    assert_non_null(r);
    return r;
}

static void test_seek_matches_linear(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char trace[512], index[512];
    snprintf(trace, sizeof trace, "%s", tu_path(dir, "t.ucir"));
    snprintf(index, sizeof index, "%s", tu_path(dir, "t.idx"));
    const uint64_t total = write_random(trace, 42, 20000);
    tk_error err;
    tk_input *in;
    tk_ucir_reader *r = reader_file(trace, &in, 2);
    tk_ucir_index_options io = {4096};
    assert_int_equal(tk_ucir_index_build(r, trace, index, &io, &err), TK_OK);
    tk_ucir_reader_free(r);
    tk_input_close(in);
    tk_ucir_index *ix = tk_ucir_index_open(index, trace, &err);
    if (!ix)
        fail_msg("%s", err.message);
    assert_true(tk_ucir_index_checkpoints(ix) > 20);
    assert_int_equal(tk_ucir_index_instructions(ix), total);

    /* targets in increasing order: one linear replay visits them all */
    uint64_t targets[40], s = 7;
    for (int i = 0; i < 40; i++)
        targets[i] = i == 0 ? 0 : i == 39 ? total - 1 : tu_rand_below(&s, total);
    for (int i = 1; i < 40; i++)
        for (int j = i; j > 0 && targets[j - 1] > targets[j]; j--) {
            uint64_t t = targets[j];
            targets[j] = targets[j - 1];
            targets[j - 1] = t;
        }
    snap *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    assert_true(a && b);
    tk_input *lin_in;
    tk_ucir_reader *lin = reader_file(trace, &lin_in, 1);
    tk_ucir_replay *lrp = tk_ucir_replay_new(tk_ucir_reader_header(lin), &err);
    for (int i = 0; i < 40; i++) {
        assert_int_equal(tk_ucir_replay_run_to(lrp, lin, targets[i], &err), 1);
        take(lrp, a);
        assert_int_equal(a->info.instruction, (int64_t)targets[i]);

        tk_input *sin;
        tk_ucir_reader *sr = reader_file(trace, &sin, (unsigned)(1 + i % 2));
        tk_ucir_replay *srp = tk_ucir_replay_new(tk_ucir_reader_header(sr), &err);
        assert_int_equal(tk_ucir_replay_seek(srp, sr, ix, targets[i], &err), TK_OK);
        assert_int_equal(tk_ucir_replay_run_to(srp, sr, targets[i], &err), 1);
        take(srp, b);
        same(a, b, targets[i]);
        /* and on from there, to the end */
        if (i % 8 == 0) {
            assert_int_equal(tk_ucir_replay_run_all(srp, sr, &err), 0);
            take(srp, b);
            assert_int_equal(b->info.instructions, total);
        }
        tk_ucir_replay_free(srp);
        tk_ucir_reader_free(sr);
        tk_input_close(sin);
    }
    assert_int_equal(tk_ucir_replay_run_to(lrp, lin, total, &err), 0);
    tk_ucir_replay_free(lrp);
    tk_ucir_reader_free(lin);
    tk_input_close(lin_in);
    tk_ucir_index_close(ix);
    free(a);
    free(b);

    /* a cut index is refused; a changed trace makes the index stale */
    size_t n;
    uint8_t *ib = tu_read_file(index, &n);
    tu_write_file(index, ib, n - 8);
    assert_null(tk_ucir_index_open(index, trace, &err));
    assert_int_equal(err.status, TK_EUNSUPPORTED);
    tu_write_file(index, ib, n);
    free(ib);
    ix = tk_ucir_index_open(index, trace, &err);
    assert_non_null(ix);
    tk_ucir_index_close(ix);
    uint8_t *bytes = tu_read_file(trace, &n);
    bytes[n - 1] ^= 1;
    tu_write_file(tu_path(dir, "t2.ucir"), bytes, n);
    free(bytes);
    assert_int_equal(rename(tu_path(dir, "t2.ucir"), trace), 0);
    assert_null(tk_ucir_index_open(index, trace, &err));
    assert_int_equal(err.status, TK_EUNSUPPORTED);
    tu_rmdir(dir);
}

/* 30000 executable maps, each run once, between blocks where nothing is
 * mapped, beside 30000 data maps, then each run again: the module of a
 * block is found in O(log n), also where there is none (a scan of the
 * modules and then of every map per block took seconds of CPU here; the
 * bound is many times what the export needs, even sanitized). */
static void test_drcov_many_maps(void **state)
{
    (void)state;
    enum { E = 30000 };
    const uint64_t code = 0x100000000ull, data = 0x200000000ull, none = 0x300000000ull;
    char *dir = tu_tmpdir();
    char trace[512];
    snprintf(trace, sizeof trace, "%s", tu_path(dir, "d.ucir"));
    FILE *f = fopen(trace, "wb");
    assert_non_null(f);
    tk_ucir_header h;
    memset(&h, 0, sizeof h);
    h.arch = 4;
    h.mode = 8;
    tk_error err;
    tk_ucir_writer *w = tk_ucir_writer_new(f, &h, NULL, &err);
    assert_non_null(w);
    tk_ucir_op op = {.kind = TK_UCIR_FRAME, .keyframe = 1};
    put(w, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_FRAME};
    put(w, &op);
    for (uint64_t i = 0; i < 2 * E; i++) {
        op = (tk_ucir_op){.kind = TK_UCIR_MEM_MAP, .addr = (i % 2 ? data : code) + 8192 * (i / 2),
                          .size = 4096, .prot = i % 2 ? 3 : 5};
        put(w, &op);
    }
    for (uint64_t i = 0; i < 3 * E; i++) {
        uint64_t j = i % E, a = i < E ? code + 8192 * j : none + 16 * j;
        if (i >= 2 * E)
            a = code + 8192 * (E - 1 - j);
        op = (tk_ucir_op){.kind = TK_UCIR_EXEC_ABS, .addr = a, .size = 4};
        put(w, &op);
        if (i < E) { /* between two code blocks: one where nothing is mapped */
            op.addr = none + 16 * j;
            put(w, &op);
        }
    }
    assert_int_equal(tk_ucir_writer_free(w, &err), TK_OK);
    assert_int_equal(fclose(f), 0);

    tk_input *in;
    tk_ucir_reader *r = reader_file(trace, &in, 1);
    tu_capture c;
    tu_capture_open(&c);
    uint64_t unmapped = 0;
    clock_t t0 = clock();
    assert_int_equal(tk_ucir_export_drcov(r, c.fp, &unmapped, &err), TK_OK);
    double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
    char *text = tu_capture_close(&c);
    assert_non_null(strstr(text, "Module Table: version 2, count 30000\n"));
    assert_non_null(strstr(text, "\n29999, 0x000000010ea5e000, 0x000000010ea5f000, "));
    assert_non_null(strstr(text, "BB Table: 30000 bbs\n"));
    assert_int_equal(unmapped, 2 * E); /* each unmapped address in two blocks */
    if (cpu > 2.0)
        fail_msg("drcov export: %.2f s of CPU for %d maps", cpu, 2 * E);
    free(text);
    tk_ucir_reader_free(r);
    tk_input_close(in);
    tu_rmdir(dir);
}

/* The maps at instruction n: by a seek through the index, and linearly. */
static void seek_maps_match(const char *trace, tk_ucir_index *ix, uint64_t n)
{
    enum { CAP = 4096 };
    tk_ucir_map *want = calloc(CAP, sizeof *want), *got = calloc(CAP, sizeof *got);
    assert_true(want && got);
    tk_error err;
    tk_input *in, *sin;
    tk_ucir_reader *r = reader_file(trace, &in, 1), *sr = reader_file(trace, &sin, 1);
    tk_ucir_replay *rp = tk_ucir_replay_new(tk_ucir_reader_header(r), &err);
    tk_ucir_replay *srp = tk_ucir_replay_new(tk_ucir_reader_header(sr), &err);
    assert_int_equal(tk_ucir_replay_run_to(rp, r, n, &err), 1);
    assert_int_equal(tk_ucir_replay_seek(srp, sr, ix, n, &err), TK_OK);
    assert_int_equal(tk_ucir_replay_run_to(srp, sr, n, &err), 1);
    size_t nw = tk_ucir_replay_maps(rp, want, CAP), ng = tk_ucir_replay_maps(srp, got, CAP);
    assert_true(nw > 1000 && nw <= CAP);
    assert_int_equal(ng, nw);
    for (size_t i = 0; i < nw; i++)
        if (want[i].addr != got[i].addr || want[i].size != got[i].size ||
            want[i].prot != got[i].prot)
            fail_msg("seek to %llu: map %zu differs", (unsigned long long)n, i);
    tk_ucir_replay_free(rp);
    tk_ucir_replay_free(srp);
    tk_ucir_reader_free(r);
    tk_ucir_reader_free(sr);
    tk_input_close(in);
    tk_input_close(sin);
    free(want);
    free(got);
}

/* 2000 maps, then 400 one-instruction frames (a checkpoint each) with
 * a map or unmap each, over two maps: the index holds each map operation a
 * bounded number of times (a full map list per checkpoint made it maps
 * times checkpoints, 19 MB here, against under 400 KB), and seeks restore
 * the map a linear replay has. */
static void test_index_maps_bounded(void **state)
{
    (void)state;
    enum { MAPS = 2000, FRAMES = 400 };
    char *dir = tu_tmpdir();
    char trace[512], index[512];
    snprintf(trace, sizeof trace, "%s", tu_path(dir, "m.ucir"));
    snprintf(index, sizeof index, "%s", tu_path(dir, "m.idx"));
    FILE *f = fopen(trace, "wb");
    assert_non_null(f);
    tk_ucir_header h;
    memset(&h, 0, sizeof h);
    h.arch = 4;
    h.mode = 8;
    tk_ucir_writer_options o = {0, 0, 1};
    tk_error err;
    tk_ucir_writer *w = tk_ucir_writer_new(f, &h, &o, &err);
    assert_non_null(w);
    tk_ucir_op op = {.kind = TK_UCIR_FRAME, .keyframe = 1};
    put(w, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_MEM_MAP, .addr = 0x400000, .size = 4096, .prot = 5};
    put(w, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_FRAME};
    put(w, &op);
    for (uint64_t i = 0; i < MAPS; i++) {
        op = (tk_ucir_op){.kind = TK_UCIR_MEM_MAP, .addr = MEM_BASE + 8192 * i, .size = 4096,
                          .prot = 3};
        put(w, &op);
    }
    for (uint64_t j = 0; j < FRAMES; j++) {
        op = (tk_ucir_op){.kind = TK_UCIR_FRAME};
        put(w, &op);
        op = (tk_ucir_op){.kind = TK_UCIR_EXEC_ABS, .addr = 0x400000 + 2 * j, .size = 2};
        put(w, &op);
        op = (tk_ucir_op){.addr = MEM_BASE + 8192 * (j * 5 % MAPS), .size = 4096 + 8192};
        op.kind = j % 3 == 0 ? TK_UCIR_MEM_UNMAP : TK_UCIR_MEM_MAP;
        op.prot = (uint8_t)(j % 8);
        put(w, &op);
    }
    assert_int_equal(tk_ucir_writer_free(w, &err), TK_OK);
    assert_int_equal(fclose(f), 0);

    tk_input *in;
    tk_ucir_reader *r = reader_file(trace, &in, 1);
    tk_ucir_index_options io = {1};
    assert_int_equal(tk_ucir_index_build(r, trace, index, &io, &err), TK_OK);
    tk_ucir_reader_free(r);
    tk_input_close(in);
    size_t n;
    free(tu_read_file(index, &n));
    if (n > 400 << 10)
        fail_msg("index of %zu bytes for %d maps and %d checkpoints", n, MAPS, FRAMES);
    tk_ucir_index *ix = tk_ucir_index_open(index, trace, &err);
    if (!ix)
        fail_msg("%s", err.message);
    assert_true(tk_ucir_index_checkpoints(ix) >= FRAMES);
    static const uint64_t at[] = {0, 1, 2, 57, 200, 333, FRAMES - 1};
    for (size_t i = 0; i < sizeof at / sizeof *at; i++)
        seek_maps_match(trace, ix, at[i]);
    tk_ucir_index_close(ix);
    tu_rmdir(dir);
}

/* The default index path: under $XDG_CACHE_HOME, else ~/.cache; every way
 * it can fail gives a status and a message. */
static void test_index_default_path(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char trace[512], buf[1024], want[600];
    snprintf(trace, sizeof trace, "%s", tu_path(dir, "t.ucir"));
    tu_write_file(trace, "UCIR", 4);
    tk_error err;
    assert_int_equal(setenv("XDG_CACHE_HOME", dir, 1), 0);
    assert_int_equal(tk_ucir_index_default_path(trace, buf, sizeof buf, &err), TK_OK);
    snprintf(want, sizeof want, "%s/tracekit/ucir-", dir);
    assert_memory_equal(buf, want, strlen(want));
    assert_int_equal(tk_ucir_index_default_path(trace, buf, 8, &err), TK_EUSAGE);
    assert_non_null(strstr(err.message, "the buffer has 8"));
    assert_int_equal(tk_ucir_index_default_path(tu_path(dir, "none"), buf, sizeof buf, &err),
                     TK_EIO);
    assert_non_null(strstr(err.message, "none"));
    assert_int_equal(unsetenv("XDG_CACHE_HOME"), 0);
    const char *home = getenv("HOME");
    char *saved = home ? strdup(home) : NULL;
    assert_int_equal(unsetenv("HOME"), 0);
    assert_int_equal(tk_ucir_index_default_path(trace, buf, sizeof buf, &err),
                     TK_EUNSUPPORTED);
    if (saved)
        assert_int_equal(setenv("HOME", saved, 1), 0);
    free(saved);
    rmdir(tu_path(dir, "tracekit"));
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_demo_states),
        cmocka_unit_test(test_later_keyframes_skipped),
        cmocka_unit_test(test_maps_and_unmaps),
        cmocka_unit_test(test_uc_attribution),
        cmocka_unit_test(test_seek_matches_linear),
        cmocka_unit_test(test_index_maps_bounded),
        cmocka_unit_test(test_tenet_demo),
        cmocka_unit_test(test_drcov_demo),
        cmocka_unit_test(test_drcov_many_maps),
        cmocka_unit_test(test_index_default_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
