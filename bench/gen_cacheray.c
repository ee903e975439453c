/* Generate a synthetic Cacheray trace with tracekit's writer: a few
 * threads walking typed heap arrays with reads, writes, atomics and
 * unaligned accesses, with RTTA_ADD/RTTA_REMOVE around each array. */
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

typedef struct array {
    uint64_t base;
    uint32_t elemsize, elemcount;
    int type;
} array;

static void usage(void)
{
    fprintf(stderr,
            "usage: tk-gen-cacheray [--records N | --bytes N] [--seed S]\n"
            "                       [--endian little|big] [--threads T] -o OUT\n");
    exit(2);
}

int main(int argc, char **argv)
{
    uint64_t records = 1000, bytes = 0;
    unsigned threads = 2;
    tk_endian endian = TK_ENDIAN_LITTLE;
    const char *out_path = NULL;
    for (int i = 1; i < argc; i += 2) { /* options all take a value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        if (!strcmp(a, "--records")) records = parse_num(v);
        else if (!strcmp(a, "--bytes")) bytes = parse_num(v);
        else if (!strcmp(a, "--seed")) rng_state ^= parse_num(v) * 0x9E3779B97F4A7C15ULL;
        else if (!strcmp(a, "--threads")) threads = (unsigned)parse_num(v);
        else if (!strcmp(a, "--endian")) endian = !strcmp(v, "big") ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE;
        else if (!strcmp(a, "-o")) out_path = v;
        else usage();
    }
    if (!out_path || threads == 0 || threads > 64)
        usage();
    if (rng_state == 0) /* --seed 1 cancelled the initial state: xorshift */
        rng_state = 0x2545F4914F6CDD1DULL; /* would then repeat 0 forever */
    FILE *out = strcmp(out_path, "-") ? fopen(out_path, "wb") : stdout;
    if (!out) {
        perror(out_path);
        return 2;
    }
    tk_error err;
    tk_error_clear(&err);
    tk_cacheray_writer *w = tk_cacheray_writer_new(out, endian, &err);
    if (!w)
        return 2;
    array live[64];
    uint64_t written = 0, nbytes = 0, next_base = 0x5555555a0000ULL;
    memset(live, 0, sizeof live);
    int status = 0;
    for (uint64_t n = 0; bytes ? nbytes < bytes : n < records; n++) {
        unsigned t = (unsigned)(rnd() % threads);
        array *a = &live[t];
        tk_cacheray_record rec;
        memset(&rec, 0, sizeof rec);
        rec.thread = 1000 + t;
        uint64_t r = rnd();
        if (a->elemcount == 0 || r % 4096 == 0) {
            if (a->elemcount) { /* free the old array first */
                rec.type = TK_CR_RTTA_REMOVE;
                rec.addr = a->base;
            } else {
                int ty = (int)(rnd() % 6);
                a->type = ty;
                a->elemsize = type_sizes[ty];
                a->elemcount = 16 + (uint32_t)(rnd() % 4096);
                a->base = next_base;
                next_base += ((uint64_t)a->elemsize * a->elemcount + 4095) & ~4095ULL;
                rec.type = TK_CR_RTTA_ADD;
                rec.addr = a->base;
                rec.elemsize = a->elemsize;
                rec.elemcount = a->elemcount;
                rec.type_name = type_names[ty];
                rec.typename_len = (uint32_t)strlen(type_names[ty]);
            }
            if (rec.type == TK_CR_RTTA_REMOVE)
                a->elemcount = 0;
        } else {
            uint64_t elem = (r >> 8) % a->elemcount;
            uint32_t field = a->elemsize >= 8 ? (uint32_t)((r >> 40) % (a->elemsize / 8)) * 8 : 0;
            rec.type = (r & 0xF) < 11 ? TK_CR_READ : TK_CR_WRITE;
            rec.addr = a->base + elem * a->elemsize + field;
            rec.size = a->elemsize >= 8 ? 8 : (uint8_t)a->elemsize;
            if ((r >> 4 & 0x1F) == 0)
                rec.flags |= TK_CR_ATOMIC;
            if ((r >> 12 & 0x3F) == 1) {
                rec.flags |= TK_CR_UNALIGNED;
                rec.addr += 1;
            }
        }
        if (tk_cacheray_write(w, &rec, &err) != TK_OK) {
            status = 2;
            break;
        }
        written++;
        nbytes += rec.type <= TK_CR_WRITE ? TK_CR_ACCESS_SIZE
                  : rec.type == TK_CR_RTTA_ADD ? TK_CR_RTTA_ADD_FIXED + rec.typename_len
                                               : TK_CR_RTTA_REMOVE_SIZE;
    }
    if (tk_cacheray_writer_free(w, &err) != TK_OK || (out != stdout && fclose(out) != 0))
        status = 2;
    if (status) {
        fprintf(stderr, "tk-gen-cacheray: %s: %s\n", out_path,
                err.message[0] ? err.message : "write failed");
        return status;
    }
    fprintf(stderr, "tk-gen-cacheray: wrote %llu records, %llu bytes to %s\n",
            (unsigned long long)written, (unsigned long long)nbytes, out_path);
    return 0;
}
