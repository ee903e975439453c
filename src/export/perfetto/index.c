/* Thread ids to indexes (index.h). */
#include <stdlib.h>

#include "core/hashmap.h"
#include "export/perfetto/index.h"

static size_t slot_of(const tk_pf_index *x, uint64_t key)
{
    return (size_t)(tk_hash_u64(key >> 3) + (key & 7)) & x->mask;
}

/* The tag of a key: its bits folded (pid << 32 | tid keys: distinct for
 * the tids of a pid). */
static uint64_t tag_of(uint64_t key)
{
    return (key ^ key >> 32) << 32;
}

static void put(tk_pf_index *x, uint64_t key, size_t i)
{
    size_t j = slot_of(x, key);
    while (x->slots[j])
        j = (j + 1) & x->mask;
    x->slots[j] = tag_of(key) | (i + 1);
}

static int grow_slots(tk_pf_index *x)
{
    size_t nslots = x->slots ? (x->mask + 1) * 2 : 64;
    uint64_t *slots = nslots <= SIZE_MAX / 16 ? calloc(nslots, sizeof *slots) : NULL;
    if (!slots)
        return -1;
    free(x->slots);
    x->slots = slots;
    x->mask = nslots - 1;
    for (size_t i = 0; i < x->n; i++)
        put(x, x->keys[i], i);
    return 0;
}

void tk_pf_index_free(tk_pf_index *x)
{
    free(x->slots);
    free(x->keys);
    *x = (tk_pf_index){0};
}

int64_t tk_pf_index_get(tk_pf_index *x, uint64_t key, int *added)
{
    *added = 0;
    uint64_t tag = tag_of(key);
    for (size_t j = x->slots ? slot_of(x, key) : 0; x->slots && x->slots[j];
         j = (j + 1) & x->mask) {
        uint64_t e = x->slots[j];
        size_t i = (uint32_t)e - 1;
        if ((e & 0xffffffff00000000u) == tag && x->keys[i] == key)
            return (int64_t)i;
    }
    if (x->n == x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 16;
        uint64_t *k = cap < UINT32_MAX ? realloc(x->keys, cap * sizeof *k) : NULL;
        if (!k)
            return -1;
        x->keys = k;
        x->cap = cap;
    }
    if ((x->n + 1) * 2 > (x->slots ? x->mask + 1 : 0) && grow_slots(x) != 0)
        return -1;
    put(x, key, x->n);
    x->keys[x->n] = key;
    *added = 1;
    return (int64_t)x->n++;
}
