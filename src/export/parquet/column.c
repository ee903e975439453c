/* A column: its type's rules, and values put into its current page
 * (tk_pq_put_*). Values are stored raw here and encoded when the page
 * ends (page.c); strings go into the chunk's dictionary at once. */
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "export/parquet/pq_int.h"

static int is_int(tk_pq_type t)
{
    return t != TK_PQ_BOOL && t != TK_PQ_DOUBLE && t != TK_PQ_STRING && t != TK_PQ_BINARY;
}

/* Physical type, order and the range of the INT32-stored types. */
static void type_rules(pq_col *c)
{
    static const struct { int phys, order; int64_t lo; uint64_t hi; } r[] = {
        [TK_PQ_BOOL] = {PQ_BOOLEAN, PQ_ORD_BOOL, 0, 1},
        [TK_PQ_INT8] = {PQ_INT32, PQ_ORD_SIGNED, INT8_MIN, INT8_MAX},
        [TK_PQ_INT16] = {PQ_INT32, PQ_ORD_SIGNED, INT16_MIN, INT16_MAX},
        [TK_PQ_INT32] = {PQ_INT32, PQ_ORD_SIGNED, INT32_MIN, INT32_MAX},
        [TK_PQ_INT64] = {PQ_INT64, PQ_ORD_SIGNED, INT64_MIN, INT64_MAX},
        [TK_PQ_UINT8] = {PQ_INT32, PQ_ORD_UNSIGNED, 0, UINT8_MAX},
        [TK_PQ_UINT16] = {PQ_INT32, PQ_ORD_UNSIGNED, 0, UINT16_MAX},
        [TK_PQ_UINT32] = {PQ_INT32, PQ_ORD_UNSIGNED, 0, UINT32_MAX},
        [TK_PQ_UINT64] = {PQ_INT64, PQ_ORD_UNSIGNED, 0, UINT64_MAX},
        [TK_PQ_TIMESTAMP_NS] = {PQ_INT64, PQ_ORD_SIGNED, INT64_MIN, INT64_MAX},
        [TK_PQ_DOUBLE] = {PQ_DOUBLE, PQ_ORD_DOUBLE, 0, 0},
        [TK_PQ_STRING] = {PQ_BYTE_ARRAY, PQ_ORD_BYTES, 0, 0},
        [TK_PQ_BINARY] = {PQ_BYTE_ARRAY, PQ_ORD_BYTES, 0, 0},
    };
    c->phys = r[c->type].phys;
    c->order = r[c->type].order;
    c->lo = r[c->type].lo;
    c->hi = r[c->type].hi;
    c->is_int = is_int(c->type);
}

int tk_pq_col_init(pq_col *c, const tk_pq_column *spec, tk_error *err)
{
    memset(c, 0, sizeof *c);
    if (!spec->name || !*spec->name)
        return tk_pq_err(err, TK_EUSAGE, "Parquet: a column without a name");
    if ((unsigned)spec->type > TK_PQ_BINARY || (unsigned)spec->encoding > TK_PQ_ENC_DELTA)
        return tk_pq_err(err, TK_EUSAGE, "Parquet: column '%s': unknown type or encoding",
                         spec->name);
    c->type = spec->type;
    c->nullable = (spec->flags & TK_PQ_NULLABLE) != 0;
    type_rules(c);
    int bytes = c->phys == PQ_BYTE_ARRAY;
    c->enc = spec->encoding;
    if (c->enc == TK_PQ_ENC_AUTO)
        c->enc = is_int(c->type) ? TK_PQ_ENC_DELTA : bytes ? TK_PQ_ENC_DICT : TK_PQ_ENC_PLAIN;
    if ((c->enc == TK_PQ_ENC_DELTA && !is_int(c->type)) || (c->enc == TK_PQ_ENC_DICT && !bytes))
        return tk_pq_err(err, TK_EUSAGE, "Parquet: column '%s': %s encoding does not take its type",
                         spec->name, c->enc == TK_PQ_ENC_DELTA ? "delta" : "dictionary");
    if (!(c->name = strdup(spec->name)))
        return tk_pq_err(err, TK_ENOMEM, "out of memory");
    tk_pq_col_reset_chunk(c);
    return 0;
}

void tk_pq_col_free(pq_col *c)
{
    free(c->name);
    tk_pq_buf_free(&c->defs);
    tk_pq_buf_free(&c->vals);
    tk_pq_buf_free(&c->chunk);
    tk_pq_buf_free(&c->cval);
    tk_pq_dict_free(&c->dict);
    tk_pq_mm_free(&c->cmm);
    tk_pq_mm_free(&c->pmm);
    free(c->pages);
}

