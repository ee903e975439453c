/* Live RTTA regions for the simulator: disjoint non-empty intervals in a
 * red-black tree, empty regions (elemsize or elemcount 0) in a second tree
 * by start. Point lookups go through a cache of intervals, one per 4 KiB
 * page (sim_int.h). The rules
 * are the checker's (check.c): a region ends at its RTTA_REMOVE, or when
 * an RTTA_ADD overlaps it or starts where it starts. */
#include <stdlib.h>

/* libbsd leaves __unused undefined (Debian #522773) but tree.h uses it. */
#define __unused __attribute__((unused))
#include <bsd/sys/tree.h>

#include "cacheray/sim/sim_int.h"
#include "core/hugemem.h"

typedef struct node {
    RB_ENTRY(node) link;
    cs_region r;
} node;

static int node_cmp(const node *a, const node *b)
{
    return a->r.start < b->r.start ? -1 : a->r.start > b->r.start;
}

RB_HEAD(node_tree, node);
RB_GENERATE_STATIC(node_tree, node, link, node_cmp)
#undef __unused

const cs_region cs_no_region = {.start = 1, .last = 0, .type = 0};

struct cs_regions {
    cs_region_pages pc;     /* first: cs_regions_find reads it inline */
    struct node_tree live, empty;
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
    RB_INIT(&g->live);
    RB_INIT(&g->empty);
    g->on_end = on_end;
    g->ctx = ctx;
    clear_all(g);
    return g;
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

static void drop(cs_regions *g, struct node_tree *t, node *n, int report)
{
    forget(g, n->r.start, n->r.last);
    RB_REMOVE(node_tree, t, n);
    if (report)
        g->on_end(g->ctx, &n->r);
    free(n);
}

static void drop_all(cs_regions *g, struct node_tree *t)
{
    node *n, *next;
    for (n = RB_MIN(node_tree, t); n; n = next) {
        next = RB_NEXT(node_tree, t, n);
        drop(g, t, n, 0);
    }
}

void cs_regions_free(cs_regions *g)
{
    if (!g)
        return;
    drop_all(g, &g->live);
    drop_all(g, &g->empty);
    tk_table_free(g, 1, sizeof *g);
}

/* End the live regions overlapping [start, last]. */
static void end_overlapping(cs_regions *g, uint64_t start, uint64_t last)
{
    node key = {.r.start = start};
    node *n = RB_NFIND(node_tree, &g->live, &key);
    node *prev = n ? RB_PREV(node_tree, &g->live, n) : RB_MAX(node_tree, &g->live);
    if (prev && prev->r.last >= start)
        drop(g, &g->live, prev, 1);
    while (n && n->r.start <= last) {
        node *next = RB_NEXT(node_tree, &g->live, n);
        drop(g, &g->live, n, 1);
        n = next;
    }
}

cs_region *cs_regions_add(cs_regions *g, uint64_t start, uint64_t bytes)
{
    node key = {.r.start = start}, *n;
    if ((n = RB_FIND(node_tree, &g->empty, &key)))
        drop(g, &g->empty, n, 1);
    uint64_t last = start;
    if (bytes) {
        last = start + (bytes - 1);
        if (last < start) /* past the address space: clamp */
            last = UINT64_MAX;
        end_overlapping(g, start, last);
    } else if ((n = RB_FIND(node_tree, &g->live, &key))) {
        drop(g, &g->live, n, 1);
    }
    n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->r.start = start;
    n->r.last = last;
    forget(g, start, last);
    RB_INSERT(node_tree, bytes ? &g->live : &g->empty, n);
    return &n->r;
}

int cs_regions_remove(cs_regions *g, uint64_t start)
{
    node key = {.r.start = start}, *n;
    if ((n = RB_FIND(node_tree, &g->live, &key))) {
        drop(g, &g->live, n, 1);
        return 1;
    }
    if ((n = RB_FIND(node_tree, &g->empty, &key))) {
        drop(g, &g->empty, n, 1);
        return 1;
    }
    return 0;
}

/* cs_regions_find when the page's slot does not hold the address: the
 * tree, then the slot remembers the answer's interval in the page. */
const cs_region *cs_regions_lookup(cs_regions *g, uint64_t addr)
{
    /* the nearest regions starting at or before addr, and after it */
    node *n = RB_ROOT(&g->live), *best = NULL, *after = NULL;
    while (n) {
        if (n->r.start <= addr) {
            best = n;
            n = RB_RIGHT(n, link);
        } else {
            after = n;
            n = RB_LEFT(n, link);
        }
    }
    const cs_region *r = best && addr <= best->r.last ? &best->r : &cs_no_region;
    uint64_t lo = addr & ~(uint64_t)((1u << CS_REGION_PAGE_SHIFT) - 1);
    uint64_t hi = lo + ((1u << CS_REGION_PAGE_SHIFT) - 1);
    if (r != &cs_no_region) {
        lo = r->start > lo ? r->start : lo;
        hi = r->last < hi ? r->last : hi;
    } else {
        if (best && best->r.last >= lo) /* best ends before addr */
            lo = best->r.last + 1;
        if (after && after->r.start <= hi)
            hi = after->r.start - 1;
    }
    cs_region_slot *sl = &g->pc.page[(addr >> CS_REGION_PAGE_SHIFT) & (CS_REGION_PAGES - 1)];
    sl->lo = lo;
    sl->span = hi - lo;
    sl->r = r;
    sl->type = r->type;
    return r;
}
