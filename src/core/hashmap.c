/* Open-addressing hash maps with linear probing. */
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"

uint64_t tk_hash_u64(uint64_t x)
{
    x ^= x >> 33; /* murmur3 finaliser */
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

uint64_t tk_hash_bytes(const void *p, size_t n)
{
    const unsigned char *s = p; /* FNV-1a, then mixed */
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ULL;
    return tk_hash_u64(h);
}

void tk_map_init(tk_map *m, size_t value_size)
{
    memset(m, 0, sizeof *m);
    m->value_size = value_size ? value_size : 1;
}

void tk_map_free(tk_map *m)
{
    if (m->skeys)
        for (size_t i = 0; i < m->n; i++)
            free(m->skeys[i]);
    free(m->slots);
    free(m->hashes);
    free(m->ukeys);
    free(m->skeys);
    free(m->skey_len);
    free(m->values);
    memset(m, 0, sizeof *m);
}

/* A slot: entry i (0-based) with the hash's high half as its tag. */
static uint64_t slot_of(size_t i, uint64_t h) { return (h & 0xffffffff00000000u) | (i + 1); }

static int rehash(tk_map *m)
{
    size_t nslots = m->nslots ? m->nslots * 2 : 64;
    uint64_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < m->n; i++) {
        uint64_t h = m->skeys ? m->hashes[i] : tk_hash_u64(m->ukeys[i]);
        size_t s = h & (nslots - 1);
        while (slots[s])
            s = (s + 1) & (nslots - 1);
        slots[s] = slot_of(i, h);
    }
    free(m->slots);
    m->slots = slots;
    m->nslots = nslots;
    return 0;
}

/* Entries of u64 maps keep no hash (it is cheap to recompute from the key
 * on rehash): 8 bytes less per entry of maps of a million threads. */
static int grow_entries(tk_map *m, int strings)
{
    size_t cap = m->cap ? m->cap * 2 : 16;
    if (cap >= UINT32_MAX) /* a slot holds the entry's index in 32 bits */
        return -1;
    if (strings) {
        uint64_t *hashes = realloc(m->hashes, cap * sizeof *hashes);
        if (!hashes)
            return -1;
        m->hashes = hashes;
    }
    unsigned char *values = realloc(m->values, cap * m->value_size);
    if (!values)
        return -1;
    m->values = values;
    if (strings) {
        char **skeys = realloc(m->skeys, cap * sizeof *skeys);
        if (!skeys)
            return -1;
        m->skeys = skeys;
        size_t *lens = realloc(m->skey_len, cap * sizeof *lens);
        if (!lens)
            return -1;
        m->skey_len = lens;
    } else {
        uint64_t *ukeys = realloc(m->ukeys, cap * sizeof *ukeys);
        if (!ukeys)
            return -1;
        m->ukeys = ukeys;
    }
    m->cap = cap;
    return 0;
}

/* Find the slot for a key, or the empty slot where it would go. */
static void *lookup(tk_map *m, uint64_t h, uint64_t ukey, const char *skey,
                    size_t len)
{
    if ((m->n + 1) * 4 > m->nslots * 3 && rehash(m) != 0)
        return NULL;
    size_t s = h & (m->nslots - 1);
    const uint64_t tag = h & 0xffffffff00000000u;
    for (;;) {
        uint64_t e = m->slots[s];
        if (!e)
            break;
        size_t i = (uint32_t)e - 1;
        if ((e & 0xffffffff00000000u) == tag &&
            (skey ? m->hashes[i] == h && m->skey_len[i] == len &&
                        memcmp(m->skeys[i], skey, len) == 0
                  : m->ukeys[i] == ukey))
            return tk_map_value(m, i);
        s = (s + 1) & (m->nslots - 1);
    }
    if (m->n == m->cap && grow_entries(m, skey != NULL) != 0)
        return NULL;
    size_t i = m->n;
    if (skey) {
        char *copy = malloc(len + 1);
        if (!copy)
            return NULL;
        memcpy(copy, skey, len);
        copy[len] = '\0';
        m->skeys[i] = copy;
        m->skey_len[i] = len;
        m->hashes[i] = h;
    } else {
        m->ukeys[i] = ukey;
    }
    memset(tk_map_value(m, i), 0, m->value_size);
    m->slots[s] = slot_of(i, h);
    m->n++;
    return tk_map_value(m, i);
}

void *tk_map_u64(tk_map *m, uint64_t key)
{
    return lookup(m, tk_hash_u64(key), key, NULL, 0);
}

void *tk_map_find_u64(const tk_map *m, uint64_t key)
{
    if (!m->nslots)
        return NULL;
    uint64_t h = tk_hash_u64(key);
    for (size_t s = h & (m->nslots - 1);; s = (s + 1) & (m->nslots - 1)) {
        uint64_t e = m->slots[s];
        if (!e)
            return NULL;
        size_t i = (uint32_t)e - 1;
        if ((e ^ h) >> 32 == 0 && m->ukeys[i] == key)
            return tk_map_value(m, i);
    }
}

void *tk_map_find_str(const tk_map *m, const char *key, size_t len)
{
    if (!m->nslots)
        return NULL;
    uint64_t h = tk_hash_bytes(key, len);
    for (size_t s = h & (m->nslots - 1);; s = (s + 1) & (m->nslots - 1)) {
        uint64_t e = m->slots[s];
        if (!e)
            return NULL;
        size_t i = (uint32_t)e - 1;
        if ((e ^ h) >> 32 == 0 && m->hashes[i] == h && m->skey_len[i] == len &&
            memcmp(m->skeys[i], key, len) == 0)
            return tk_map_value(m, i);
    }
}

void *tk_map_str(tk_map *m, const char *key, size_t len)
{
    return lookup(m, tk_hash_bytes(key, len), 0, key ? key : "", len);
}

void *tk_map_str_recent(tk_map *m, tk_map_recent *r, const char *key, size_t len)
{
    const unsigned char *u = (const unsigned char *)key;
    uint32_t h = (uint32_t)len * 0x9E3779B1u;
    if (len)
        h ^= (uint32_t)u[0] | (uint32_t)u[len / 2] << 8 | (uint32_t)u[len - 1] << 16;
    size_t k = (h * 0x9E3779B1u) >> 27; /* TK_MAP_RECENT (32) slots */
    size_t i = r->at[k];
    if (i && m->skey_len[i - 1] == len && (len == 0 || memcmp(m->skeys[i - 1], key, len) == 0))
        return tk_map_value(m, i - 1);
    unsigned char *v = tk_map_str(m, key, len);
    if (v)
        r->at[k] = (size_t)(v - m->values) / m->value_size + 1;
    return v;
}
