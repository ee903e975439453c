/* A hash table from line numbers (u64) to u32 values, with deletion:
 * open addressing, linear probing, backward-shift deletion (no
 * tombstones, so lookups stay short however much is deleted). Used for
 * fully associative sets, the lines the 3C shadows have seen and reuse
 * distances. */
#ifndef TK_CACHERAY_LINEMAP_H
#define TK_CACHERAY_LINEMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct tk_linemap {
    uint64_t *keys;   /* key + 1; 0 = empty slot */
    uint32_t *vals;
    size_t mask;      /* slots - 1 (a power of two) */
    size_t n;
    unsigned shift;   /* 64 - log2(slots) */
} tk_linemap;

/* Room for `expect` keys before the first growth. 0 ok, -1 out of memory. */
int tk_linemap_init(tk_linemap *m, size_t expect);
void tk_linemap_free(tk_linemap *m);
void tk_linemap_clear(tk_linemap *m);

static inline size_t tk_linemap_slot(const tk_linemap *m, uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> m->shift);
}

/* The value's address, or NULL when the key is absent. */
static inline uint32_t *tk_linemap_find(const tk_linemap *m, uint64_t key)
{
    uint64_t k = key + 1;
    for (size_t i = tk_linemap_slot(m, key);; i = (i + 1) & m->mask) {
        if (m->keys[i] == k)
            return &m->vals[i];
        if (m->keys[i] == 0)
            return NULL;
    }
}

/* Insert `key` (absent) with `val`. 0 ok, -1 out of memory. Pointers from
 * tk_linemap_find are invalid afterwards. */
int tk_linemap_insert(tk_linemap *m, uint64_t key, uint32_t val);
uint32_t *tk_linemap_upsert_slow(tk_linemap *m, uint64_t key, uint32_t val, int *added);

/* Find or insert (with value `val`): returns the value's address and sets
 * *added, or NULL when out of memory. One probe sequence. */
static inline uint32_t *tk_linemap_upsert(tk_linemap *m, uint64_t key, uint32_t val,
                                          int *added)
{
    uint64_t k = key + 1;
    size_t i = tk_linemap_slot(m, key);
    for (; m->keys[i]; i = (i + 1) & m->mask)
        if (m->keys[i] == k) {
            *added = 0;
            return &m->vals[i];
        }
    if ((m->n + 1) * 2 > m->mask + 1) /* time to grow */
        return tk_linemap_upsert_slow(m, key, val, added);
    m->keys[i] = k;
    m->vals[i] = val;
    m->n++;
    *added = 1;
    return &m->vals[i];
}
/* Remove `key` if present; returns 1 when it was. */
int tk_linemap_remove(tk_linemap *m, uint64_t key);

/* Iteration over slots: for (i = 0; i <= m->mask; i++) if (m->keys[i]) ...;
 * key = m->keys[i] - 1. */

#endif
