/* The Parquet writer's internals, shared by its files: writer.c (the
 * API, rows, row groups, the file), column.c (values into pages),
 * page.c (a page's encoding and header), stats.c (bounds in a column's
 * order) and footer.c (FileMetaData and the page index). */
#ifndef TK_EXPORT_PARQUET_PQ_INT_H
#define TK_EXPORT_PARQUET_PQ_INT_H

#include <stdint.h>

#include "export/parquet/compress.h"
#include "export/parquet/dict.h"
#include "export/parquet/parquet.h"
#include "export/parquet/pq_buf.h"

/* parquet.thrift's numbers */
enum { PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_DOUBLE = 5, PQ_BYTE_ARRAY = 6 };
enum { PQ_PLAIN = 0, PQ_RLE = 3, PQ_DELTA_BINARY_PACKED = 5, PQ_RLE_DICTIONARY = 8 };
enum { PQ_DATA_PAGE = 0, PQ_DICTIONARY_PAGE = 2 };
enum { PQ_UNORDERED = 0, PQ_ASCENDING = 1, PQ_DESCENDING = 2 };

/* How a column's values compare (parquet.thrift, ColumnOrder). */
typedef enum pq_order {
    PQ_ORD_BOOL,     /* false < true */
    PQ_ORD_SIGNED,
    PQ_ORD_UNSIGNED,
    PQ_ORD_DOUBLE,   /* NaN left out; zero bounds as -0.0 and +0.0 */
    PQ_ORD_BYTES     /* unsigned byte-wise, then shorter first */
} pq_order;

/* Bounds of a set of values: `has` once one non-null, non-NaN value was
 * seen. Fixed-width values in i (signed, bool), u (unsigned) or d; byte
 * arrays as copies in bmin/bmax. */
typedef union pq_val {
    int64_t i;
    uint64_t u;
    double d;
} pq_val;

typedef struct pq_minmax {
    int has;
    pq_val min, max;
    tk_pq_buf bmin, bmax;
} pq_minmax;

/* A bound as written: PLAIN bytes (strings without their length), cut to
 * TK_PQ_STAT_BYTES; `exact` says it is a value of the set. */
typedef struct pq_bound {
    uint8_t len, exact, ok; /* ok: there is a bound */
    uint8_t b[TK_PQ_STAT_BYTES];
} pq_bound;

/* One data page, for the page index. */
typedef struct pq_page {
    uint64_t offset;     /* in the chunk, its header's first byte */
    uint32_t size;       /* header and compressed body */
    uint64_t first_row;  /* in the row group */
    uint64_t nulls;
    uint32_t values;     /* rows, nulls included */
    pq_bound min, max;
} pq_page;

typedef struct pq_col {
    char *name;
    tk_pq_type type;
    int phys, nullable, order;
    tk_pq_encoding enc;   /* PLAIN, DICT or DELTA */
    int constant;         /* tk_pq_set_constant: no puts; its value in cval,
                             one page per row group */
    tk_pq_buf cval;
    int is_int;           /* takes tk_pq_put_i64/u64 */
    int64_t lo;           /* INT32-stored types: the range put_* takes */
    uint64_t hi;
    /* the row group */
    uint64_t rows;        /* values (nulls included) put in it */
    int dict_on;          /* still dictionary-encoding this chunk */
    int dict_full;        /* the dictionary passed dict_bytes: end the page */
    /* the current page */
    tk_pq_buf defs;       /* definition levels, a byte each */
    tk_pq_buf vals;       /* values: a native array, dictionary indices
                             (uint32) or PLAIN byte arrays */
    uint32_t page_rows, page_vals;
    /* the column chunk: data pages as written, the dictionary page's
     * entries, the bounds, the pages for the index */
    tk_pq_buf chunk;
    tk_pq_dict dict;
    pq_minmax cmm, pmm;   /* chunk and page bounds */
    uint64_t c_values, c_nulls, c_raw; /* c_raw: uncompressed bytes */
    uint32_t pages_by_enc[9]; /* data pages per encoding */
    pq_page *pages;
    size_t npages, cap_pages;
} pq_col;

