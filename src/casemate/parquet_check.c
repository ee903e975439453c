/* The violations table of a casemate conversion: the checker (what
 * `tracekit bbm` runs, with its options) steps with the pass over the
 * whole log, selection or not, and stops at the first violation as bbm
 * does, so the table has one row (the violation, or the record where the
 * model gave up) or none. Related ids and entries are the Perfetto
 * violations track's (export_check.c). */
#include <string.h>

#include "casemate/export_check.h"
#include "casemate/parquet_int.h"

/* The columns (docs/formats/casemate.md, "Parquet tables"). */
enum {
    V_RECORD, V_LINE, V_CODE, V_MESSAGE, V_DETAIL, V_ID, V_THREAD, V_SRC, V_SRC_ID,
    V_RELATED_IDS, V_ENTRIES, V_COUNT
};

static const tk_pq_column violation_cols[V_COUNT] = {
    {"record", TK_PQ_UINT64, 0, TK_PQ_ENC_AUTO},
    {"line", TK_PQ_UINT64, 0, TK_PQ_ENC_AUTO},
    {"code", TK_PQ_STRING, 0, TK_PQ_ENC_DICT},
    {"message", TK_PQ_STRING, 0, TK_PQ_ENC_DICT},
    {"detail", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_DICT},
    {"id", TK_PQ_UINT64, 0, TK_PQ_ENC_AUTO},
    {"thread", TK_PQ_UINT64, 0, TK_PQ_ENC_AUTO},
    {"src", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_DICT},
    {"src_id", TK_PQ_UINT64, TK_PQ_NULLABLE, TK_PQ_ENC_AUTO},
    {"related_ids", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_DICT},
    {"entries", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_DICT},
};

void tk_cmpq_put_enum(tk_pq_writer *w, size_t col, const char *name)
{
    char s[64]; /* the names are short static words */
    size_t n = 0;
    for (; name[n] && n < sizeof s; n++)
        s[n] = name[n] == '-' || name[n] == ' ' ? '_' : name[n];
    tk_pq_put_bytes(w, col, s, n);
}

tk_status tk_cmpq_init(tk_cmpq *m, const tk_options *o, tk_pq_dir *d, tk_error *err)
{
    tk_casemate_check_options c;
    tk_cmx_check_options(o, &c);
    if (!(m->k = tk_casemate_check_new(&c, err)) ||
        !(m->violations = tk_pq_dir_table(d, "violations", violation_cols, V_COUNT, err)))
        return err->status;
    m->checking = 1;
    return TK_OK;
}

void tk_cmpq_free(tk_cmpq *m)
{
    tk_map_free(&m->last_write);
    tk_map_free(&m->locks);
    tk_casemate_check_free(m->k);
    m->k = NULL;
}

/* Where and at what: the record that raised the verdict. */
static void put_at(tk_pq_writer *w, const tk_casemate_record *rec, uint64_t index,
                   uint64_t line)
{
    tk_pq_put_u64(w, V_RECORD, index);
    tk_pq_put_u64(w, V_LINE, line);
    tk_pq_put_u64(w, V_ID, rec->id);
    tk_pq_put_u64(w, V_THREAD, rec->tid);
    if (rec->src_kind == TK_CASEMATE_SRC_STRING)
        tk_pq_put_bytes(w, V_SRC, rec->src, rec->src_len);
    else if (rec->src_kind == TK_CASEMATE_SRC_INT)
        tk_pq_put_u64(w, V_SRC_ID, rec->src_int);
}

static tk_status violation_row(tk_cmpq *m, const tk_casemate_violation *v,
                               const tk_casemate_record *rec, uint64_t index, uint64_t line,
                               tk_error *err)
{
    const tk_cmpq_lock *l = tk_map_find_u64(&m->locks, rec->address);
    tk_cmx_text ids, ents;
    tk_cmx_related_ids(&m->last_write, v, rec, l && l->depth ? &l->taken_id : NULL, &ids);
    tk_cmx_entries(v, &ents);
    tk_pq_writer *w = tk_pq_table_writer(m->violations);
    put_at(w, rec, index, line);
    tk_cmpq_put_enum(w, V_CODE, v->code);
    tk_pq_put_str(w, V_MESSAGE, v->message);
    if (v->detail && *v->detail)
        tk_pq_put_str(w, V_DETAIL, v->detail);
    tk_pq_put_bytes(w, V_RELATED_IDS, ids.s, ids.n);
    if (ents.n)
        tk_pq_put_bytes(w, V_ENTRIES, ents.s, ents.n);
    return tk_pq_table_row_end(m->violations, err);
}

/* The model gave up (a configuration it does not cover, where bbm exits
 * 2): code not_checked with the reason; the conversion goes on. */
static tk_status not_checked_row(tk_cmpq *m, const tk_error *why, const tk_casemate_record *rec,
                                 uint64_t index, uint64_t line, tk_error *err)
{
    tk_pq_writer *w = tk_pq_table_writer(m->violations);
    put_at(w, rec, index, line);
    tk_pq_put_str(w, V_CODE, "not_checked");
    tk_pq_put_str(w, V_MESSAGE, why->message);
    return tk_pq_table_row_end(m->violations, err);
}

/* Who holds each lock, by the Perfetto timeline's rules: a lock or
 * trylock of a free lock takes it, a trylock by its holder nests, any
 * unlock of the address releases one level. */
static tk_status lock_step(tk_cmpq *m, const tk_casemate_record *rec, tk_error *err)
{
    if (rec->kind != TK_CASEMATE_LOCK && rec->kind != TK_CASEMATE_TRYLOCK &&
        rec->kind != TK_CASEMATE_UNLOCK)
        return TK_OK;
    tk_cmpq_lock *l = tk_map_u64(&m->locks, rec->address);
    if (!l)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    if (rec->kind == TK_CASEMATE_UNLOCK) {
        l->depth -= l->depth > 0;
    } else if (!l->depth) {
        *l = (tk_cmpq_lock){.depth = 1, .holder = rec->tid, .taken_id = rec->id};
    } else if (rec->kind == TK_CASEMATE_TRYLOCK && l->holder == rec->tid) {
        l->depth++;
    }
    return TK_OK;
}

tk_status tk_cmpq_check(tk_cmpq *m, const tk_casemate_record *rec, uint64_t index,
                        uint64_t line, tk_error *err)
{
    if (!m->checking)
        return TK_OK;
    tk_error why;
    tk_error_clear(&why);
    int verdict = tk_casemate_check_feed(m->k, rec, &why);
    if (verdict == 0)
        return tk_cmx_note_write(&m->last_write, rec, err) == TK_OK ? lock_step(m, rec, err)
                                                                     : err->status;
    if (verdict < 0 && why.status == TK_ENOMEM) {
        *err = why;
        return err->status;
    }
    tk_status st = verdict > 0
                       ? violation_row(m, tk_casemate_check_violation(m->k), rec, index, line, err)
                       : not_checked_row(m, &why, rec, index, line, err);
    /* the checker has stopped: so does what serves it */
    m->checking = 0;
    tk_map_free(&m->last_write);
    tk_map_free(&m->locks);
    tk_map_init(&m->last_write, sizeof(uint64_t));
    tk_map_init(&m->locks, sizeof(tk_cmpq_lock));
    return st;
}
