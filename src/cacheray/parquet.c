/* Cacheray as Parquet tables (docs/formats/cacheray.md, "Parquet
 * tables"): one pass over the records into `accesses` (a row per read or
 * write, with the live region it falls in) and `regions` (a row per RTTA
 * region as it ends: parquet_regions.c). A selection keeps the RTTA
 * records outside it as context (TK_CACHERAY_SELECT_CONTEXT), so an
 * access has the type the whole trace gives it, as in cachesim. */
#include <string.h>

#include <tracekit/error.h>
#include <tracekit/format.h>

#include "cacheray/cacheray_int.h"
#include "cacheray/parquet_int.h"

/* The accesses table's columns (docs/formats/cacheray.md). Encodings as
 * measured on the bench's trace (ZSTD): addresses and threads PLAIN (zstd
 * finds the repeated ones; DELTA of interleaved stack and heap addresses
 * made addr 1.7x larger), the record index, sizes and region offsets DELTA. */
enum { A_INDEX, A_KIND, A_ATOMIC, A_UNALIGNED, A_ADDR, A_SIZE, A_THREAD, A_TYPE, A_OFFSET };

static const tk_pq_column access_cols[] = {
    {"index", TK_PQ_UINT64, 0, TK_PQ_ENC_DELTA},
    {"kind", TK_PQ_STRING, 0, TK_PQ_ENC_DICT},
    {"atomic", TK_PQ_BOOL, 0, TK_PQ_ENC_AUTO},
    {"unaligned", TK_PQ_BOOL, 0, TK_PQ_ENC_AUTO},
    {"addr", TK_PQ_UINT64, 0, TK_PQ_ENC_PLAIN},
    {"size", TK_PQ_UINT8, 0, TK_PQ_ENC_DELTA},
    {"thread", TK_PQ_UINT64, 0, TK_PQ_ENC_PLAIN},
    {"type_name", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_DICT},
    {"region_offset", TK_PQ_UINT64, TK_PQ_NULLABLE, TK_PQ_ENC_DELTA},
};

static tk_status access_row(tk_crpq *c, const tk_cacheray_record *rec, uint64_t idx,
                            tk_error *err)
{
    tk_pq_writer *w = tk_pq_table_writer(c->accesses);
    tk_pq_put_u64(w, A_INDEX, idx);
    tk_pq_put_str(w, A_KIND, rec->type == TK_CACHERAY_READ ? "read" : "write");
    tk_pq_put_bool(w, A_ATOMIC, (rec->flags & TK_CACHERAY_ATOMIC) != 0);
    tk_pq_put_bool(w, A_UNALIGNED, (rec->flags & TK_CACHERAY_UNALIGNED) != 0);
    tk_pq_put_u64(w, A_ADDR, rec->addr);
    tk_pq_put_u64(w, A_SIZE, rec->size);
    tk_pq_put_u64(w, A_THREAD, rec->thread);
    uint64_t offset = 0;
    const tk_crpq_slot *s = tk_crpq_locate(c, rec->addr, &offset);
    if (s) { /* else both are null */
        tk_pq_put_bytes(w, A_TYPE, c->names.skeys[s->name], c->names.skey_len[s->name]);
        tk_pq_put_u64(w, A_OFFSET, offset);
    }
    return tk_pq_table_row_end(c->accesses, err);
}

/* Every record once; context records only change the live regions. */
static tk_status run(tk_crpq *c, tk_cacheray_reader *r, tk_error *err)
{
    tk_cacheray_record rec;
    uint64_t idx = 0;
    int rc, any = 0;
    while ((rc = tk_cacheray_next(r, &rec, err)) > 0) {
        idx = tk_cacheray_reader_index(r);
        any = 1;
        if (rec.type <= TK_CACHERAY_WRITE) {
            if (access_row(c, &rec, idx, err) != TK_OK)
                return err->status;
        } else if (tk_crpq_rtta(c, &rec, idx, tk_cacheray_reader_selected(r), err) != TK_OK) {
            return err->status;
        }
    }
    if (rc < 0)
        return err->status;
    /* the regions still live end after the last record read */
    return any ? tk_crpq_regions_end(c, idx + 1, err) : TK_OK;
}

tk_status tk_cacheray_parquet(tk_input *in, const tk_options *o, const char *source,
                              const char *dir, tk_error *err)
{
    tk_cacheray_reader *r =
        tk_cacheray_open(in, o, TK_CACHERAY_SELECT_CONTEXT | TK_CACHERAY_SELECT_STOP, err);
    if (!r)
        return err->status;
    tk_crpq c;
    memset(&c, 0, sizeof c);
    tk_status st = TK_OK;
    tk_pq_dir *d = tk_pq_dir_open(dir, source, o, err);
    if (!d) {
        st = err->status;
    } else if (!(c.accesses = tk_pq_dir_table(d, "accesses", access_cols,
                                              sizeof access_cols / sizeof *access_cols,
                                              err)) ||
               tk_crpq_regions_init(&c, d, err) != TK_OK || run(&c, r, err) != TK_OK) {
        st = err->status;
        tk_pq_dir_abort(d);
    } else {
        st = tk_pq_dir_commit(d, err);
    }
    tk_crpq_regions_free(&c);
    tk_cacheray_reader_free(r);
    return st;
}