void tk_pq_col_reset_chunk(pq_col *c)
{
    c->rows = 0;
    c->dict_on = c->enc == TK_PQ_ENC_DICT;
    c->dict_full = 0;
    c->chunk.len = 0;
    tk_pq_dict_reset(&c->dict);
    tk_pq_mm_reset(&c->cmm);
    c->c_values = c->c_nulls = c->c_raw = 0;
    memset(c->pages_by_enc, 0, sizeof c->pages_by_enc);
    c->npages = 0;
}

/* Why a value cannot go to column `col` (the writer failed before, or a
 * bad call), kept as the writer's failure. */
static void refuse(tk_pq_writer *w, size_t col)
{
    if (w->status != TK_OK)
        return;
    if (col >= w->ncols) {
        tk_pq_fail(w, TK_EUSAGE, "Parquet: no column %zu (the table has %zu)", col, w->ncols);
        return;
    }
    const pq_col *c = &w->cols[col];
    if (c->constant)
        tk_pq_fail(w, TK_EUSAGE, "Parquet: column '%s' is constant (row %llu)", c->name,
                   (unsigned long long)w->rows);
    else
        tk_pq_fail(w, TK_EUSAGE, "Parquet: column '%s': two values in row %llu", c->name,
                   (unsigned long long)w->rows);
}

/* The column a value goes to, or NULL. The checks every put makes, kept
 * to a few compares: puts are most of a conversion's cost. */
static inline pq_col *col_for(tk_pq_writer *w, size_t col)
{
    if (w->status == TK_OK && col < w->ncols) {
        pq_col *c = &w->cols[col];
        if (c->rows == w->rg_rows && !c->constant) {
            w->row_puts++;
            return c;
        }
    }
    refuse(w, col);
    return NULL;
}

static inline void present(pq_col *c)
{
    c->rows++;
    c->page_rows++;
    c->page_vals++;
    if (c->nullable)
        tk_pq_buf_byte(&c->defs, 1);
}

static void bad_type(tk_pq_writer *w, const pq_col *c, const char *what)
{
    tk_pq_fail(w, TK_EUSAGE, "Parquet: column '%s' does not take %s (row %llu)", c->name, what,
               (unsigned long long)w->rows);
}

/* An integer the column takes, stored as its physical type. */
static inline void store_int(pq_col *c, uint64_t v)
{
    if (tk_pq_buf_reserve(&c->vals, 8) != 0)
        return; /* oom is set: the page fails */
    if (c->phys == PQ_INT64) {
        memcpy(c->vals.p + c->vals.len, &v, 8);
        c->vals.len += 8;
    } else {
        uint32_t x = (uint32_t)v;
        memcpy(c->vals.p + c->vals.len, &x, 4);
        c->vals.len += 4;
    }
    present(c);
}

/* An integer the column does not take: the failure that says why. */
static void bad_int(tk_pq_writer *w, pq_col *c, uint64_t v, int neg)
{
    if (!is_int(c->type)) {
        bad_type(w, c, "an integer");
        return;
    }
    unsigned long long mag = neg ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    tk_pq_fail(w, TK_EUSAGE, "Parquet: column '%s': %s%llu is out of range (row %llu)", c->name,
               neg ? "-" : "", mag, (unsigned long long)w->rows);
}

void tk_pq_put_i64(tk_pq_writer *w, size_t col, int64_t v)
{
    pq_col *c = col_for(w, col);
    if (!c)
        return;
    int ok = v >= 0 ? (uint64_t)v <= c->hi : c->order == PQ_ORD_SIGNED && v >= c->lo;
    if (c->is_int && ok)
        store_int(c, (uint64_t)v);
    else
        bad_int(w, c, (uint64_t)v, v < 0);
}

void tk_pq_put_u64(tk_pq_writer *w, size_t col, uint64_t v)
{
    pq_col *c = col_for(w, col);
    if (!c)
        return;
    if (c->is_int && v <= c->hi)
        store_int(c, v);
    else
        bad_int(w, c, v, 0);
}

void tk_pq_put_f64(tk_pq_writer *w, size_t col, double v)
{
    pq_col *c = col_for(w, col);
    if (!c)
        return;
    if (c->phys != PQ_DOUBLE) {
        bad_type(w, c, "a double");
        return;
    }
    tk_pq_buf_put(&c->vals, &v, 8);
    present(c);
}

