/* Per-thread counts, in order of each thread's first access (sim_int.h). */
#include <stdlib.h>
#include <string.h>

#include "cacheray/sim/sim_int.h"

/* Words of tk_cachesim_counts before its misses. */
enum { HEAD = offsetof(tk_cachesim_counts, misses) / sizeof(uint64_t) };
/* Words of room past the last thread, for a whole struct there. */
enum { TAIL = TK_CACHESIM_MAX_LEVELS };

void cs_threads_init(cs_threads *t, size_t nlevels)
{
    memset(t, 0, sizeof *t);
    if (nlevels < 1 || nlevels > TK_CACHESIM_MAX_LEVELS)
        nlevels = TK_CACHESIM_MAX_LEVELS;
    t->stride = HEAD + nlevels;
}

void cs_threads_free(cs_threads *t)
{
    tk_id_index_free(&t->index);
    free(t->counts);
    t->counts = NULL;
    t->cap = 0;
    t->last = NULL;
}

/* Room for more threads' counts: half as many again (a million threads
 * and one need not take room for two million). Each thread's counts are
 * zeroed when it comes, not here: the room not used yet stays untouched,
 * so not resident. */
static int grow(cs_threads *t)
{
    size_t cap = t->cap ? t->cap + t->cap / 2 : 64;
    if (cap > (SIZE_MAX / sizeof(uint64_t) - TAIL) / t->stride)
        return -1;
    uint64_t *v = realloc(t->counts, (cap * t->stride + TAIL) * sizeof *v);
    if (!v)
        return -1;
    memset(v + cap * t->stride, 0, TAIL * sizeof *v);
    t->counts = v;
    t->cap = cap;
    return 0;
}

/* Also the one place the counts move: `last` is set again right after.
 * A thread added without room for its counts leaves the whole broken (the
 * simulator reports out of memory at the first NULL). */
tk_cachesim_counts *cs_threads_lookup(cs_threads *t, uint64_t id)
{
    int added;
    int64_t i = t->broken ? -1 : tk_id_index_get(&t->index, id, &added);
    if (i < 0)
        return NULL;
    if ((size_t)i >= t->cap && grow(t) != 0) {
        t->broken = 1;
        return NULL;
    }
    if (added)
        memset(t->counts + (size_t)i * t->stride, 0, t->stride * sizeof *t->counts);
    tk_id_recent_put(&t->recent, id, (size_t)i);
    t->last_id = id;
    t->last = cs_threads_at(t, (size_t)i);
    return t->last;
}

void cs_threads_get_thread(const cs_threads *t, size_t i, tk_cachesim_thread *out)
{
    memset(out, 0, sizeof *out);
    if (i >= t->index.n)
        return;
    out->id = t->index.keys[i];
    memcpy(&out->c, t->counts + i * t->stride, t->stride * sizeof(uint64_t));
}
