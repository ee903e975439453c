/* XRay as Parquet tables (docs/formats/xray.md, "Parquet tables"), in one
 * pass over the logical records: `records` (each record as `dump --json
 * --records logical` shows it), `events` (the custom and typed events)
 * and `calls` (parquet_calls.c). The selection options apply: the
 * reader keeps what they select, for all three tables. */
#include <stdlib.h>
#include <string.h>

#include "xray/parquet_int.h"

enum {
    R_INDEX, R_OFFSET, R_KIND, R_FUNC_ID, R_TSC, R_CPU, R_THREAD, R_PID, R_ARGS, R_EVENT_TYPE,
    R_DATA
};

static const tk_pq_column record_cols[] = {
    {"index", TK_PQ_UINT64, 0, TK_PQ_ENC_DELTA},
    {"offset", TK_PQ_UINT64, TK_PQ_NULLABLE, TK_PQ_ENC_DELTA},
    {"kind", TK_PQ_STRING, 0, TK_PQ_ENC_DICT},
    {"func_id", TK_PQ_INT32, TK_PQ_NULLABLE, TK_PQ_ENC_DELTA},
    {"tsc", TK_PQ_UINT64, 0, TK_PQ_ENC_DELTA},
    {"cpu", TK_PQ_UINT16, 0, TK_PQ_ENC_DELTA},
    {"thread", TK_PQ_UINT64, 0, TK_PQ_ENC_DELTA},
    {"pid", TK_PQ_UINT32, 0, TK_PQ_ENC_DELTA},
    {"args", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_DICT},
    {"event_type", TK_PQ_UINT16, TK_PQ_NULLABLE, TK_PQ_ENC_DELTA},
    {"data", TK_PQ_BINARY, TK_PQ_NULLABLE, TK_PQ_ENC_PLAIN},
};

enum { E_INDEX, E_KIND, E_EVENT_TYPE, E_THREAD, E_PID, E_CPU, E_TSC, E_TIME_NS, E_DATA };

static const tk_pq_column event_cols[] = {
    {"index", TK_PQ_UINT64, 0, TK_PQ_ENC_DELTA},
    {"kind", TK_PQ_STRING, 0, TK_PQ_ENC_DICT},
    {"event_type", TK_PQ_UINT16, TK_PQ_NULLABLE, TK_PQ_ENC_DELTA},
    {"thread", TK_PQ_UINT64, 0, TK_PQ_ENC_DELTA},
    {"pid", TK_PQ_UINT32, 0, TK_PQ_ENC_DELTA},
    {"cpu", TK_PQ_UINT16, 0, TK_PQ_ENC_DELTA},
    {"tsc", TK_PQ_UINT64, 0, TK_PQ_ENC_DELTA},
    {"time_ns", TK_PQ_INT64, 0, TK_PQ_ENC_DELTA},
    {"data", TK_PQ_BINARY, 0, TK_PQ_ENC_PLAIN},
};

/* The kinds as tracekit's JSON names them (snake_case). */
static const struct {
    const char *s;
    size_t n;
} kinds[] = {{"function_enter", 14},     {"function_exit", 13}, {"function_tail_exit", 18},
             {"function_enter_arg", 18}, {"custom_event", 12},  {"typed_event", 11}};

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

const char *tk_xq_args_text(tk_xq *x, const uint64_t *args, uint32_t n, size_t *len)
{
    size_t need = (size_t)n * 21 + 3; /* 20 digits and a comma each, brackets, NUL */
    if (need > x->text_cap) {
        char *t = realloc(x->text, need);
        if (!t)
            return NULL;
        x->text = t;
        x->text_cap = need;
    }
    char *p = x->text;
    *p++ = '[';
    for (uint32_t i = 0; i < n; i++) {
        char digits[20];
        size_t k = 0;
        uint64_t v = args[i];
        do
            digits[k++] = (char)('0' + v % 10);
        while ((v /= 10) != 0);
        if (i)
            *p++ = ',';
        while (k)
            *p++ = digits[--k];
    }
    *p++ = ']';
    *len = (size_t)(p - x->text);
    return x->text;
}

