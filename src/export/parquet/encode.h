/* Parquet's value encodings (Encodings.md), as the writer needs them:
 * bit-packing (LSB first), the RLE/bit-packed hybrid (definition levels,
 * dictionary indices), DELTA_BINARY_PACKED (INT32, INT64) and PLAIN
 * booleans. Each appends to a tk_pq_buf; check its oom flag after. */
#ifndef TK_EXPORT_PARQUET_ENCODE_H
#define TK_EXPORT_PARQUET_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "export/parquet/pq_buf.h"

/* Bits needed for `max` (0 for 0). */
static inline unsigned tk_pq_bit_width(uint64_t max)
{
    return max ? 64u - (unsigned)__builtin_clzll(max) : 0u;
}

/* Pack 8 values of `w` bits (0..64), LSB first: w bytes at `out`. */
void tk_pq_pack8(uint8_t *out, const uint64_t *v, unsigned w);

/* The hybrid, without the length prefix: runs of 8 or more equal values
 * as RLE runs, the rest bit-packed in groups of 8 (the last one padded
 * with zeros). `w` is 0..32. */
void tk_pq_rle_u32(tk_pq_buf *b, const uint32_t *v, size_t n, unsigned w);
void tk_pq_rle_u8(tk_pq_buf *b, const uint8_t *v, size_t n, unsigned w);

/* DELTA_BINARY_PACKED: blocks of 128 values in 4 miniblocks of 32, the
 * arithmetic wrapping in the type's width (an INT32 column's deltas never
 * take more than 32 bits). */
#define TK_PQ_DELTA_BLOCK 128
#define TK_PQ_DELTA_MINIBLOCKS 4
void tk_pq_delta_i64(tk_pq_buf *b, const int64_t *v, size_t n);
void tk_pq_delta_i32(tk_pq_buf *b, const int32_t *v, size_t n);

/* PLAIN booleans: one bit each, LSB first (values 0 or 1). */
void tk_pq_bool_plain(tk_pq_buf *b, const uint8_t *v, size_t n);

#endif
