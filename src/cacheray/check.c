/* Cacheray semantic checks: the set of live RTTA regions (an ordered tree of
 * disjoint intervals, and the empty regions in a tree of their own, so a
 * million of them cost no walk past them) and questionable-but-legal
 * records. */
#include <stdlib.h>

/* libbsd leaves __unused undefined (Debian #522773) but tree.h uses it. */
#define __unused __attribute__((unused))
#include <bsd/sys/tree.h>

#include <tracekit/cacheray.h>

typedef struct region {
    RB_ENTRY(region) link;
    uint64_t start, last; /* [start, last], inclusive so 2^64 fits */
    int empty;            /* elemsize or elemcount 0: no bytes */
} region;

static int region_cmp(const region *a, const region *b)
{
    return a->start < b->start ? -1 : a->start > b->start;
}

RB_HEAD(region_tree, region);

RB_GENERATE_STATIC(region_tree, region, link, region_cmp)
#undef __unused

struct tk_cacheray_checker {
    struct region_tree live;  /* non-empty: disjoint */
    struct region_tree empty; /* empty: clash only with a region at their start */
    uint64_t nlive;
    tk_cacheray_warning *last; /* warnings of the last check */
    int nlast, last_cap;
    int oom;
};

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

tk_cacheray_checker *tk_cacheray_checker_new(tk_error *err)
{
    tk_cacheray_checker *c = calloc(1, sizeof *c);
    if (!c) {
        oom(err);
        return NULL;
    }
    RB_INIT(&c->live);
    RB_INIT(&c->empty);
    return c;
}

static void free_tree(struct region_tree *t)
{
    region *r, *next;
    for (r = RB_MIN(region_tree, t); r; r = next) {
        next = RB_NEXT(region_tree, t, r);
        RB_REMOVE(region_tree, t, r);
        free(r);
    }
}

void tk_cacheray_checker_free(tk_cacheray_checker *c)
{
    if (!c)
        return;
    free_tree(&c->live);
    free_tree(&c->empty);
    free(c->last);
    free(c);
}

uint64_t tk_cacheray_checker_live(const tk_cacheray_checker *c) { return c->nlive; }

static const char *warning_code(tk_cacheray_warning_kind k)
{
    switch (k) {
    case TK_CACHERAY_WARN_ZERO_SIZE: return "zero-size";
    case TK_CACHERAY_WARN_REMOVE_UNKNOWN: return "remove-unknown";
    case TK_CACHERAY_WARN_OVERLAP: return "overlap";
    case TK_CACHERAY_WARN_EMPTY_REGION: return "empty-region";
    case TK_CACHERAY_WARN_REGION_WRAPS: return "region-wraps";
    }
    return "warning";
}

static const char *warning_text(tk_cacheray_warning_kind k)
{
    switch (k) {
    case TK_CACHERAY_WARN_ZERO_SIZE: return "access of 0 bytes";
    case TK_CACHERAY_WARN_REMOVE_UNKNOWN: return "rtta_remove with no live region starting there";
    case TK_CACHERAY_WARN_OVERLAP: return "rtta_add overlaps a live region, which it ends";
    case TK_CACHERAY_WARN_EMPTY_REGION: return "rtta_add of an empty region (elemsize or elemcount 0)";
    case TK_CACHERAY_WARN_REGION_WRAPS: return "rtta_add region runs past the end of the address space";
    }
    return "warning";
}

typedef struct warn_out {
    tk_cacheray_checker *c;
    tk_cacheray_warning *v;
    int cap, n;
    uint64_t offset, index, addr;
} warn_out;

static void warn(warn_out *w, tk_cacheray_warning_kind kind, uint64_t other)
{
    tk_cacheray_warning x = {kind, w->offset, w->index, w->addr, other,
                             warning_code(kind), warning_text(kind)};
    tk_cacheray_checker *c = w->c;
    if (w->n < w->cap)
        w->v[w->n] = x;
    if (c->nlast == c->last_cap) {
        int cap = c->last_cap ? c->last_cap * 2 : 8;
        tk_cacheray_warning *v = realloc(c->last, (size_t)cap * sizeof *v);
        if (!v) {
            c->oom = 1;
            w->n++;
            return;
        }
        c->last = v;
        c->last_cap = cap;
    }
    c->last[c->nlast++] = x;
    w->n++;
}

