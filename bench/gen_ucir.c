/* Generate a large UCIR trace (2016 spec) with tracekit's writer: an
 * x86_64 program running loops of basic blocks. Per instruction one
 * EXEC_ABS (at a branch target) or EXEC_REL, then its effects: register
 * changes (counters, pointers, flags), now and then a memory read or write
 * on the stack or heap; a syscall every few thousand instructions, with
 * the kernel's memory write and rax nested in it. The first frame is a
 * keyframe with the setup (maps, code bytes, registers); every
 * --keyframe-every frames a keyframe repeats the register state.
 *
 *   tk-gen-ucir --bytes 1G -o trace.ucir     (inflated size of the ops)
 *   tk-gen-ucir --inflate-only trace.ucir    (inflate every frame on one
 *       thread with tracekit's zlib library; print MB/s of inflated data)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracekit/tracekit.h>

#include "gen_common.h"
#include "core/bytes.h"
#include "ucir/ucir_int.h"

static void usage(void)
{
    fprintf(stderr,
            "usage: tk-gen-ucir --bytes N [--seed S] [--frame-bytes N] [--level L]\n"
            "                   [--keyframe-every F] -o OUT\n"
            "       tk-gen-ucir --inflate-only FILE\n"
            "       tk-gen-ucir --example OUT    (examples/ucir/hello.ucir)\n");
    exit(2);
}

/* x86_64 Unicorn enums: rax rbx rcx rdx rsi rdi rbp rsp r8..r15, eflags */
static const uint32_t regs[] = {35, 37, 38, 40, 43, 39, 36, 44, 106, 107, 108, 109, 110, 111, 112, 113};
#define NREGS (sizeof regs / sizeof regs[0])
#define EFLAGS 25
#define CODE 0x400000ull
#define STACK 0x7ffef000ull
#define HEAP 0x602000ull

typedef struct gen {
    tk_ucir_writer *w;
    tk_error err;
    uint64_t bytes, frames_done;
    uint64_t frame_bytes, frame_start;
    uint32_t keyframe_every;
    uint64_t reg[NREGS];
} gen;

static void put(gen *g, const tk_ucir_op *op)
{
    if (tk_ucir_write(g->w, op, &g->err) != TK_OK) {
        fprintf(stderr, "tk-gen-ucir: %s\n", g->err.message);
        exit(1);
    }
    g->bytes += tk_ucir_op_size(op);
}

static void frame(gen *g, int key)
{
    tk_ucir_op op = {.kind = TK_UCIR_FRAME, .keyframe = key};
    put(g, &op);
    g->bytes -= tk_ucir_op_size(&op); /* headers are not inflated data */
    g->frame_start = g->bytes;
    g->frames_done++;
}

static void reg(gen *g, unsigned i, uint64_t v)
{
    g->reg[i] = v;
    tk_ucir_op op = {.kind = TK_UCIR_REG_CHANGE, .reg = regs[i], .value = v};
    put(g, &op);
}

static void all_regs(gen *g)
{
    for (unsigned i = 0; i < NREGS; i++)
        reg(g, i, g->reg[i]);
}

static void setup(gen *g)
{
    static uint8_t code[4096];
    for (size_t i = 0; i < sizeof code; i++)
        code[i] = (uint8_t)(rnd() >> 56);
    frame(g, 1);
    tk_ucir_op op = {.kind = TK_UCIR_MEM_MAP, .addr = CODE, .size = 0x1000, .prot = 5};
    put(g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_MEM_WRITE, .addr = CODE, .size = sizeof code,
                      .len = sizeof code, .data = code};
    put(g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_MEM_MAP, .addr = STACK, .size = 0x11000, .prot = 3};
    put(g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_MEM_MAP, .addr = HEAP, .size = 0x100000, .prot = 3};
    put(g, &op);
    g->reg[7] = STACK + 0x10000;
    g->reg[6] = STACK + 0x10100;
    all_regs(g);
}

