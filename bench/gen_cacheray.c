/* Generate a synthetic Cacheray trace with tracekit's writer. Two patterns:
 * - program (the default), shaped like a program's: per thread a hot stack
 *   frame, typed heap arrays walked in sequential sweeps and at random
 *   elements, freed and reallocated at reused addresses (RTTA_REMOVE /
 *   RTTA_ADD, as malloc reuses memory), and a struct of per-thread counters
 *   sharing one cache line (false sharing). Atomic and unaligned accesses
 *   are sprinkled in.
 * - random: traffic without locality (hash tables, graph traversals):
 *   aligned 8-byte accesses uniformly at random over one typed array of
 *   --footprint bytes, a quarter of them writes, each by a thread drawn at
 *   random among --threads. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/tracekit.h>

#include "gen_common.h"

static const char *const type_names[] = {
    "struct.node", "struct.Basic", "double", "struct.pair", "i32", "void*",
};
static const uint32_t type_sizes[] = {24, 24, 8, 16, 4, 8};

enum {
    MAX_THREADS = 64,
    ARRAYS = 8,                  /* live arrays per thread */
    SLOT = 128 << 10,            /* address space per array */
    STACK_SLOTS = 64,            /* hot 8-byte stack slots per thread */
    SWEEP_MAX = 4096             /* elements walked by one sweep at most */
};

#define HEAP_BASE 0x5555555a0000ULL
#define STACK_TOP 0x7ffc00000000ULL
#define COUNTERS 0x555555560000ULL /* the shared counters (one line) */

typedef struct array {
    uint64_t base;
    uint32_t elemsize, elemcount;
    int type;
} array;

typedef struct worker {
    array a[ARRAYS];
    int sweep_array;             /* the array being swept */
    uint64_t sweep_pos, sweep_end; /* byte offsets in it */
} worker;

static tk_cacheray_writer *w;
static uint64_t written, nbytes;
static tk_error err;

static int put(const tk_cacheray_record *rec)
{
    if (tk_cacheray_write(w, rec, &err) != TK_OK)
        return -1;
    written++;
    nbytes += rec->type <= TK_CACHERAY_WRITE ? TK_CACHERAY_ACCESS_SIZE
              : rec->type == TK_CACHERAY_RTTA_ADD ? TK_CACHERAY_RTTA_ADD_FIXED + rec->typename_len
                                           : TK_CACHERAY_RTTA_REMOVE_SIZE;
    return 0;
}

static int emit_access(uint64_t thread, uint64_t addr, uint8_t size, uint64_t r)
{
    tk_cacheray_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = (r & 0xF) < 11 ? TK_CACHERAY_READ : TK_CACHERAY_WRITE;
    rec.addr = addr;
    rec.size = size;
    rec.thread = thread;
    if ((r >> 4 & 0x3F) == 0)
        rec.flags |= TK_CACHERAY_ATOMIC;
    if ((r >> 10 & 0xFF) == 1) {
        rec.flags |= TK_CACHERAY_UNALIGNED;
        rec.addr += 1;
    }
    return put(&rec);
}

/* A new array in slot `i` of thread `t` (the slot's address is reused). */
static int allocate(uint64_t thread, unsigned t, int i, array *a)
{
    int ty = (int)(rnd() % 6);
    a->type = ty;
    a->elemsize = type_sizes[ty];
    a->elemcount = 16 + (uint32_t)(rnd() % (SLOT / a->elemsize - 16));
    a->base = HEAP_BASE + ((uint64_t)t * ARRAYS + (uint64_t)i) * SLOT + 16 * (rnd() % 4);
    tk_cacheray_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = TK_CACHERAY_RTTA_ADD;
    rec.addr = a->base;
    rec.thread = thread;
    rec.elemsize = a->elemsize;
    rec.elemcount = a->elemcount;
    rec.type_name = type_names[ty];
    rec.typename_len = (uint32_t)strlen(type_names[ty]);
    return put(&rec);
}

