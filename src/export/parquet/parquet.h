/* Parquet tables, written by streaming (tracekit's own writer, from the
 * specification: docs/architecture.md, "Parquet writer", says why and
 * what of it is written).
 *
 * A table is declared once: an array of tk_pq_column (name, type,
 * nullability, encoding). Rows are then appended one at a time: one
 * tk_pq_put_* per column (in any order; a nullable column left out of a
 * row is null), then tk_pq_row_end. Values are encoded into pages as
 * they come; a row group (TK_PQ_ROW_GROUP_ROWS rows by default) is
 * written to the file when full, so memory holds one row group's
 * compressed pages at most, whatever the number of rows.
 *
 *     static const tk_pq_column cols[] = {
 *         {"thread", TK_PQ_UINT32, 0, TK_PQ_ENC_AUTO},
 *         {"func", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_AUTO},
 *         {"start_ns", TK_PQ_INT64, 0, TK_PQ_ENC_DELTA},
 *     };
 *     tk_pq_writer *w = tk_pq_writer_new(out, cols, 3, NULL, err);
 *     for each record:
 *         tk_pq_put_u64(w, 0, tid);
 *         if (name) tk_pq_put_str(w, 1, name);
 *         tk_pq_put_i64(w, 2, ns);
 *         if (tk_pq_row_end(w, err) != TK_OK) -> tk_pq_free(w), fail
 *     tk_pq_finish(w, err);   // the last row group and the footer
 *
 * The put calls cannot fail at the call: a value that does not fit its
 * column (a type it does not take, an integer out of its range, a second
 * value in one row, a column index out of range: TK_EUSAGE, a bug in the
 * caller) or a failure while encoding (TK_ENOMEM) is kept and returned by
 * the next tk_pq_row_end or tk_pq_finish; values after it are ignored.
 * Write failures are TK_EIO with the system's reason.
 *
 * What is written (Parquet format 2, data pages v1): flat schemas of
 * required and optional columns (definition levels RLE/bit-packed);
 * PLAIN, RLE_DICTIONARY with a PLAIN dictionary page (strings, binary:
 * PLAIN after the chunk's dictionary passes `dict_bytes`) and
 * DELTA_BINARY_PACKED (integers); ZSTD, SNAPPY or no compression;
 * statistics (min_value, max_value, null_count) per column chunk in the
 * column's sort order, with TYPE_DEFINED_ORDER column orders; the page
 * index (ColumnIndex, OffsetIndex); key_value_metadata and created_by.
 *
 * A writer is used by one thread at a time; distinct writers are
 * independent. */
#ifndef TK_EXPORT_PARQUET_PARQUET_H
#define TK_EXPORT_PARQUET_PARQUET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tracekit/error.h>

/* Column types: the physical type and the logical annotation. */
typedef enum tk_pq_type {
    TK_PQ_BOOL,         /* BOOLEAN */
    TK_PQ_INT8,         /* INT32, INTEGER(8, signed) */
    TK_PQ_INT16,        /* INT32, INTEGER(16, signed) */
    TK_PQ_INT32,        /* INT32 */
    TK_PQ_INT64,        /* INT64 */
    TK_PQ_UINT8,        /* INT32, INTEGER(8, unsigned) */
    TK_PQ_UINT16,       /* INT32, INTEGER(16, unsigned) */
    TK_PQ_UINT32,       /* INT32, INTEGER(32, unsigned) */
    TK_PQ_UINT64,       /* INT64, INTEGER(64, unsigned) */
    TK_PQ_TIMESTAMP_NS, /* INT64, TIMESTAMP(NANOS, isAdjustedToUTC false):
                           ns since an epoch; engines keep the ns (DuckDB's
                           TIMESTAMP_NS; UTC-adjusted would be its
                           TIMESTAMPTZ, in µs) */
    TK_PQ_DOUBLE,       /* DOUBLE */
    TK_PQ_STRING,       /* BYTE_ARRAY, STRING: invalid UTF-8 becomes U+FFFD */
    TK_PQ_BINARY        /* BYTE_ARRAY */
} tk_pq_type;

typedef enum tk_pq_encoding {
    TK_PQ_ENC_AUTO,  /* DELTA for integers, DICT for strings and binary,
                        PLAIN for the rest */
    TK_PQ_ENC_PLAIN,
    TK_PQ_ENC_DICT,  /* strings and binary only */
    TK_PQ_ENC_DELTA  /* integer types only (TIMESTAMP_NS included) */
} tk_pq_encoding;

#define TK_PQ_NULLABLE 1u /* tk_pq_column.flags: OPTIONAL, else REQUIRED */

