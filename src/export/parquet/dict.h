/* A column chunk's dictionary of byte strings (Encodings.md, "Dictionary
 * Encoding"): each distinct value once, in first-seen order, kept already
 * PLAIN-encoded (4-byte length, bytes) so that it is the dictionary page's
 * body as is. Lookups hash into an open-addressing table of indices. */
#ifndef TK_EXPORT_PARQUET_DICT_H
#define TK_EXPORT_PARQUET_DICT_H

#include <stddef.h>
#include <stdint.h>

#include "export/parquet/pq_buf.h"

typedef struct tk_pq_dict {
    tk_pq_buf plain;   /* the entries, PLAIN-encoded */
    uint32_t *offs;    /* entry i at plain.p + offs[i] (its length field) */
    uint32_t *hashes;  /* entry i's hash */
    uint32_t n, cap;   /* entries */
    uint32_t *slots;   /* entry index + 1; 0 empty */
    uint32_t nslots;   /* power of two */
    uint32_t last;     /* entry index + 1 of the last lookup; 0 none */
    /* Where callers' values were found, by their address: callers pass
     * the same few addresses (a static name, a table's entry) again and
     * again, so an address and a memcmp usually spare hashing. */
    struct {
        const void *p;
        uint32_t n, idx1; /* idx1: entry index + 1; 0 none */
    } seen[64];
} tk_pq_dict;

void tk_pq_dict_free(tk_pq_dict *d);
/* Forget the entries, keep the memory (a new column chunk). */
void tk_pq_dict_reset(tk_pq_dict *d);
/* The index of (p, n) when it is cheap to find (the value looked up last,
 * or one found at address p before), else -1: no hashing, no adding. */
int64_t tk_pq_dict_known(tk_pq_dict *d, const void *p, size_t n);
/* The index of (p, n), added when new; -1 when out of memory or when the
 * dictionary would pass 4 GiB (the caller falls back to PLAIN before). */
int64_t tk_pq_dict_add(tk_pq_dict *d, const void *p, size_t n);

static inline const uint8_t *tk_pq_dict_entry(const tk_pq_dict *d, uint32_t i, size_t *len)
{
    const uint8_t *e = d->plain.p + d->offs[i];
    *len = (size_t)e[0] | (size_t)e[1] << 8 | (size_t)e[2] << 16 | (size_t)e[3] << 24;
    return e + 4;
}

#endif
