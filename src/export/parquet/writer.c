/* The Parquet writer (parquet.h): the file, rows and row groups. A row
 * group's column chunks are held encoded in memory until it is full,
 * then written one after the other (a chunk's pages must be contiguous),
 * each with its dictionary page first. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/tracekit.h>

#include "core/strbuf.h"
#include "export/parquet/pq_int.h"

void tk_pq_buf_free(tk_pq_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

int tk_pq_buf_grow(tk_pq_buf *b, size_t extra)
{
    void *p = b->p;
    if (b->oom || extra > SIZE_MAX - b->len || tk_buf_grow(&p, &b->cap, b->len + extra) != 0) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    return 0;
}

int tk_pq_err(tk_error *err, tk_status status, const char *fmt, ...)
{
    char msg[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tk_error_set(err, status, TK_NO_OFFSET, TK_NO_RECORD, "%s", msg);
    return -1;
}

void tk_pq_fail(tk_pq_writer *w, tk_status status, const char *fmt, ...)
{
    if (w->status != TK_OK)
        return;
    char msg[sizeof w->err.message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    w->status = tk_error_set(&w->err, status, TK_NO_OFFSET, TK_NO_RECORD, "%s", msg);
}

int tk_pq_write(tk_pq_writer *w, const void *p, size_t n)
{
    if (w->status != TK_OK)
        return -1;
    if (n && fwrite(p, 1, n, w->out) != n) {
        tk_pq_fail(w, TK_EIO, "writing the Parquet file: %s",
                   strerror(errno ? errno : EIO));
        return -1;
    }
    w->pos += n;
    return 0;
}

void tk_pq_options_init(tk_pq_options *o)
{
    memset(o, 0, sizeof *o);
}

static int set_options(tk_pq_writer *w, const tk_pq_options *o, tk_error *err)
{
    w->rg_rows_max = o->row_group_rows ? o->row_group_rows : TK_PQ_ROW_GROUP_ROWS;
    w->rg_bytes_max = o->row_group_bytes ? o->row_group_bytes : (size_t)256 << 20;
    w->page_bytes = o->page_bytes ? o->page_bytes : TK_PQ_PAGE_BYTES;
    w->dict_bytes = o->dict_bytes ? o->dict_bytes : TK_PQ_DICT_BYTES;
    if (w->dict_bytes > (1u << 30)) /* its page's size is an i32 */
        w->dict_bytes = 1u << 30;
    if (w->page_bytes > (1u << 30))
        w->page_bytes = 1u << 30;
    w->page_index = !o->no_page_index;
    if (!(w->z = tk_pq_compressor_new(o->codec, o->level, err)))
        return -1;
    /* the writer's own pair first, then the caller's */
    w->kv = calloc(2 * (o->nkv + 1), sizeof *w->kv);
    if (!w->kv)
        return tk_pq_err(err, TK_ENOMEM, "out of memory");
    w->nkv = o->nkv + 1;
    char ver[64];
    snprintf(ver, sizeof ver, "tracekit %s", tk_version());
    int bad = !(w->kv[0] = strdup("writer")) || !(w->kv[1] = strdup(ver));
    for (size_t i = 0; i < o->nkv; i++) {
        if (!o->kv[i].key)
            return tk_pq_err(err, TK_EUSAGE, "Parquet: metadata without a key");
        bad |= !(w->kv[2 * i + 2] = strdup(o->kv[i].key));
        bad |= o->kv[i].value && !(w->kv[2 * i + 3] = strdup(o->kv[i].value));
    }
    if (bad)
        return tk_pq_err(err, TK_ENOMEM, "out of memory");
    return 0;
}