static void syscall_op(gen *g)
{
    static uint8_t buf[64];
    uint64_t len = 1 + rnd() % sizeof buf;
    for (uint64_t i = 0; i < len; i++)
        buf[i] = (uint8_t)('a' + i % 26);
    uint64_t args[3] = {1, HEAP + (rnd() % 0x1000) * 16, len};
    tk_ucir_op op = {.kind = TK_UCIR_SYSCALL, .num = 1, .ret = len, .argc = 3, .args = args,
                     .op_count = 2};
    put(g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_MEM_READ, .addr = args[1], .size = len, .len = len,
                      .data = buf, .depth = 1};
    put(g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = regs[0], .value = len, .depth = 1};
    put(g, &op);
    g->reg[0] = len;
}

/* One basic block of 3..14 instructions starting at `pc`. */
static void block(gen *g, uint64_t pc, uint64_t *insns)
{
    unsigned n = 3 + (unsigned)(rnd() % 12);
    for (unsigned k = 0; k < n; k++) {
        uint64_t r = rnd();
        uint32_t size = 1 + (uint32_t)(r % 7);
        tk_ucir_op op;
        if (k == 0)
            op = (tk_ucir_op){.kind = TK_UCIR_EXEC_ABS, .addr = pc, .size = size};
        else
            op = (tk_ucir_op){.kind = TK_UCIR_EXEC_REL, .size = size};
        put(g, &op);
        unsigned i = (unsigned)(r >> 8) % NREGS;
        switch ((r >> 16) % 8) {
        case 0:
        case 1: reg(g, i, g->reg[i] + 1); break;               /* counter */
        case 2: reg(g, i, g->reg[(i + 1) % NREGS] + 8); break;  /* mov/lea */
        case 3: {                                               /* load */
            uint64_t v = g->reg[i] ^ (r >> 40);
            uint64_t a = g->reg[7] + ((r >> 24) % 32) * 8;
            uint8_t d[8];
            tk_st64(d, v, 0);
            op = (tk_ucir_op){.kind = TK_UCIR_MEM_READ, .addr = a, .size = 8, .len = 8, .data = d};
            put(g, &op);
            reg(g, i, v);
            break;
        }
        case 4: {                                               /* store */
            uint8_t d[8];
            tk_st64(d, g->reg[i], 0);
            uint64_t a = HEAP + ((r >> 24) % 4096) * 8;
            op = (tk_ucir_op){.kind = TK_UCIR_MEM_WRITE, .addr = a, .size = 8, .len = 8, .data = d};
            put(g, &op);
            break;
        }
        case 5: {                                               /* cmp: flags */
            tk_ucir_op f = {.kind = TK_UCIR_REG_CHANGE, .reg = EFLAGS, .value = 0x202 | (r >> 32 & 0xC5)};
            put(g, &f);
            break;
        }
        default: break;                                         /* no effect */
        }
    }
    *insns += n;
}

/* Inflate every frame of FILE on this thread, read through a mapping as
 * tracekit reads it: the ceiling for `tracekit validate --threads 1`. */
static void inflate_only(const char *path)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < UCIR_SPEC_HEADER) {
        fprintf(stderr, "tk-gen-ucir: cannot read %s\n", path);
        exit(2);
    }
    size_t size = (size_t)st.st_size;
    const uint8_t *d = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (d == MAP_FAILED) {
        perror(path);
        exit(2);
    }
    madvise((void *)d, size, MADV_SEQUENTIAL);
    if (memcmp(d, "UCIR", 4) != 0) {
        fprintf(stderr, "tk-gen-ucir: %s is not a UCIR trace\n", path);
        exit(1);
    }
    ucir_inflater *z = ucir_inflater_new();
    uint8_t *buf = NULL;
    size_t cap = 0, pos = UCIR_SPEC_HEADER;
    uint64_t total = 0, frames = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (pos + UCIR_FRAME_HEADER <= size && d[pos] == 1) {
        uint32_t csize = tk_ld32(d + pos + 6, 1);
        size_t out = 0, trailing = 0;
        if (pos + UCIR_FRAME_HEADER + csize > size ||
            ucir_inflate(z, d + pos + UCIR_FRAME_HEADER, csize, &buf, &cap, &out,
                         TK_UCIR_DEFAULT_MAX_FRAME, &trailing) != UCIR_Z_OK) {
            fprintf(stderr, "tk-gen-ucir: frame %llu does not inflate\n", (unsigned long long)frames);
            exit(1);
        }
        total += out;
        frames++;
        pos += UCIR_FRAME_HEADER + csize;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("inflated %llu bytes from %llu frames (%zu compressed) in %.3f s with %s: %.1f MB/s\n",
           (unsigned long long)total, (unsigned long long)frames, size, s, ucir_zlib_library(),
           (double)total / s / 1e6);
    ucir_inflater_free(z);
    ucir_buf_free(buf, cap);
    munmap((void *)d, size);
    close(fd);
}

