/* `tracekit info` for Cacheray: counts by type, threads, address range and
 * the RTTA types with their regions. */
#include <stdlib.h>
#include <string.h>

#include "cacheray/cacheray_int.h"
#include "core/hashmap.h"
#include "core/id_index.h"

/* Threads listed by id in the summary; more are only counted. */
#define MAX_LISTED_THREADS 64

typedef struct type_stats {
    uint64_t count, atomic, unaligned, bytes;
} type_stats;

typedef struct rtta_stats {
    uint64_t regions, elements, bytes, removed;
} rtta_stats;

/* Records per thread, by index in order of appearance: a trace may have a
 * million threads (about 24 bytes each with ids 1, 2, ...). */
typedef struct thread_stats {
    tk_id_index index;
    tk_id_recent recent;
    uint64_t *records;
    size_t cap;
} thread_stats;

/* One more record of `thread` (0: out of memory). */
static int count_record(thread_stats *t, uint64_t thread)
{
    int64_t i = tk_id_recent_find(&t->recent, thread);
    if (i >= 0) {
        t->records[i]++;
        return 1;
    }
    int added;
    i = tk_id_index_get(&t->index, thread, &added);
    if (i < 0)
        return 0;
    if ((size_t)i >= t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        uint64_t *v = realloc(t->records, cap * sizeof *v);
        if (!v)
            return 0;
        memset(v + t->cap, 0, (cap - t->cap) * sizeof *v);
        t->records = v;
        t->cap = cap;
    }
    t->records[i]++;
    tk_id_recent_put(&t->recent, thread, (size_t)i);
    return 1;
}

/* The indexes of the (at most) MAX_LISTED_THREADS smallest ids, in order
 * of id, into `top`; their number. No sort of all the ids: one pass, an
 * insertion only for an id below the largest kept. */
static size_t smallest_ids(const thread_stats *t, size_t *top)
{
    size_t n = 0;
    const uint64_t *id = t->index.keys;
    for (size_t i = 0; i < t->index.n; i++) {
        if (n == MAX_LISTED_THREADS && id[i] >= id[top[n - 1]])
            continue;
        size_t j = n < MAX_LISTED_THREADS ? n++ : n - 1;
        for (; j > 0 && id[top[j - 1]] > id[i]; j--)
            top[j] = top[j - 1];
        top[j] = i;
    }
    return n;
}

static int cmp_name(const void *a, const void *b, void *names)
{
    char **n = names;
    return strcmp(n[*(const size_t *)a], n[*(const size_t *)b]);
}

/* Insertion-sort indices by name (type tables are small; qsort_r is not
 * C11). */
