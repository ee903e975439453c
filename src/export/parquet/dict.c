/* The string dictionary (dict.h). */
#include "export/parquet/dict.h"

#include <stdlib.h>

void tk_pq_dict_free(tk_pq_dict *d)
{
    tk_pq_buf_free(&d->plain);
    free(d->offs);
    free(d->hashes);
    free(d->slots);
    memset(d, 0, sizeof *d);
}

void tk_pq_dict_reset(tk_pq_dict *d)
{
    d->plain.len = 0;
    d->plain.oom = 0;
    d->n = 0;
    d->last = 0;
    memset(d->seen, 0, sizeof d->seen);
    if (d->slots)
        memset(d->slots, 0, (size_t)d->nslots * sizeof *d->slots);
}

/* 8 bytes at a time, then a final mix: names and paths hash in a few ns. */
static uint32_t hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    uint64_t tail = 0;
    memcpy(&tail, p + i, n - i);
    h = (h ^ tail) * 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 29;
    return (uint32_t)h;
}

static int rehash(tk_pq_dict *d)
{
    uint32_t ns = d->nslots ? d->nslots * 2 : 1024;
    uint32_t *s = calloc(ns, sizeof *s);
    if (!s)
        return -1;
    for (uint32_t i = 0; i < d->n; i++) {
        uint32_t k = d->hashes[i] & (ns - 1);
        while (s[k])
            k = (k + 1) & (ns - 1);
        s[k] = i + 1;
    }
    free(d->slots);
    d->slots = s;
    d->nslots = ns;
    return 0;
}

static int grow_entries(tk_pq_dict *d)
{
    uint32_t cap = d->cap ? d->cap * 2 : 256;
    uint32_t *o = realloc(d->offs, (size_t)cap * sizeof *o);
    if (!o)
        return -1;
    d->offs = o;
    uint32_t *h = realloc(d->hashes, (size_t)cap * sizeof *h);
    if (!h)
        return -1;
    d->hashes = h;
    d->cap = cap;
    return 0;
}

static int64_t dict_find_or_add(tk_pq_dict *d, const void *p, size_t n)
{
    uint32_t h = hash(p, n);
    uint32_t k = 0;
    if (d->nslots) {
        for (k = h & (d->nslots - 1); d->slots[k]; k = (k + 1) & (d->nslots - 1)) {
            uint32_t i = d->slots[k] - 1;
            size_t len;
            const uint8_t *e = tk_pq_dict_entry(d, i, &len);
            if (d->hashes[i] == h && len == n && memcmp(e, p, n) == 0)
                return i;
        }
    }
    if (d->plain.len + 4 + n > UINT32_MAX || d->n == UINT32_MAX - 1)
        return -1;
    if ((d->n == d->cap && grow_entries(d) != 0))
        return -1;
    /* keep the table at most half full */
    if ((uint64_t)(d->n + 1) * 2 > d->nslots) {
        if (rehash(d) != 0)
            return -1;
        for (k = h & (d->nslots - 1); d->slots[k]; k = (k + 1) & (d->nslots - 1))
            ;
    }
    d->offs[d->n] = (uint32_t)d->plain.len;
    d->hashes[d->n] = h;
    tk_pq_buf_le32(&d->plain, (uint32_t)n);
    tk_pq_buf_put(&d->plain, p, n);
    if (d->plain.oom)
        return -1;
    d->slots[k] = d->n + 1;
    return d->n++;
}

static size_t seen_at(const tk_pq_dict *d, const void *p, size_t n)
{
    return ((uintptr_t)p >> 3 ^ n) & (sizeof d->seen / sizeof d->seen[0] - 1);
}

int64_t tk_pq_dict_known(tk_pq_dict *d, const void *p, size_t n)
{
    size_t len;
    if (d->last) { /* runs of one value (a record kind): no hashing */
        const uint8_t *e = tk_pq_dict_entry(d, d->last - 1, &len);
        if (len == n && memcmp(e, p, n) == 0)
            return d->last - 1;
    }
    size_t at = seen_at(d, p, n);
    if (d->seen[at].p == p && d->seen[at].n == n && d->seen[at].idx1) {
        const uint8_t *e = tk_pq_dict_entry(d, d->seen[at].idx1 - 1, &len);
        if (len == n && memcmp(e, p, n) == 0) {
            d->last = d->seen[at].idx1;
            return d->last - 1;
        }
    }
    return -1;
}

int64_t tk_pq_dict_add(tk_pq_dict *d, const void *p, size_t n)
{
    int64_t i = tk_pq_dict_known(d, p, n);
    if (i >= 0)
        return i;
    i = dict_find_or_add(d, p, n);
    d->last = i >= 0 ? (uint32_t)i + 1 : 0;
    if (i >= 0) {
        size_t at = seen_at(d, p, n);
        d->seen[at].p = p;
        d->seen[at].n = (uint32_t)n;
        d->seen[at].idx1 = (uint32_t)i + 1;
    }
    return i;
}
