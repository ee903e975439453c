/* u64 -> u64 hash map for the checker. The core map (core/hashmap.h) keeps
 * values in insertion order and cannot delete; the model needs deletion
 * (pages freed, locks released, roots released) with flat memory, so this
 * one uses backward-shift deletion. */
#include <stdlib.h>

#include "casemate/check/check_int.h"
#include "core/hashmap.h"

static size_t home(const cm_map *m, uint64_t key)
{
    return (size_t)tk_hash_u64(key) & (m->cap - 1);
}

uint64_t *cm_map_find(const cm_map *m, uint64_t key)
{
    if (!m->n)
        return NULL;
    for (size_t i = home(m, key);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i])
            return NULL;
        if (m->keys[i] == key)
            return &m->vals[i];
    }
}

static int grow(cm_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 16;
    uint64_t *keys = malloc(cap * sizeof *keys), *vals = malloc(cap * sizeof *vals);
    uint8_t *used = calloc(cap, 1);
    if (!keys || !vals || !used) {
        free(keys);
        free(vals);
        free(used);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->used[i])
            continue;
        size_t j = (size_t)tk_hash_u64(m->keys[i]) & (cap - 1);
        while (used[j])
            j = (j + 1) & (cap - 1);
        used[j] = 1;
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    free(m->used);
    m->keys = keys;
    m->vals = vals;
    m->used = used;
    m->cap = cap;
    return 0;
}

int cm_map_put(cm_map *m, uint64_t key, uint64_t val)
{
    uint64_t *v = cm_map_find(m, key);
    if (v) {
        *v = val;
        return 0;
    }
    if ((m->n + 1) * 4 > m->cap * 3 && grow(m) != 0)
        return -1;
    size_t i = home(m, key);
    while (m->used[i])
        i = (i + 1) & (m->cap - 1);
    m->used[i] = 1;
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    return 0;
}

void cm_map_del(cm_map *m, uint64_t key)
{
    if (!m->n)
        return;
    size_t i = home(m, key);
    for (;; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i])
            return;
        if (m->keys[i] == key)
            break;
    }
    /* shift later members of the probe run back into the hole */
    size_t hole = i;
    for (size_t j = (i + 1) & (m->cap - 1); m->used[j]; j = (j + 1) & (m->cap - 1)) {
        size_t h = home(m, m->keys[j]);
        /* j may move to the hole unless its home lies in (hole, j] */
        int stays = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j);
        if (stays)
            continue;
        m->keys[hole] = m->keys[j];
        m->vals[hole] = m->vals[j];
        hole = j;
    }
    m->used[hole] = 0;
    m->n--;
}

void cm_map_free(cm_map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    m->keys = m->vals = NULL;
    m->used = NULL;
    m->cap = m->n = 0;
}
