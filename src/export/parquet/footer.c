/* The file's end: the page index (every chunk's ColumnIndex, then every
 * OffsetIndex: PageIndex.md), then FileMetaData in the compact protocol,
 * its 4-byte length and "PAR1". */
#include <string.h>

#include <tracekit/tracekit.h>

#include "export/parquet/pq_int.h"
#include "export/parquet/thrift_compact.h"

static const uint8_t *bound_bytes(const pq_bound *b) { return b->b; }

/* ASCENDING or DESCENDING when the pages' bounds are (ties included),
 * null pages aside. */
static int boundary_order(const pq_col *c)
{
    int asc = 1, desc = 1;
    const pq_page *prev = NULL;
    for (size_t i = 0; i < c->npages; i++) {
        const pq_page *p = &c->pages[i];
        if (p->nulls == p->values)
            continue;
        if (prev) {
            int lo = tk_pq_bound_cmp(&prev->min, &p->min, c);
            int hi = tk_pq_bound_cmp(&prev->max, &p->max, c);
            asc &= lo <= 0 && hi <= 0;
            desc &= lo >= 0 && hi >= 0;
        }
        prev = p;
    }
    return asc ? PQ_ASCENDING : desc ? PQ_DESCENDING : PQ_UNORDERED;
}

static void column_index(tk_pq_buf *b, const pq_col *c)
{
    tk_tc t;
    tk_tc_init(&t, b);
    tk_tc_list(&t, 1, TK_TC_TRUE, c->npages);
    for (size_t i = 0; i < c->npages; i++)
        tk_tc_elem_bool(&t, c->pages[i].nulls == c->pages[i].values);
    for (int16_t f = 2; f <= 3; f++) {
        tk_tc_list(&t, f, TK_TC_BINARY, c->npages);
        for (size_t i = 0; i < c->npages; i++) {
            const pq_bound *bd = f == 2 ? &c->pages[i].min : &c->pages[i].max;
            tk_tc_elem_binary(&t, bound_bytes(bd), bd->ok ? bd->len : 0);
        }
    }
    tk_tc_i32(&t, 4, boundary_order(c));
    tk_tc_list(&t, 5, TK_TC_I64, c->npages);
    for (size_t i = 0; i < c->npages; i++)
        tk_tc_elem_i64(&t, (int64_t)c->pages[i].nulls);
    tk_tc_end(&t);
}

static void offset_index(tk_pq_buf *b, const pq_col *c, uint64_t data_offset)
{
    tk_tc t;
    tk_tc_init(&t, b);
    tk_tc_list(&t, 1, TK_TC_STRUCT, c->npages);
    for (size_t i = 0; i < c->npages; i++) {
        tk_tc_elem_struct(&t);
        tk_tc_i64(&t, 1, (int64_t)(data_offset + c->pages[i].offset));
        tk_tc_i32(&t, 2, (int32_t)c->pages[i].size);
        tk_tc_i64(&t, 3, (int64_t)c->pages[i].first_row);
        tk_tc_end(&t);
    }
    tk_tc_end(&t);
}

int tk_pq_write_index(tk_pq_writer *w, pq_col *c, pq_chunk_meta *m)
{
    /* no ColumnIndex when a page with values has no bound (only NaN, or
     * a string max that cannot be cut): its entry would be wrong */
    int bounded = 1;
    for (size_t i = 0; i < c->npages; i++) {
        const pq_page *p = &c->pages[i];
        if (p->nulls != p->values && !(p->min.ok && p->max.ok))
            bounded = 0;
    }
    if (bounded) {
        m->ci_off = w->ci.len;
        column_index(&w->ci, c);
        m->ci_len = (uint32_t)(w->ci.len - m->ci_off);
    }
    m->oi_off = w->oi.len;
    offset_index(&w->oi, c, m->data_offset);
    m->oi_len = (uint32_t)(w->oi.len - m->oi_off);
    if (w->ci.oom || w->oi.oom) {
        tk_pq_fail(w, TK_ENOMEM, "out of memory");
        return -1;
    }
    return 0;
}

/* The leaf's SchemaElement: type, repetition, name, then the
 * ConvertedType and LogicalType of its annotation. */