static void sort_by_name(size_t *idx, size_t n, char **names)
{
    for (size_t i = 1; i < n; i++) {
        size_t v = idx[i], j = i;
        while (j > 0 && cmp_name(&idx[j - 1], &v, names) > 0) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
}

static void emit(tk_sink *s, tk_input *in, tk_endian endian, uint64_t size,
                 uint64_t records,
                 const type_stats *by_type, const thread_stats *threads, uint64_t amin,
                 uint64_t amax, tk_map *rtta, uint64_t live)
{
    static const tk_cacheray_type order[] = {TK_CACHERAY_READ, TK_CACHERAY_WRITE,
                                             TK_CACHERAY_RTTA_ADD, TK_CACHERAY_RTTA_REMOVE};
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "file", tk_input_name(in), 0);
    tk_sink_cstr(s, "format", "cacheray", 0);
    tk_sink_cstr(s, "byte_order", tk_cacheray_endian_name(endian), 0);
    tk_sink_u64(s, "size", size, 0);
    tk_sink_u64(s, "records", records, 0);
    tk_sink_array_begin(s, "by_kind");
    for (size_t i = 0; i < 4; i++) {
        const type_stats *t = &by_type[order[i]];
        tk_sink_object_begin(s, NULL);
        tk_sink_cstr(s, "kind", tk_cacheray_type_name(order[i]), TK_SINK_ENUM);
        tk_sink_u64(s, "count", t->count, 0);
        if (order[i] <= TK_CACHERAY_WRITE) {
            tk_sink_u64(s, "atomic_count", t->atomic, 0);
            tk_sink_u64(s, "unaligned_count", t->unaligned, 0);
            tk_sink_u64(s, "bytes", t->bytes, 0);
        }
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);

    tk_sink_u64(s, "thread_count", threads->index.n, 0);
    /* The smallest ids, in order. */
    size_t top[MAX_LISTED_THREADS], ntop = smallest_ids(threads, top);
    tk_sink_array_begin(s, "threads");
    for (size_t k = 0; k < ntop; k++) {
        tk_sink_object_begin(s, NULL);
        tk_sink_u64(s, "thread", threads->index.keys[top[k]], 0);
        tk_sink_u64(s, "records", threads->records[top[k]], 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);

    if (amin <= amax) {
        tk_sink_u64(s, "min_addr", amin, TK_SINK_ADDR);
        tk_sink_u64(s, "max_addr", amax, TK_SINK_ADDR);
    } else {
        tk_sink_null(s, "min_addr");
        tk_sink_null(s, "max_addr");
    }

    size_t *idx = malloc((rtta->n ? rtta->n : 1) * sizeof *idx);
    tk_sink_array_begin(s, "rtta_types");
    if (idx) {
        for (size_t i = 0; i < rtta->n; i++)
            idx[i] = i;
        sort_by_name(idx, rtta->n, rtta->skeys);
        for (size_t k = 0; k < rtta->n; k++) {
            size_t i = idx[k];
            const rtta_stats *r = tk_map_value(rtta, i);
            tk_sink_object_begin(s, NULL);
            tk_sink_str(s, "name", rtta->skeys[i], rtta->skey_len[i], 0);
            tk_sink_u64(s, "regions", r->regions, 0);
            tk_sink_u64(s, "elements", r->elements, 0);
            tk_sink_u64(s, "bytes", r->bytes, 0);
            tk_sink_object_end(s);
        }
    }
    tk_sink_array_end(s);
    free(idx);
    tk_sink_u64(s, "live_regions_at_end", live, 0);
    tk_sink_object_end(s);
}

tk_status tk_cacheray_info(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err)
{
    tk_cacheray_reader *r = tk_cacheray_open(in, o, 0, err);
    if (!r)
        return err->status;
    tk_cacheray_checker *live = tk_cacheray_checker_new(err);
    type_stats by_type[4];
    memset(by_type, 0, sizeof by_type);
    thread_stats threads = {0};
    tk_map rtta;
    tk_map_init(&rtta, sizeof(rtta_stats));
    uint64_t amin = UINT64_MAX, amax = 0, records = 0;
    tk_map_recent recent_types = {{0}}; /* each RTTA_ADD's name is a new pointer */
    tk_cacheray_record rec;
    tk_status st = TK_OK;
    int rc = 0;
    if (!live)
        st = err->status;
    while (st == TK_OK && (rc = tk_cacheray_next(r, &rec, err)) > 0) {
        records++;
        type_stats *t = &by_type[rec.type];
        t->count++;
        if (!count_record(&threads, rec.thread)) {
            st = tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
            break;
        }
        if (rec.type <= TK_CACHERAY_WRITE) {
            t->atomic += (rec.flags & TK_CACHERAY_ATOMIC) != 0;
            t->unaligned += (rec.flags & TK_CACHERAY_UNALIGNED) != 0;
            t->bytes += rec.size;
            uint64_t last = rec.addr + (rec.size ? rec.size - 1u : 0u);
            if (last < rec.addr)
                last = UINT64_MAX;
            if (rec.addr < amin)
                amin = rec.addr;
            if (last > amax)
                amax = last;
            continue;
        }
        if (tk_cacheray_check(live, &rec, 0, 0, NULL, 0, err) < 0) {
            st = err->status;
            break;
        }
        if (rec.type == TK_CACHERAY_RTTA_ADD) {
            rtta_stats *x =
                tk_map_str_recent(&rtta, &recent_types, rec.type_name, rec.typename_len);
            if (!x) {
                st = tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
                break;
            }
            x->regions++;
            x->elements += rec.elemcount;
            x->bytes += (uint64_t)rec.elemsize * rec.elemcount;
        }
    }
    if (st == TK_OK && rc < 0)
        st = err->status;
    if (st == TK_OK)
        emit(s, in, tk_cacheray_reader_endian(r), tk_cacheray_reader_tell(r), records, by_type, &threads,
             amin, amax, &rtta, tk_cacheray_checker_live(live));
    tk_id_index_free(&threads.index);
    free(threads.records);
    tk_map_free(&rtta);
    tk_cacheray_checker_free(live);
    tk_cacheray_reader_free(r);
    return st;
}
