/* drcov's modules (export.c): executable maps as they were when a block
 * first ran in them, numbered in the order they were added. An address
 * belongs to the first module added that holds it, even when a later
 * map, and so a later module, covers it too. Lookups and adds cost
 * O(log n) amortized whatever the overlaps (a list scanned per block was
 * quadratic): the covered addresses are kept as disjoint segments, each
 * owned by the first module holding it, and as their union, whose
 * intervals an add merges, each visited once. Bounds are inclusive. */
#ifndef TK_UCIR_MODULES_H
#define TK_UCIR_MODULES_H

#include <stdint.h>

#include "ucir/addr_tree.h"

typedef struct tk_ucir_owned {
    uint64_t last;            /* the segment is [key, last] */
    uint32_t mod;
} tk_ucir_owned;

typedef struct tk_ucir_modules {
    tk_ucir_atree own;        /* segments by address */
    tk_ucir_owned *owned;     /* by own's node ids */
    tk_ucir_atree cover;      /* the union of the modules: [key, last] */
    uint64_t *cover_last;     /* by cover's node ids */
    uint64_t visits;          /* union intervals visited by adds, at most
                                 one per add in all (tests count them) */
} tk_ucir_modules;

/* A zeroed struct is empty; free what it holds. */
void tk_ucir_modules_free(tk_ucir_modules *m);
/* The first module added that holds addr, -1: none. */
int64_t tk_ucir_modules_find(tk_ucir_modules *m, uint64_t addr);
/* Module mod (the highest so far) holds [lo, last]: 0, or -1 out of
 * memory (the modules are then incomplete: give up). */
int tk_ucir_modules_add(tk_ucir_modules *m, uint64_t lo, uint64_t last, uint32_t mod);

#endif