static int set_columns(tk_pq_writer *w, const tk_pq_column *cols, size_t ncols, tk_error *err)
{
    if (ncols == 0 || ncols > INT16_MAX)
        return tk_pq_err(err, TK_EUSAGE, "Parquet: a table of %zu columns (1 to %d)", ncols,
                         INT16_MAX);
    if (!(w->cols = calloc(ncols, sizeof *w->cols)))
        return tk_pq_err(err, TK_ENOMEM, "out of memory");
    for (size_t i = 0; i < ncols; i++) {
        if (tk_pq_col_init(&w->cols[i], &cols[i], err) != 0)
            return -1;
        w->ncols = i + 1;
        for (size_t k = 0; k < i; k++)
            if (strcmp(cols[k].name, cols[i].name) == 0)
                return tk_pq_err(err, TK_EUSAGE, "Parquet: two columns named '%s'", cols[i].name);
    }
    if (!(w->nullable = malloc(ncols * sizeof *w->nullable)))
        return tk_pq_err(err, TK_ENOMEM, "out of memory");
    for (size_t i = 0; i < ncols; i++)
        if (w->cols[i].nullable)
            w->nullable[w->nnullable++] = i;
    w->nput = ncols;
    return 0;
}

tk_pq_writer *tk_pq_writer_new(FILE *out, const tk_pq_column *cols, size_t ncols,
                               const tk_pq_options *opt, tk_error *err)
{
    tk_pq_options defaults;
    if (!opt) {
        tk_pq_options_init(&defaults);
        opt = &defaults;
    }
    tk_pq_writer *w = calloc(1, sizeof *w);
    if (!w) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    w->out = out;
    if (set_options(w, opt, err) != 0 || set_columns(w, cols, ncols, err) != 0) {
        tk_pq_free(w);
        return NULL;
    }
    if (tk_pq_write(w, "PAR1", 4) != 0) {
        *err = w->err;
        tk_pq_free(w);
        return NULL;
    }
    return w;
}

void tk_pq_free(tk_pq_writer *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->ncols; i++)
        tk_pq_col_free(&w->cols[i]);
    free(w->cols);
    free(w->nullable);
    tk_pq_compressor_free(w->z);
    for (size_t i = 0; w->kv && i < 2 * w->nkv; i++)
        free(w->kv[i]);
    free(w->kv);
    for (size_t i = 0; i < w->nrgs; i++)
        free(w->rgs[i].chunks);
    free(w->rgs);
    tk_pq_buf *bufs[] = {&w->body, &w->zbuf, &w->hdr, &w->scratch, &w->ci, &w->oi};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        tk_pq_buf_free(bufs[i]);
    free(w);
}

uint64_t tk_pq_rows(const tk_pq_writer *w) { return w->rows; }

static pq_row_group *new_row_group(tk_pq_writer *w)
{
    if (w->nrgs == w->cap_rgs) {
        size_t cap = w->cap_rgs ? w->cap_rgs * 2 : 8;
        pq_row_group *r = realloc(w->rgs, cap * sizeof *r);
        if (!r)
            return NULL;
        w->rgs = r;
        w->cap_rgs = cap;
    }
    pq_row_group *rg = &w->rgs[w->nrgs];
    memset(rg, 0, sizeof *rg);
    if (!(rg->chunks = calloc(w->ncols, sizeof *rg->chunks)))
        return NULL;
    w->nrgs++;
    return rg;
}

/* One column chunk to the file: its dictionary page, then its data
 * pages; what the footer says of it into `m`. */
static int write_chunk(tk_pq_writer *w, pq_col *c, pq_chunk_meta *m)
{
    m->start = w->pos;
    uint64_t dict_raw = 0;
    if (c->pages_by_enc[PQ_RLE_DICTIONARY]) {
        m->dict_offset = w->pos;
        m->dict_entries = c->dict.n;
        if (tk_pq_dict_page(w, c, &dict_raw) != 0)
            return -1;
    }
    m->data_offset = w->pos;
    if (tk_pq_write(w, c->chunk.p, c->chunk.len) != 0)
        return -1;
    m->compressed = w->pos - m->start;
    m->uncompressed = c->c_raw + dict_raw;
    m->values = c->c_values;
    m->nulls = c->c_nulls;
    memcpy(m->pages_by_enc, c->pages_by_enc, sizeof m->pages_by_enc);
    tk_pq_bound_of(&m->min, &c->cmm, c, 0);
    tk_pq_bound_of(&m->max, &c->cmm, c, 1);
    return w->page_index ? tk_pq_write_index(w, c, m) : 0;
}

