/* casemate as Parquet tables (`convert --to parquet`, on the shared writer
 * src/export/parquet/tables.h), in one pass over the log: `events`, the
 * records the selection picks with `dump --json`'s fields (one column per
 * field, null where the kind has none), and `violations`, bbm's verdict
 * over the whole log (parquet_check.c). Columns, types and units:
 * docs/formats/casemate.md, "Parquet tables". */
#include <string.h>

#include "casemate/casemate_int.h"
#include "casemate/export_check.h"
#include "casemate/parquet_int.h"

enum {
    E_INDEX, E_LINE, E_COL, E_KIND, E_ID, E_THREAD, E_MEM_ORDER, E_ADDR, E_VALUE, E_SIZE,
    E_SYSREG, E_BARRIER, E_DOMAIN, E_TLBI, E_LEVEL, E_HINT, E_SRC, E_SRC_ID, E_COUNT
};

/* Values and sizes are not sorted: PLAIN packs them better than DELTA. */
static const tk_pq_column event_cols[E_COUNT] = {
    {"index", TK_PQ_UINT64, 0, TK_PQ_ENC_DELTA},
    {"line", TK_PQ_UINT64, 0, TK_PQ_ENC_DELTA},
    {"col", TK_PQ_UINT64, 0, TK_PQ_ENC_AUTO},
    {"kind", TK_PQ_STRING, 0, TK_PQ_ENC_DICT},
    {"id", TK_PQ_UINT64, 0, TK_PQ_ENC_DELTA},
    {"thread", TK_PQ_UINT64, 0, TK_PQ_ENC_AUTO},
    {"mem_order", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_DICT},
    {"addr", TK_PQ_UINT64, TK_PQ_NULLABLE, TK_PQ_ENC_AUTO},
    {"value", TK_PQ_UINT64, TK_PQ_NULLABLE, TK_PQ_ENC_PLAIN},
    {"size", TK_PQ_UINT64, TK_PQ_NULLABLE, TK_PQ_ENC_PLAIN},
    {"sysreg", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_DICT},
    {"barrier", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_DICT},
    {"domain", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_DICT},
    {"tlbi", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_DICT},
    {"level", TK_PQ_UINT64, TK_PQ_NULLABLE, TK_PQ_ENC_AUTO},
    {"hint", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_DICT},
    {"src", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_DICT},
    {"src_id", TK_PQ_UINT64, TK_PQ_NULLABLE, TK_PQ_ENC_AUTO},
};

/* The kind's operands, as dump names them (tk_casemate_sink_record);
 * the columns left out are null. */
static void put_operands(tk_pq_writer *w, const tk_casemate_record *r)
{
    switch (r->kind) {
    case TK_CASEMATE_MEM_WRITE:
        tk_cmpq_put_enum(w, E_MEM_ORDER, tk_casemate_mem_order_name(r->mem_order));
        /* fall through */
    case TK_CASEMATE_MEM_READ:
        tk_pq_put_u64(w, E_ADDR, r->address);
        tk_pq_put_u64(w, E_VALUE, r->value);
        break;
    case TK_CASEMATE_MEM_SET:
        tk_pq_put_u64(w, E_VALUE, r->value);
        /* fall through */
    case TK_CASEMATE_MEM_INIT:
    case TK_CASEMATE_MEM_FREE:
        tk_pq_put_u64(w, E_ADDR, r->address);
        tk_pq_put_u64(w, E_SIZE, r->size);
        break;
    case TK_CASEMATE_SYSREG_WRITE:
        tk_cmpq_put_enum(w, E_SYSREG, tk_casemate_sysreg_name(r->sysreg));
        tk_pq_put_u64(w, E_VALUE, r->value);
        break;
    case TK_CASEMATE_BARRIER: /* "dsb ish": barrier dsb, domain ish */
        tk_pq_put_str(w, E_BARRIER, r->barrier == TK_CASEMATE_ISB ? "isb" : "dsb");
        if (r->barrier != TK_CASEMATE_ISB)
            tk_pq_put_str(w, E_DOMAIN, tk_casemate_barrier_name(r->barrier) + 4);
        break;
    case TK_CASEMATE_TLBI:
        tk_cmpq_put_enum(w, E_TLBI, tk_casemate_tlbi_name(r->tlbi));
        if (r->tlbi_operand == TK_CASEMATE_OPERAND_VALUE) {
            tk_pq_put_u64(w, E_VALUE, r->value);
        } else if (r->tlbi_operand == TK_CASEMATE_OPERAND_ADDR_LEVEL) {
            tk_pq_put_u64(w, E_ADDR, r->address);
            tk_pq_put_u64(w, E_LEVEL, r->level);
        }
        break;
    case TK_CASEMATE_HINT:
        tk_cmpq_put_enum(w, E_HINT, tk_casemate_hint_name(r->hint));
        tk_pq_put_u64(w, E_ADDR, r->location);
        tk_pq_put_u64(w, E_VALUE, r->value);
        break;
    default: /* lock, trylock, unlock */
        tk_pq_put_u64(w, E_ADDR, r->address);
        break;
    }
}