void tk_pq_put_bool(tk_pq_writer *w, size_t col, int v)
{
    pq_col *c = col_for(w, col);
    if (!c)
        return;
    if (c->phys != PQ_BOOLEAN) {
        bad_type(w, c, "a boolean");
        return;
    }
    tk_pq_buf_byte(&c->vals, v != 0);
    present(c);
}

/* Invalid UTF-8 in `p` replaced by U+FFFD, into `out`; 0 when valid. */
static int fix_utf8(const uint8_t *p, size_t n, tk_pq_buf *out)
{
    size_t i = 0;
    for (uint64_t w; i + 8 <= n; i += 8) { /* ASCII, 8 bytes at a time */
        memcpy(&w, p + i, 8);
        if (w & 0x8080808080808080ull)
            break;
    }
    while (i < n && p[i] < 0x80)
        i++;
    if (i == n)
        return 0;
    size_t k = i, bad = 0;
    while (k < n) {
        size_t l = p[k] < 0x80 ? 1 : tk_utf8_len(p + k, n - k);
        bad |= l == 0;
        k += l ? l : 1;
    }
    if (!bad)
        return 0;
    out->len = 0;
    tk_pq_buf_put(out, p, i);
    while (i < n) {
        size_t l = p[i] < 0x80 ? 1 : tk_utf8_len(p + i, n - i);
        if (l)
            tk_pq_buf_put(out, p + i, l);
        else
            tk_pq_buf_put(out, "\xEF\xBF\xBD", 3);
        i += l ? l : 1;
    }
    return 1;
}

void tk_pq_put_bytes(tk_pq_writer *w, size_t col, const void *p, size_t n)
{
    pq_col *c = col_for(w, col);
    if (!c)
        return;
    if (c->phys != PQ_BYTE_ARRAY) {
        bad_type(w, c, "a byte string");
        return;
    }
    if (!p)
        p = "";
    int64_t known = c->dict_on ? tk_pq_dict_known(&c->dict, p, n) : -1;
    if (known >= 0) { /* equal to an entry: valid UTF-8, in range, nothing added */
        uint32_t idx = (uint32_t)known;
        tk_pq_buf_put(&c->vals, &idx, 4);
        present(c);
        return;
    }
    if (c->type == TK_PQ_STRING && fix_utf8(p, n, &w->scratch)) {
        p = w->scratch.p;
        n = w->scratch.len;
    }
    if (n > INT32_MAX) { /* PLAIN's 4-byte length; engines take int32 */
        tk_pq_fail(w, TK_EUSAGE, "Parquet: column '%s': a value of %zu bytes (row %llu)", c->name,
                   n, (unsigned long long)w->rows);
        return;
    }
    if (c->dict_on) {
        int64_t i = tk_pq_dict_add(&c->dict, p, n);
        if (i < 0) {
            tk_pq_fail(w, TK_ENOMEM, "out of memory");
            return;
        }
        uint32_t idx = (uint32_t)i;
        tk_pq_buf_put(&c->vals, &idx, 4);
        if (c->dict.plain.len > w->dict_bytes)
            c->dict_full = w->dict_full = 1; /* this page ends with the row */
    } else {
        tk_pq_buf_le32(&c->vals, (uint32_t)n);
        tk_pq_buf_put(&c->vals, p, n);
    }
    present(c);
}

tk_status tk_pq_set_constant(tk_pq_writer *w, size_t col, const void *p, size_t n,
                             tk_error *err)
{
    pq_col *c = col < w->ncols ? &w->cols[col] : NULL;
    if (!c || c->constant || c->nullable || c->enc != TK_PQ_ENC_DICT || w->rows || c->rows)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "Parquet: column %zu cannot be made constant", col);
    if (c->type == TK_PQ_STRING && fix_utf8(p, n, &w->scratch)) {
        p = w->scratch.p;
        n = w->scratch.len;
    }
    tk_pq_buf_put(&c->cval, p, n);
    if (c->cval.oom)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    c->constant = 1;
    w->nput--;
    return TK_OK;
}

void tk_pq_put_str(tk_pq_writer *w, size_t col, const char *s)
{
    tk_pq_put_bytes(w, col, s, s ? strlen(s) : 0);
}

void tk_pq_put_null(tk_pq_writer *w, size_t col)
{
    pq_col *c = col_for(w, col);
    if (!c)
        return;
    if (!c->nullable) {
        tk_pq_fail(w, TK_EUSAGE, "Parquet: column '%s' is not nullable (row %llu)", c->name,
                   (unsigned long long)w->rows);
        return;
    }
    tk_pq_col_null(c);
}
