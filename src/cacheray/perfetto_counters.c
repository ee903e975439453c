/* Counters per window of records: each thread's reads and writes (under
 * "memory accesses"), and with the cache simulator each level's misses
 * and miss rate (under "cache simulation"). A window's values are written
 * at its end (the record index after its last record), so a value covers
 * the window before its timestamp; a thread that had accesses in the
 * window before gets a 0, so the counter does not stand at the old value.
 * Only the threads active in the window are visited. Past --max-tracks
 * threads, the later ones are counted together on "other threads". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cacheray/perfetto_int.h"
#include "core/numfmt.h"

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

int tk_crpf_list_push(tk_crpf_list *l, uint32_t v)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        uint32_t *p = realloc(l->v, cap * sizeof *p);
        if (!p)
            return -1;
        l->v = p;
        l->cap = cap;
    }
    l->v[l->n++] = v;
    return 0;
}

static tk_status counter_track(tk_crpf *c, uint64_t uuid, uint64_t parent, const char *name,
                               tk_perfetto_unit unit, const char *what, tk_error *err)
{
    char unit_name[64];
    snprintf(unit_name, sizeof unit_name, "%s per %" PRIu64 " records", what, c->window);
    return tk_perfetto_counter_track(c->seq, uuid, parent, name, unit, unit_name, err);
}

tk_status tk_crpf_counters_init(tk_crpf *c, tk_error *err)
{
    c->nlevels = c->sim ? tk_cachesim_levels(c->sim) : 0;
    if (!c->nlevels)
        return TK_OK;
    uint64_t group = c->next_uuid++;
    if (tk_perfetto_track(c->seq, group, 0, "cache simulation", err) != TK_OK)
        return err->status;
    for (size_t k = 0; k < c->nlevels; k++) {
        const tk_cachesim_level *lv = tk_cachesim_level_config(c->sim, k);
        tk_crpf_level *l = &c->levels[k];
        char name[TK_CACHESIM_NAME_MAX + 16];
        l->uuid = c->next_uuid;
        c->next_uuid += 2;
        snprintf(name, sizeof name, "%s misses", lv->name);
        if (counter_track(c, l->uuid, group, name, TK_PERFETTO_UNIT_COUNT, "misses", err))
            return err->status;
        snprintf(name, sizeof name, "%s miss rate", lv->name);
        if (counter_track(c, l->uuid + 1, group, name, TK_PERFETTO_UNIT_NONE,
                          "misses per access,", err))
            return err->status;
    }
    return TK_OK;
}

void tk_crpf_counters_free(tk_crpf *c)
{
    tk_id_index_free(&c->thread_index);
    free(c->threads);
    free(c->active.v);
    free(c->was_active.v);
}

/* "thread <tid> <what>", without printf: threads can be millions. */
static void thread_track_name(char out[48], uint64_t tid, const char *what)
{
    memcpy(out, "thread ", 7);
    size_t n = 7 + tk_num_printf_u(out + 7, tid, 0);
    out[n] = ' ';
    strcpy(out + n + 1, what);
}

/* "memory accesses", declared with the first thread. */
static tk_status accesses_group(tk_crpf *c, tk_error *err)
{
    if (c->accesses_uuid)
        return TK_OK;
    c->accesses_uuid = c->next_uuid++;
    if (tk_perfetto_track(c->seq, c->accesses_uuid, 0, "memory accesses", err) != TK_OK)
        return err->status;
    snprintf(c->unit_reads, sizeof c->unit_reads, "reads per %" PRIu64 " records", c->window);
    snprintf(c->unit_writes, sizeof c->unit_writes, "writes per %" PRIu64 " records",
             c->window);
    return TK_OK;
}

/* The reads and writes counters of `t` (a thread, or the other threads). */
static tk_status declare_counters(tk_crpf *c, tk_crpf_thread *t, const char *reads,
                                  const char *writes, tk_error *err)
{
    if (accesses_group(c, err) != TK_OK)
        return err->status;
    t->uuid = c->next_uuid;
    c->next_uuid += 2;
    if (tk_perfetto_counter_track(c->seq, t->uuid, c->accesses_uuid, reads,
                                  TK_PERFETTO_UNIT_COUNT, c->unit_reads, err) != TK_OK)
        return err->status;
    return tk_perfetto_counter_track(c->seq, t->uuid + 1, c->accesses_uuid, writes,
                                     TK_PERFETTO_UNIT_COUNT, c->unit_writes, err);
}

/* A new thread's counter tracks. */
static tk_status declare_thread(tk_crpf *c, uint64_t tid, tk_crpf_thread *t, tk_error *err)
{
    char reads[48], writes[48];
    thread_track_name(reads, tid, "reads");
    thread_track_name(writes, tid, "writes");
    return declare_counters(c, t, reads, writes, err);
}

/* List `t` (index i) as active in this window, once. */
static tk_status mark(tk_crpf *c, tk_crpf_thread *t, size_t i, tk_error *err)
{
    if (t->mark == c->win_no + 1)
        return TK_OK;
    t->mark = c->win_no + 1;
    return tk_crpf_list_push(&c->active, (uint32_t)i) == 0 ? TK_OK : oom(err);
}

/* A thread past the first max_tracks: `cur` is the other threads'. */
static tk_status other_switch(tk_crpf *c, uint64_t tid, tk_error *err)
{
    if (!c->other.uuid &&
        declare_counters(c, &c->other, "other threads reads", "other threads writes",
                         err) != TK_OK)
        return err->status;
    c->cur = &c->other;
    c->tid = tid;
    c->other.mark = c->win_no + 1;
    return TK_OK;
}