static tk_status event_row(tk_pq_table *t, const tk_casemate_record *r,
                           const tk_casemate_reader *rd, tk_error *err)
{
    tk_pq_writer *w = tk_pq_table_writer(t);
    tk_pq_put_u64(w, E_INDEX, tk_casemate_reader_index(rd));
    tk_pq_put_u64(w, E_LINE, tk_casemate_reader_line(rd));
    tk_pq_put_u64(w, E_COL, tk_casemate_reader_col(rd));
    tk_cmpq_put_enum(w, E_KIND, tk_casemate_kind_name(r->kind));
    tk_pq_put_u64(w, E_ID, r->id);
    tk_pq_put_u64(w, E_THREAD, r->tid);
    put_operands(w, r);
    if (r->src_kind == TK_CASEMATE_SRC_STRING)
        tk_pq_put_bytes(w, E_SRC, r->src, r->src_len);
    else if (r->src_kind == TK_CASEMATE_SRC_INT)
        tk_pq_put_u64(w, E_SRC_ID, r->src_int);
    return tk_pq_table_row_end(t, err);
}

/* Every record: the checker first (it reads the lock table as it was),
 * then the record's row if selected. */
static tk_status pass(tk_cmpq *m, tk_pq_table *events, tk_casemate_reader *r,
                      const tk_selection *sel, tk_error *err)
{
    tk_casemate_record rec;
    int rc;
    while ((rc = tk_casemate_next(r, &rec, err)) > 0)
        if (tk_cmpq_check(m, &rec, tk_casemate_reader_index(r), tk_casemate_reader_line(r),
                          err) != TK_OK ||
            ((!sel || tk_casemate_selected(sel, &rec)) &&
             event_row(events, &rec, r, err) != TK_OK))
            break;
    if (rc > 0 && err->status != TK_EIO) { /* the tables failed: at which record */
        err->line = tk_casemate_reader_line(r);
        err->col = tk_casemate_reader_col(r);
        err->record = tk_casemate_reader_index(r);
    }
    return rc == 0 ? TK_OK : err->status;
}

tk_status tk_casemate_parquet(tk_input *in, const tk_options *o, const char *source,
                              const char *dir, tk_error *err)
{
    tk_cmpq m;
    memset(&m, 0, sizeof m);
    tk_map_init(&m.last_write, sizeof(uint64_t));
    tk_map_init(&m.locks, sizeof(tk_cmpq_lock));
    tk_selection *sel;
    tk_casemate_reader *r = NULL;
    tk_pq_dir *d = NULL;
    tk_pq_table *events = NULL;
    tk_status st = tk_cmx_selection(o, &sel, err);
    if (st == TK_OK && (!(r = tk_casemate_reader_new(in, err)) ||
                        !(d = tk_pq_dir_open(dir, source, o, err)) ||
                        !(events = tk_pq_dir_table(d, "events", event_cols, E_COUNT, err))))
        st = err->status;
    if (st == TK_OK)
        st = tk_cmpq_init(&m, o, d, err);
    if (st == TK_OK)
        st = pass(&m, events, r, sel, err);
    if (st == TK_OK) {
        st = tk_pq_dir_commit(d, err);
        d = NULL;
    }
    tk_pq_dir_abort(d);
    tk_cmpq_free(&m);
    tk_casemate_reader_free(r);
    tk_selection_free(sel);
    return st;
}
