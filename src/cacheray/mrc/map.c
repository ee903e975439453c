/* line -> u32 map for the stack distances: open addressing, linear
 * probing, deletion by backward shift (no tombstones, so a fixed-size
 * SHARDS sample that evicts forever keeps short probe runs). */
#include <stdlib.h>

#include "cacheray/mrc/mrc_int.h"
#include "core/hugemem.h"

static size_t home(const mrc_map *m, uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & (m->cap - 1);
}

int mrc_map_init(mrc_map *m, size_t cap)
{
    m->cap = cap;
    m->n = 0;
    m->key = tk_table_calloc(cap, sizeof *m->key);
    m->val = tk_table_calloc(cap, sizeof *m->val);
    if (!m->key || !m->val) {
        mrc_map_free(m);
        return -1;
    }
    return 0;
}

void mrc_map_free(mrc_map *m)
{
    tk_table_free(m->key, m->cap, sizeof *m->key);
    tk_table_free(m->val, m->cap, sizeof *m->val);
    m->key = NULL;
    m->val = NULL;
    m->cap = m->n = 0;
}

uint32_t *mrc_map_find(const mrc_map *m, uint64_t line)
{
    uint64_t k = line + 1;
    for (size_t i = home(m, k);; i = (i + 1) & (m->cap - 1)) {
        if (m->key[i] == k)
            return &m->val[i];
        if (m->key[i] == 0)
            return NULL;
    }
}

static int grow(mrc_map *m)
{
    mrc_map bigger;
    if (mrc_map_init(&bigger, m->cap * 2) != 0)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->key[i])
            continue;
        size_t j = home(&bigger, m->key[i]);
        while (bigger.key[j])
            j = (j + 1) & (bigger.cap - 1);
        bigger.key[j] = m->key[i];
        bigger.val[j] = m->val[i];
    }
    bigger.n = m->n;
    mrc_map_free(m);
    *m = bigger;
    return 0;
}

uint32_t *mrc_map_upsert(mrc_map *m, uint64_t line, uint32_t v, int *added)
{
    uint64_t k = line + 1;
    *added = 0;
    size_t i = home(m, k);
    for (; m->key[i]; i = (i + 1) & (m->cap - 1))
        if (m->key[i] == k)
            return &m->val[i];
    if ((m->n + 1) * 4 > m->cap * 3) { /* keep it at most 3/4 full */
        if (grow(m) != 0)
            return NULL;
        return mrc_map_upsert(m, line, v, added);
    }
    m->key[i] = k;
    m->val[i] = v;
    m->n++;
    *added = 1;
    return &m->val[i];
}

void mrc_map_remove(mrc_map *m, uint64_t line)
{
    uint64_t k = line + 1;
    size_t mask = m->cap - 1, i = home(m, k);
    while (m->key[i] != k) {
        if (!m->key[i])
            return;
        i = (i + 1) & mask;
    }
    /* shift back the entries whose probe run crosses the hole */
    for (size_t j = (i + 1) & mask; m->key[j]; j = (j + 1) & mask) {
        size_t h = home(m, m->key[j]);
        if (((j - h) & mask) >= ((j - i) & mask)) {
            m->key[i] = m->key[j];
            m->val[i] = m->val[j];
            i = j;
        }
    }
    m->key[i] = 0;
    m->n--;
}
