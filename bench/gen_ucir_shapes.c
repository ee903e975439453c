/* Degenerate UCIR traces (2016 spec) for make bench's "shapes" section
 * (issue 23), each stressing one dimension (the normal trace is
 * tk-gen-ucir's, of about 2N records):
 *   maps N     N distinct one-page maps, each followed by an instruction
 *   rmaps N    the same maps from the highest address down (each one
 *              before all the others: a sorted array's worst case)
 *   holes N    2N pages mapped (in maps of 2 GiB at most: sizes are 32-bit),
 *              then every other page unmapped, an instruction after each
 *              unmap (N fragments of a few regions)
 *   bigsys N   syscalls with 1 MiB payloads (a read() filling a buffer),
 *              about as many inflated bytes as the normal trace's
 *   sysops N   syscalls with 65535 nested register changes each, N ops in all
 *   frames N   N frames of one instruction each
 * Each starts with a setup keyframe: a code page and the stack mapped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/tracekit.h>

#include "gen_common.h"

#define CODE 0x400000ull
#define STACK 0x7ffef000ull
#define AREA 0x10000000ull /* the shapes' maps from here */
#define PAYLOAD (1u << 20)

static tk_ucir_writer *w;
static tk_error err;

static void usage(void)
{
    fprintf(stderr, "usage: tk-gen-ucir-shapes maps|rmaps|holes|bigsys|sysops|frames N -o OUT\n");
    exit(2);
}

static void put(const tk_ucir_op *op)
{
    if (tk_ucir_write(w, op, &err) != TK_OK) {
        fprintf(stderr, "tk-gen-ucir-shapes: %s\n", err.message);
        exit(2);
    }
}

static void insn(uint64_t i)
{
    tk_ucir_op op = {.kind = i % 64 ? TK_UCIR_EXEC_REL : TK_UCIR_EXEC_ABS,
                     .addr = CODE + 16 * (i / 64 % 64), .size = 2};
    put(&op);
}

static void map(uint64_t addr, uint64_t size)
{
    tk_ucir_op op = {.kind = TK_UCIR_MEM_MAP, .addr = addr, .size = size, .prot = 3};
    put(&op);
}

static void setup(void)
{
    tk_ucir_op op = {.kind = TK_UCIR_FRAME, .keyframe = 1};
    put(&op);
    op = (tk_ucir_op){.kind = TK_UCIR_MEM_MAP, .addr = CODE, .size = 0x1000, .prot = 5};
    put(&op);
    map(STACK, 0x11000);
    op = (tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = 44, .value = STACK + 0x10000};
    put(&op);
    op = (tk_ucir_op){.kind = TK_UCIR_FRAME};
    put(&op);
}

static void syscall_read(uint64_t i, uint64_t buf, const uint8_t *data)
{
    uint64_t args[6] = {0, buf, PAYLOAD, 0, 0, 0};
    insn(i);
    tk_ucir_op op = {.kind = TK_UCIR_SYSCALL, .num = 0, .ret = PAYLOAD, .argc = 6,
                     .args = args, .op_count = 2};
    put(&op);
    op = (tk_ucir_op){.kind = TK_UCIR_MEM_WRITE, .addr = buf, .size = PAYLOAD, .len = PAYLOAD,
                      .data = data, .depth = 1};
    put(&op);
    op = (tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = 35, .value = PAYLOAD, .depth = 1};
    put(&op);
}

static void shape(const char *name, uint64_t n)
{
    if (!strcmp(name, "maps") || !strcmp(name, "rmaps")) {
        int down = name[0] == 'r';
        for (uint64_t i = 0; i < n; i++) {
            map(AREA + 0x2000 * (down ? n - 1 - i : i), 0x1000);
            insn(i);
        }
    } else if (!strcmp(name, "holes")) {
        const uint64_t most = 0x80000000ull; /* a multiple of the 2-page step */
        for (uint64_t at = 0; at < 0x2000 * n; at += most)
            map(AREA + at, 0x2000 * n - at < most ? 0x2000 * n - at : most);
        for (uint64_t i = 0; i < n; i++) {
            tk_ucir_op op = {.kind = TK_UCIR_MEM_UNMAP, .addr = AREA + 0x2000 * i + 0x1000,
                             .size = 0x1000};
            put(&op);
            insn(i);
        }
    } else if (!strcmp(name, "bigsys")) {
        uint8_t *data = malloc(PAYLOAD);
        if (!data)
            exit(2);
        for (size_t k = 0; k < PAYLOAD; k++)
            data[k] = (uint8_t)(rnd() >> 56);
        map(AREA, PAYLOAD);
        for (uint64_t i = 0; i < (26 * n + PAYLOAD - 1) / PAYLOAD; i++) {
            data[i % PAYLOAD] ^= 1; /* each payload differs */
            syscall_read(i, AREA, data);
        }
        free(data);
    } else if (!strcmp(name, "sysops")) {
        uint64_t args[1] = {0};
        for (uint64_t i = 0; i * 65535 < n; i++) {
            insn(i);
            tk_ucir_op op = {.kind = TK_UCIR_SYSCALL, .num = 39, .ret = 1, .argc = 1,
                             .args = args, .op_count = 65535};
            put(&op);
            for (unsigned k = 0; k < 65535; k++) {
                op = (tk_ucir_op){.kind = TK_UCIR_REG_CHANGE, .reg = 35 + k % 8,
                                  .value = i * 65535 + k, .depth = 1};
                put(&op);
            }
        }
    } else if (!strcmp(name, "frames")) {
        for (uint64_t i = 0; i < n; i++) {
            tk_ucir_op op = {.kind = TK_UCIR_FRAME};
            put(&op);
            insn(i);
        }
    } else {
        usage();
    }
    tk_ucir_op ex = {.kind = TK_UCIR_EXIT};
    put(&ex);
}

int main(int argc, char **argv)
{
    uint64_t n;
    FILE *out;
    const char *name = shape_args(argc, argv, &n, &out);
    tk_ucir_header h;
    memset(&h, 0, sizeof h);
    h.arch = TK_UCIR_ARCH_X86;
    h.mode = TK_UCIR_MODE_64;
    strcpy(h.arch_name, "x86_64");
    strcpy(h.os, "linux");
    tk_ucir_writer_options wo = {0, 1u << 20, 1}; /* frames closed by size */
    if (!(w = tk_ucir_writer_new(out, &h, &wo, &err))) {
        fprintf(stderr, "tk-gen-ucir-shapes: %s\n", err.message);
        return 2;
    }
    setup();
    shape(name, n);
    if (tk_ucir_writer_free(w, &err) != TK_OK || fclose(out) != 0) {
        fprintf(stderr, "tk-gen-ucir-shapes: %s\n", err.message[0] ? err.message : "write failed");
        return 2;
    }
    return 0;
}
