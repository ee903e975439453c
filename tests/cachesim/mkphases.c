/* A Cacheray trace in two phases for the split test (split_test.sh):
 * mkphases ORDER OUT, ORDER `local-random` (first accesses in runs within
 * a line, then uniformly random ones) or `random-local`. Three threads,
 * typed arrays over 4 MiB (and untyped stack traffic), one array freed
 * and allocated again with another type now and then: the simulator's
 * mode choice (pipe.c: after a few batches, by the first level's miss
 * ratio) meets both kinds of traffic, and regions change while a worker
 * runs. */
#include <stdio.h>
#include <string.h>

#include <tracekit/tracekit.h>

enum { PHASE = 30000, ARRAYS = 4, ARRAY_BYTES = 1 << 20, RECYCLE = 4999 };

static tk_cacheray_writer *w;
static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void put(int write, uint64_t addr, uint8_t size, uint64_t thread)
{
    tk_cacheray_record r = {.type = write ? TK_CACHERAY_WRITE : TK_CACHERAY_READ,
                            .addr = addr, .size = size, .thread = thread};
    tk_error err;
    tk_cacheray_write(w, &r, &err);
}

static void region(int add, uint64_t addr, const char *name)
{
    tk_cacheray_record r = {.type = add ? TK_CACHERAY_RTTA_ADD : TK_CACHERAY_RTTA_REMOVE,
                            .addr = addr, .thread = 1, .elemsize = 16,
                            .elemcount = ARRAY_BYTES / 16, .type_name = name,
                            .typename_len = (uint32_t)strlen(name)};
    tk_error err;
    tk_cacheray_write(w, &r, &err);
}

static const char *const names[] = {"struct.a", "struct.b", "double", "i32", "void*"};
static uint64_t base(unsigned i) { return 0x10000000ULL + (uint64_t)i * ARRAY_BYTES; }

/* Array i freed and allocated again, typed names[(i + n) % 5]. */
static void recycle(unsigned i, unsigned n)
{
    region(0, base(i), "");
    region(1, base(i), names[(i + n) % 5]);
}

/* Runs of 8-byte accesses through a line of an array or the stack: the
 * lines of a 16 KiB window in turn, now and then another window. */
static void local_phase(void)
{
    uint64_t at = 0, win = 0;
    for (unsigned i = 0; i < PHASE; i++) {
        uint64_t r = next();
        if (i % 8 == 0 && r % 64 == 0)
            win = (r >> 8) % (ARRAYS * ARRAY_BYTES) & ~2047ULL;
        if (i % 8 == 0)
            at = win + (at + 64) % 2048;
        uint64_t addr = r >> 40 & 1 ? base(0) + at % (ARRAYS * ARRAY_BYTES)
                                    : 0x7ffe0000ULL + at % 1024;
        put((r >> 20) % 3 == 0, (addr & ~63ULL) + (i % 8) * 8, 8, 1 + (i / 64) % 3);
        if (i % RECYCLE == RECYCLE - 1)
            recycle((unsigned)(r >> 30) % ARRAYS, i);
    }
}

/* Uniformly random 8-byte accesses over the arrays, threads at random. */
static void random_phase(void)
{
    for (unsigned i = 0; i < PHASE; i++) {
        uint64_t r = next();
        put((r >> 50) % 3 == 0, base(0) + (r % (ARRAYS * ARRAY_BYTES) & ~7ULL),
            8, 1 + (r >> 40) % 3);
        if (i % RECYCLE == RECYCLE - 1)
            recycle((unsigned)(r >> 30) % ARRAYS, i);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "local-random") && strcmp(argv[1], "random-local")))
        return 2;
    FILE *out = fopen(argv[2], "wb");
    tk_error err;
    if (!out || !(w = tk_cacheray_writer_new(out, TK_ENDIAN_LITTLE, &err)))
        return 2;
    put(0, 0x7ffe0000ULL, 8, 1); /* an access first: the format is told from it */
    for (unsigned i = 0; i < ARRAYS; i++)
        region(1, base(i), names[i]);
    if (argv[1][0] == 'l') {
        local_phase();
        random_phase();
    } else {
        random_phase();
        local_phase();
    }
    if (tk_cacheray_writer_free(w, &err) != TK_OK)
        return 2;
    return fclose(out) != 0;
}