static int release(uint64_t thread, const array *a)
{
    tk_cacheray_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = TK_CACHERAY_RTTA_REMOVE;
    rec.addr = a->base;
    rec.thread = thread;
    return put(&rec);
}

static void new_sweep(worker *th)
{
    th->sweep_array = (int)(rnd() % ARRAYS);
    const array *a = &th->a[th->sweep_array];
    uint64_t len = (uint64_t)a->elemsize * a->elemcount;
    uint64_t span = (uint64_t)a->elemsize * (1 + rnd() % SWEEP_MAX);
    th->sweep_pos = (rnd() % a->elemcount) * a->elemsize;
    th->sweep_end = th->sweep_pos + span < len ? th->sweep_pos + span : len;
}

/* One step of thread t: mostly the stack and the current sweep. */
static int step(worker *th, unsigned t)
{
    uint64_t id = 1000 + t, r = rnd(), pick = (r >> 20) % 1000;
    if (pick < 350) /* a local variable */
        return emit_access(id, STACK_TOP - ((uint64_t)t << 20) - 8 * (1 + (r >> 32) % STACK_SLOTS), 8, r);
    if (pick < 950) { /* the sweep: 8 bytes at a time through the elements */
        const array *a = &th->a[th->sweep_array];
        if (th->sweep_pos >= th->sweep_end)
            new_sweep(th);
        a = &th->a[th->sweep_array];
        uint8_t size = a->elemsize < 8 ? (uint8_t)a->elemsize : 8;
        uint64_t addr = a->base + th->sweep_pos;
        th->sweep_pos += size;
        return emit_access(id, addr, size, r);
    }
    if (pick < 990) { /* a random element of a random array */
        const array *a = &th->a[(r >> 32) % ARRAYS];
        uint64_t elem = (r >> 40) % a->elemcount;
        uint8_t size = a->elemsize < 8 ? (uint8_t)a->elemsize : 8;
        return emit_access(id, a->base + elem * a->elemsize, size, r);
    }
    if (pick < 999) { /* this thread's counter: 8 bytes of a shared line */
        tk_cacheray_record rec = {.type = TK_CACHERAY_WRITE, .addr = COUNTERS + 8 * (t % 8),
                                  .size = 8, .thread = id};
        return put(&rec);
    }
    /* free an array and allocate another at the same place */
    int i = (int)((r >> 32) % ARRAYS);
    if (release(id, &th->a[i]) != 0 || allocate(id, t, i, &th->a[i]) != 0)
        return -1;
    if (i == th->sweep_array)
        new_sweep(th);
    return 0;
}

/* The program pattern: each thread's arrays, then its steps. */
static int program_traffic(unsigned threads, uint64_t records, uint64_t bytes)
{
    static worker th[MAX_THREADS];
    tk_cacheray_record counters = {.type = TK_CACHERAY_RTTA_ADD, .addr = COUNTERS, .thread = 1000,
                                   .elemsize = 64, .elemcount = 1,
                                   .type_name = "struct.counters", .typename_len = 15};
    int status = put(&counters) != 0;
    for (unsigned t = 0; t < threads && !status; t++) {
        for (int i = 0; i < ARRAYS && !status; i++)
            status = allocate(1000 + t, t, i, &th[t].a[i]) != 0;
        new_sweep(&th[t]);
    }
    /* threads run in bursts of a few dozen records, as a scheduler would */
    unsigned t = 0, burst = 0;
    while (!status && (bytes ? nbytes < bytes : written < records)) {
        if (burst-- == 0) {
            t = (unsigned)(rnd() % threads);
            burst = 8 + (unsigned)(rnd() % 64);
        }
        status = step(&th[t], t) != 0;
    }
    return status;
}

/* The random pattern: one array of `footprint` bytes of doubles (it has a
 * type, as a program's heap does), then `records` accesses. */
