/* The iteration order of LLVM's DenseMap for 32-bit keys, so outputs that
 * llvm-xray prints in hash order come out in the same order here. */
#ifndef TK_XRAY_LLVM_DENSEMAP_H
#define TK_XRAY_LLVM_DENSEMAP_H

#include <stddef.h>
#include <stdint.h>

/* Keys only (int and unsigned keys both hash as key * 37). */
typedef struct tk_densemap {
    uint32_t *keys;
    unsigned char *state; /* 0 empty, 1 full, 2 tombstone */
    size_t nbuckets, entries, tombstones;
    int oom;
} tk_densemap;

void tk_densemap_free(tk_densemap *m);
/* operator[]: insert if absent. */
void tk_densemap_insert(tk_densemap *m, uint32_t key);
void tk_densemap_erase(tk_densemap *m, uint32_t key);
int tk_densemap_contains(const tk_densemap *m, uint32_t key);
/* Keys in iteration order into `out` (m->entries of them). */
size_t tk_densemap_keys(const tk_densemap *m, uint32_t *out);

#endif
