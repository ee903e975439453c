/* The iteration order of LLVM's DenseMap for 32-bit keys and for pairs of
 * 32-bit keys, so outputs that llvm-xray prints in hash order come out in
 * the same order here. */
#ifndef TK_XRAY_LLVM_DENSEMAP_H
#define TK_XRAY_LLVM_DENSEMAP_H

#include <stddef.h>
#include <stdint.h>

/* Keys only (int and unsigned keys both hash as key * 37). Zero-initialise
 * ({0}) to start empty. */
typedef struct tk_densemap {
    uint64_t *keys;
    unsigned char *state; /* 0 empty, 1 full, 2 tombstone */
    size_t nbuckets, entries, tombstones;
    int oom;
    int pairs; /* keys are (first << 32 | second) pairs (set by _pair_) */
    /* Keys that stand for strings (DenseMap<StringRef>): each key is an
     * index into this table of the strings' hashes (tk_densemap_str_hash),
     * set before the first insert; distinct strings, distinct keys. */
    const uint32_t *hashes;
} tk_densemap;

void tk_densemap_free(tk_densemap *m);
/* operator[]: insert if absent. */
void tk_densemap_insert(tk_densemap *m, uint32_t key);
void tk_densemap_erase(tk_densemap *m, uint32_t key);
int tk_densemap_contains(const tk_densemap *m, uint32_t key);
/* Keys in iteration order into `out` (m->entries of them). */
size_t tk_densemap_keys(const tk_densemap *m, uint32_t *out);

/* DenseMap<std::pair<int32_t, int32_t>, ...> (or unsigned halves): the
 * pair hashes as combineHashValue(first * 37, second * 37). A map is used
 * either with the functions above or with these, never both. */
uint32_t tk_densemap_pair_hash(uint32_t first, uint32_t second);
void tk_densemap_pair_insert(tk_densemap *m, uint32_t first, uint32_t second);
int tk_densemap_pair_contains(const tk_densemap *m, uint32_t first, uint32_t second);
/* Pairs in iteration order into `out` as first << 32 | second. */
size_t tk_densemap_pair_keys(const tk_densemap *m, uint64_t *out);

/* DenseMapInfo<StringRef>::getHashValue: llvm::hash_value of the bytes
 * (llvm/ADT/Hashing.h, LLVM 14's fixed seed), truncated to 32 bits. */
uint32_t tk_densemap_str_hash(const char *s, size_t n);

#endif
