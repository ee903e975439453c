/* Pages: a column's buffered values encoded as a data page v1 (the
 * definition levels with their 4-byte length, then the values), its
 * bounds, compression and PageHeader, appended to the column chunk; and
 * the chunk's dictionary page. */
#include <stdlib.h>

#include "export/parquet/encode.h"
#include "export/parquet/pq_int.h"
#include "export/parquet/thrift_compact.h"

/* PageHeader with a DataPageHeader (v1: levels RLE) or a
 * DictionaryPageHeader. */
void tk_pq_page_header(tk_pq_buf *b, int type, size_t raw, size_t compressed,
                    uint32_t values, int encoding)
{
    tk_tc t;
    tk_tc_init(&t, b);
    tk_tc_i32(&t, 1, type);
    tk_tc_i32(&t, 2, (int32_t)raw);
    tk_tc_i32(&t, 3, (int32_t)compressed);
    tk_tc_struct(&t, type == PQ_DATA_PAGE ? 5 : 7);
    tk_tc_i32(&t, 1, (int32_t)values);
    tk_tc_i32(&t, 2, encoding);
    if (type == PQ_DATA_PAGE) {
        tk_tc_i32(&t, 3, PQ_RLE);
        tk_tc_i32(&t, 4, PQ_RLE);
    }
    tk_tc_end(&t);
    tk_tc_end(&t);
}

/* Native arrays are little-endian already on the hosts tracekit runs on. */
static void plain_fixed(tk_pq_buf *b, const uint8_t *v, size_t n, size_t size)
{
#if TK_HOST_BIG
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < size; k++)
            tk_pq_buf_byte(b, v[i * size + size - 1 - k]);
#else
    tk_pq_buf_put(b, v, n * size);
#endif
}

/* The values section; returns its encoding. */
static int encode_values(pq_col *c, tk_pq_buf *b)
{
    size_t n = c->page_vals;
    const uint8_t *v = c->vals.p;
    switch (c->phys) {
    case PQ_BOOLEAN:
        tk_pq_bool_plain(b, v, n);
        return PQ_PLAIN;
    case PQ_INT32:
    case PQ_INT64:
        if (c->enc == TK_PQ_ENC_DELTA) {
            if (c->phys == PQ_INT32)
                tk_pq_delta_i32(b, (const int32_t *)(const void *)v, n);
            else
                tk_pq_delta_i64(b, (const int64_t *)(const void *)v, n);
            return PQ_DELTA_BINARY_PACKED;
        }
        plain_fixed(b, v, n, c->phys == PQ_INT32 ? 4 : 8);
        return PQ_PLAIN;
    case PQ_DOUBLE:
        plain_fixed(b, v, n, 8);
        return PQ_PLAIN;
    default:
        if (c->dict_on) {
            unsigned w = tk_pq_bit_width(c->dict.n > 1 ? c->dict.n - 1 : 1);
            tk_pq_buf_byte(b, (uint8_t)w);
            tk_pq_rle_u32(b, (const uint32_t *)(const void *)v, n, w);
            return PQ_RLE_DICTIONARY;
        }
        tk_pq_buf_put(b, v, c->vals.len);
        return PQ_PLAIN;
    }
}

