/* Sets, replacement and invalidation of one cache (see cache.h). */
#include <stdlib.h>
#include <string.h>

#include "cacheray/sim/cache.h"
#include "core/hugemem.h"

#define NONE UINT32_MAX

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

int cs_cache_init(cs_cache *c, uint64_t nsets, uint32_t ways,
                  tk_cachesim_policy policy, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    c->nsets = nsets;
    c->pow2 = (nsets & (nsets - 1)) == 0;
    c->set_mask = nsets - 1;
    c->ways = ways;
    c->policy = policy;
    c->rng = seed;
    c->hashed = ways > CS_SCAN_WAYS;
    size_t slots = (size_t)(nsets * ways);
    c->e = tk_table_calloc(slots, sizeof *c->e);
    c->dirty = tk_table_calloc(slots, 1);
    if (!c->e || !c->dirty)
        goto oom;
    if (policy == TK_CACHESIM_PLRU) {
        c->tree_words = ways > 64 ? (ways - 1 + 63) / 64 : 1;
        c->tree = tk_table_calloc((size_t)nsets * c->tree_words, sizeof *c->tree);
        if (!c->tree)
            goto oom;
    }
    if (!c->hashed) {
        if (policy == TK_CACHESIM_LRU || policy == TK_CACHESIM_FIFO) {
            c->stamp = tk_table_calloc(slots, sizeof *c->stamp);
            if (!c->stamp)
                goto oom;
        }
        return 0;
    }
    c->vwords = (ways + 63) / 64;
    c->nvalid = tk_table_calloc((size_t)nsets, sizeof *c->nvalid);
    c->vbits = tk_table_calloc((size_t)nsets * c->vwords, sizeof *c->vbits);
    if (!c->nvalid || !c->vbits || tk_linemap_init(&c->map, slots) != 0)
        goto oom;
    if (policy == TK_CACHESIM_LRU || policy == TK_CACHESIM_FIFO) {
        c->prev = tk_table_calloc(slots, sizeof *c->prev);
        c->next = tk_table_calloc(slots, sizeof *c->next);
        c->head = tk_table_calloc((size_t)nsets, sizeof *c->head);
        c->tail = tk_table_calloc((size_t)nsets, sizeof *c->tail);
        if (!c->prev || !c->next || !c->head || !c->tail)
            goto oom;
        memset(c->head, 0xFF, (size_t)nsets * sizeof *c->head);
        memset(c->tail, 0xFF, (size_t)nsets * sizeof *c->tail);
    }
    return 0;
oom:
    cs_cache_free(c);
    return -1;
}

void cs_cache_free(cs_cache *c)
{
    size_t slots = (size_t)(c->nsets * c->ways), nsets = (size_t)c->nsets;
    tk_table_free(c->e, slots, sizeof *c->e);
    tk_table_free(c->dirty, slots, 1);
    tk_table_free(c->stamp, slots, sizeof *c->stamp);
    tk_table_free(c->tree, nsets * c->tree_words, sizeof *c->tree);
    tk_table_free(c->nvalid, nsets, sizeof *c->nvalid);
    tk_table_free(c->vbits, nsets * c->vwords, sizeof *c->vbits);
    tk_table_free(c->prev, slots, sizeof *c->prev);
    tk_table_free(c->next, slots, sizeof *c->next);
    tk_table_free(c->head, nsets, sizeof *c->head);
    tk_table_free(c->tail, nsets, sizeof *c->tail);
    tk_linemap_free(&c->map);
    memset(c, 0, sizeof *c);
}

/* ---- tree-PLRU: node n has children 2n+1 and 2n+2, way w is leaf
 * ways-1+w; a node's bit says which child holds the victim (1 = right). */

void cs_plru_touch(uint64_t *tree, uint32_t ways, uint32_t way)
{
    for (uint32_t node = ways - 1 + way; node > 0;) {
        uint32_t parent = (node - 1) / 2;
        if (node == 2 * parent + 1) /* left child used: victim on the right */
            tree[parent / 64] |= 1ULL << (parent % 64);
        else
            tree[parent / 64] &= ~(1ULL << (parent % 64));
        node = parent;
    }
}

static uint32_t plru_victim(const uint64_t *tree, uint32_t ways)
{
    uint32_t node = 0;
    while (node < ways - 1)
        node = 2 * node + 1 + (uint32_t)(tree[node / 64] >> (node % 64) & 1);
    return node - (ways - 1);
}

/* ---- hashed sets: LRU/FIFO lists (head = most recent / newest) */

static void list_unlink(cs_cache *c, uint64_t set, uint32_t slot)
{
    uint32_t p = c->prev[slot], n = c->next[slot];
    if (p == NONE)
        c->head[set] = n;
    else
        c->next[p] = n;
    if (n == NONE)
        c->tail[set] = p;
    else
        c->prev[n] = p;
}

static void list_push(cs_cache *c, uint64_t set, uint32_t slot)
{
    uint32_t h = c->head[set];
    c->prev[slot] = NONE;
    c->next[slot] = h;
    if (h == NONE)
        c->tail[set] = slot;
    else
        c->prev[h] = slot;
    c->head[set] = slot;
}

