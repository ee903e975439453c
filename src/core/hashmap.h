/* Small open-addressing hash maps used by the analyses: u64 keys, and
 * byte-string keys, each mapping to a fixed-size value block kept in
 * insertion order (so output is deterministic). */
#ifndef TK_CORE_HASHMAP_H
#define TK_CORE_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct tk_map {
    size_t value_size;
    size_t n, cap;          /* entries */
    size_t nslots;          /* power of two */
    uint64_t *slots;        /* entry index + 1 (low half; 0 = empty) and the
                               hash's high half: a probe reads the entry
                               only when they match */
    uint64_t *hashes;       /* per entry of string maps */
    uint64_t *ukeys;        /* u64 maps */
    char **skeys;           /* string maps (NUL-terminated copies) */
    size_t *skey_len;
    unsigned char *values;  /* n * value_size */
} tk_map;

/* value_size: bytes of zero-initialised value per key. */
void tk_map_init(tk_map *m, size_t value_size);
void tk_map_free(tk_map *m);
/* Value for the key, created zeroed if new; NULL on allocation failure. */
void *tk_map_u64(tk_map *m, uint64_t key);
void *tk_map_str(tk_map *m, const char *key, size_t len);
/* Value for the key, or NULL when absent (never creates). */
void *tk_map_find_u64(const tk_map *m, uint64_t key);
void *tk_map_find_str(const tk_map *m, const char *key, size_t len);
/* Entry i (0 <= i < m->n) in insertion order. */
static inline void *tk_map_value(const tk_map *m, size_t i)
{
    return m->values + i * m->value_size;
}

/* Recent string keys' entries, for tk_map_str_recent: a hot lookup among
 * a few keys (each record's type name, a new pointer into the trace) costs
 * a compare, not a hash of the key. Zeroed is empty. */
#define TK_MAP_RECENT 32
typedef struct tk_map_recent {
    size_t at[TK_MAP_RECENT]; /* entry index + 1 (0: none), by the key's
                                 length and first, middle and last bytes */
} tk_map_recent;
/* tk_map_str through `r`: the same value, created zeroed if new. */
void *tk_map_str_recent(tk_map *m, tk_map_recent *r, const char *key, size_t len);

uint64_t tk_hash_bytes(const void *p, size_t n);
uint64_t tk_hash_u64(uint64_t x);

#endif
