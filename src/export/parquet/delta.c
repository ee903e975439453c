/* DELTA_BINARY_PACKED (Encodings.md, "Delta Encoding"): a header (block
 * size, miniblocks per block, value count, first value), then per block
 * the minimum delta, one bit width per miniblock and the miniblocks, each
 * the deltas minus the minimum bit-packed at its width. Deltas wrap in
 * the column's width, as the spec asks: all arithmetic is unsigned. */
#include "export/parquet/encode.h"

#define MINI (TK_PQ_DELTA_BLOCK / TK_PQ_DELTA_MINIBLOCKS)

/* One block of `cnt` (1..128) deltas already reduced by `min`. */
static void emit_block(tk_pq_buf *b, uint64_t *adj, size_t cnt, int64_t min)
{
    tk_pq_buf_zigzag(b, min);
    unsigned widths[TK_PQ_DELTA_MINIBLOCKS];
    size_t used = (cnt + MINI - 1) / MINI;
    for (size_t m = 0; m < TK_PQ_DELTA_MINIBLOCKS; m++) {
        uint64_t any = 0;
        for (size_t k = m * MINI; m < used && k < (m + 1) * MINI; k++)
            any |= adj[k];
        widths[m] = tk_pq_bit_width(any);
        tk_pq_buf_byte(b, (uint8_t)widths[m]); /* unused miniblocks: 0 */
    }
    for (size_t m = 0; m < used; m++) {
        unsigned w = widths[m];
        if (tk_pq_buf_reserve(b, (size_t)MINI / 8 * w) != 0)
            return;
        for (size_t g = 0; g < MINI; g += 8) {
            tk_pq_pack8(b->p + b->len, adj + m * MINI + g, w);
            b->len += w;
        }
    }
}

static void header(tk_pq_buf *b, size_t n, int64_t first)
{
    tk_pq_buf_uleb(b, TK_PQ_DELTA_BLOCK);
    tk_pq_buf_uleb(b, TK_PQ_DELTA_MINIBLOCKS);
    tk_pq_buf_uleb(b, n);
    tk_pq_buf_zigzag(b, first);
}

void tk_pq_delta_i64(tk_pq_buf *b, const int64_t *v, size_t n)
{
    header(b, n, n ? v[0] : 0);
    uint64_t adj[TK_PQ_DELTA_BLOCK];
    for (size_t i = 1; i < n; i += TK_PQ_DELTA_BLOCK) {
        size_t cnt = n - i < TK_PQ_DELTA_BLOCK ? n - i : TK_PQ_DELTA_BLOCK;
        int64_t min = INT64_MAX;
        for (size_t k = 0; k < cnt; k++) {
            int64_t d = (int64_t)((uint64_t)v[i + k] - (uint64_t)v[i + k - 1]);
            adj[k] = (uint64_t)d;
            min = d < min ? d : min;
        }
        for (size_t k = 0; k < TK_PQ_DELTA_BLOCK; k++)
            adj[k] = k < cnt ? adj[k] - (uint64_t)min : 0;
        emit_block(b, adj, cnt, min);
    }
}

void tk_pq_delta_i32(tk_pq_buf *b, const int32_t *v, size_t n)
{
    header(b, n, n ? v[0] : 0);
    uint64_t adj[TK_PQ_DELTA_BLOCK];
    for (size_t i = 1; i < n; i += TK_PQ_DELTA_BLOCK) {
        size_t cnt = n - i < TK_PQ_DELTA_BLOCK ? n - i : TK_PQ_DELTA_BLOCK;
        int32_t min = INT32_MAX;
        int32_t d[TK_PQ_DELTA_BLOCK];
        for (size_t k = 0; k < cnt; k++) {
            d[k] = (int32_t)((uint32_t)v[i + k] - (uint32_t)v[i + k - 1]);
            min = d[k] < min ? d[k] : min;
        }
        for (size_t k = 0; k < TK_PQ_DELTA_BLOCK; k++)
            adj[k] = k < cnt ? (uint32_t)((uint32_t)d[k] - (uint32_t)min) : 0;
        emit_block(b, adj, cnt, min);
    }
}
