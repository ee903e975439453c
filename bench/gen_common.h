/* Shared by the trace generators: a seeded xorshift64* generator and
 * size arguments with K/M/G suffixes. Each generator defines usage(). */
#ifndef TK_BENCH_GEN_COMMON_H
#define TK_BENCH_GEN_COMMON_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void);

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t rnd(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static uint64_t parse_num(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k') shift = 10, end++;
    else if (*end == 'M' || *end == 'm') shift = 20, end++;
    else if (*end == 'G' || *end == 'g') shift = 30, end++;
    if (errno || *end || end == s)
        usage();
    return (uint64_t)v << shift;
}

/* The shape generators' command line, "SHAPE N -o OUT": N (1 to 2^30 - 1)
 * into *n and OUT opened with a 1 MiB buffer into *out (exit 2 when it
 * cannot be); returns SHAPE. */
static inline const char *shape_args(int argc, char **argv, uint64_t *n, FILE **out)
{
    static char obuf[1 << 20];
    if (argc != 5 || strcmp(argv[3], "-o") != 0)
        usage();
    *n = parse_num(argv[2]);
    if (*n == 0 || *n >= (1u << 30))
        usage();
    if (!(*out = fopen(argv[4], "wb"))) {
        perror(argv[4]);
        exit(2);
    }
    setvbuf(*out, obuf, _IOFBF, sizeof obuf);
    return argv[1];
}

#endif
