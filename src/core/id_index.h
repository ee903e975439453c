/* Thread ids to indexes 0, 1, ... in order of first use, for whoever keeps
 * state per thread in an array of its own (the Perfetto mappings' tracks,
 * sequences and counts; the cache simulator's per-thread counts and its
 * false-sharing writers; Cacheray info's counts): open addressing, at most
 * half full, 8 bytes a slot plus 8 a key.
 *
 * A key's first slot keeps 8 consecutive ids in consecutive slots, each
 * run of them at a hashed place: a trace of a million threads numbered in
 * order finds most in a cache line already loaded, where a hash of the
 * whole key costs a miss to memory per thread. (Runs of 64 made probes
 * long: 20 slots per thread in order, against 2.5 with runs of 8, and 0.3
 * for any keys.)
 *
 * Small keys, the common thread ids 1, 2, ..., are found in a direct table
 * instead, 4 bytes a key, no probe: it covers keys up to about twice the
 * count so far (so it never takes more than 12 bytes per key). Keys it did
 * not cover when they came stay in the slots. */
#ifndef TK_CORE_ID_INDEX_H
#define TK_CORE_ID_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct tk_id_index {
    uint64_t *slots; /* a tag of the key (high half) and its index + 1 (low
                        half; 0: an empty slot): a probe reads the key only
                        when the tags match */
    uint64_t *keys;  /* by index */
    size_t n, cap, mask;
    uint32_t *direct; /* key -> index + 1 (0: not here) for keys < ndirect */
    size_t ndirect;
} tk_id_index;

/* Zeroed is empty. */
void tk_id_index_free(tk_id_index *x);
/* The index of `key`, the next one (x->n before the call) when new, which
 * *added says; -1 when out of memory (nothing added). */
int64_t tk_id_index_get(tk_id_index *x, uint64_t key, int *added);
/* The index of `key`, or -1 when it has none. */
int64_t tk_id_index_find(const tk_id_index *x, uint64_t key);

/* Keys looked up lately, by their low bits, in front of a tk_id_index for
 * callers that look a thread up at every record: threads taking turns
 * record by record (or in runs of one) then cost a compare, not a probe
 * of the index. Zeroed is empty. */
enum { TK_ID_RECENT = 16 };
typedef struct tk_id_recent {
    uint64_t key[TK_ID_RECENT];
    uint32_t index1[TK_ID_RECENT]; /* the key's index + 1; 0: empty */
} tk_id_recent;

/* The index of `key` if it came lately, else -1. */
static inline int64_t tk_id_recent_find(const tk_id_recent *c, uint64_t key)
{
    const size_t k = (size_t)(key & (TK_ID_RECENT - 1));
    return c->key[k] == key ? (int64_t)c->index1[k] - 1 : -1; /* empty: index1 0, so -1 */
}

/* `key` has index `index` (kept unless it does not fit). */
static inline void tk_id_recent_put(tk_id_recent *c, uint64_t key, size_t index)
{
    const size_t k = (size_t)(key & (TK_ID_RECENT - 1));
    if (index < UINT32_MAX) {
        c->key[k] = key;
        c->index1[k] = (uint32_t)index + 1;
    }
}

#endif