/* A written column chunk, kept for the footer. */
typedef struct pq_chunk_meta {
    uint64_t start, data_offset, dict_offset; /* dict_offset 0: none */
    uint64_t compressed, uncompressed, values, nulls;
    uint32_t dict_entries;
    uint32_t pages_by_enc[9];
    pq_bound min, max;
    uint64_t ci_off, oi_off; /* in the writer's index buffers */
    uint32_t ci_len, oi_len; /* 0: none */
} pq_chunk_meta;

typedef struct pq_row_group {
    uint64_t rows, start, compressed, uncompressed;
    pq_chunk_meta *chunks; /* one per column */
} pq_row_group;

struct tk_pq_writer {
    FILE *out;
    uint64_t pos;         /* bytes written */
    pq_col *cols;
    size_t ncols;
    uint64_t rg_rows_max, rg_bytes_max, page_bytes, dict_bytes;
    int page_index;
    tk_pq_compressor *z;
    char **kv;            /* key, value, key, value, ... */
    size_t nkv;
    uint64_t rows;        /* rows ended, all row groups */
    uint64_t rg_rows;     /* rows ended in the current row group */
    size_t row_puts;      /* values (nulls too) put in the current row */
    size_t nput;          /* columns that take puts (not constant) */
    size_t *nullable;     /* the nullable columns' indices */
    size_t nnullable;
    int dict_full;        /* a column's dictionary filled in this row */
    uint64_t rg_bytes;    /* compressed pages held */
    pq_row_group *rgs;
    size_t nrgs, cap_rgs;
    tk_pq_buf body, zbuf, hdr, scratch, ci, oi;
    tk_status status;     /* the first failure, kept */
    tk_error err;
};

/* writer.c: keep the first failure (later ones are consequences). */
void tk_pq_fail(tk_pq_writer *w, tk_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* writer.c: fill `err` (may be NULL) and return -1: the failure path of
 * the calls that take a tk_error. */
int tk_pq_err(tk_error *err, tk_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* writer.c: append to the file; -1 (the writer failed with TK_EIO). */
int tk_pq_write(tk_pq_writer *w, const void *p, size_t n);

/* column.c */
int tk_pq_col_init(pq_col *c, const tk_pq_column *spec, tk_error *err);
void tk_pq_col_free(pq_col *c);
/* A null in a nullable column's current row (checked by the caller). */
static inline void tk_pq_col_null(pq_col *c)
{
    c->rows++;
    c->page_rows++;
    tk_pq_buf_byte(&c->defs, 0);
}
/* A new column chunk (a new row group). */
void tk_pq_col_reset_chunk(pq_col *c);

/* page.c: a constant column's page of the row group's rows. */
int tk_pq_const_page(tk_pq_writer *w, pq_col *c, uint64_t rows);
/* page.c: encode the column's current page into its chunk (nothing when
 * it is empty); the dictionary page, compressed into w->zbuf, its header
 * into w->hdr. -1 when the writer failed. */
int tk_pq_page_end(tk_pq_writer *w, pq_col *c);
int tk_pq_dict_page(tk_pq_writer *w, pq_col *c, uint64_t *uncompressed);

/* stats.c */
void tk_pq_mm_reset(pq_minmax *m);
void tk_pq_mm_free(pq_minmax *m);
/* The bounds of a page's fixed-width values (c->vals). */
void tk_pq_mm_page_fixed(pq_minmax *m, const pq_col *c);
/* One byte string into the bounds; -1 on OOM. */
int tk_pq_mm_bytes(pq_minmax *m, const void *p, size_t n);
/* Merge page bounds into chunk bounds; -1 on OOM. */
int tk_pq_mm_merge(pq_minmax *dst, const pq_minmax *src, const pq_col *c);
/* The written form of a bound (max: 1, min: 0). */
void tk_pq_bound_of(pq_bound *out, const pq_minmax *m, const pq_col *c, int max);
/* Compare two written bounds in the column's order. */
int tk_pq_bound_cmp(const pq_bound *a, const pq_bound *b, const pq_col *c);

/* footer.c */
int tk_pq_write_index(tk_pq_writer *w, pq_col *c, pq_chunk_meta *m);
int tk_pq_write_footer(tk_pq_writer *w);
void tk_pq_page_header(tk_pq_buf *b, int type, size_t raw, size_t compressed,
                    uint32_t values, int encoding);

#endif
