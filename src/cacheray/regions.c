/* Live RTTA regions for the simulator: disjoint non-empty intervals in a
 * red-black tree, empty regions (elemsize or elemcount 0) in a second tree
 * by start. Point lookups go through a cache of 4 KiB pages that lie wholly
 * inside one region or outside all (valid until the regions change) and
 * the last region found. The rules
 * are the checker's (check.c): a region ends at its RTTA_REMOVE, or when
 * an RTTA_ADD overlaps it or starts where it starts. */
#include <stdlib.h>

/* libbsd leaves __unused undefined (Debian #522773) but tree.h uses it. */
#define __unused __attribute__((unused))
#include <bsd/sys/tree.h>

#include "cacheray/sim_int.h"

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
    const cs_region *hit;   /* the region found last */
    cs_region_end_fn on_end;
    void *ctx;
};

cs_regions *cs_regions_new(cs_region_end_fn on_end, void *ctx)
{
    cs_regions *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    RB_INIT(&g->live);
    RB_INIT(&g->empty);
    g->on_end = on_end;
    g->ctx = ctx;
    g->pc.gen = 1;
    return g;
}

static void drop(cs_regions *g, struct node_tree *t, node *n, int report)
{
    g->pc.gen++;
    g->hit = NULL;
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
    free(g);
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
    g->pc.gen++;
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

/* cs_regions_find when the page is not in the cache. */
const cs_region *cs_regions_lookup(cs_regions *g, uint64_t addr)
{
    uint64_t page = addr >> CS_REGION_PAGE_SHIFT;
    size_t slot = page & (sizeof g->pc.page / sizeof g->pc.page[0] - 1);
    const cs_region *h = g->hit;
    if (h && h->start <= addr && addr <= h->last)
        return h;
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
    uint64_t first = page << CS_REGION_PAGE_SHIFT, last = first + ((1u << CS_REGION_PAGE_SHIFT) - 1);
    int whole = r != &cs_no_region
                    ? r->start <= first && last <= r->last
                    : (!best || best->r.last < first) && (!after || after->r.start > last);
    if (whole) {
        g->pc.page[slot].page1 = page + 1;
        g->pc.page[slot].gen = g->pc.gen;
        g->pc.page[slot].r = r;
    } else if (r != &cs_no_region) {
        g->hit = r;
    }
    return r;
}