static size_t entry_len(const uint8_t *p)
{
    return (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
}

/* A page's byte-array bounds: over its dictionary indices (each new index
 * compared once per run) or its PLAIN values. */
static int page_bytes_bounds(pq_col *c)
{
    pq_minmax *m = &c->pmm;
    if (c->page_vals == 0)
        return 0;
    if (c->dict_on) {
        const uint32_t *ix = (const uint32_t *)(const void *)c->vals.p;
        uint32_t last = UINT32_MAX;
        for (size_t i = 0; i < c->page_vals; i++) {
            if (ix[i] == last)
                continue;
            last = ix[i];
            size_t len;
            const uint8_t *e = tk_pq_dict_entry(&c->dict, last, &len);
            if (tk_pq_mm_bytes(m, e, len) != 0)
                return -1;
        }
        return 0;
    }
    for (const uint8_t *p = c->vals.p, *end = p + c->vals.len; p < end;) {
        size_t len = entry_len(p);
        if (tk_pq_mm_bytes(m, p + 4, len) != 0)
            return -1;
        p += 4 + len;
    }
    return 0;
}

static int add_page(tk_pq_writer *w, pq_col *c, size_t size)
{
    if (c->npages == c->cap_pages) {
        size_t cap = c->cap_pages ? c->cap_pages * 2 : 16;
        pq_page *p = realloc(c->pages, cap * sizeof *p);
        if (!p) {
            tk_pq_fail(w, TK_ENOMEM, "out of memory");
            return -1;
        }
        c->pages = p;
        c->cap_pages = cap;
    }
    pq_page *pg = &c->pages[c->npages++];
    pg->offset = c->chunk.len;
    pg->size = (uint32_t)size;
    pg->first_row = c->rows - c->page_rows;
    pg->values = c->page_rows;
    pg->nulls = c->page_rows - c->page_vals;
    tk_pq_bound_of(&pg->min, &c->pmm, c, 0);
    tk_pq_bound_of(&pg->max, &c->pmm, c, 1);
    return 0;
}

/* The page's body compressed, into *data (the body itself when there is
 * no compression). */
static int compress_body(tk_pq_writer *w, const tk_pq_buf *body, const tk_pq_buf **data)
{
    *data = body;
    if (tk_pq_compressor_thrift_codec(w->z) == 0)
        return 0;
    tk_error e;
    if (tk_pq_compress(w->z, body->p, body->len, &w->zbuf, &e) != 0) {
        tk_pq_fail(w, e.status, "%s", e.message);
        return -1;
    }
    *data = &w->zbuf;
    return 0;
}

/* The page in w->body (encoded as `enc`, its bounds in c->pmm) compressed
 * and appended to the chunk with its header. */
static int emit_page(tk_pq_writer *w, pq_col *c, int enc)
{
    tk_pq_buf *body = &w->body;
    if (body->len > INT32_MAX - 4096) { /* page sizes are i32 */
        tk_pq_fail(w, TK_EUSAGE, "Parquet: column '%s': a page of %zu bytes (values too large)",
                   c->name, body->len);
        return -1;
    }
    const tk_pq_buf *data;
    if (body->oom || c->vals.oom || c->defs.oom || tk_pq_mm_merge(&c->cmm, &c->pmm, c) != 0) {
        tk_pq_fail(w, TK_ENOMEM, "out of memory");
        return -1;
    }
    if (compress_body(w, body, &data) != 0)
        return -1;
    w->hdr.len = 0;
    tk_pq_page_header(&w->hdr, PQ_DATA_PAGE, body->len, data->len, c->page_rows, enc);
    if (add_page(w, c, w->hdr.len + data->len) != 0)
        return -1;
    tk_pq_buf_put(&c->chunk, w->hdr.p, w->hdr.len);
    tk_pq_buf_put(&c->chunk, data->p, data->len);
    if (c->chunk.oom || w->hdr.oom) {
        tk_pq_fail(w, TK_ENOMEM, "out of memory");
        return -1;
    }
    c->c_values += c->page_rows;
    c->c_nulls += c->page_rows - c->page_vals;
    c->c_raw += w->hdr.len + body->len;
    c->pages_by_enc[enc]++;
    w->rg_bytes += w->hdr.len + data->len;
    c->defs.len = c->vals.len = 0;
    c->page_rows = c->page_vals = 0;
    if (c->dict_full)
        c->dict_on = c->dict_full = 0; /* PLAIN for the rest of the chunk */
    return 0;
}

int tk_pq_page_end(tk_pq_writer *w, pq_col *c)
{
    if (c->page_rows == 0 || w->status != TK_OK)
        return w->status == TK_OK ? 0 : -1;
    tk_pq_buf *body = &w->body;
    body->len = 0;
    if (c->nullable) {
        tk_pq_buf_le32(body, 0);
        tk_pq_rle_u8(body, c->defs.p, c->page_rows, 1);
        if (!body->oom)
            tk_st32(body->p, (uint32_t)(body->len - 4), 0);
    }
    int enc = encode_values(c, body);
    tk_pq_mm_reset(&c->pmm);
    if (c->phys == PQ_BYTE_ARRAY) {
        if (page_bytes_bounds(c) != 0)
            body->oom = 1;
    } else {
        tk_pq_mm_page_fixed(&c->pmm, c);
    }
    return emit_page(w, c, enc);
}

/* Pages of a constant column: its one dictionary entry, and every row
 * index 0 as one RLE run (bit width 1, as encode_values writes a
 * one-entry dictionary). At most 2^20 rows a page, as the others. */
int tk_pq_const_page(tk_pq_writer *w, pq_col *c, uint64_t rows)
{
    if (w->status != TK_OK)
        return -1;
    const void *v = c->cval.p ? (const void *)c->cval.p : "";
    if (rows && tk_pq_dict_add(&c->dict, v, c->cval.len) < 0) {
        tk_pq_fail(w, TK_ENOMEM, "out of memory");
        return -1;
    }
    while (rows) {
        uint32_t n = rows < (1u << 20) ? (uint32_t)rows : 1u << 20;
        rows -= n;
        c->rows += n;
        c->page_rows = c->page_vals = n;
        tk_pq_buf *body = &w->body;
        body->len = 0;
        tk_pq_buf_byte(body, 1);
        tk_pq_buf_uleb(body, (uint64_t)n << 1);
        tk_pq_buf_byte(body, 0);
        tk_pq_mm_reset(&c->pmm);
        if (tk_pq_mm_bytes(&c->pmm, v, c->cval.len) != 0)
            body->oom = 1;
        if (emit_page(w, c, PQ_RLE_DICTIONARY) != 0)
            return -1;
    }
    return 0;
}

int tk_pq_dict_page(tk_pq_writer *w, pq_col *c, uint64_t *uncompressed)
{
    const tk_pq_buf *data;
    if (compress_body(w, &c->dict.plain, &data) != 0)
        return -1;
    w->hdr.len = 0;
    tk_pq_page_header(&w->hdr, PQ_DICTIONARY_PAGE, c->dict.plain.len, data->len, c->dict.n,
                   PQ_PLAIN);
    if (w->hdr.oom) {
        tk_pq_fail(w, TK_ENOMEM, "out of memory");
        return -1;
    }
    *uncompressed = w->hdr.len + c->dict.plain.len;
    if (tk_pq_write(w, w->hdr.p, w->hdr.len) != 0 || tk_pq_write(w, data->p, data->len) != 0)
        return -1;
    return 0;
}