static tk_status record_row(tk_xq *x, const tk_xray_record *r, uint64_t index, uint64_t off,
                            tk_error *err)
{
    tk_pq_writer *w = tk_pq_table_writer(x->records);
    tk_pq_put_u64(w, R_INDEX, index);
    if (off != TK_NO_OFFSET) /* YAML records have none */
        tk_pq_put_u64(w, R_OFFSET, off);
    tk_pq_put_bytes(w, R_KIND, kinds[r->kind].s, kinds[r->kind].n);
    if (r->kind <= TK_XRAY_ENTER_ARG)
        tk_pq_put_i64(w, R_FUNC_ID, r->func_id);
    tk_pq_put_u64(w, R_TSC, r->tsc);
    tk_pq_put_u64(w, R_CPU, r->cpu);
    tk_pq_put_u64(w, R_THREAD, r->tid);
    tk_pq_put_u64(w, R_PID, r->pid);
    if (r->nargs) {
        size_t n;
        const char *a = tk_xq_args_text(x, r->args, r->nargs, &n);
        if (!a)
            return oom(err);
        tk_pq_put_bytes(w, R_ARGS, a, n);
    }
    if (r->kind == TK_XRAY_TYPED_EVENT)
        tk_pq_put_u64(w, R_EVENT_TYPE, r->event_type);
    if (r->kind >= TK_XRAY_CUSTOM_EVENT)
        tk_pq_put_bytes(w, R_DATA, r->data, r->data_len);
    return tk_pq_table_row_end(x->records, err);
}

static tk_status event_row(tk_xq *x, const tk_xray_record *r, uint64_t index, tk_error *err)
{
    tk_pq_writer *w = tk_pq_table_writer(x->events);
    tk_pq_put_u64(w, E_INDEX, index);
    tk_pq_put_bytes(w, E_KIND, kinds[r->kind].s, kinds[r->kind].n);
    if (r->kind == TK_XRAY_TYPED_EVENT)
        tk_pq_put_u64(w, E_EVENT_TYPE, r->event_type);
    tk_pq_put_u64(w, E_THREAD, r->tid);
    tk_pq_put_u64(w, E_PID, r->pid);
    tk_pq_put_u64(w, E_CPU, r->cpu);
    tk_pq_put_u64(w, E_TSC, r->tsc);
    tk_pq_put_i64(w, E_TIME_NS, tk_xq_ns(x, r->tsc));
    tk_pq_put_bytes(w, E_DATA, r->data, r->data_len);
    return tk_pq_table_row_end(x->events, err);
}

static tk_status run(tk_xq *x, tk_xray_reader *r, tk_error *err)
{
    tk_xray_record rec;
    int rc;
    while ((rc = tk_xray_next(r, &rec, err)) > 0) {
        uint64_t index = tk_xray_reader_index(r);
        if ((unsigned)rec.kind > TK_XRAY_TYPED_EVENT)
            return tk_error_set(err, TK_EMALFORMED, tk_xray_reader_offset(r), index,
                                "unknown record kind %u", (unsigned)rec.kind);
        if (record_row(x, &rec, index, tk_xray_reader_offset(r), err) != TK_OK)
            return err->status;
        tk_status st = rec.kind >= TK_XRAY_CUSTOM_EVENT ? event_row(x, &rec, index, err)
                                                        : tk_xq_call_record(x, &rec, index, err);
        if (st != TK_OK)
            return st;
    }
    if (rc < 0)
        return err->status;
    return tk_xq_calls_end(x, err);
}

/* The tables, in the order docs/formats/xray.md lists them. */
static tk_status declare(tk_xq *x, tk_pq_dir *d, tk_error *err)
{
    if (tk_xq_calls_table(x, d, err) != TK_OK)
        return err->status;
    x->records = tk_pq_dir_table(d, "records", record_cols,
                                 sizeof record_cols / sizeof record_cols[0], err);
    if (!x->records)
        return err->status;
    x->events = tk_pq_dir_table(d, "events", event_cols,
                                sizeof event_cols / sizeof event_cols[0], err);
    return x->events ? TK_OK : err->status;
}

tk_status tk_xray_parquet(tk_input *in, const tk_options *o, const char *source, const char *dir,
                          tk_error *err)
{
    const char *deduce = tk_options_get(o, "deduce-sibling-calls");
    tk_xray_reader *r = tk_xr_open(in, o, err);
    if (!r)
        return err->status;
    tk_xq x;
    memset(&x, 0, sizeof x);
    x.deduce = deduce && strcmp(deduce, "0") != 0;
    tk_map_init(&x.threads, sizeof(tk_xq_thread));
    tk_map_init(&x.other, sizeof(tk_xq_name));
    tk_xp_clock_init(&x.clock, tk_xray_reader_header(r)->cycle_frequency);
    tk_pq_dir *d = NULL;
    tk_status st = TK_OK;
    x.map = tk_xr_open_map(o, err);
    if (!x.map && err->status != TK_OK)
        st = err->status;
    if (st == TK_OK && !(d = tk_pq_dir_open(dir, source, o, err)))
        st = err->status;
    if (st == TK_OK)
        st = declare(&x, d, err);
    if (st == TK_OK)
        st = run(&x, r, err);
    if (st == TK_OK)
        st = tk_pq_dir_commit(d, err); /* frees d */
    else
        tk_pq_dir_abort(d);
    tk_xq_free(&x);
    tk_xray_map_free(x.map);
    tk_xray_reader_free(r);
    return st;
}
