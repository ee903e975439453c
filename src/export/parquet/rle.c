/* Bit-packing and the RLE/bit-packed hybrid (Encodings.md, "Run Length
 * Encoding / Bit-Packing Hybrid"). */
#include "export/parquet/encode.h"

#include "core/bytes.h"

/* The packing loop for one width: with `w` a constant (each case of
 * tk_pq_pack8 below), it unrolls to shifts and stores. */
static inline __attribute__((always_inline)) void pack8_w(uint8_t *out, const uint64_t *v,
                                                          const unsigned w)
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

#define PACK8_CASE(n) \
    case n: pack8_w(out, v, n); break;

void tk_pq_pack8(uint8_t *out, const uint64_t *v, unsigned w)
{
    switch (w) {
    case 0: break;
    PACK8_CASE(1) PACK8_CASE(2) PACK8_CASE(3) PACK8_CASE(4) PACK8_CASE(5) PACK8_CASE(6)
    PACK8_CASE(7) PACK8_CASE(8) PACK8_CASE(9) PACK8_CASE(10) PACK8_CASE(11) PACK8_CASE(12)
    PACK8_CASE(13) PACK8_CASE(14) PACK8_CASE(15) PACK8_CASE(16) PACK8_CASE(17) PACK8_CASE(18)
    PACK8_CASE(19) PACK8_CASE(20) PACK8_CASE(21) PACK8_CASE(22) PACK8_CASE(23) PACK8_CASE(24)
    PACK8_CASE(25) PACK8_CASE(26) PACK8_CASE(27) PACK8_CASE(28) PACK8_CASE(29) PACK8_CASE(30)
    PACK8_CASE(31) PACK8_CASE(32) PACK8_CASE(33) PACK8_CASE(34) PACK8_CASE(35) PACK8_CASE(36)
    PACK8_CASE(37) PACK8_CASE(38) PACK8_CASE(39) PACK8_CASE(40) PACK8_CASE(41) PACK8_CASE(42)
    PACK8_CASE(43) PACK8_CASE(44) PACK8_CASE(45) PACK8_CASE(46) PACK8_CASE(47) PACK8_CASE(48)
    PACK8_CASE(49) PACK8_CASE(50) PACK8_CASE(51) PACK8_CASE(52) PACK8_CASE(53) PACK8_CASE(54)
    PACK8_CASE(55) PACK8_CASE(56) PACK8_CASE(57) PACK8_CASE(58) PACK8_CASE(59) PACK8_CASE(60)
    PACK8_CASE(61) PACK8_CASE(62) PACK8_CASE(63)
    default: pack8_w(out, v, 64); break;
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
