/* Degenerate Cacheray traces for make bench's "shapes" section (issue 23),
 * each stressing one dimension, of about 2N records (the normal trace is
 * tk-gen-cacheray's program pattern with 2N records):
 *   live N     N typed regions (RTTA_ADD) alive at once, then N accesses
 *              over them in address order, runs of 8 in a line
 *   churn N    allocate, access, free over and over at 64 addresses of one
 *              page (2N/3 regions over time, each overlapping others)
 *   nested N   N regions alive at once, all overlapping: region i starts
 *              8 * (i % 4096) bytes into a 64 KiB window and runs 64 KiB
 *              (so the middle of the window is inside every one), then N
 *              accesses over the window
 *   empty N    N empty regions (elemcount 0: validate warns) alive at once,
 *              then N accesses among them
 *   threads N  N threads, a read and a write each of its own element of
 *              one typed array (so 8 threads share each line)
 * The accesses of live, empty and threads run 8 to a line, in address
 * order: each shape stresses its regions or threads, not the cache. One
 * access per distinct line (as these shapes had until issue 23's last
 * round) makes every access a cold miss of every level, which is the
 * random-traffic bench's dimension (bench_cachesim_random, issue 22),
 * not this one's.
 * Little-endian, native Cacheray encoding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/tracekit.h>

#include "gen_common.h"

#define BASE 0x5555555a0000ULL

static const char *const type_names[] = {"struct.node", "double", "struct.pair", "i32"};
static const uint32_t type_sizes[] = {24, 8, 16, 4};

static tk_cacheray_writer *w;
static tk_error err;

static void usage(void)
{
    fprintf(stderr, "usage: tk-gen-cacheray-shapes live|churn|nested|empty|threads N -o OUT\n");
    exit(2);
}

static void put(const tk_cacheray_record *rec)
{
    if (tk_cacheray_write(w, rec, &err) != TK_OK) {
        fprintf(stderr, "tk-gen-cacheray-shapes: %s\n", err.message);
        exit(2);
    }
}

static void add(uint64_t addr, uint64_t thread, int ty, uint32_t count)
{
    tk_cacheray_record rec = {.type = TK_CACHERAY_RTTA_ADD, .addr = addr, .thread = thread,
                              .elemsize = type_sizes[ty], .elemcount = count,
                              .type_name = type_names[ty],
                              .typename_len = (uint32_t)strlen(type_names[ty])};
    put(&rec);
}

static void del(uint64_t addr, uint64_t thread)
{
    tk_cacheray_record rec = {.type = TK_CACHERAY_RTTA_REMOVE, .addr = addr, .thread = thread};
    put(&rec);
}

static void acc(int write, uint64_t addr, uint8_t size, uint64_t thread)
{
    tk_cacheray_record rec = {.type = write ? TK_CACHERAY_WRITE : TK_CACHERAY_READ,
                              .addr = addr, .size = size, .thread = thread};
    put(&rec);
}

static void live(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) /* 96-byte regions, 128 bytes apart */
        add(BASE + 128 * i, 1000 + i % 4, (int)(i % 4), 96 / type_sizes[i % 4]);
    for (uint64_t i = 0; i < n; i++)
        acc((int)(i & 1), BASE + 128 * (i / 8) + 8 * (i % 8), 8, 1000 + i % 4);
}

static void churn(uint64_t n)
{
    for (uint64_t i = 0; 3 * i < 2 * n; i++) {
        uint64_t a = BASE + 64 * (i % 64), t = 1000 + i % 4;
        add(a, t, (int)(i % 4), (uint32_t)(1 + rnd() % 64)); /* up to 1.5 KiB */
        acc((int)(i & 1), a + 8 * (rnd() % 8), 8, t);
        del(a, t);
    }
}

static void nested(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        add(BASE + 8 * (i % 4096), 1000 + i % 4, 1, 8192);
    for (uint64_t i = 0; i < n; i++)
        acc((int)(i & 1), BASE + 8 * (rnd() % 12288), 8, 1000 + i % 4);
}

static void empty(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        add(BASE + 64 * i, 1000 + i % 4, (int)(i % 4), 0);
    for (uint64_t i = 0; i < n; i++)
        acc((int)(i & 1), BASE + 64 * (i / 8) + 8 * (i % 8), 8, 1000 + i % 4);
}

static void threads(uint64_t n)
{
    add(BASE, 1, 1, 1u << 20);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a = BASE + 8 * (i % (1u << 20));
        acc(0, a, 8, 1 + i);
        acc(1, a, 8, 1 + i);
    }
}

int main(int argc, char **argv)
{
    uint64_t n;
    FILE *out;
    const char *shape = shape_args(argc, argv, &n, &out);
    if (!(w = tk_cacheray_writer_new(out, TK_ENDIAN_LITTLE, &err))) {
        fprintf(stderr, "tk-gen-cacheray-shapes: %s\n", err.message);
        return 2;
    }
    if (!strcmp(shape, "live")) live(n);
    else if (!strcmp(shape, "churn")) churn(n);
    else if (!strcmp(shape, "nested")) nested(n);
    else if (!strcmp(shape, "empty")) empty(n);
    else if (!strcmp(shape, "threads")) threads(n);
    else usage();
    if (tk_cacheray_writer_free(w, &err) != TK_OK || fclose(out) != 0) {
        fprintf(stderr, "tk-gen-cacheray-shapes: %s\n", err.message[0] ? err.message : "write failed");
        return 2;
    }
    return 0;
}
