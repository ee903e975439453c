/* Cacheray semantic checks: the set of live RTTA regions (region_tree.c,
 * shared with the simulator) and questionable-but-legal records. */
#include <stdlib.h>

#include "cacheray/cacheray_int.h"

#include <tracekit/cacheray.h>

/* RTTA_ADDs in address order, each starting past every region before it
 * (a trace's allocations, the common case), end no region: they wait in
 * an array, 24 bytes each instead of a tree node and its rebalancing,
 * until a record needs the tree (an RTTA_REMOVE, an RTTA_ADD out of order
 * or overlapping). */
typedef struct pending {
    uint64_t start, bytes;
    uint32_t tag;
} pending;

struct tk_cacheray_checker {
    tk_cr_regions *live;        /* tk_cr_region.type: the caller's tag */
    pending *pend;              /* live regions not in `live` yet */
    size_t npend, pend_cap;
    uint64_t pend_last;         /* the last pending region's last byte */
    int in_tree;                /* the pending ones went to `live`: all do */
    uint32_t *added;            /* the tag of the last check's new region */
    uint32_t removed_tag;       /* the region the last RTTA_REMOVE ended */
    tk_cacheray_warning *last;  /* warnings of the last check */
    uint32_t *last_tag;         /* per warning: the region it ended */
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
    if (!c || !(c->live = tk_cr_regions_new())) {
        free(c);
        oom(err);
        return NULL;
    }
    return c;
}

void tk_cacheray_checker_free(tk_cacheray_checker *c)
{
    if (!c)
        return;
    tk_cr_regions_free(c->live);
    free(c->pend);
    free(c->last);
    free(c->last_tag);
    free(c);
}

uint64_t tk_cacheray_checker_live(const tk_cacheray_checker *c)
{
    return tk_cr_regions_count(c->live) + c->npend;
}

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

/* `tag`: the region the warning ended, TK_CACHERAY_NO_TAG for none. */
static void warn(warn_out *w, tk_cacheray_warning_kind kind, uint64_t other, uint32_t tag)
{
    tk_cacheray_warning x = {kind, w->offset, w->index, w->addr, other,
                             warning_code(kind), warning_text(kind)};
    tk_cacheray_checker *c = w->c;
    if (w->n < w->cap)
        w->v[w->n] = x;
    if (c->nlast == c->last_cap) {
        int cap = c->last_cap ? c->last_cap * 2 : 8;
        tk_cacheray_warning *v = realloc(c->last, (size_t)cap * sizeof *v);
        if (v)
            c->last = v;
        uint32_t *t = v ? realloc(c->last_tag, (size_t)cap * sizeof *t) : NULL;
        if (!t) {
            c->oom = 1;
            w->n++;
            return;
        }
        c->last_tag = t;
        c->last_cap = cap;
    }
    c->last_tag[c->nlast] = tag;
    c->last[c->nlast++] = x;
    w->n++;
}

const tk_cacheray_warning *tk_cacheray_checker_warnings(const tk_cacheray_checker *c)
{
    return c->last;
}

void tk_cacheray_checker_tag(tk_cacheray_checker *c, uint32_t tag)
{
    if (c->added)
        *c->added = tag;
}

uint32_t tk_cacheray_checker_ended(const tk_cacheray_checker *c, int i)
{
    return c->last_tag[i];
}

uint32_t tk_cacheray_checker_removed(const tk_cacheray_checker *c) { return c->removed_tag; }

/* tk_cr_regions' callback for a region an RTTA_ADD overlapped. */
static void end_overlapped(void *ctx, tk_cr_region *r)
{
    warn(ctx, TK_CACHERAY_WARN_OVERLAP, r->start, r->type);
}

static void end_none(void *ctx, tk_cr_region *r)
{
    (void)ctx;
    (void)r;
}

