/* Per-thread counts, in order of each thread's first access. */
#include <stdlib.h>
#include <string.h>

#include "cacheray/sim/sim_int.h"

void cs_threads_init(cs_threads *t)
{
    memset(t, 0, sizeof *t);
    tk_map_init(&t->by_id, sizeof(tk_cachesim_thread));
}

void cs_threads_free(cs_threads *t) { tk_map_free(&t->by_id); }

/* Also the one place the map grows (moving its values): `last` is set
 * again right after. */
tk_cachesim_counts *cs_threads_lookup(cs_threads *t, uint64_t id)
{
    tk_cachesim_thread *th = tk_map_u64(&t->by_id, id);
    if (!th)
        return NULL;
    th->id = id;
    size_t h = (size_t)(id % CS_THREAD_CACHE);
    t->cache_id[h] = id + 1;
    t->cache_index[h] = (uint32_t)((size_t)((unsigned char *)th - t->by_id.values) /
                                   t->by_id.value_size);
    t->last_id = id;
    t->last = &th->c;
    return t->last;
}