/* examples/ucir/hello.ucir: a small x86_64 program that sums an array
 * in a loop and writes "sum=10\n" (the setup keyframe, the loop, write,
 * exit_group), in frames of a few dozen ops. */
static void example(const char *path)
{
    static const uint8_t code[] = {
        0x48, 0x31, 0xc0,                   /* xor rax, rax       */
        0x48, 0x8d, 0x35, 0xf6, 0x0f, 0, 0, /* lea rsi, [arr]     */
        0xb9, 4, 0, 0, 0,                   /* mov ecx, 4         */
        0x48, 0x03, 0x06,                   /* add rax, [rsi]     */
        0x48, 0x83, 0xc6, 0x08,             /* add rsi, 8         */
        0xe2, 0xf7,                         /* loop -9            */
        0x0f, 0x05};                        /* syscall            */
    static const uint8_t arr[32] = {1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
                                    3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0};
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(2);
    }
    gen g;
    memset(&g, 0, sizeof g);
    tk_ucir_header h;
    memset(&h, 0, sizeof h);
    h.arch = TK_UCIR_ARCH_X86;
    h.mode = TK_UCIR_MODE_64;
    strcpy(h.arch_name, "x86_64");
    strcpy(h.os, "linux");
    tk_ucir_writer_options wo = {24, 0, 9};
    g.w = tk_ucir_writer_new(f, &h, &wo, &g.err);
    if (!g.w)
        exit(1);
    frame(&g, 1);
    tk_ucir_op op = {.kind = TK_UCIR_MEM_MAP, .addr = CODE, .size = 0x1000, .prot = 5};
    put(&g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_MEM_WRITE, .addr = CODE, .size = sizeof code, .len = sizeof code, .data = code};
    put(&g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_MEM_MAP, .addr = CODE + 0x1000, .size = 0x1000, .prot = 3};
    put(&g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_MEM_WRITE, .addr = CODE + 0x1000, .size = sizeof arr, .len = sizeof arr, .data = arr};
    put(&g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_MEM_MAP, .addr = STACK, .size = 0x11000, .prot = 3};
    put(&g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = 44, .value = STACK + 0x10000};
    put(&g, &op);
    frame(&g, 0);
    /* rax 35, rcx 38, rsi 43, rdi 39, rdx 40, eflags 25 */
    op = (tk_ucir_op){.kind = TK_UCIR_EXEC_ABS, .addr = CODE, .size = 3};
    put(&g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = 25, .value = 0x246};
    put(&g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_EXEC_REL, .size = 7};
    put(&g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = 43, .value = CODE + 0x1000};
    put(&g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_EXEC_REL, .size = 5};
    put(&g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = 38, .value = 4};
    put(&g, &op);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < 4; i++) {
        sum += i + 1;
        op = i ? (tk_ucir_op){.kind = TK_UCIR_EXEC_ABS, .addr = CODE + 15, .size = 3}
               : (tk_ucir_op){.kind = TK_UCIR_EXEC_REL, .size = 3};
        put(&g, &op);
        op = (tk_ucir_op){.kind = TK_UCIR_MEM_READ, .addr = CODE + 0x1000 + 8 * i, .size = 8, .len = 8,
                          .data = arr + 8 * i};
        put(&g, &op);
        op = (tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = 35, .value = sum};
        put(&g, &op);
        op = (tk_ucir_op){.kind = TK_UCIR_EXEC_REL, .size = 4};
        put(&g, &op);
        op = (tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = 43, .value = CODE + 0x1008 + 8 * i};
        put(&g, &op);
        op = (tk_ucir_op){.kind = TK_UCIR_EXEC_REL, .size = 2};
        put(&g, &op);
        op = (tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = 38, .value = 3 - i};
        put(&g, &op);
    }
    /* write(1, "sum=10\n", 7): the loop left rax = 10; say it was set up */
    static const uint8_t msg[] = "sum=10\n";
    uint64_t args[3] = {1, STACK + 0xff00, 7};
    op = (tk_ucir_op){.kind = TK_UCIR_EXEC_REL, .size = 2};
    put(&g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_SYSCALL, .num = 1, .ret = 7, .argc = 3, .args = args, .op_count = 2};
    put(&g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_MEM_READ, .depth = 1, .addr = args[1], .size = 7, .len = 7, .data = msg};
    put(&g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .depth = 1, .reg = 35, .value = 7};
    put(&g, &op);
    uint64_t code0 = 0;
    op = (tk_ucir_op){.kind = TK_UCIR_EXEC_REL, .size = 2};
    put(&g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_SYSCALL, .num = 231, .argc = 1, .args = &code0, .op_count = 1};
    put(&g, &op);
    op = (tk_ucir_op){.kind = TK_UCIR_EXIT, .depth = 1};
    put(&g, &op);
    if (tk_ucir_writer_free(g.w, &g.err) != TK_OK || fclose(f) != 0) {
        fprintf(stderr, "tk-gen-ucir: %s\n", g.err.message);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--example") == 0) {
        example(argv[2]);
        return 0;
    }
    uint64_t bytes = 0, seed = 1, frame_bytes = 1 << 20, level = 6, key_every = 64;
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc)
            usage();
        if (strcmp(a, "--inflate-only") == 0) {
            inflate_only(argv[++i]);
            return 0;
        }
        if (strcmp(a, "--bytes") == 0) bytes = parse_num(argv[++i]);
        else if (strcmp(a, "--seed") == 0) seed = parse_num(argv[++i]);
        else if (strcmp(a, "--frame-bytes") == 0) frame_bytes = parse_num(argv[++i]);
        else if (strcmp(a, "--level") == 0) level = parse_num(argv[++i]);
        else if (strcmp(a, "--keyframe-every") == 0) key_every = parse_num(argv[++i]);
        else if (strcmp(a, "-o") == 0) out = argv[++i];
        else usage();
    }
    if (!out || !bytes || !frame_bytes || level > 9 || !key_every)
        usage();
    rng_state += seed * 0x2545F4914F6CDD1DULL; /* never 0: xorshift would stay 0 */
    FILE *f = fopen(out, "wb");
    if (!f) {
        perror(out);
        return 2;
    }
    gen g;
    memset(&g, 0, sizeof g);
    g.frame_bytes = frame_bytes;
    g.keyframe_every = (uint32_t)key_every;
    tk_ucir_header h;
    memset(&h, 0, sizeof h);
    h.arch = TK_UCIR_ARCH_X86;
    h.mode = TK_UCIR_MODE_64;
    strcpy(h.arch_name, "x86_64");
    strcpy(h.os, "linux");
    /* frames are closed here, at block ends, so a keyframe starts cleanly */
    tk_ucir_writer_options wo = {0, 0, (int)level};
    g.w = tk_ucir_writer_new(f, &h, &wo, &g.err);
    if (!g.w) {
        fprintf(stderr, "tk-gen-ucir: %s\n", g.err.message);
        return 1;
    }
    setup(&g);
    uint64_t insns = 0, next_syscall = 2000;
    uint64_t blocks[64];
    for (unsigned i = 0; i < 64; i++)
        blocks[i] = CODE + (rnd() % 0x1000);
    while (g.bytes < bytes) {
        if (g.bytes - g.frame_start >= g.frame_bytes) {
            int key = g.frames_done % g.keyframe_every == 0;
            frame(&g, key);
            if (key)
                all_regs(&g);
        }
        block(&g, blocks[rnd() % 64], &insns);
        if (insns >= next_syscall) {
            syscall_op(&g);
            next_syscall = insns + 1000 + rnd() % 8000;
        }
    }
    tk_ucir_op ex = {.kind = TK_UCIR_EXIT};
    put(&g, &ex);
    if (tk_ucir_writer_free(g.w, &g.err) != TK_OK || fclose(f) != 0) {
        fprintf(stderr, "tk-gen-ucir: %s\n", g.err.message);
        return 1;
    }
    fprintf(stderr, "tk-gen-ucir: %llu inflated bytes, %llu instructions, %llu frames\n",
            (unsigned long long)g.bytes, (unsigned long long)insns, (unsigned long long)g.frames_done);
    return 0;
}