static void schema_leaf(tk_tc *t, const pq_col *c)
{
    static const struct { int8_t converted, bits, is_signed; } ann[] = {
        [TK_PQ_INT8] = {15, 8, 1},   [TK_PQ_INT16] = {16, 16, 1},
        [TK_PQ_UINT8] = {11, 8, 0},  [TK_PQ_UINT16] = {12, 16, 0},
        [TK_PQ_UINT32] = {13, 32, 0}, [TK_PQ_UINT64] = {14, 64, 0},
    };
    tk_tc_elem_struct(t);
    tk_tc_i32(t, 1, c->phys);
    tk_tc_i32(t, 3, c->nullable ? 1 : 0);
    tk_tc_string(t, 4, c->name);
    if (c->type == TK_PQ_STRING) {
        tk_tc_i32(t, 6, 0); /* UTF8 */
        tk_tc_struct(t, 10);
        tk_tc_empty(t, 1); /* STRING */
        tk_tc_end(t);
    } else if (c->type == TK_PQ_TIMESTAMP_NS) {
        tk_tc_struct(t, 10);
        tk_tc_struct(t, 8); /* TIMESTAMP, not UTC-adjusted (parquet.h) */
        tk_tc_bool(t, 1, 0);
        tk_tc_struct(t, 2);
        tk_tc_empty(t, 3); /* NANOS */
        tk_tc_end(t);
        tk_tc_end(t);
        tk_tc_end(t);
    } else if ((size_t)c->type < sizeof ann / sizeof *ann && ann[c->type].bits) {
        tk_tc_i32(t, 6, ann[c->type].converted);
        tk_tc_struct(t, 10);
        tk_tc_struct(t, 10); /* INTEGER */
        tk_tc_i8(t, 1, ann[c->type].bits);
        tk_tc_bool(t, 2, ann[c->type].is_signed);
        tk_tc_end(t);
        tk_tc_end(t);
    }
    tk_tc_end(t);
}

static void schema(tk_tc *t, const tk_pq_writer *w)
{
    tk_tc_list(t, 2, TK_TC_STRUCT, w->ncols + 1);
    tk_tc_elem_struct(t);
    tk_tc_string(t, 4, "schema");
    tk_tc_i32(t, 5, (int32_t)w->ncols);
    tk_tc_end(t);
    for (size_t i = 0; i < w->ncols; i++)
        schema_leaf(t, &w->cols[i]);
}

static void statistics(tk_tc *t, const pq_col *c, const pq_chunk_meta *m)
{
    tk_tc_struct(t, 12);
    /* the deprecated max/min, for older readers, where their signed
     * order is the column's */
    int legacy = m->min.ok && m->max.ok && c->order != PQ_ORD_UNSIGNED &&
                 c->order != PQ_ORD_BYTES;
    if (legacy) {
        tk_tc_binary(t, 1, m->max.b, m->max.len);
        tk_tc_binary(t, 2, m->min.b, m->min.len);
    }
    tk_tc_i64(t, 3, (int64_t)m->nulls);
    if (m->max.ok)
        tk_tc_binary(t, 5, m->max.b, m->max.len);
    if (m->min.ok)
        tk_tc_binary(t, 6, m->min.b, m->min.len);
    if (m->max.ok)
        tk_tc_bool(t, 7, m->max.exact);
    if (m->min.ok)
        tk_tc_bool(t, 8, m->min.exact);
    tk_tc_end(t);
}

/* The encodings in the chunk, ascending: its data pages', the dictionary
 * page's PLAIN and the levels' RLE. */
static void encodings(tk_tc *t, const pq_col *c, const pq_chunk_meta *m)
{
    int used[9] = {0};
    for (int e = 0; e < 9; e++)
        used[e] = m->pages_by_enc[e] != 0;
    used[PQ_PLAIN] |= m->dict_offset != 0;
    used[PQ_RLE] |= c->nullable;
    size_t n = 0;
    for (int e = 0; e < 9; e++)
        n += (size_t)used[e];
    tk_tc_list(t, 2, TK_TC_I32, n);
    for (int e = 0; e < 9; e++)
        if (used[e])
            tk_tc_elem_i32(t, e);
}

static void encoding_stats(tk_tc *t, const pq_chunk_meta *m)
{
    size_t n = m->dict_offset != 0;
    for (int e = 0; e < 9; e++)
        n += m->pages_by_enc[e] != 0;
    tk_tc_list(t, 13, TK_TC_STRUCT, n);
    if (m->dict_offset) {
        tk_tc_elem_struct(t);
        tk_tc_i32(t, 1, PQ_DICTIONARY_PAGE);
        tk_tc_i32(t, 2, PQ_PLAIN);
        tk_tc_i32(t, 3, 1);
        tk_tc_end(t);
    }
    for (int e = 0; e < 9; e++) {
        if (!m->pages_by_enc[e])
            continue;
        tk_tc_elem_struct(t);
        tk_tc_i32(t, 1, PQ_DATA_PAGE);
        tk_tc_i32(t, 2, e);
        tk_tc_i32(t, 3, (int32_t)m->pages_by_enc[e]);
        tk_tc_end(t);
    }
}

