/* Bit-packing and the RLE/bit-packed hybrid (Encodings.md, "Run Length
 * Encoding / Bit-Packing Hybrid"). */
#include "export/parquet/encode.h"

#include "core/bytes.h"

void tk_pq_pack8(uint8_t *out, const uint64_t *v, unsigned w)
{
    uint64_t mask = w < 64 ? (UINT64_C(1) << w) - 1 : UINT64_MAX;
    uint64_t acc = 0;
    unsigned bits = 0;
    for (int i = 0; i < 8; i++) {
        uint64_t x = v[i] & mask;
        acc |= x << bits; /* bits < 64 here */
        unsigned total = bits + w;
        if (total >= 64) {
            tk_st64(out, acc, 0);
            out += 8;
            acc = bits ? x >> (64 - bits) : 0; /* what did not fit */
            bits = total - 64;
        } else {
            bits = total;
        }
    }
    for (; bits > 0; bits -= 8) { /* 8 * w bits: whole bytes */
        *out++ = (uint8_t)acc;
        acc >>= 8;
    }
}

/* sz is a constant at each call below, so each front end gets its own
 * specialised loop. */
static inline uint32_t get(const void *v, size_t i, int sz)
{
    return sz == 1 ? ((const uint8_t *)v)[i] : ((const uint32_t *)v)[i];
}

/* Equal values from i on, counting at most `cap`. */
static inline size_t run_len(const void *v, size_t i, size_t n, int sz, size_t cap)
{
    uint32_t x = get(v, i, sz);
    size_t j = i + 1;
    while (j < n && j - i < cap && get(v, j, sz) == x)
        j++;
    return j - i;
}

#define TK_PQ_RUN_MAX ((size_t)INT32_MAX) /* the spec's limit for a run */

static inline void emit_packed(tk_pq_buf *b, const void *v, size_t start, size_t end,
                               size_t n, unsigned w, int sz)
{
    size_t groups = (end - start) / 8;
    tk_pq_buf_uleb(b, (uint64_t)groups << 1 | 1);
    if (tk_pq_buf_reserve(b, groups * w) != 0)
        return;
    for (size_t g = start; g < end; g += 8) {
        uint64_t tmp[8];
        for (size_t k = 0; k < 8; k++)
            tmp[k] = g + k < n ? get(v, g + k, sz) : 0;
        tk_pq_pack8(b->p + b->len, tmp, w);
        b->len += w;
    }
}

static inline void rle(tk_pq_buf *b, const void *v, size_t n, unsigned w, int sz)
{
    size_t i = 0;
    while (i < n) {
        if (run_len(v, i, n, sz, 8) >= 8) {
            size_t r = run_len(v, i, n, sz, TK_PQ_RUN_MAX);
            tk_pq_buf_uleb(b, (uint64_t)r << 1);
            uint32_t x = get(v, i, sz);
            for (unsigned k = 0; k < (w + 7) / 8; k++)
                tk_pq_buf_byte(b, (uint8_t)(x >> (8 * k)));
            i += r;
            continue;
        }
        /* groups of 8 until one starts with a run worth an RLE run */
        size_t start = i;
        do
            i += 8;
        while (i < n && (i - start) / 8 < TK_PQ_RUN_MAX / 8 && run_len(v, i, n, sz, 8) < 8);
        emit_packed(b, v, start, i, n, w, sz);
    }
}

void tk_pq_rle_u32(tk_pq_buf *b, const uint32_t *v, size_t n, unsigned w)
{
    rle(b, v, n, w, 4);
}

void tk_pq_rle_u8(tk_pq_buf *b, const uint8_t *v, size_t n, unsigned w)
{
    rle(b, v, n, w, 1);
}

void tk_pq_bool_plain(tk_pq_buf *b, const uint8_t *v, size_t n)
{
    if (tk_pq_buf_reserve(b, (n + 7) / 8) != 0)
        return;
    uint8_t *out = b->p + b->len;
    for (size_t i = 0; i < n; i += 8) {
        uint8_t byte = 0;
        for (size_t k = 0; k < 8 && i + k < n; k++)
            byte |= (uint8_t)((v[i + k] & 1) << k);
        *out++ = byte;
    }
    b->len += (n + 7) / 8;
}
