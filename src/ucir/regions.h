/* The mapped regions of a UCIR trace as a pass meets them: each MEM_MAP
 * a region, followed as disjoint spans of addresses through later maps
 * over part of it and unmaps (which split or trim its spans; the region
 * stays). Shared by the Perfetto counters (perfetto_code.c) and the HTML
 * report (html_collect.c), which count instructions and writes per
 * region. Memory is bounded: at most TK_UCIR_MAX_SPANS live spans. */
#ifndef TK_UCIR_REGIONS_H
#define TK_UCIR_REGIONS_H

#include <stddef.h>
#include <stdint.h>

#include <tracekit/error.h>

#include "ucir/addr_tree.h"

/* Live mapped spans followed; maps beyond are not (their addresses are
 * then in no region), so memory stays bounded. */
#define TK_UCIR_MAX_SPANS 65536u

/* A mapped span [lo, hi) and the MEM_MAP it comes from. */
typedef struct tk_ucir_span {
    uint64_t lo, hi;
    uint64_t map_addr, map_size;
    uint32_t id;           /* the user's slot for its region, 0: none yet */
    uint8_t prot;
    char label[39];        /* .uc: the map's file (base name) or desc */
} tk_ucir_span;

typedef struct tk_ucir_regions {
    tk_ucir_atree tree;    /* the spans by address (disjoint) */
    tk_ucir_span *spans;   /* by the tree's node ids */
    uint32_t hint;         /* the span last found, 0: none */
} tk_ucir_regions;

/* Empty (a zeroed struct is too); free what it holds. Cannot fail. */
void tk_ucir_regions_init(tk_ucir_regions *r);
void tk_ucir_regions_free(tk_ucir_regions *r);
/* A MEM_MAP (label: its .uc file or desc, may be empty; cut to fit) or a
 * MEM_UNMAP: TK_OK or TK_ENOMEM with `err`. */
tk_status tk_ucir_regions_map(tk_ucir_regions *r, uint64_t addr, uint64_t size, uint8_t prot,
                              const char *label, size_t label_len, tk_error *err);
tk_status tk_ucir_regions_unmap(tk_ucir_regions *r, uint64_t addr, uint64_t size,
                                tk_error *err);
/* The span holding addr, NULL: none. Valid until the next map or unmap.
 * Maps, unmaps and lookups cost O(log n) for n live spans. */
tk_ucir_span *tk_ucir_regions_find(tk_ucir_regions *r, uint64_t addr);
/* addr + size, or UINT64_MAX past the top of the address space. */
uint64_t tk_ucir_region_end(uint64_t addr, uint64_t size);

#endif
