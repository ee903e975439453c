/* A growable byte buffer for the Parquet writer, with little-endian and
 * ULEB128/zigzag appenders (Parquet's and Thrift's integer encodings).
 * An allocation failure sets `oom` and drops further appends, so encoders
 * write straight through and the caller checks once per page. */
#ifndef TK_EXPORT_PARQUET_PQ_BUF_H
#define TK_EXPORT_PARQUET_PQ_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/bytes.h"

typedef struct tk_pq_buf {
    uint8_t *p;
    size_t len, cap;
    int oom;
} tk_pq_buf;

void tk_pq_buf_free(tk_pq_buf *b);
/* Make room for `extra` more bytes; -1 (and oom set) on failure. */
int tk_pq_buf_grow(tk_pq_buf *b, size_t extra);

static inline int tk_pq_buf_reserve(tk_pq_buf *b, size_t extra)
{
    return b->cap - b->len >= extra ? 0 : tk_pq_buf_grow(b, extra);
}

static inline void tk_pq_buf_put(tk_pq_buf *b, const void *p, size_t n)
{
    if (n == 0 || tk_pq_buf_reserve(b, n) != 0)
        return;
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

static inline void tk_pq_buf_byte(tk_pq_buf *b, uint8_t v)
{
    if (tk_pq_buf_reserve(b, 1) != 0)
        return;
    b->p[b->len++] = v;
}

static inline void tk_pq_buf_le32(tk_pq_buf *b, uint32_t v)
{
    if (tk_pq_buf_reserve(b, 4) != 0)
        return;
    tk_st32(b->p + b->len, v, 0);
    b->len += 4;
}

static inline void tk_pq_buf_le64(tk_pq_buf *b, uint64_t v)
{
    if (tk_pq_buf_reserve(b, 8) != 0)
        return;
    tk_st64(b->p + b->len, v, 0);
    b->len += 8;
}

/* ULEB128: 7 bits a byte, low first, high bit = more. */
static inline void tk_pq_buf_uleb(tk_pq_buf *b, uint64_t v)
{
    if (tk_pq_buf_reserve(b, 10) != 0)
        return;
    uint8_t *p = b->p + b->len;
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    b->len = (size_t)(p - b->p);
}

static inline uint64_t tk_pq_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline void tk_pq_buf_zigzag(tk_pq_buf *b, int64_t v)
{
    tk_pq_buf_uleb(b, tk_pq_zigzag(v));
}

#endif