/* `cur` is thread `tid`, index i. */
static tk_status set_cur(tk_crpf *c, uint64_t tid, size_t i, tk_error *err)
{
    c->cur = &c->threads[i]; /* the array may move: only this one is kept */
    c->tid = tid;
    return mark(c, c->cur, i, err);
}

tk_status tk_crpf_thread_switch(tk_crpf *c, uint64_t tid, tk_error *err)
{
    const int64_t recent = tk_id_recent_find(&c->thread_recent, tid);
    if (recent >= 0)
        return set_cur(c, tid, (size_t)recent, err);
    if (c->max_tracks && c->thread_index.n >= c->max_tracks &&
        tk_id_index_find(&c->thread_index, tid) < 0)
        return other_switch(c, tid, err);
    if (c->thread_index.n == c->threads_cap) { /* room for a new one first */
        size_t cap = c->threads_cap ? c->threads_cap * 2 : 16;
        tk_crpf_thread *v = realloc(c->threads, cap * sizeof *v);
        if (!v)
            return oom(err);
        c->threads = v;
        c->threads_cap = cap;
    }
    int added;
    int64_t at = tk_id_index_get(&c->thread_index, tid, &added);
    if (at < 0)
        return oom(err);
    size_t i = (size_t)at;
    if (added) {
        memset(&c->threads[i], 0, sizeof c->threads[i]);
        if (declare_thread(c, tid, &c->threads[i], err) != TK_OK)
            return err->status;
    }
    tk_id_recent_put(&c->thread_recent, tid, i);
    return set_cur(c, tid, i, err);
}

static tk_status thread_values(tk_crpf *c, uint64_t ts, const tk_crpf_thread *t,
                               uint64_t reads, uint64_t writes, tk_error *err)
{
    if (tk_perfetto_counter(c->seq, ts, t->uuid, (int64_t)reads, err) != TK_OK)
        return err->status;
    return tk_perfetto_counter(c->seq, ts, t->uuid + 1, (int64_t)writes, err);
}

/* The other threads' values: as one thread's, active or just after. */
static tk_status other_values(tk_crpf *c, uint64_t ts, tk_error *err)
{
    tk_crpf_thread *t = &c->other;
    int active = t->uuid && t->mark == c->win_no + 1;
    if (active || c->other_was) {
        if (thread_values(c, ts, t, t->count[0], t->count[1], err) != TK_OK)
            return err->status;
    }
    t->count[0] = t->count[1] = 0;
    c->other_was = active;
    return TK_OK;
}

static tk_status level_values(tk_crpf *c, uint64_t ts, tk_error *err)
{
    for (size_t k = 0; k < c->nlevels; k++) {
        tk_crpf_level *l = &c->levels[k];
        tk_cachesim_level_stats st;
        tk_cachesim_get_level(c->sim, k, &st);
        uint64_t misses = st.read_misses + st.write_misses, accesses = st.reads + st.writes;
        uint64_t dm = misses - l->misses, da = accesses - l->accesses;
        l->misses = misses;
        l->accesses = accesses;
        if (!dm && !da && !l->shown)
            continue;
        l->shown = dm || da;
        double rate = da ? (double)dm / (double)da : 0.0;
        if (tk_perfetto_counter(c->seq, ts, l->uuid, (int64_t)dm, err) != TK_OK ||
            tk_perfetto_counter_double(c->seq, ts, l->uuid + 1, rate, err) != TK_OK)
            return err->status;
    }
    return TK_OK;
}

tk_status tk_crpf_flush(tk_crpf *c, uint64_t ts, tk_error *err)
{
    for (size_t i = 0; i < c->active.n; i++) {
        tk_crpf_thread *t = &c->threads[c->active.v[i]];
        if (thread_values(c, ts, t, t->count[0], t->count[1], err) != TK_OK)
            return err->status;
        t->count[0] = t->count[1] = 0;
    }
    for (size_t i = 0; i < c->was_active.n; i++) {
        tk_crpf_thread *t = &c->threads[c->was_active.v[i]];
        if (t->mark != c->win_no + 1 && thread_values(c, ts, t, 0, 0, err) != TK_OK)
            return err->status;
    }
    if (other_values(c, ts, err) != TK_OK || level_values(c, ts, err) != TK_OK)
        return err->status;
    tk_crpf_list l = c->was_active;
    c->was_active = c->active;
    c->active = l;
    c->active.n = 0;
    c->win_no++;
    /* the hot loop counts for `cur` without looking it up again */
    if (c->cur == &c->other)
        c->other.mark = c->win_no + 1;
    if (!c->cur || c->cur == &c->other)
        return TK_OK;
    return mark(c, c->cur, (size_t)(c->cur - c->threads), err);
}

tk_status tk_crpf_window_end(tk_crpf *c, uint64_t ts, tk_error *err)
{
    if (tk_crpf_flush(c, c->win_end, err) != TK_OK ||
        tk_crpf_regions_window(c, c->win_end, err) != TK_OK)
        return err->status;
    /* a gap of whole windows (a selection): their zeros, once */
    if (ts - c->win_end >= c->window &&
        tk_crpf_flush(c, c->win_end + c->window, err) != TK_OK)
        return err->status;
    uint64_t k = ts / c->window;
    c->win_end = k < UINT64_MAX / c->window ? (k + 1) * c->window : UINT64_MAX;
    return TK_OK;
}