static int flush_row_group(tk_pq_writer *w)
{
    if (w->rg_rows == 0)
        return 0;
    for (size_t i = 0; i < w->ncols; i++)
        if ((w->cols[i].constant ? tk_pq_const_page(w, &w->cols[i], w->rg_rows)
                                 : tk_pq_page_end(w, &w->cols[i])) != 0)
            return -1;
    pq_row_group *rg = new_row_group(w);
    if (!rg) {
        tk_pq_fail(w, TK_ENOMEM, "out of memory");
        return -1;
    }
    rg->rows = w->rg_rows;
    rg->start = w->pos;
    for (size_t i = 0; i < w->ncols; i++) {
        pq_col *c = &w->cols[i];
        if (write_chunk(w, c, &rg->chunks[i]) != 0)
            return -1;
        rg->compressed += rg->chunks[i].compressed;
        rg->uncompressed += rg->chunks[i].uncompressed;
        tk_pq_col_reset_chunk(c);
    }
    w->rg_rows = 0;
    w->rg_bytes = 0;
    return 0;
}

/* Page size in unencoded bytes; a page also ends at 2^20 rows (each
 * column's pages then stay small enough for the page index to help). */
static int page_full(const tk_pq_writer *w, const pq_col *c)
{
    return c->vals.len + c->defs.len >= w->page_bytes || c->page_rows >= (1u << 20) ||
           c->dict_full;
}

/* Pages are checked for fullness every PAGE_CHECK_ROWS rows (a page may
 * pass page_bytes by that many rows): the per-row loop over the columns
 * was a third of a wide table's cost. */
#define PAGE_CHECK_ROWS 64

/* Nulls for the nullable columns left out of the row; a required column
 * left out is the caller's bug. */
static void fill_nulls(tk_pq_writer *w)
{
    size_t missing = w->nput - w->row_puts;
    for (size_t k = 0; k < w->nnullable && missing; k++) {
        pq_col *c = &w->cols[w->nullable[k]];
        if (c->rows == w->rg_rows && !c->constant) {
            tk_pq_col_null(c);
            missing--;
        }
    }
    for (size_t i = 0; i < w->ncols && missing && w->status == TK_OK; i++) {
        const pq_col *c = &w->cols[i];
        if (!c->constant && c->rows == w->rg_rows)
            tk_pq_fail(w, TK_EUSAGE, "Parquet: column '%s' has no value in row %llu", c->name,
                       (unsigned long long)w->rows);
    }
}

tk_status tk_pq_row_end(tk_pq_writer *w, tk_error *err)
{
    if (w->row_puts != w->nput && w->status == TK_OK)
        fill_nulls(w);
    w->row_puts = 0;
    if ((w->dict_full || (w->rows + 1) % PAGE_CHECK_ROWS == 0) && w->status == TK_OK) {
        w->dict_full = 0;
        for (size_t i = 0; i < w->ncols; i++)
            if (!w->cols[i].constant && page_full(w, &w->cols[i]))
                tk_pq_page_end(w, &w->cols[i]);
    }
    if (w->status == TK_OK) {
        w->rows++;
        w->rg_rows++;
        if (w->rg_rows >= w->rg_rows_max || w->rg_bytes >= w->rg_bytes_max)
            flush_row_group(w);
    }
    if (w->status != TK_OK && err)
        *err = w->err;
    return w->status;
}

tk_status tk_pq_finish(tk_pq_writer *w, tk_error *err)
{
    for (size_t i = 0; i < w->ncols && w->status == TK_OK; i++)
        if (!w->cols[i].constant && w->cols[i].rows != w->rg_rows)
            tk_pq_fail(w, TK_EUSAGE, "Parquet: the last row was not ended (tk_pq_row_end)");
    if (w->status == TK_OK && flush_row_group(w) == 0)
        tk_pq_write_footer(w);
    if (w->status == TK_OK && fflush(w->out) != 0)
        tk_pq_fail(w, TK_EIO, "writing the Parquet file: %s", strerror(errno));
    tk_status st = w->status;
    if (st != TK_OK && err)
        *err = w->err;
    tk_pq_free(w);
    return st;
}
