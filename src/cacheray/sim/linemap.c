/* Line-number hash table: linear probing with backward-shift deletion. */
#include <stdlib.h>
#include <string.h>

#include "cacheray/sim/linemap.h"
#include "core/hugemem.h"

static void free_slots(uint64_t *keys, uint32_t *vals, size_t slots)
{
    tk_table_free(keys, slots, sizeof *keys);
    tk_table_free(vals, slots, sizeof *vals);
}

static int alloc_slots(tk_linemap *m, size_t slots)
{
    m->keys = tk_table_calloc(slots, sizeof *m->keys);
    m->vals = tk_table_calloc(slots, sizeof *m->vals);
    if (!m->keys || !m->vals) {
        free_slots(m->keys, m->vals, slots);
        m->keys = NULL;
        m->vals = NULL;
        return -1;
    }
    m->mask = slots - 1;
    m->shift = 64;
    for (size_t s = slots; s > 1; s >>= 1)
        m->shift--;
    return 0;
}

int tk_linemap_init(tk_linemap *m, size_t expect)
{
    memset(m, 0, sizeof *m);
    size_t slots = 16;
    while (slots < expect * 2) /* at most half full */
        slots *= 2;
    return alloc_slots(m, slots);
}

void tk_linemap_free(tk_linemap *m)
{
    free_slots(m->keys, m->vals, m->mask + 1);
    memset(m, 0, sizeof *m);
}

void tk_linemap_clear(tk_linemap *m)
{
    memset(m->keys, 0, (m->mask + 1) * sizeof *m->keys);
    m->n = 0;
}

static void place(tk_linemap *m, uint64_t k, uint32_t val)
{
    size_t i = tk_linemap_slot(m, k - 1);
    while (m->keys[i])
        i = (i + 1) & m->mask;
    m->keys[i] = k;
    m->vals[i] = val;
}

static int grow(tk_linemap *m)
{
    tk_linemap old = *m;
    if (alloc_slots(m, (old.mask + 1) * 2) != 0) {
        *m = old;
        return -1;
    }
    for (size_t i = 0; i <= old.mask; i++)
        if (old.keys[i])
            place(m, old.keys[i], old.vals[i]);
    free_slots(old.keys, old.vals, old.mask + 1);
    return 0;
}

int tk_linemap_insert(tk_linemap *m, uint64_t key, uint32_t val)
{
    if ((m->n + 1) * 2 > m->mask + 1 && grow(m) != 0)
        return -1;
    place(m, key + 1, val);
    m->n++;
    return 0;
}

uint32_t *tk_linemap_upsert_slow(tk_linemap *m, uint64_t key, uint32_t val, int *added)
{
    uint32_t *v = tk_linemap_find(m, key);
    *added = v == NULL;
    if (v)
        return v;
    if (tk_linemap_insert(m, key, val) != 0)
        return NULL;
    return tk_linemap_find(m, key);
}

int tk_linemap_remove(tk_linemap *m, uint64_t key)
{
    uint64_t k = key + 1;
    size_t i = tk_linemap_slot(m, key);
    while (m->keys[i] != k) {
        if (m->keys[i] == 0)
            return 0;
        i = (i + 1) & m->mask;
    }
    /* Shift later members of the probe run back into the hole when their
     * home slot does not lie cyclically in (hole, j]. */
    size_t hole = i;
    for (size_t j = (i + 1) & m->mask; m->keys[j]; j = (j + 1) & m->mask) {
        size_t home = tk_linemap_slot(m, m->keys[j] - 1);
        int stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!stays) {
            m->keys[hole] = m->keys[j];
            m->vals[hole] = m->vals[j];
            hole = j;
        }
    }
    m->keys[hole] = 0;
    m->n--;
    return 1;
}