const tk_cacheray_warning *tk_cacheray_checker_warnings(const tk_cacheray_checker *c)
{
    return c->last;
}

/* Regions sharing a start always clash (RTTA_REMOVE names them by it). */
static int overlaps(const region *r, uint64_t start, uint64_t last, int empty)
{
    return r->start == start ||
           (!r->empty && !empty && r->start <= last && start <= r->last);
}

static int add_region(tk_cacheray_checker *c, const tk_cacheray_record *rec,
                      warn_out *w)
{
    uint64_t size = (uint64_t)rec->elemsize * rec->elemcount;
    uint64_t start = rec->addr, last = start + size - 1;
    int empty = size == 0;
    if (empty)
        warn(w, TK_CACHERAY_WARN_EMPTY_REGION, 0);
    else if (last < start) {
        warn(w, TK_CACHERAY_WARN_REGION_WRAPS, 0);
        last = UINT64_MAX;
    }
    /* End every live region the new one overlaps, in address order: the
     * predecessor may reach into it, successors may start inside it. Only
     * non-empty regions can reach it (they are disjoint), and an empty
     * one clashes only at its start, where no other live region starts. */
    region key = {.start = start};
    region *r = RB_NFIND(region_tree, &c->live, &key);
    region *prev = r ? RB_PREV(region_tree, &c->live, r) : RB_MAX(region_tree, &c->live);
    if (prev && overlaps(prev, start, last, empty)) {
        warn(w, TK_CACHERAY_WARN_OVERLAP, prev->start);
        RB_REMOVE(region_tree, &c->live, prev);
        free(prev);
        c->nlive--;
    }
    region *same = RB_FIND(region_tree, &c->empty, &key);
    if (same) {
        warn(w, TK_CACHERAY_WARN_OVERLAP, same->start);
        RB_REMOVE(region_tree, &c->empty, same);
        free(same);
        c->nlive--;
    }
    while (r && (r->start == start || (!empty && r->start <= last))) {
        region *next = RB_NEXT(region_tree, &c->live, r);
        if (overlaps(r, start, last, empty)) {
            warn(w, TK_CACHERAY_WARN_OVERLAP, r->start);
            RB_REMOVE(region_tree, &c->live, r);
            free(r);
            c->nlive--;
        }
        r = next;
    }
    region *n = malloc(sizeof *n);
    if (!n)
        return -1;
    n->start = start;
    n->last = empty ? start : last;
    n->empty = empty;
    RB_INSERT(region_tree, empty ? &c->empty : &c->live, n);
    c->nlive++;
    return 0;
}

int tk_cacheray_check(tk_cacheray_checker *c, const tk_cacheray_record *rec,
                      uint64_t offset, uint64_t index, tk_cacheray_warning *out,
                      int cap, tk_error *err)
{
    warn_out w = {c, out, cap, 0, offset, index, rec->addr};
    c->nlast = 0;
    switch (rec->type) {
    case TK_CACHERAY_READ:
    case TK_CACHERAY_WRITE:
        if (rec->size == 0)
            warn(&w, TK_CACHERAY_WARN_ZERO_SIZE, 0);
        break;
    case TK_CACHERAY_RTTA_ADD:
        if (add_region(c, rec, &w) != 0) {
            oom(err);
            return -1;
        }
        break;
    case TK_CACHERAY_RTTA_REMOVE: {
        region key = {.start = rec->addr};
        struct region_tree *t = &c->live;
        region *r = RB_FIND(region_tree, t, &key);
        if (!r)
            r = RB_FIND(region_tree, t = &c->empty, &key);
        if (!r) {
            warn(&w, TK_CACHERAY_WARN_REMOVE_UNKNOWN, 0);
        } else {
            RB_REMOVE(region_tree, t, r);
            free(r);
            c->nlive--;
        }
        break;
    }
    }
    if (c->oom) {
        oom(err);
        return -1;
    }
    return w.n;
}
