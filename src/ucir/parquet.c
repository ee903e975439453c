/* UCIR (both layouts) as Parquet tables: one pass over the records with
 * the replay's instruction clock (ucir/replay/clock.h) and program-counter
 * rules, as the Perfetto mapping (perfetto.c) follows them; the records
 * of later keyframes (summaries of the frame after them) are left out as
 * the replay skips them, and the setup before instruction 0 has no
 * instruction. Memory: the reader's, the tables' pages, and at most
 * TK_UCIR_PQ_CODE_PAGES pages of memory values for the instructions'
 * bytes. Tables: docs/formats/ucir.md, "Parquet tables". */
#include <stdlib.h>
#include <string.h>

#include <tracekit/error.h>
#include <tracekit/format.h>
#include <tracekit/input.h>

#include "core/select.h"
#include "ucir/parquet_int.h"
#include "ucir/replay/clock.h"

typedef struct pq {
    ucir_clock clk;
    tk_ucir_pq_rows rows;
    tk_ucir_pq_code code;
    ucir_pc at; /* the program counter, as the replay follows it */
    /* .uc: an instruction started, its STEP (and size) still to come */
    int pending;
    int64_t pending_insn;
    uint64_t pending_record;
    /* .uc: memory at its address when it started */
    int snapped;
    uint64_t snap_pc;
    uint8_t snap[TK_UCIR_PQ_SNAP], snap_known[TK_UCIR_PQ_SNAP];
} pq;

static int all_known(const uint8_t *known, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!known[i])
            return 0;
    return 1;
}

/* The instruction's bytes at f->at.pc into buf: 1 when every one is known. */
static int code_bytes(pq *f, uint64_t size, uint8_t *buf)
{
    uint8_t known[TK_UCIR_PQ_CODE_MAX];
    if (!f->at.pc_known || size == 0 || size > TK_UCIR_PQ_CODE_MAX)
        return 0;
    if (f->snapped && f->snap_pc == f->at.pc && size <= TK_UCIR_PQ_SNAP) {
        memcpy(buf, f->snap, (size_t)size);
        return all_known(f->snap_known, (size_t)size);
    }
    tk_ucir_pq_code_read(&f->code, f->at.pc, (size_t)size, buf, known);
    return all_known(known, (size_t)size);
}

/* The row of the instruction now at f->at.pc (size_known 0: no size). */
static tk_status instruction(pq *f, int64_t insn, uint64_t record, int size_known,
                             uint64_t size, tk_error *err)
{
    uint8_t buf[TK_UCIR_PQ_CODE_MAX];
    tk_ucir_pq_at at = {insn, record, f->at.pc_known, f->at.pc};
    int have = size_known && code_bytes(f, size, buf);
    return tk_ucir_pq_instruction(&f->rows, &at, size_known, size, have ? buf : NULL, err);
}

/* A spec EXEC starts an instruction, whole: its row now. */
static tk_status spec_start(pq *f, const tk_ucir_op *op, uint64_t record, tk_error *err)
{
    ucir_pc_exec(&f->at, op);
    f->snapped = 0;
    return instruction(f, f->clk.instr, record, 1, op->size, err);
}

/* The .uc instruction pending ends (size_known: at its STEP). */
static tk_status uc_end(pq *f, int size_known, uint64_t size, tk_error *err)
{
    f->pending = 0;
    return instruction(f, f->pending_insn, f->pending_record, size_known, size, err);
}

/* A .uc instruction starts with its first effect; its STEP places it. */
static tk_status uc_start(pq *f, uint64_t record, tk_error *err)
{
    if (f->pending && uc_end(f, 0, 0, err) != TK_OK) /* never ended by a STEP */
        return err->status;
    ucir_pc_uc_start(&f->at);
    f->pending = 1;
    f->pending_insn = f->clk.instr;
    f->pending_record = record;
    f->snapped = 0;
    return TK_OK;
}

