/* LLVM DenseMap's bucket layout, emulated for ordering only: 64 buckets to
 * start, quadratic probing from hash & mask, growth to twice the buckets at
 * 3/4 load (or a same-size rehash when tombstones fill all but 1/8), and
 * rehashing in old bucket order. */
#include <stdlib.h>
#include <string.h>

#include "xray/analysis/llvm_densemap.h"

enum { EMPTY, FULL, TOMB };

void tk_densemap_free(tk_densemap *m)
{
    free(m->keys);
    free(m->state);
    memset(m, 0, sizeof *m);
}

/* llvm::detail::combineHashValue (llvm/ADT/DenseMapInfo.h). */
uint32_t tk_densemap_pair_hash(uint32_t first, uint32_t second)
{
    uint64_t key = (uint64_t)(first * 37u) << 32 | (uint64_t)(second * 37u);
    key += ~(key << 32);
    key ^= (key >> 22);
    key += ~(key << 13);
    key ^= (key >> 8);
    key += (key << 3);
    key ^= (key >> 15);
    key += ~(key << 27);
    key ^= (key >> 31);
    return (uint32_t)key;
}

static uint32_t hash_of(const tk_densemap *m, uint64_t key)
{
    if (m->pairs)
        return tk_densemap_pair_hash((uint32_t)(key >> 32), (uint32_t)key);
    return (uint32_t)key * 37u;
}

/* The bucket holding `key`, or where it would go; -1 without buckets. */
static long lookup(const tk_densemap *m, uint64_t key, int *found)
{
    *found = 0;
    if (!m->nbuckets)
        return -1;
    size_t mask = m->nbuckets - 1, b = hash_of(m, key) & mask, probe = 1;
    long tomb = -1;
    for (;;) {
        if (m->state[b] == FULL && m->keys[b] == key) {
            *found = 1;
            return (long)b;
        }
        if (m->state[b] == EMPTY)
            return tomb >= 0 ? tomb : (long)b;
        if (m->state[b] == TOMB && tomb < 0)
            tomb = (long)b;
        b = (b + probe++) & mask;
    }
}

static void grow(tk_densemap *m, size_t at_least)
{
    size_t n = 64;
    while (n < at_least)
        n *= 2;
    uint64_t *keys = calloc(n, sizeof *keys);
    unsigned char *state = calloc(n, 1);
    if (!keys || !state) {
        free(keys);
        free(state);
        m->oom = 1;
        return;
    }
    tk_densemap old = *m;
    m->keys = keys;
    m->state = state;
    m->nbuckets = n;
    m->entries = m->tombstones = 0;
    for (size_t i = 0; i < old.nbuckets; i++)
        if (old.state[i] == FULL) {
            int found;
            long b = lookup(m, old.keys[i], &found);
            m->state[b] = FULL;
            m->keys[b] = old.keys[i];
            m->entries++;
        }
    free(old.keys);
    free(old.state);
}

static void insert(tk_densemap *m, uint64_t key)
{
    int found;
    long b = lookup(m, key, &found);
    if (found || m->oom)
        return;
    size_t want = m->entries + 1;
    if (want * 4 >= m->nbuckets * 3)
        grow(m, m->nbuckets * 2);
    else if (m->nbuckets - (want + m->tombstones) <= m->nbuckets / 8)
        grow(m, m->nbuckets);
    if (m->oom)
        return;
    b = lookup(m, key, &found);
    if (m->state[b] == TOMB)
        m->tombstones--;
    m->state[b] = FULL;
    m->keys[b] = key;
    m->entries++;
}

void tk_densemap_insert(tk_densemap *m, uint32_t key) { insert(m, key); }

void tk_densemap_erase(tk_densemap *m, uint32_t key)
{
    int found;
    long b = lookup(m, key, &found);
    if (!found)
        return;
    m->state[b] = TOMB;
    m->entries--;
    m->tombstones++;
}

int tk_densemap_contains(const tk_densemap *m, uint32_t key)
{
    int found;
    lookup(m, key, &found);
    return found;
}

size_t tk_densemap_keys(const tk_densemap *m, uint32_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nbuckets; i++)
        if (m->state[i] == FULL)
            out[n++] = (uint32_t)m->keys[i];
    return n;
}

void tk_densemap_pair_insert(tk_densemap *m, uint32_t first, uint32_t second)
{
    m->pairs = 1;
    insert(m, (uint64_t)first << 32 | second);
}

int tk_densemap_pair_contains(const tk_densemap *m, uint32_t first, uint32_t second)
{
    if (!m->pairs && m->nbuckets)
        return 0;
    int found;
    lookup(m, (uint64_t)first << 32 | second, &found);
    return found;
}

size_t tk_densemap_pair_keys(const tk_densemap *m, uint64_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nbuckets; i++)
        if (m->state[i] == FULL)
            out[n++] = m->keys[i];
    return n;
}