static int random_traffic(uint64_t footprint, unsigned threads, uint64_t records,
                          uint64_t bytes)
{
    tk_cacheray_record rec = {.type = TK_CACHERAY_RTTA_ADD, .addr = HEAP_BASE, .thread = 1000,
                              .elemsize = 8, .elemcount = (uint32_t)(footprint / 8),
                              .type_name = "double", .typename_len = 6};
    if (put(&rec) != 0)
        return -1;
    uint64_t words = footprint / 8;
    while (bytes ? nbytes < bytes : written < records) {
        uint64_t r = rnd();
        memset(&rec, 0, sizeof rec);
        rec.type = (r & 3) == 0 ? TK_CACHERAY_WRITE : TK_CACHERAY_READ;
        rec.thread = 1000 + (r >> 2 & 0xFF) % threads;
        rec.addr = HEAP_BASE + 8 * (rnd() % words);
        rec.size = 8;
        if (put(&rec) != 0)
            return -1;
    }
    return 0;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: tk-gen-cacheray [--records N | --bytes N] [--seed S]\n"
            "                       [--endian little|big] [--threads T]\n"
            "                       [--pattern program|random] [--footprint BYTES] -o OUT\n"
            "  --pattern program   a program's traffic: stack, sweeps, reallocations,\n"
            "                      a falsely shared line (the default)\n"
            "  --pattern random    8-byte accesses uniformly at random over --footprint\n"
            "                      bytes (default 128M), 1/4 writes, threads interleaved\n"
            "                      at random access by access\n"
            "  N, BYTES take K/M/G suffixes; OUT '-' is standard output\n");
    exit(2);
}

int main(int argc, char **argv)
{
    uint64_t records = 1000, bytes = 0;
    uint64_t footprint = 128 << 20;
    unsigned threads = 2;
    int random = 0;
    tk_endian endian = TK_ENDIAN_LITTLE;
    const char *out_path = NULL;
    for (int i = 1; i < argc; i += 2) { /* options all take a value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            usage();
        if (!v)
            usage();
        if (!strcmp(a, "--records")) records = parse_num(v);
        else if (!strcmp(a, "--bytes")) bytes = parse_num(v);
        else if (!strcmp(a, "--seed")) rng_state ^= parse_num(v) * 0x9E3779B97F4A7C15ULL;
        else if (!strcmp(a, "--threads")) threads = (unsigned)parse_num(v);
        else if (!strcmp(a, "--endian")) endian = !strcmp(v, "big") ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE;
        else if (!strcmp(a, "--footprint")) footprint = parse_num(v);
        else if (!strcmp(a, "--pattern") && (!strcmp(v, "random") || !strcmp(v, "program")))
            random = !strcmp(v, "random");
        else if (!strcmp(a, "-o")) out_path = v;
        else usage();
    }
    if (!out_path || threads == 0 || threads > MAX_THREADS || footprint < 8 ||
        footprint / 8 > UINT32_MAX)
        usage();
    if (rng_state == 0) /* --seed 1 cancelled the initial state: xorshift */
        rng_state = 0x2545F4914F6CDD1DULL; /* would then repeat 0 forever */
    FILE *out = strcmp(out_path, "-") ? fopen(out_path, "wb") : stdout;
    if (!out) {
        perror(out_path);
        return 2;
    }
    tk_error_clear(&err);
    w = tk_cacheray_writer_new(out, endian, &err);
    if (!w)
        return 2;
    int status = random ? random_traffic(footprint, threads, records, bytes) != 0
                        : program_traffic(threads, records, bytes) != 0;
    if (tk_cacheray_writer_free(w, &err) != TK_OK || (out != stdout && fclose(out) != 0))
        status = 2;
    if (status) {
        fprintf(stderr, "tk-gen-cacheray: %s: %s\n", out_path,
                err.message[0] ? err.message : "write failed");
        return 2;
    }
    fprintf(stderr, "tk-gen-cacheray: wrote %llu records, %llu bytes to %s\n",
            (unsigned long long)written, (unsigned long long)nbytes, out_path);
    return 0;
}
