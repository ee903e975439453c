/* casemate as Parquet tables: the state shared by parquet.c (the pass and
 * the events table) and parquet_check.c (the checker and the violations
 * table). Columns: docs/formats/casemate.md, "Parquet tables". */
#ifndef TK_CASEMATE_PARQUET_INT_H
#define TK_CASEMATE_PARQUET_INT_H

#include <stdint.h>

#include <tracekit/casemate.h>
#include <tracekit/casemate_check.h>

#include "core/hashmap.h"
#include "export/parquet/tables.h"

/* A lock address while the checker runs: taken by `taken_id` (thread
 * `holder`), `depth` times (a holder's trylocks nest), for a violation's
 * related ids. */
typedef struct tk_cmpq_lock {
    uint64_t depth, holder, taken_id;
} tk_cmpq_lock;

typedef struct tk_cmpq {
    tk_pq_table *violations;
    tk_casemate_checker *k;
    int checking;        /* until the checker's verdict */
    tk_map last_write;   /* 8-byte slot -> id of the last mem-write */
    tk_map locks;        /* lock address -> tk_cmpq_lock */
} tk_cmpq;

/* The checker with `o`'s options (bbm's) and the violations table in `d`.
 * Free with tk_cmpq_free, also on failure. */
tk_status tk_cmpq_init(tk_cmpq *m, const tk_options *o, tk_pq_dir *d, tk_error *err);
void tk_cmpq_free(tk_cmpq *m);

/* Feed `rec` (record `index`, at `line`) to the checker; its violation,
 * or where the model gave up, becomes the violations table's row. */
tk_status tk_cmpq_check(tk_cmpq *m, const tk_casemate_record *rec, uint64_t index,
                        uint64_t line, tk_error *err);

/* A name from a fixed set (a kind, a code) in `col`, as JSON spells it:
 * snake_case, '-' and ' ' as '_' (docs/json.md). */
void tk_cmpq_put_enum(tk_pq_writer *w, size_t col, const char *name);

#endif
