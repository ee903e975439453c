/* Thread ids to indexes 0, 1, ... in order of first use, for the Perfetto
 * mappings that keep state per thread (a track, a sequence, counts) in an
 * array of their own: open addressing, at most half full, 8 bytes a slot
 * plus 8 a key.
 *
 * A key's first slot keeps 8 consecutive ids in consecutive slots, each
 * run of them at a hashed place: a trace of a million threads numbered in
 * order finds most in a cache line already loaded, where a hash of the
 * whole key costs a miss to memory per thread. (Runs of 64 made probes
 * long: 20 slots per thread in order, against 2.5 with runs of 8, and 0.3
 * for any keys.) */
#ifndef TK_EXPORT_PERFETTO_INDEX_H
#define TK_EXPORT_PERFETTO_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct tk_pf_index {
    uint64_t *slots; /* a tag of the key (high half) and its index + 1 (low
                        half; 0: an empty slot): a probe reads the key only
                        when the tags match */
    uint64_t *keys;  /* by index */
    size_t n, cap, mask;
} tk_pf_index;

/* Zeroed is empty. */
void tk_pf_index_free(tk_pf_index *x);
/* The index of `key`, the next one (x->n before the call) when new, which
 * *added says; -1 when out of memory (nothing added). */
int64_t tk_pf_index_get(tk_pf_index *x, uint64_t key, int *added);

#endif