typedef struct tk_pq_column {
    const char *name; /* unique in the table; copied */
    tk_pq_type type;
    unsigned flags;   /* TK_PQ_NULLABLE */
    tk_pq_encoding encoding;
} tk_pq_column;

typedef enum tk_pq_codec {
    TK_PQ_ZSTD,
    TK_PQ_SNAPPY,     /* TK_EUNSUPPORTED in a build without Snappy */
    TK_PQ_UNCOMPRESSED
} tk_pq_codec;

#define TK_PQ_ROW_GROUP_ROWS (1u << 20)
#define TK_PQ_PAGE_BYTES (1u << 20)
#define TK_PQ_DICT_BYTES (1u << 20)
/* zstd level 1: on delta and dictionary pages level 3 saves under 0.1%
 * and costs a quarter of the speed (pq_bench) */
#define TK_PQ_ZSTD_LEVEL 1
#define TK_PQ_STAT_BYTES 64 /* longer string bounds are truncated */

typedef struct tk_pq_kv {
    const char *key, *value;
} tk_pq_kv;

typedef struct tk_pq_options {
    tk_pq_codec codec;      /* TK_PQ_ZSTD */
    int level;              /* zstd's level: 0 = TK_PQ_ZSTD_LEVEL */
    uint64_t row_group_rows; /* 0 = TK_PQ_ROW_GROUP_ROWS */
    size_t row_group_bytes; /* also end a row group past this many
                               compressed bytes; 0 = 256 MiB */
    size_t page_bytes;      /* a page's unencoded values: 0 = 1 MiB (at most 1 GiB) */
    size_t dict_bytes;      /* a chunk's dictionary: 0 = 1 MiB (at most 1 GiB) */
    int no_page_index;      /* leave out ColumnIndex/OffsetIndex */
    const tk_pq_kv *kv;     /* more key_value_metadata (copied) */
    size_t nkv;
} tk_pq_options;

typedef struct tk_pq_writer tk_pq_writer;

/* The defaults above (all zero: ZSTD, page index on). Cannot fail. */
void tk_pq_options_init(tk_pq_options *o);

/* A writer of one file on `out` (borrowed; written from its current
 * position, which is taken as offset 0; the caller closes it), with
 * `ncols` columns (1..32767) and `opt` (NULL: defaults). Writes the magic
 * "PAR1" now. NULL with `err`: TK_EUSAGE for a bad schema (empty or
 * duplicate name, an encoding the type does not take), TK_EUNSUPPORTED,
 * TK_ENOMEM, TK_EIO. */
tk_pq_writer *tk_pq_writer_new(FILE *out, const tk_pq_column *cols, size_t ncols,
                               const tk_pq_options *opt, tk_error *err);

/* One value of column `col` in the current row. Integers go through
 * put_i64 (signed or unsigned columns, in range) or put_u64 (the same,
 * and the full range of UINT64); put_f64 takes DOUBLE, put_bool BOOL,
 * put_bytes STRING and BINARY (copied), put_null nullable columns. */
void tk_pq_put_i64(tk_pq_writer *w, size_t col, int64_t v);
void tk_pq_put_u64(tk_pq_writer *w, size_t col, uint64_t v);
void tk_pq_put_f64(tk_pq_writer *w, size_t col, double v);
void tk_pq_put_bool(tk_pq_writer *w, size_t col, int v);
void tk_pq_put_bytes(tk_pq_writer *w, size_t col, const void *p, size_t n);
void tk_pq_put_str(tk_pq_writer *w, size_t col, const char *s);
void tk_pq_put_null(tk_pq_writer *w, size_t col);

/* Make column `col` (a required STRING or BINARY column with dictionary
 * encoding) hold (p, n) in every row, before the first row: it then
 * takes no puts and costs nothing per row (a trace_id). TK_EUSAGE for
 * another column or after the first row, TK_ENOMEM. */
tk_status tk_pq_set_constant(tk_pq_writer *w, size_t col, const void *p, size_t n,
                             tk_error *err);

/* End the row: nullable columns without a value get a null, and a full
 * page or row group is encoded or written. TK_OK, or the first failure
 * since the writer began (see above); TK_EUSAGE when a required column
 * has no value. After a failure, only tk_pq_free. */
tk_status tk_pq_row_end(tk_pq_writer *w, tk_error *err);

/* Rows ended so far. Cannot fail. */
uint64_t tk_pq_rows(const tk_pq_writer *w);

/* Write the last row group, the page index and the footer, and free the
 * writer (also on failure). Values of a row not ended are a TK_EUSAGE
 * failure. TK_OK, or the writer's failure. */
tk_status tk_pq_finish(tk_pq_writer *w, tk_error *err);

/* Free without writing more (error paths; the file is incomplete). NULL
 * is fine. */
void tk_pq_free(tk_pq_writer *w);

#endif
