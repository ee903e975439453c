/* Live RTTA regions, shared by the checker (check.c) and the simulator
 * (sim/regions.c): disjoint non-empty regions in an ordered tree, the
 * empty ones (elemsize or elemcount 0) in a tree of their own, so a
 * million of them cost no walk past them. A region ends at its
 * RTTA_REMOVE, or when an RTTA_ADD overlaps it or starts where it starts.
 * Regions added in address order, the common case, are linked at the end
 * of their tree without a search, and nodes come from blocks. */
#include <stdlib.h>

#include "cacheray/cacheray_int.h"

/* libbsd leaves __unused undefined (Debian #522773) but tree.h uses it. */
#define __unused __attribute__((unused))
#include <bsd/sys/tree.h>

typedef struct node {
    RB_ENTRY(node) link;
    tk_cr_region r;
} node;

static int node_cmp(const node *a, const node *b)
{
    return a->r.start < b->r.start ? -1 : a->r.start > b->r.start;
}

RB_HEAD(node_tree, node);
RB_GENERATE_STATIC(node_tree, node, link, node_cmp)
#undef __unused

/* Nodes come from blocks, freed ones kept on a list: no malloc call and
 * no malloc header per region (a trace may hold millions live). */
#define BLOCK_NODES 4096
typedef struct block {
    struct block *next;
    node nodes[BLOCK_NODES];
} block;

enum { LIVE, EMPTY };

struct tk_cr_regions {
    struct node_tree tree[2]; /* LIVE: non-empty, disjoint; EMPTY: clash
                                 only with a region at their start */
    node *max[2];             /* each tree's last node; NULL: look it up */
    uint64_t n;
    block *blocks;
    size_t block_used;        /* nodes handed out of blocks[0] */
    node *free_nodes;         /* linked by link.rbe_left */
    node *hint;               /* the last lookup's region (LIVE), or NULL */
};

tk_cr_regions *tk_cr_regions_new(void)
{
    tk_cr_regions *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    RB_INIT(&t->tree[LIVE]);
    RB_INIT(&t->tree[EMPTY]);
    t->block_used = BLOCK_NODES;
    return t;
}

