/* `tracekit info` for casemate logs: counts by kind and by operation,
 * threads, ids, addresses, locks and the expected-result line. */
#include <stdlib.h>
#include <string.h>

#include "casemate/casemate_int.h"
#include "core/hashmap.h"

/* Threads listed by id in the summary; more are only counted. */
#define MAX_LISTED_THREADS 64

typedef struct stats {
    uint64_t records, by_kind[TK_CASEMATE_KIND_COUNT];
    uint64_t barriers[TK_CASEMATE_BARRIER_COUNT], tlbis[TK_CASEMATE_TLBI_COUNT];
    uint64_t sysregs[TK_CASEMATE_SYSREG_COUNT], hints[TK_CASEMATE_HINT_COUNT];
    uint64_t src[3];
    uint64_t id_first, id_last, id_min, id_max, id_backwards;
    uint64_t amin, amax; /* memory addresses written, read, initialised ... */
    tk_map threads, locks; /* threads: records of each */
    uint64_t last_tid, run; /* a run of records of one thread, not counted yet */
} stats;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A table of the non-zero counts: [{key: name, count: n}]. */
static void counts(tk_sink *s, const char *array, const char *key, const uint64_t *v,
                   size_t n, const char *(*name)(int))
{
    tk_sink_array_begin(s, array);
    for (size_t i = 0; i < n; i++) {
        if (!v[i])
            continue;
        tk_sink_object_begin(s, NULL);
        tk_sink_cstr(s, key, name((int)i), TK_SINK_ENUM);
        tk_sink_u64(s, "count", v[i], 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
}

/* Barriers as dump writes them: "dsb" with its domain, or "isb". */
static void barriers(tk_sink *s, const uint64_t *v)
{
    tk_sink_array_begin(s, "barriers");
    for (int i = 0; i < TK_CASEMATE_BARRIER_COUNT; i++) {
        const char *name = tk_casemate_barrier_name((tk_casemate_barrier)i);
        const char *space = strchr(name, ' ');
        if (!v[i])
            continue;
        tk_sink_object_begin(s, NULL);
        tk_sink_str(s, "barrier", name, space ? (size_t)(space - name) : strlen(name), 0);
        if (space)
            tk_sink_cstr(s, "domain", space + 1, 0);
        tk_sink_u64(s, "count", v[i], 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
}

static const char *tlbi_name(int i) { return tk_casemate_tlbi_name((tk_casemate_tlbi)i); }
static const char *sysreg_name(int i) { return tk_casemate_sysreg_name((tk_casemate_sysreg)i); }
static const char *hint_name(int i) { return tk_casemate_hint_name((tk_casemate_hint)i); }

static void emit(tk_sink *s, tk_input *in, tk_casemate_reader *r, stats *st)
{
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "file", tk_input_name(in), 0);
    tk_sink_cstr(s, "format", "casemate", 0);
    tk_sink_u64(s, "size", tk_casemate_reader_tell(r), 0);
    tk_sink_u64(s, "lines", tk_casemate_reader_lines(r), 0);
    tk_sink_u64(s, "records", st->records, 0);
    tk_sink_array_begin(s, "by_kind");
    for (int k = 0; k < TK_CASEMATE_KIND_COUNT; k++) {
        tk_sink_object_begin(s, NULL);
        tk_sink_cstr(s, "kind", tk_casemate_kind_name((tk_casemate_kind)k), TK_SINK_ENUM);
        tk_sink_u64(s, "count", st->by_kind[k], 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);

    tk_sink_u64(s, "thread_count", st->threads.n, 0);
    uint64_t *ids = malloc((st->threads.n ? st->threads.n : 1) * sizeof *ids);
    size_t nids = ids ? st->threads.n : 0;
    if (nids)
        memcpy(ids, st->threads.ukeys, nids * sizeof *ids);
    if (nids)
        qsort(ids, nids, sizeof *ids, cmp_u64);
    tk_sink_array_begin(s, "threads");
    for (size_t i = 0; i < nids && i < MAX_LISTED_THREADS; i++) {
        const uint64_t *n = tk_map_u64(&st->threads, ids[i]);
        tk_sink_object_begin(s, NULL);
        tk_sink_u64(s, "thread", ids[i], 0);
        tk_sink_u64(s, "records", n ? *n : 0, 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    free(ids);

    if (st->records) {
        tk_sink_object_begin(s, "ids");
        tk_sink_u64(s, "first", st->id_first, 0);
        tk_sink_u64(s, "last", st->id_last, 0);
        tk_sink_u64(s, "min", st->id_min, 0);
        tk_sink_u64(s, "max", st->id_max, 0);
        tk_sink_u64(s, "not_increasing", st->id_backwards, 0);
        tk_sink_object_end(s);
    } else {
        tk_sink_null(s, "ids");
    }
    if (st->amin <= st->amax) {
        tk_sink_u64(s, "min_addr", st->amin, TK_SINK_ADDR);
        tk_sink_u64(s, "max_addr", st->amax, TK_SINK_ADDR);
    } else {
        tk_sink_null(s, "min_addr");
        tk_sink_null(s, "max_addr");
    }
    tk_sink_u64(s, "lock_count", st->locks.n, 0);
    barriers(s, st->barriers);
    counts(s, "tlbis", "tlbi", st->tlbis, TK_CASEMATE_TLBI_COUNT, tlbi_name);
    counts(s, "sysregs", "sysreg", st->sysregs, TK_CASEMATE_SYSREG_COUNT, sysreg_name);
    counts(s, "hints", "hint", st->hints, TK_CASEMATE_HINT_COUNT, hint_name);
    tk_sink_object_begin(s, "sources");
    tk_sink_u64(s, "strings", st->src[TK_CASEMATE_SRC_STRING], 0);
    tk_sink_u64(s, "integers", st->src[TK_CASEMATE_SRC_INT], 0);
    tk_sink_u64(s, "missing", st->src[TK_CASEMATE_SRC_NONE], 0);
    tk_sink_object_end(s);
    size_t len;
    const char *expected = tk_casemate_reader_expected(r, &len);
    if (expected)
        tk_sink_str(s, "expected", expected, len, 0);
    else
        tk_sink_null(s, "expected");
    tk_sink_object_end(s);
}

/* Add the current run of one thread's records to its count (-1: out of
 * memory). */
static int flush_run(stats *st)
{
    uint64_t *n = st->run ? tk_map_u64(&st->threads, st->last_tid) : NULL;
    int ok = !st->run || n;
    if (n)
        *n += st->run;
    st->run = 0;
    return ok ? 0 : -1;
}

/* Count a record of thread `tid`: a run of one thread touches the map once. */
static int count_thread(stats *st, uint64_t tid)
{
    if (st->run && tid == st->last_tid) {
        st->run++;
        return 0;
    }
    if (flush_run(st) != 0 || !tk_map_u64(&st->threads, tid))
        return -1;
    st->last_tid = tid;
    st->run = 1;
    return 0;
}

static void address(stats *st, uint64_t a)
{
    if (a < st->amin)
        st->amin = a;
    if (a > st->amax)
        st->amax = a;
}

tk_status tk_casemate_info(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err)
{
    tk_casemate_reader *r = tk_casemate_open(in, o, err);
    if (!r)
        return err->status;
    stats st;
    memset(&st, 0, sizeof st);
    st.amin = st.id_min = UINT64_MAX;
    tk_map_init(&st.threads, sizeof(uint64_t));
    tk_map_init(&st.locks, 0);
    uint64_t last_lock = UINT64_MAX;
    int have_lock = 0;
    tk_casemate_record rec;
    tk_status status = TK_OK;
    int rc;
    while ((rc = tk_casemate_next(r, &rec, err)) > 0) {
        if (st.records == 0)
            st.id_first = rec.id;
        else if (rec.id <= st.id_last)
            st.id_backwards++;
        st.id_last = rec.id;
        if (rec.id < st.id_min)
            st.id_min = rec.id;
        if (rec.id > st.id_max)
            st.id_max = rec.id;
        st.records++;
        st.by_kind[rec.kind]++;
        st.src[rec.src_kind]++;
        if (count_thread(&st, rec.tid) != 0)
            goto nomem;
        switch (rec.kind) {
        case TK_CASEMATE_MEM_WRITE:
        case TK_CASEMATE_MEM_READ:
            address(&st, rec.address);
            break;
        case TK_CASEMATE_MEM_INIT:
        case TK_CASEMATE_MEM_FREE:
        case TK_CASEMATE_MEM_SET:
            address(&st, rec.address);
            if (rec.size)
                address(&st, rec.address + rec.size - 1 < rec.address
                                 ? UINT64_MAX : rec.address + rec.size - 1);
            break;
        case TK_CASEMATE_SYSREG_WRITE:
            st.sysregs[rec.sysreg]++;
            break;
        case TK_CASEMATE_BARRIER:
            st.barriers[rec.barrier]++;
            break;
        case TK_CASEMATE_TLBI:
            st.tlbis[rec.tlbi]++;
            break;
        case TK_CASEMATE_HINT:
            st.hints[rec.hint]++;
            break;
        case TK_CASEMATE_LOCK:
        case TK_CASEMATE_TRYLOCK:
        case TK_CASEMATE_UNLOCK:
            if (!have_lock || rec.address != last_lock) {
                if (!tk_map_u64(&st.locks, rec.address))
                    goto nomem;
                last_lock = rec.address;
                have_lock = 1;
            }
            break;
        default:
            break;
        }
    }
    if (rc < 0)
        status = err->status;
    else if (flush_run(&st) != 0)
        goto nomem;
    else
        emit(s, in, r, &st);
    goto done;
nomem:
    status = tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
done:
    tk_map_free(&st.threads);
    tk_map_free(&st.locks);
    tk_casemate_reader_free(r);
    return status;
}