uint8_t *cs_hashed_hit(cs_cache *c, uint64_t line)
{
    uint32_t *v = tk_linemap_find(&c->map, line);
    if (!v)
        return NULL;
    uint32_t slot = *v;
    uint64_t set = slot / c->ways;
    switch (c->policy) {
    case TK_CACHESIM_LRU:
        if (c->head[set] != slot) {
            list_unlink(c, set, slot);
            list_push(c, set, slot);
        }
        break;
    case TK_CACHESIM_PLRU:
        cs_plru_touch(c->tree + set * c->tree_words, c->ways, (uint32_t)(slot - set * c->ways));
        break;
    default:
        break;
    }
    return &c->dirty[slot];
}

static uint32_t first_invalid_way(const cs_cache *c, uint64_t set)
{
    const uint64_t *b = c->vbits + set * c->vwords;
    for (uint32_t w = 0;; w++)
        if (~b[w])
            return w * 64 + (uint32_t)__builtin_ctzll(~b[w]);
}

static uint64_t hashed_insert(cs_cache *c, uint64_t line, int dirty, uint8_t **dirty_out)
{
    uint64_t set = cs_set_of(c, line);
    uint32_t way;
    if (c->nvalid[set] < c->ways)
        way = first_invalid_way(c, set);
    else if (c->policy == TK_CACHESIM_PLRU)
        way = plru_victim(c->tree + set * c->tree_words, c->ways);
    else if (c->policy == TK_CACHESIM_RANDOM)
        way = (uint32_t)(splitmix64(&c->rng) % c->ways);
    else
        way = (uint32_t)(c->tail[set] - set * c->ways);
    uint32_t slot = (uint32_t)(set * c->ways + way);
    uint64_t victim = c->e[slot] ? c->e[slot] | (uint64_t)c->dirty[slot] << 1 : 0;
    if (victim) {
        tk_linemap_remove(&c->map, victim >> 2);
        if (c->prev)
            list_unlink(c, set, slot);
    } else {
        c->vbits[set * c->vwords + way / 64] |= 1ULL << (way % 64);
        c->nvalid[set]++;
    }
    if (tk_linemap_insert(&c->map, line, slot) != 0)
        return UINT64_MAX;
    if (c->prev)
        list_push(c, set, slot);
    if (c->tree)
        cs_plru_touch(c->tree + set * c->tree_words, c->ways, way);
    c->e[slot] = line << 2 | CS_VALID;
    c->dirty[slot] = (uint8_t)dirty;
    *dirty_out = &c->dirty[slot];
    return victim;
}

uint64_t cs_insert(cs_cache *c, uint64_t line, int dirty, uint8_t **dirty_out)
{
    if (c->hashed)
        return hashed_insert(c, line, dirty, dirty_out);
    uint32_t ways = c->ways, way = 0;
    uint64_t set = cs_set_of(c, line);
    uint64_t *s = c->e + set * ways, victim;
    if (c->stamp) { /* LRU, FIFO */
        way = cs_oldest_way(c->stamp + set * ways, ways);
        c->stamp[set * ways + way] = ++c->clock;
    } else {
        while (way < ways && s[way])
            way++;
        if (way == ways)
            way = c->policy == TK_CACHESIM_PLRU
                      ? plru_victim(c->tree + set * c->tree_words, ways)
                      : (uint32_t)(splitmix64(&c->rng) % ways);
        if (c->tree)
            cs_plru_touch(c->tree + set * c->tree_words, ways, way);
    }
    uint8_t *d = c->dirty + set * ways + way;
    victim = s[way] ? s[way] | (uint64_t)*d << 1 : 0;
    s[way] = line << 2 | CS_VALID;
    *d = (uint8_t)dirty;
    *dirty_out = d;
    return victim;
}

uint64_t cs_invalidate(cs_cache *c, uint64_t line, size_t *slot_out)
{
    uint64_t set = cs_set_of(c, line);
    if (c->hashed) {
        uint32_t *v = tk_linemap_find(&c->map, line);
        if (!v)
            return 0;
        uint32_t slot = *v, way = (uint32_t)(slot - set * c->ways);
        uint64_t old = c->e[slot] | (uint64_t)c->dirty[slot] << 1;
        *slot_out = slot;
        tk_linemap_remove(&c->map, line);
        if (c->prev)
            list_unlink(c, set, slot);
        c->vbits[set * c->vwords + way / 64] &= ~(1ULL << (way % 64));
        c->nvalid[set]--;
        c->e[slot] = 0;
        c->dirty[slot] = 0;
        return old;
    }
    uint32_t ways = c->ways;
    uint64_t *s = c->e + set * ways, want = line << 2 | CS_VALID;
    for (uint32_t i = 0; i < ways; i++) {
        if (s[i] != want)
            continue;
        uint64_t old = s[i] | (uint64_t)c->dirty[set * ways + i] << 1;
        *slot_out = (size_t)(set * ways + i);
        s[i] = 0;
        c->dirty[set * ways + i] = 0;
        if (c->stamp)
            c->stamp[set * ways + i] = 0; /* the first to be filled again */
        return old;
    }
    return 0;
}
