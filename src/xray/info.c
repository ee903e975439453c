/* `tracekit info` for XRay: header, record counts, functions, threads,
 * CPUs and the time span. */
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "xray/xray_int.h"

typedef struct counts {
    uint64_t by_kind[6];
    uint64_t records, args, event_bytes;
    uint64_t tsc_min, tsc_max;
} counts;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorted keys of a u64 map (NULL when empty or out of memory). */
static uint64_t *sorted_keys(const tk_map *m)
{
    uint64_t *k = m->n ? malloc(m->n * sizeof *k) : NULL;
    if (k) {
        memcpy(k, m->ukeys, m->n * sizeof *k);
        qsort(k, m->n, sizeof *k, cmp_u64);
    }
    return k;
}

static void emit(tk_sink *s, tk_input *in, tk_xray_reader *r, const counts *c,
                 tk_map *funcs, tk_map *threads, tk_map *cpus, uint64_t size)
{
    const tk_xray_header *h = tk_xray_reader_header(r);
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "file", tk_input_name(in), 0);
    tk_sink_cstr(s, "format", "xray", 0);
    tk_sink_cstr(s, "mode", h->type == TK_XRAY_FDR ? "fdr" : "basic", 0);
    tk_sink_u64(s, "version", h->version, 0);
    tk_sink_bool(s, "constant_tsc", h->bitfield & 1);
    tk_sink_bool(s, "nonstop_tsc", (h->bitfield >> 1) & 1);
    tk_sink_u64(s, "cycle_frequency", h->cycle_frequency, 0);
    if (h->type == TK_XRAY_FDR) {
        tk_xray_order_info o;
        tk_xray_reader_order(r, &o);
        tk_sink_cstr(s, "records_layout",
                     tk_xray_reader_layout(r) == TK_XRAY_FDR ? "fdr" : "basic", 0);
        tk_sink_u64(s, "buffer_size", h->buffer_size, 0);
        tk_sink_u64(s, "blocks", tk_xray_reader_blocks(r), 0);
        tk_sink_u64(s, "skipped_bytes", tk_xray_reader_skipped(r), 0);
        tk_sink_u64(s, "buffers_out_of_order", o.moved_buffers, 0);
    }
    tk_sink_u64(s, "size", size, 0);
    tk_sink_u64(s, "records", c->records, 0);
    tk_sink_array_begin(s, "by_kind");
    for (int k = 0; k < 6; k++) {
        tk_sink_object_begin(s, NULL);
        tk_sink_cstr(s, "kind", tk_xray_kind_name((tk_xray_kind)k), TK_SINK_ENUM);
        tk_sink_u64(s, "count", c->by_kind[k], 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_u64(s, "arguments", c->args, 0);
    tk_sink_u64(s, "event_bytes", c->event_bytes, 0);
    tk_sink_u64(s, "functions", funcs->n, 0);
    if (c->records) {
        tk_sink_u64(s, "min_tsc", c->tsc_min, 0);
        tk_sink_u64(s, "max_tsc", c->tsc_max, 0);
    } else {
        tk_sink_null(s, "min_tsc");
        tk_sink_null(s, "max_tsc");
    }
    if (c->records && h->cycle_frequency)
        tk_sink_f64_flags(s, "span_s",
                          (double)(c->tsc_max - c->tsc_min) / (double)h->cycle_frequency,
                          TK_SINK_SECONDS);
    else /* no records, or ticks of an unknown length */
        tk_sink_null(s, "span_s");
    uint64_t *t = sorted_keys(threads);
    tk_sink_u64(s, "thread_count", threads->n, 0);
    tk_sink_array_begin(s, "threads");
    for (size_t i = 0; t && i < threads->n; i++) {
        const uint64_t *n = tk_map_u64(threads, t[i]);
        tk_sink_object_begin(s, NULL);
        tk_sink_u64(s, "thread", t[i] & 0xFFFFFFFFu, 0);
        tk_sink_u64(s, "pid", t[i] >> 32, 0);
        tk_sink_u64(s, "records", n ? *n : 0, 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    free(t);
    uint64_t *cp = sorted_keys(cpus);
    tk_sink_array_begin(s, "cpus");
    for (size_t i = 0; cp && i < cpus->n; i++)
        tk_sink_u64(s, NULL, cp[i], 0);
    tk_sink_array_end(s);
    free(cp);
    tk_sink_object_end(s);
}

tk_status tk_xr_info(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err)
{
    tk_xray_reader *r = tk_xr_open(in, o, err);
    if (!r)
        return err->status;
    counts c;
    memset(&c, 0, sizeof c);
    c.tsc_min = UINT64_MAX;
    tk_map funcs, threads, cpus;
    tk_map_init(&funcs, 1);
    tk_map_init(&threads, sizeof(uint64_t));
    tk_map_init(&cpus, 1);
    tk_xray_record rec;
    tk_status st = TK_OK;
    int rc;
    while ((rc = tk_xray_next(r, &rec, err)) > 0) {
        c.records++;
        c.by_kind[rec.kind]++;
        c.args += rec.nargs;
        c.event_bytes += rec.data_len;
        if (rec.tsc < c.tsc_min)
            c.tsc_min = rec.tsc;
        if (rec.tsc > c.tsc_max)
            c.tsc_max = rec.tsc;
        uint64_t *n = tk_map_u64(&threads, (uint64_t)rec.pid << 32 | rec.tid);
        if (!n || (rec.kind <= TK_XRAY_ENTER_ARG && !tk_map_u64(&funcs, (uint32_t)rec.func_id)) ||
            !tk_map_u64(&cpus, rec.cpu)) {
            rc = -1;
            tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
            break;
        }
        (*n)++;
    }
    if (rc < 0)
        st = err->status;
    else
        emit(s, in, r, &c, &funcs, &threads, &cpus, tk_input_size(in) >= 0
                 ? (uint64_t)tk_input_size(in) : tk_input_offset(in));
    tk_map_free(&funcs);
    tk_map_free(&threads);
    tk_map_free(&cpus);
    tk_xray_reader_free(r);
    return st;
}