/* The pending regions into the tree (they end none), for good. */
static int to_tree(tk_cacheray_checker *c)
{
    int rc = 0;
    for (size_t i = 0; i < c->npend && rc == 0; i++) {
        const pending *p = &c->pend[i];
        tk_cr_region *n = tk_cr_regions_add(c->live, p->start, p->bytes, end_none, NULL);
        if (n)
            n->type = p->tag;
        else
            rc = -1;
    }
    free(c->pend);
    c->pend = NULL;
    c->npend = c->pend_cap = 0;
    c->in_tree = 1;
    return rc;
}

/* An RTTA_ADD past every live region, kept pending (0), or 1 when it
 * needs the tree, -1 when out of memory. */
static int add_pending(tk_cacheray_checker *c, uint64_t start, uint64_t size)
{
    if (c->in_tree || (c->npend && start <= c->pend_last))
        return 1;
    if (c->npend == c->pend_cap) {
        size_t cap = c->pend_cap ? c->pend_cap * 2 : 256;
        pending *v = realloc(c->pend, cap * sizeof *v);
        if (!v)
            return -1;
        c->pend = v;
        c->pend_cap = cap;
    }
    pending *p = &c->pend[c->npend++];
    *p = (pending){start, size, TK_CACHERAY_NO_TAG};
    uint64_t last = size ? start + (size - 1) : start;
    c->pend_last = last < start ? UINT64_MAX : last; /* clamped as the tree does */
    c->added = &p->tag;
    return 0;
}

static int add_region(tk_cacheray_checker *c, const tk_cacheray_record *rec,
                      warn_out *w)
{
    uint64_t size = (uint64_t)rec->elemsize * rec->elemcount;
    if (size == 0)
        warn(w, TK_CACHERAY_WARN_EMPTY_REGION, 0, TK_CACHERAY_NO_TAG);
    else if (rec->addr + (size - 1) < rec->addr)
        warn(w, TK_CACHERAY_WARN_REGION_WRAPS, 0, TK_CACHERAY_NO_TAG);
    int rc = add_pending(c, rec->addr, size);
    if (rc <= 0)
        return rc;
    if (!c->in_tree && to_tree(c) != 0)
        return -1;
    tk_cr_region *n = tk_cr_regions_add(c->live, rec->addr, size, end_overlapped, w);
    if (!n)
        return -1;
    n->type = TK_CACHERAY_NO_TAG;
    c->added = &n->type;
    return 0;
}

static void ended_by_remove(void *ctx, tk_cr_region *r)
{
    tk_cacheray_checker *c = ctx;
    c->removed_tag = r->type;
}

static int remove_region(tk_cacheray_checker *c, warn_out *w, uint64_t addr)
{
    if (!c->in_tree && to_tree(c) != 0)
        return -1;
    if (!tk_cr_regions_remove(c->live, addr, ended_by_remove, c))
        warn(w, TK_CACHERAY_WARN_REMOVE_UNKNOWN, 0, TK_CACHERAY_NO_TAG);
    return 0;
}

int tk_cacheray_check(tk_cacheray_checker *c, const tk_cacheray_record *rec,
                      uint64_t offset, uint64_t index, tk_cacheray_warning *out,
                      int cap, tk_error *err)
{
    warn_out w = {c, out, cap, 0, offset, index, rec->addr};
    c->nlast = 0;
    c->added = NULL;
    c->removed_tag = TK_CACHERAY_NO_TAG;
    switch (rec->type) {
    case TK_CACHERAY_READ:
    case TK_CACHERAY_WRITE:
        if (rec->size == 0)
            warn(&w, TK_CACHERAY_WARN_ZERO_SIZE, 0, TK_CACHERAY_NO_TAG);
        break;
    case TK_CACHERAY_RTTA_ADD:
        if (add_region(c, rec, &w) != 0) {
            oom(err);
            return -1;
        }
        break;
    case TK_CACHERAY_RTTA_REMOVE:
        if (remove_region(c, &w, rec->addr) != 0) {
            oom(err);
            return -1;
        }
        break;
    }
    if (c->oom) {
        oom(err);
        return -1;
    }
    return w.n;
}
