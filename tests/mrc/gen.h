/* Deterministic access streams for the miss-ratio-curve tests, shaped
 * like a program's: a small hot region (a stack), two arrays swept in
 * 8-byte steps, random accesses to a warm quarter of the footprint and
 * uniform ones over all of it; 1 to 16 bytes at any offset (some cross a
 * line) and a few of 0 bytes. */
#ifndef TK_TEST_MRC_GEN_H
#define TK_TEST_MRC_GEN_H

#include <stdint.h>

#include <tracekit/cacheray.h>

typedef struct mg_state {
    uint64_t rng;
    uint64_t lines; /* footprint in 64-byte lines */
    uint64_t sweep[2]; /* the arrays' cursors, in bytes */
} mg_state;

void mg_init(mg_state *g, uint64_t seed, uint64_t lines);
/* The next access (a read or a write of thread 1 or 2). */
void mg_next(mg_state *g, tk_cacheray_record *rec);

#endif