static void column_chunk(tk_tc *t, const tk_pq_writer *w, const pq_col *c,
                         const pq_chunk_meta *m, uint64_t ci_start, uint64_t oi_start)
{
    tk_tc_elem_struct(t);
    tk_tc_i64(t, 2, (int64_t)m->start);
    tk_tc_struct(t, 3); /* ColumnMetaData */
    tk_tc_i32(t, 1, c->phys);
    encodings(t, c, m);
    tk_tc_list(t, 3, TK_TC_BINARY, 1);
    tk_tc_elem_binary(t, c->name, strlen(c->name));
    tk_tc_i32(t, 4, tk_pq_compressor_thrift_codec(w->z));
    tk_tc_i64(t, 5, (int64_t)m->values);
    tk_tc_i64(t, 6, (int64_t)m->uncompressed);
    tk_tc_i64(t, 7, (int64_t)m->compressed);
    tk_tc_i64(t, 9, (int64_t)m->data_offset);
    if (m->dict_offset)
        tk_tc_i64(t, 11, (int64_t)m->dict_offset);
    statistics(t, c, m);
    encoding_stats(t, m);
    tk_tc_end(t);
    if (m->oi_len) {
        tk_tc_i64(t, 4, (int64_t)(oi_start + m->oi_off));
        tk_tc_i32(t, 5, (int32_t)m->oi_len);
    }
    if (m->ci_len) {
        tk_tc_i64(t, 6, (int64_t)(ci_start + m->ci_off));
        tk_tc_i32(t, 7, (int32_t)m->ci_len);
    }
    tk_tc_end(t);
}

static void row_groups(tk_tc *t, const tk_pq_writer *w, uint64_t ci_start, uint64_t oi_start)
{
    tk_tc_list(t, 4, TK_TC_STRUCT, w->nrgs);
    for (size_t r = 0; r < w->nrgs; r++) {
        const pq_row_group *rg = &w->rgs[r];
        tk_tc_elem_struct(t);
        tk_tc_list(t, 1, TK_TC_STRUCT, w->ncols);
        for (size_t i = 0; i < w->ncols; i++)
            column_chunk(t, w, &w->cols[i], &rg->chunks[i], ci_start, oi_start);
        tk_tc_i64(t, 2, (int64_t)rg->uncompressed);
        tk_tc_i64(t, 3, (int64_t)rg->rows);
        tk_tc_i64(t, 5, (int64_t)rg->start);
        tk_tc_i64(t, 6, (int64_t)rg->compressed);
        if (r <= INT16_MAX) /* ordinal is an i16 */
            tk_tc_i16(t, 7, (int16_t)r);
        tk_tc_end(t);
    }
}

static void key_values(tk_tc *t, const tk_pq_writer *w)
{
    tk_tc_list(t, 5, TK_TC_STRUCT, w->nkv);
    for (size_t i = 0; i < w->nkv; i++) {
        tk_tc_elem_struct(t);
        tk_tc_string(t, 1, w->kv[2 * i]);
        if (w->kv[2 * i + 1])
            tk_tc_string(t, 2, w->kv[2 * i + 1]);
        tk_tc_end(t);
    }
}

int tk_pq_write_footer(tk_pq_writer *w)
{
    uint64_t ci_start = w->pos;
    if (tk_pq_write(w, w->ci.p, w->ci.len) != 0)
        return -1;
    uint64_t oi_start = w->pos;
    if (tk_pq_write(w, w->oi.p, w->oi.len) != 0)
        return -1;
    tk_pq_buf *b = &w->body;
    b->len = 0;
    tk_tc t;
    tk_tc_init(&t, b);
    tk_tc_i32(&t, 1, 2);
    schema(&t, w);
    tk_tc_i64(&t, 3, (int64_t)w->rows);
    row_groups(&t, w, ci_start, oi_start);
    key_values(&t, w);
    char by[64];
    snprintf(by, sizeof by, "tracekit version %s", tk_version());
    tk_tc_string(&t, 6, by);
    tk_tc_list(&t, 7, TK_TC_STRUCT, w->ncols);
    for (size_t i = 0; i < w->ncols; i++) {
        tk_tc_elem_struct(&t); /* ColumnOrder */
        tk_tc_empty(&t, 1);    /* TYPE_ORDER: TypeDefinedOrder */
        tk_tc_end(&t);
    }
    tk_tc_end(&t);
    tk_pq_buf_le32(b, (uint32_t)b->len);
    tk_pq_buf_put(b, "PAR1", 4);
    if (b->oom) {
        tk_pq_fail(w, TK_ENOMEM, "out of memory");
        return -1;
    }
    return tk_pq_write(w, b->p, b->len);
}
