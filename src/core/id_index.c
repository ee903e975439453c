/* Thread ids to indexes (id_index.h). */
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "core/id_index.h"

static size_t slot_of(const tk_id_index *x, uint64_t key)
{
    return (size_t)(tk_hash_u64(key >> 3) + (key & 7)) & x->mask;
}

/* The tag of a key: its bits folded (pid << 32 | tid keys: distinct for
 * the tids of a pid). */
static uint64_t tag_of(uint64_t key)
{
    return (key ^ key >> 32) << 32;
}

static void put(tk_id_index *x, uint64_t key, size_t i)
{
    size_t j = slot_of(x, key);
    while (x->slots[j])
        j = (j + 1) & x->mask;
    x->slots[j] = tag_of(key) | (i + 1);
}

static int grow_slots(tk_id_index *x)
{
    size_t nslots = x->slots ? (x->mask + 1) * 2 : 64;
    uint64_t *slots = nslots <= SIZE_MAX / 16 ? calloc(nslots, sizeof *slots) : NULL;
    if (!slots)
        return -1;
    free(x->slots);
    x->slots = slots;
    x->mask = nslots - 1;
    for (size_t i = 0; i < x->n; i++) /* those the direct table holds stay there */
        if (x->keys[i] >= x->ndirect || x->direct[x->keys[i]] != i + 1)
            put(x, x->keys[i], i);
    return 0;
}

void tk_id_index_free(tk_id_index *x)
{
    free(x->slots);
    free(x->keys);
    free(x->direct);
    *x = (tk_id_index){0};
}

/* Make the direct table cover `key` when it is small for the count (half
 * as much again as needed: amortized, ids in order); 0 when it does. */
static int cover(tk_id_index *x, uint64_t key)
{
    if (key >= 2 * (uint64_t)x->n + 64 || key >= UINT32_MAX)
        return -1;
    size_t nd = (size_t)key + 1 + (size_t)key / 2;
    nd = nd < 64 ? 64 : nd;
    uint32_t *d = realloc(x->direct, nd * sizeof *d);
    if (!d)
        return -1; /* the slots will do */
    memset(d + x->ndirect, 0, (nd - x->ndirect) * sizeof *d);
    x->direct = d;
    x->ndirect = nd;
    return 0;
}

/* The index of `key` in the slots, or -1. */
static int64_t find_slot(const tk_id_index *x, uint64_t key)
{
    uint64_t tag = tag_of(key);
    for (size_t j = x->slots ? slot_of(x, key) : 0; x->slots && x->slots[j];
         j = (j + 1) & x->mask) {
        uint64_t e = x->slots[j];
        size_t i = (uint32_t)e - 1;
        if ((e & 0xffffffff00000000u) == tag && x->keys[i] == key)
            return (int64_t)i;
    }
    return -1;
}

int64_t tk_id_index_get(tk_id_index *x, uint64_t key, int *added)
{
    *added = 0;
    if (key < x->ndirect && x->direct[key])
        return (int64_t)x->direct[key] - 1;
    int64_t found = find_slot(x, key); /* a key that came before the table covered it */
    if (found >= 0)
        return found;
    if (x->n == x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 16;
        uint64_t *k = cap < UINT32_MAX ? realloc(x->keys, cap * sizeof *k) : NULL;
        if (!k)
            return -1;
        x->keys = k;
        x->cap = cap;
    }
    if (key < x->ndirect || cover(x, key) == 0) {
        x->direct[key] = (uint32_t)(x->n + 1);
    } else {
        if ((x->n + 1) * 2 > (x->slots ? x->mask + 1 : 0) && grow_slots(x) != 0)
            return -1;
        put(x, key, x->n);
    }
    x->keys[x->n] = key;
    *added = 1;
    return (int64_t)x->n++;
}

int64_t tk_id_index_find(const tk_id_index *x, uint64_t key)
{
    if (key < x->ndirect && x->direct[key])
        return (int64_t)x->direct[key] - 1;
    return find_slot(x, key);
}
