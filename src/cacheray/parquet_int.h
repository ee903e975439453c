/* Cacheray as Parquet tables (docs/formats/cacheray.md, "Parquet
 * tables"): the state one conversion keeps, shared by parquet.c (the pass
 * over the records, the accesses table) and parquet_regions.c (the live
 * RTTA regions and the regions table). */
#ifndef TK_CACHERAY_PARQUET_INT_H
#define TK_CACHERAY_PARQUET_INT_H

#include <stdint.h>

#include <tracekit/cacheray.h>

#include "cacheray/sim/sim_int.h"
#include "core/hashmap.h"
#include "core/id_index.h"
#include "export/parquet/tables.h"

#define TK_CRPQ_NONE UINT32_MAX
#define TK_CRPQ_SELECTED 0x80000000u /* in a slot's `thread`: its RTTA_ADD
                                        is selected, it gets a row */

/* What a live region's row needs, in 32 bytes: with the tree's 64, what a
 * live region costs (issue 23: at most 128 B). Its cs_region's `type`
 * holds the slot's index, so a lookup by address leads here. */
typedef struct tk_crpq_slot {
    uint64_t addr;
    uint64_t first;     /* a free slot: the next free one (TK_CRPQ_NONE ends) */
    uint32_t elemsize, elemcount;
    uint32_t name;      /* index in tk_crpq.names; TK_CRPQ_NONE: a free slot */
    uint32_t thread;    /* index in tk_crpq.threads, | TK_CRPQ_SELECTED */
} tk_crpq_slot;
_Static_assert(sizeof(tk_crpq_slot) == 32, "a live region's slot is 32 bytes");

typedef struct tk_crpq {
    tk_pq_table *accesses, *regions;
    /* the live regions: the simulator's interval tree (sim/regions.c,
     * the checker's rules), lookups O(log n) behind a per-page cache */
    cs_regions *live;
    tk_map names;               /* type name -> (nothing); index = id */
    tk_id_index threads;        /* the regions' threads: keys[i] is thread i */
    uint32_t last_thread;       /* the last RTTA_ADD's index in threads */
    tk_crpq_slot *slots;
    size_t nslots, slots_cap;
    uint32_t free_slot;         /* TK_CRPQ_NONE: none free */
    /* while a record ends regions: their rows' last index and end, and
     * the first failure writing them (the tree's callback cannot fail) */
    uint64_t end_idx;
    const char *end_why;
    tk_error *err;
    tk_status st;
} tk_crpq;

/* The slot of the live non-empty region holding `addr` (and addr's offset
 * in it), or NULL: outside every region. */
static inline const tk_crpq_slot *tk_crpq_locate(tk_crpq *c, uint64_t addr,
                                                 uint64_t *offset)
{
    const cs_region *r = cs_regions_find(c->live, addr);
    if (r == &cs_no_region)
        return NULL;
    *offset = addr - r->start;
    return &c->slots[r->type];
}

/* parquet_regions.c: declare the regions table; apply RTTA record `rec`
 * (index `idx`; `selected`: a row when it is an RTTA_ADD), writing the
 * rows of the regions it ends; at the end, the rows of those still live,
 * ended at `end` (the index after the last record read; no record
 * follows). */
tk_status tk_crpq_regions_init(tk_crpq *c, tk_pq_dir *d, tk_error *err);
tk_status tk_crpq_rtta(tk_crpq *c, const tk_cacheray_record *rec, uint64_t idx,
                       int selected, tk_error *err);
tk_status tk_crpq_regions_end(tk_crpq *c, uint64_t end, tk_error *err);
void tk_crpq_regions_free(tk_crpq *c);
/* parquet_sort.c: sort n slots by address (unique) in place, no memory
 * taken: at the trace end every live region is sorted at once. */
void tk_crpq_sort_slots(tk_crpq_slot *v, size_t n);

#endif
