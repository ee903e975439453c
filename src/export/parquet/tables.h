/* The tables of one `convert --to parquet`: one Parquet file per table in
 * an output directory, written in one streaming pass, all or nothing.
 *
 *     tk_pq_dir *d = tk_pq_dir_open(dir, source_path, opts, err);
 *     tk_pq_table *calls = tk_pq_dir_table(d, "calls", cols, ncols, err);
 *     per row:
 *         tk_pq_writer *w = tk_pq_table_writer(calls);
 *         tk_pq_put_u64(w, 0, tid); ...          (column indices: cols')
 *         if (tk_pq_table_row_end(calls, err) != TK_OK) -> tk_pq_dir_abort(d)
 *     tk_pq_dir_commit(d, err);
 *
 * Layout: DIR/<table>.parquet, or with the option "rows-per-file" N,
 * DIR/<table>/part-00000.parquet, part-00001.parquet, ... of N rows each.
 * Every table is written, with its schema, even when it has no rows, so a
 * query over a dataset never misses a file.
 *
 * trace_id: each table gets a last column `trace_id` (STRING, dictionary
 * encoded: one entry per file) holding the option "trace-id" (default:
 * the source file's base name; "-" for standard input), so the tables of
 * many traces read as one dataset. When DIR's own name is
 * `trace_id=VALUE` (a Hive partition directory) the column is left out
 * and VALUE is the id: engines take it from the path.
 *
 * Options also read: "compression" (zstd, the default; snappy; none),
 * "row-group-rows" (default 1 Mi). The files are written under temporary
 * names in DIR and renamed into place by tk_pq_dir_commit; tk_pq_dir_abort
 * (or a failed commit) removes them, so a failed conversion leaves no
 * partial table behind. DIR is created when missing, with its parents;
 * files already there with other names are left alone. */
#ifndef TK_EXPORT_PARQUET_TABLES_H
#define TK_EXPORT_PARQUET_TABLES_H

#include <tracekit/format.h>

#include "export/parquet/parquet.h"

typedef struct tk_pq_dir tk_pq_dir;
typedef struct tk_pq_table tk_pq_table;

/* The option keys read here, for the formats' option tables. */
#define TK_PQ_OPTION_KEYS "rows-per-file", "trace-id", "compression", "row-group-rows"

/* Start a conversion into `dir` of the trace read from `source` (its
 * path, for the default trace id; "-" is standard input). NULL with
 * `err`: TK_EUSAGE for a bad option, TK_EIO (with the system's reason)
 * when DIR cannot be made, TK_ENOMEM. */
tk_pq_dir *tk_pq_dir_open(const char *dir, const char *source, const tk_options *o,
                          tk_error *err);

/* Declare table `name` (a file name: [a-z0-9_]) with `cols` (copied; no
 * column named trace_id). Owned by `d`. NULL with `err` on a bad schema
 * (TK_EUSAGE) or TK_ENOMEM. */
tk_pq_table *tk_pq_dir_table(tk_pq_dir *d, const char *name, const tk_pq_column *cols,
                             size_t ncols, tk_error *err);

/* The writer to put the current row's values with (tk_pq_put_*), column
 * indices as in the table's `cols`. Valid until tk_pq_table_row_end:
 * fetch it per row (a new file may have begun). NULL after a failure. */
tk_pq_writer *tk_pq_table_writer(tk_pq_table *t);

/* End the row (trace_id is added here). TK_OK, or the failure: then only
 * tk_pq_dir_abort. */
tk_status tk_pq_table_row_end(tk_pq_table *t, tk_error *err);

/* Rows ended in table `t` so far. */
uint64_t tk_pq_table_rows(const tk_pq_table *t);

/* Finish every table and rename the files into place; frees `d`. On
 * failure the files written are removed. */
tk_status tk_pq_dir_commit(tk_pq_dir *d, tk_error *err);

/* Remove what was written; frees `d`. NULL is fine. */
void tk_pq_dir_abort(tk_pq_dir *d);

#endif
