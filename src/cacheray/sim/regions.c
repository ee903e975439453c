/* Live RTTA regions for the simulator: region_tree.c's tree (the
 * checker's rules: a region ends at its RTTA_REMOVE, or when an RTTA_ADD
 * overlaps it or starts where it starts) behind a cache of intervals, one
 * per 4 KiB page, for point lookups (sim_int.h). */
#include <stdlib.h>

#include "cacheray/sim/sim_int.h"
#include "core/hugemem.h"

const cs_region cs_no_region = {.start = 1, .last = 0, .type = 0};

struct cs_regions {
    cs_region_pages pc;     /* first: cs_regions_find reads it inline */
    tk_cr_regions *live;
    cs_region_end_fn on_end;
    void *ctx;
};

/* Empty slot i: a byte of page i + 1, which maps to another slot. */
static void clear_slot(cs_regions *g, size_t i)
{
    g->pc.page[i].lo = (uint64_t)((i + 1) & (CS_REGION_PAGES - 1)) << CS_REGION_PAGE_SHIFT;
    g->pc.page[i].span = 0;
    g->pc.page[i].r = &cs_no_region;
    g->pc.page[i].type = 0;
}

static void clear_all(cs_regions *g)
{
    for (size_t i = 0; i < CS_REGION_PAGES; i++)
        clear_slot(g, i);
}

cs_regions *cs_regions_new(cs_region_end_fn on_end, void *ctx)
{
    cs_regions *g = tk_table_calloc(1, sizeof *g); /* cache-line aligned: a slot in one line */
    if (!g)
        return NULL;
    if (!(g->live = tk_cr_regions_new())) {
        tk_table_free(g, 1, sizeof *g);
        return NULL;
    }
    g->on_end = on_end;
    g->ctx = ctx;
    clear_all(g);
    return g;
}

void cs_regions_free(cs_regions *g)
{
    if (!g)
        return;
    tk_cr_regions_free(g->live);
    tk_table_free(g, 1, sizeof *g);
}

/* The cached intervals overlapping [start, last] are no longer known.
 * Only those: programs allocate and free all the time, and forgetting
 * every page each time cost a tree lookup per page touched afterwards. */
static void forget(cs_regions *g, uint64_t start, uint64_t last)
{
    uint64_t page = start >> CS_REGION_PAGE_SHIFT, end = last >> CS_REGION_PAGE_SHIFT;
    if (end - page >= CS_REGION_PAGES) {
        clear_all(g);
        return;
    }
    for (;; page++) {
        size_t i = page & (CS_REGION_PAGES - 1);
        const cs_region_slot *sl = &g->pc.page[i];
        if (sl->lo <= last && sl->lo + sl->span >= start)
            clear_slot(g, i);
        if (page == end)
            return;
    }
}

/* tk_cr_regions' callback: the region's pages are no longer known. */
static void ended(void *ctx, tk_cr_region *r)
{
    cs_regions *g = ctx;
    forget(g, r->start, r->last);
    g->on_end(g->ctx, r);
}

cs_region *cs_regions_add(cs_regions *g, uint64_t start, uint64_t bytes)
{
    cs_region *r = tk_cr_regions_add(g->live, start, bytes, ended, g);
    if (r)
        forget(g, start, r->last);
    return r;
}

int cs_regions_remove(cs_regions *g, uint64_t start)
{
    return tk_cr_regions_remove(g->live, start, ended, g);
}

/* cs_regions_find when the page's slot does not hold the address: the
 * tree, then the slot remembers the answer's whole interval (the region,
 * or the gap between the live regions around it: every address in it has
 * the same answer). Not cut at the page: a region of many pages is found
 * from any slot one of its pages last filled, where traffic over more
 * pages than slots went to the tree at nearly every access. Still exact:
 * an address in a region that comes or goes maps to a slot of one of its
 * pages, which forget clears when its interval overlaps. */
const cs_region *cs_regions_lookup(cs_regions *g, uint64_t addr)
{
    /* the nearest live regions starting at or before addr, and after it
     * (live regions are disjoint and not empty) */
    const cs_region *after, *best = tk_cr_regions_around(g->live, addr, &after);
    const cs_region *r = best && addr <= best->last ? best : &cs_no_region;
    uint64_t lo, hi;
    if (r != &cs_no_region) {
        lo = r->start;
        hi = r->last;
    } else {
        lo = best ? best->last + 1 : 0; /* best ends before addr */
        hi = after ? after->start - 1 : UINT64_MAX;
    }
    cs_region_slot *sl = &g->pc.page[(addr >> CS_REGION_PAGE_SHIFT) & (CS_REGION_PAGES - 1)];
    sl->lo = lo;
    sl->span = hi - lo;
    sl->r = r;
    sl->type = r->type;
    return r;
}
