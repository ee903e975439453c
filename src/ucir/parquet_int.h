/* UCIR as Parquet tables (docs/formats/ucir.md, "Parquet tables"): what
 * the pass (parquet.c) shares with the tables' rows (parquet_rows.c) and
 * the bounded code memory that gives instructions their bytes
 * (parquet_code.c). */
#ifndef TK_UCIR_PARQUET_INT_H
#define TK_UCIR_PARQUET_INT_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "export/parquet/tables.h"
#include "ucir/replay/replay_int.h"
#include "ucir/ucir_int.h"

enum {
    TK_UCIR_PQ_INSTRUCTIONS,
    TK_UCIR_PQ_MEMORY,
    TK_UCIR_PQ_REGISTERS,
    TK_UCIR_PQ_SYSCALLS,
    TK_UCIR_PQ_MAPS,
    TK_UCIR_PQ_NTABLES
};

/* Syscall arguments with a column of their own (arg0..arg5: Linux's
 * most); the rest go to `more_args`. */
#define TK_UCIR_PQ_ARGS 6
/* Longest instruction whose bytes are written (longer: null). */
#define TK_UCIR_PQ_CODE_MAX 64
/* Bytes a .uc instruction's start keeps of memory at its address (its
 * size comes with the STEP at its end). */
#define TK_UCIR_PQ_SNAP 16
/* Pages (4 KiB) of memory followed for the instructions' bytes: 32 MiB. */
#define TK_UCIR_PQ_CODE_PAGES 8192u

/* The tables and what their rows share. */
typedef struct tk_ucir_pq_rows {
    tk_pq_table *t[TK_UCIR_PQ_NTABLES];
    const tk_ucir_header *h;
    tk_strbuf more;       /* more_args' text, reused */
} tk_ucir_pq_rows;

/* Where a record is: its instruction (-1: the setup) and record index. */
typedef struct tk_ucir_pq_at {
    int64_t insn;
    uint64_t record;
    int pc_known;         /* the instruction's address, when known */
    uint64_t pc;
} tk_ucir_pq_at;

/* Declare the five tables in `d`: TK_OK, or the failure. */
tk_status tk_ucir_pq_tables(tk_ucir_pq_rows *r, tk_pq_dir *d, const tk_ucir_header *h,
                            tk_error *err);
void tk_ucir_pq_rows_free(tk_ucir_pq_rows *r);
/* One row of `instructions` (size_known 0: no size; bytes NULL: null). */
tk_status tk_ucir_pq_instruction(tk_ucir_pq_rows *r, const tk_ucir_pq_at *at, int size_known,
                                 uint64_t size, const uint8_t *bytes, tk_error *err);
/* The row of `op` in memory, registers, syscalls or maps (other kinds
 * have none). */
tk_status tk_ucir_pq_op(tk_ucir_pq_rows *r, const tk_ucir_pq_at *at, const tk_ucir_op *op,
                        tk_error *err);

/* Memory values as the replay knows them (MEM_READ and MEM_WRITE data,
 * forgotten by MEM_UNMAP), in at most `max_pages` pages: bytes of pages
 * first touched past that stay unknown, so memory stays bounded. */
typedef struct tk_ucir_pq_code {
    rp_mem mem;
    size_t max_pages;
} tk_ucir_pq_code;

void tk_ucir_pq_code_init(tk_ucir_pq_code *c, size_t max_pages);
void tk_ucir_pq_code_free(tk_ucir_pq_code *c);
/* Values for [addr, addr + len) / forget them: 0, or -1 out of memory. */
int tk_ucir_pq_code_store(tk_ucir_pq_code *c, uint64_t addr, const uint8_t *data, uint64_t len);
int tk_ucir_pq_code_forget(tk_ucir_pq_code *c, uint64_t addr, uint64_t len);
/* The n bytes at addr into buf and their known flags into known. */
void tk_ucir_pq_code_read(tk_ucir_pq_code *c, uint64_t addr, size_t n, uint8_t *buf,
                          uint8_t *known);

#endif