void tk_cr_regions_free(tk_cr_regions *t)
{
    if (!t)
        return;
    for (block *b = t->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(t);
}

uint64_t tk_cr_regions_count(const tk_cr_regions *t) { return t->n; }

static node *node_new(tk_cr_regions *t)
{
    node *n = t->free_nodes;
    if (n) {
        t->free_nodes = RB_LEFT(n, link);
        return n;
    }
    if (t->block_used == BLOCK_NODES) {
        block *b = malloc(sizeof *b);
        if (!b)
            return NULL;
        b->next = t->blocks;
        t->blocks = b;
        t->block_used = 0;
    }
    return &t->blocks->nodes[t->block_used++];
}

/* End `n` of tree `k`: the caller's callback sees it, then it is kept
 * for reuse. */
static void end(tk_cr_regions *t, int k, node *n, tk_cr_region_end_fn fn, void *ctx)
{
    fn(ctx, &n->r);
    if (t->max[k] == n)
        t->max[k] = NULL;
    if (t->hint == n)
        t->hint = NULL;
    RB_REMOVE(node_tree, &t->tree[k], n);
    RB_LEFT(n, link) = t->free_nodes;
    t->free_nodes = n;
    t->n--;
}

static node *tree_max(tk_cr_regions *t, int k)
{
    if (!t->max[k])
        t->max[k] = RB_MAX(node_tree, &t->tree[k]);
    return t->max[k];
}

/* Insert `n` into tree `k`. Past the tree's last node (regions allocated
 * in address order) it is linked there directly: no walk from the root,
 * only the rebalancing, O(1) amortized. */
static void put(tk_cr_regions *t, int k, node *n)
{
    node *m = tree_max(t, k);
    if (m && n->r.start <= m->r.start) {
        RB_INSERT(node_tree, &t->tree[k], n);
        return;
    }
    RB_SET(n, m, link);
    if (m)
        RB_RIGHT(m, link) = n;
    else
        RB_ROOT(&t->tree[k]) = n;
    node_tree_RB_INSERT_COLOR(&t->tree[k], n);
    t->max[k] = n;
}

/* Regions sharing a start always clash (RTTA_REMOVE names them by it);
 * `r` is live (non-empty). */
static int overlaps(const tk_cr_region *r, uint64_t start, uint64_t last, int empty)
{
    return r->start == start || (!empty && r->start <= last && start <= r->last);
}

/* End every region [start, last] overlaps, in address order: the
 * predecessor may reach into it, successors may start inside it. Only
 * non-empty regions can reach it (they are disjoint), and an empty one
 * clashes only at its start, where no other live region starts. Past the
 * last region of both trees (address order) there is nothing to look up. */
static void end_overlaps(tk_cr_regions *t, uint64_t start, uint64_t last, int empty,
                         tk_cr_region_end_fn fn, void *ctx)
{
    node *m = tree_max(t, LIVE), *me = tree_max(t, EMPTY);
    if ((!m || start > m->r.last) && (!me || start > me->r.start))
        return;
    node key = {.r.start = start};
    node *n = RB_NFIND(node_tree, &t->tree[LIVE], &key);
    node *prev = n ? RB_PREV(node_tree, &t->tree[LIVE], n) : m;
    if (prev && overlaps(&prev->r, start, last, empty))
        end(t, LIVE, prev, fn, ctx);
    node *same = RB_FIND(node_tree, &t->tree[EMPTY], &key);
    if (same)
        end(t, EMPTY, same, fn, ctx);
    while (n && (n->r.start == start || (!empty && n->r.start <= last))) {
        node *next = RB_NEXT(node_tree, &t->tree[LIVE], n);
        if (overlaps(&n->r, start, last, empty))
            end(t, LIVE, n, fn, ctx);
        n = next;
    }
}

tk_cr_region *tk_cr_regions_add(tk_cr_regions *t, uint64_t start, uint64_t bytes,
                                tk_cr_region_end_fn fn, void *ctx)
{
    uint64_t last = start + (bytes - 1);
    if (!bytes)
        last = start;
    else if (last < start) /* past the address space: clamp */
        last = UINT64_MAX;
    end_overlaps(t, start, last, bytes == 0, fn, ctx);
    node *n = node_new(t);
    if (!n)
        return NULL;
    n->r = (tk_cr_region){.start = start, .last = last};
    put(t, bytes ? LIVE : EMPTY, n);
    t->n++;
    return &n->r;
}

int tk_cr_regions_remove(tk_cr_regions *t, uint64_t start, tk_cr_region_end_fn fn, void *ctx)
{
    node key = {.r.start = start};
    int k = LIVE;
    node *n = RB_FIND(node_tree, &t->tree[k], &key);
    if (!n)
        n = RB_FIND(node_tree, &t->tree[k = EMPTY], &key);
    if (!n)
        return 0;
    end(t, k, n, fn, ctx);
    return 1;
}

/* The hint's region or its successor, when one of them is the last to
 * start at or before addr: accesses in address order move from region to
 * region, each a step from the last, not a walk from the root. */
static node *near_hint(tk_cr_regions *t, uint64_t addr, node **after)
{
    node *h = t->hint;
    if (!h || h->r.start > addr)
        return NULL;
    for (int step = 0; step < 2; step++) {
        node *next = RB_NEXT(node_tree, &t->tree[LIVE], h);
        if (!next || addr < next->r.start) {
            *after = next;
            return h;
        }
        h = next;
    }
    return NULL;
}

const tk_cr_region *tk_cr_regions_around(tk_cr_regions *t, uint64_t addr,
                                         const tk_cr_region **after)
{
    node *next = NULL, *best = near_hint(t, addr, &next);
    if (!best) {
        node *n = RB_ROOT(&t->tree[LIVE]);
        while (n) {
            if (n->r.start <= addr) {
                best = n;
                n = RB_RIGHT(n, link);
            } else {
                next = n;
                n = RB_LEFT(n, link);
            }
        }
    }
    t->hint = best;
    *after = next ? &next->r : NULL;
    return best ? &best->r : NULL;
}