/* .uc control flow: a STEP at depth 0 ends the pending instruction. */
static tk_status uc_flow(pq *f, const tk_ucir_op *op, tk_error *err)
{
    if (!ucir_pc_uc_flow(&f->at, &f->clk, op) || !f->pending || op->depth != 0)
        return TK_OK;
    return uc_end(f, 1, op->size, err);
}

/* What the instructions' bytes need of a record: its values. */
static tk_status remember(pq *f, const tk_ucir_op *op, tk_error *err)
{
    int rc = 0;
    if ((op->kind == TK_UCIR_MEM_READ || op->kind == TK_UCIR_MEM_WRITE) && op->len)
        rc = tk_ucir_pq_code_store(&f->code, op->addr, op->data, op->len);
    else if (op->kind == TK_UCIR_MEM_UNMAP)
        rc = tk_ucir_pq_code_forget(&f->code, op->addr, op->size);
    if (rc != 0)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return TK_OK;
}

static tk_status record(pq *f, const tk_ucir_op *op, uint64_t index, tk_error *err)
{
    int k = ucir_clock_step(&f->clk, op);
    if (k == UCIR_CLK_FRAME || k == UCIR_CLK_SKIPPED)
        return TK_OK;
    if (k == UCIR_CLK_START &&
        (f->clk.uc ? uc_start(f, index, err) : spec_start(f, op, index, err)) != TK_OK)
        return err->status;
    tk_ucir_pq_at at = {f->clk.instr, index, f->at.pc_known, f->at.pc};
    if (remember(f, op, err) != TK_OK || tk_ucir_pq_op(&f->rows, &at, op, err) != TK_OK)
        return err->status;
    if ((op->kind == TK_UCIR_JMP || op->kind == TK_UCIR_STEP) && uc_flow(f, op, err) != TK_OK)
        return err->status;
    if (k == UCIR_CLK_START && f->pending && !f->snapped) {
        /* as `dump` reads an instruction's code: with its first record applied */
        tk_ucir_pq_code_read(&f->code, f->at.pc, TK_UCIR_PQ_SNAP, f->snap, f->snap_known);
        f->snap_pc = f->at.pc;
        f->snapped = f->at.pc_known;
    }
    return TK_OK;
}

static tk_status run(pq *f, tk_ucir_reader *r, tk_pq_dir *d, tk_error *err)
{
    const tk_ucir_header *h = tk_ucir_reader_header(r);
    ucir_clock_init(&f->clk, h->variant == TK_UCIR_USERCORN);
    if (tk_ucir_pq_tables(&f->rows, d, h, err) != TK_OK)
        return err->status;
    tk_ucir_op op;
    uint64_t index = 0; /* the record's (tk_ucir_pos.record: nothing is selected) */
    int rc;
    while ((rc = tk_ucir_next(r, &op, err)) > 0)
        if (record(f, &op, index++, err) != TK_OK)
            return err->status;
    if (rc < 0)
        return err->status;
    return f->pending ? uc_end(f, 0, 0, err) : TK_OK;
}

tk_status tk_ucir_parquet(tk_input *in, const tk_options *o, const char *source, const char *dir,
                          tk_error *err)
{
    const char *sel = tk_sel_option_given(o);
    if (sel)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "%s does not apply to --to parquet, which writes the whole trace "
                            "(select with SQL: the tables' insn and addr columns)",
                            sel);
    tk_ucir_reader *r = tk_ucir_cmd_open(in, o, err);
    if (!r)
        return err->status;
    pq *f = calloc(1, sizeof *f);
    tk_pq_dir *d = f ? tk_pq_dir_open(dir, source, o, err) : NULL;
    tk_status st;
    if (!f)
        st = tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    else if (!d)
        st = err->status;
    else {
        tk_ucir_pq_code_init(&f->code, TK_UCIR_PQ_CODE_PAGES);
        st = run(f, r, d, err);
        st = st == TK_OK ? tk_pq_dir_commit(d, err) : (tk_pq_dir_abort(d), st);
        tk_ucir_pq_code_free(&f->code);
        tk_ucir_pq_rows_free(&f->rows);
    }
    free(f);
    tk_ucir_reader_free(r);
    return st;
}
