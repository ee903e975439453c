/* `tracekit report` for XRay: trace facts and the functions that take the
 * most time (account's statistics; records that do not match, and records
 * in their thread's past, counted). */
#include <stdlib.h>

#include <tracekit/xray_account.h>
#include <tracekit/xray_map.h>

#include "core/id_index.h"
#include "xray/xray_int.h"

#define TOP_FUNCTIONS 10

/* A duration of `ticks` in seconds; null for freq 0: the trace has no
 * cycle frequency (ticks of unknown length), or nothing was measured. */
static void seconds(tk_sink *s, const char *key, uint64_t ticks, uint64_t freq)
{
    if (freq)
        tk_sink_f64_flags(s, key, (double)ticks / (double)freq, TK_SINK_SECONDS);
    else
        tk_sink_null(s, key);
}

/* Count the thread of `key` (records come in runs per thread: the last
 * one is remembered). 0 when out of memory. */
static int note_thread(tk_id_index *threads, uint64_t *last, uint64_t key)
{
    int added;
    if (tk_id_index_get(threads, key, &added) < 0)
        return 0;
    *last = key;
    return 1;
}

tk_status tk_xr_report(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err)
{
    tk_xray_reader *r = tk_xr_open(in, o, err);
    if (!r)
        return err->status;
    tk_xray_map *map = tk_xr_open_map(o, err);
    if (!map && err->status != TK_OK) {
        tk_xray_reader_free(r);
        return err->status;
    }
    tk_xray_account *a = tk_xray_account_new(NULL, err);
    tk_id_index threads = {0}; /* pid << 32 | tid, counted */
    uint64_t last_thread = UINT64_MAX, records = 0, unmatched = 0, past = 0, tmin = UINT64_MAX, tmax = 0;
    tk_status st = TK_OK;
    tk_xray_record rec;
    int rc = 0;
    if (!a)
        st = err->status;
    while (st == TK_OK && (rc = tk_xray_next(r, &rec, err)) > 0) {
        records++;
        tmin = rec.tsc < tmin ? rec.tsc : tmin;
        tmax = rec.tsc > tmax ? rec.tsc : tmax;
        int f = tk_xray_account_add(a, &rec, err);
        if (f < 0)
            st = err->status;
        else if (((uint64_t)rec.pid << 32 | rec.tid) != last_thread &&
                 !note_thread(&threads, &last_thread, (uint64_t)rec.pid << 32 | rec.tid))
            st = tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        unmatched += f > 0 && f != TK_XRAY_ACCOUNT_TSC_BACK;
        past += f == TK_XRAY_ACCOUNT_TSC_BACK; /* skipped, as account -k does */
    }
    if (st == TK_OK && rc < 0)
        st = err->status;
    tk_xray_account_row *rows = NULL;
    size_t n = 0;
    if (st == TK_OK)
        st = tk_xray_account_rows(a, TK_XRAY_SORT_SUM, 1, &rows, &n, err);
    if (st == TK_OK) {
        const tk_xray_header *h = tk_xray_reader_header(r);
        uint64_t f = h->cycle_frequency;
        tk_sink_object_begin(s, NULL);
        tk_sink_cstr(s, "file", tk_input_name(in), 0);
        tk_sink_cstr(s, "format", "xray", 0);
        tk_sink_cstr(s, "mode", h->type == TK_XRAY_FDR ? "fdr" : "basic", 0);
        tk_sink_u64(s, "version", h->version, 0);
        tk_sink_u64(s, "records", records, 0);
        tk_sink_u64(s, "thread_count", threads.n, 0);
        tk_sink_u64(s, "functions", tk_xray_account_functions(a), 0);
        seconds(s, "span_s", tmax - tmin, records ? f : 0);
        tk_sink_u64(s, "unmatched_records", unmatched, 0);
        tk_sink_u64(s, "records_in_thread_past", past, 0);
        tk_sink_array_begin(s, "top_functions_by_time");
        for (size_t i = 0; i < n && i < TOP_FUNCTIONS; i++) {
            tk_sink_object_begin(s, NULL);
            tk_sink_i64(s, "func_id", rows[i].func_id);
            tk_sink_cstr(s, "function", tk_xray_map_name(map, rows[i].func_id), 0);
            tk_sink_u64(s, "count", rows[i].count, 0);
            seconds(s, "sum_s", rows[i].sum, f);
            seconds(s, "med_s", rows[i].med, f);
            seconds(s, "p99_s", rows[i].p99, f);
            seconds(s, "max_s", rows[i].max, f);
            tk_sink_object_end(s);
        }
        tk_sink_array_end(s);
        tk_sink_object_end(s);
    }
    free(rows);
    tk_id_index_free(&threads);
    tk_xray_account_free(a);
    tk_xray_map_free(map);
    tk_xray_reader_free(r);
    return st;
}
