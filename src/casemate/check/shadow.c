/* Shadow memory of the checker, per 8-byte slot. Two layers, so memory
 * follows the page tables and not the sizes in the log (a mem-init of a
 * terabyte costs one tree node):
 *   - pages with slots of their own (hash map of 4 KiB pages): every page
 *     holding page-table entries, and pages written with differing values;
 *   - regions (an ordered tree of disjoint intervals): initialised memory
 *     that is not page-table memory, with one value throughout.
 * A page, once it exists, is authoritative; regions under it are ignored. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* libbsd leaves __unused undefined (Debian #522773) but tree.h uses it. */
#define __unused __attribute__((unused))
#include <bsd/sys/tree.h>

#include "casemate/check/check_int.h"

typedef struct region {
    RB_ENTRY(region) link;
    uint64_t start, last; /* inclusive, so the top of memory fits */
    uint64_t fill;
} region;

static int region_cmp(const region *a, const region *b)
{
    return a->start < b->start ? -1 : a->start > b->start;
}

RB_HEAD(cm_region_tree, region);
RB_GENERATE_STATIC(cm_region_tree, region, link, region_cmp)
#undef __unused

struct cm_regions {
    struct cm_region_tree t;
};

#define T(s) (&(s)->regions->t)

int cm_shadow_init(cm_shadow *s)
{
    memset(s, 0, sizeof *s);
    s->regions = malloc(sizeof *s->regions);
    if (!s->regions)
        return -1;
    RB_INIT(T(s));
    return 0;
}

static void page_free(cm_page *p)
{
    free(p->pte);
    free(p->idx);
    free(p);
}

void cm_shadow_free(cm_shadow *s)
{
    for (size_t i = 0; i < s->pages.cap; i++)
        if (s->pages.used[i])
            page_free((cm_page *)(uintptr_t)s->pages.vals[i]);
    cm_map_free(&s->pages);
    while (s->nspare)
        page_free(s->spare[--s->nspare]);
    if (s->regions) {
        region *r, *next;
        for (r = RB_MIN(cm_region_tree, T(s)); r; r = next) {
            next = RB_NEXT(cm_region_tree, T(s), r);
            RB_REMOVE(cm_region_tree, T(s), r);
            free(r);
        }
        free(s->regions);
    }
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------ regions */

/* The region containing `a`, else the first one after it (or NULL). */
static region *first_from(const cm_shadow *s, uint64_t a)
{
    region key;
    key.start = a;
    region *r = RB_NFIND(cm_region_tree, T(s), &key);
    if (r && r->start == a)
        return r;
    region *p = r ? RB_PREV(cm_region_tree, T(s), r) : RB_MAX(cm_region_tree, T(s));
    return p && p->last >= a ? p : r;
}

static region *next_of(const cm_shadow *s, region *r)
{
    (void)s; /* RB_NEXT may not need the head */
    return RB_NEXT(cm_region_tree, T(s), r);
}

static region *insert(cm_shadow *s, uint64_t start, uint64_t last, uint64_t fill)
{
    region *r = malloc(sizeof *r);
    if (!r)
        return NULL;
    r->start = start;
    r->last = last;
    r->fill = fill;
    RB_INSERT(cm_region_tree, T(s), r);
    return r;
}

/* Join `r` with touching neighbours of the same value. */
static void merge(cm_shadow *s, region *r)
{
    region *p = RB_PREV(cm_region_tree, T(s), r);
    if (p && p->last + 1 == r->start && p->fill == r->fill) {
        p->last = r->last;
        RB_REMOVE(cm_region_tree, T(s), r);
        free(r);
        r = p;
    }
    region *n = next_of(s, r);
    if (n && r->last != UINT64_MAX && r->last + 1 == n->start && n->fill == r->fill) {
        r->last = n->last;
        RB_REMOVE(cm_region_tree, T(s), n);
        free(n);
    }
}

int cm_region_clear(cm_shadow *s, uint64_t a, uint64_t last)
{
    region *r = first_from(s, a);
    while (r && r->start <= last) {
        region *next = next_of(s, r);
        if (r->start < a && r->last > last) { /* split in two */
            if (!insert(s, last + 1, r->last, r->fill))
                return -1;
            r->last = a - 1;
            return 0;
        }
        if (r->start < a) {
            r->last = a - 1;
        } else if (r->last > last) {
            r->start = last + 1; /* still before `next` */
        } else {
            RB_REMOVE(cm_region_tree, T(s), r);
            free(r);
        }
        r = next;
    }
    return 0;
}

int cm_region_assign(cm_shadow *s, uint64_t a, uint64_t last, uint64_t fill,
                     int only_existing)
{
    if (!only_existing) {
        if (cm_region_clear(s, a, last) != 0)
            return -1;
        region *r = insert(s, a, last, fill);
        if (!r)
            return -1;
        merge(s, r);
        return 0;
    }
    region *r = first_from(s, a);
    while (r && r->start <= last) {
        uint64_t lo = r->start > a ? r->start : a, hi = r->last < last ? r->last : last;
        uint64_t s0 = r->start, e0 = r->last, f0 = r->fill;
        if (f0 != fill) {
            r->start = lo;
            r->last = hi;
            r->fill = fill;
            if (s0 < lo && !insert(s, s0, lo - 1, f0))
                return -1;
            if (e0 > hi && !insert(s, hi + 1, e0, f0))
                return -1;
        }
        merge(s, r); /* may free r or its successor */
        if (hi == last)
            break;
        r = first_from(s, hi + 1);
    }
    return 0;
}

int cm_region_first_gap(const cm_shadow *s, uint64_t a, uint64_t last, uint64_t *at)
{
    uint64_t pos = a;
    for (region *r = first_from(s, a);; r = next_of(s, r)) {
        if (!r || r->start > pos) {
            *at = pos;
            return 1;
        }
        if (r->last >= last)
            return 0;
        pos = r->last + 1;
    }
}

int cm_region_first_other(const cm_shadow *s, uint64_t a, uint64_t last, uint64_t fill,
                          uint64_t *at)
{
    for (region *r = first_from(s, a); r && r->start <= last; r = next_of(s, r))
        if (r->fill != fill) {
            *at = r->start > a ? r->start : a;
            return 1;
        }
    return 0;
}

/* -------------------------------------------------------------- pages */

cm_page *cm_page_find(cm_shadow *s, uint64_t addr)
{
    uint64_t base = CM_PAGE_OF(addr);
    if (s->last && s->last->base == base)
        return s->last;
    uint64_t *v = cm_map_find(&s->pages, base >> CM_PAGE_SHIFT);
    if (!v)
        return NULL;
    s->last = (cm_page *)(uintptr_t)*v;
    return s->last;
}

cm_page *cm_page_get(cm_shadow *s, uint64_t addr)
{
    cm_page *p = cm_page_find(s, addr);
    if (p)
        return p;
    /* val is written once, below, not zeroed first; a spare page of the
     * value wanted is not written at all */
    int same = 0;
    uint64_t had = 0;
    if (s->nspare) {
        p = s->spare[--s->nspare];
        same = p->same;
        had = p->ufill;
    } else if (!(p = malloc(sizeof *p))) {
        return NULL;
    }
    memset(p->flags, 0, sizeof *p - offsetof(cm_page, flags));
    p->base = CM_PAGE_OF(addr);
    uint64_t last = p->base + CM_PAGE - 1;
    region *one = first_from(s, p->base);
    if (one && one->start <= p->base && one->last >= last) {
        p->uniform = 1;
        p->ufill = one->fill;
        if (same && had == one->fill) {
            memset(p->flags, CM_INIT, CM_SLOTS);
            p->ninit = CM_SLOTS;
            one = NULL;
        }
    } else {
        memset(p->val, 0, sizeof p->val);
    }
    p->dirty_lo = CM_SLOTS; /* none yet */
    for (region *r = one; r && r->start <= last; r = next_of(s, r)) {
        unsigned i = r->start > p->base ? CM_SLOT_OF(r->start) : 0;
        unsigned j = r->last < last ? CM_SLOT_OF(r->last) : CM_SLOTS - 1;
        memset(p->flags + i, CM_INIT, j - i + 1); /* a fresh page: none was */
        for (unsigned k = i; k <= j; k++)
            p->val[k] = r->fill;
        p->ninit += j - i + 1;
    }
    if (cm_map_put(&s->pages, p->base >> CM_PAGE_SHIFT, (uint64_t)(uintptr_t)p) != 0) {
        free(p);
        return NULL;
    }
    s->last = p;
    s->gen++;
    return p;
}

const cm_pte *cm_pte_view(const cm_page *p, unsigned i, cm_pte *tmp)
{
    cm_pte *e = cm_pte_own(p, i);
    if (e)
        return e;
    *tmp = (cm_pte){.root = p->def_root, .ia = p->def_ia + i * cm_level_size(p->def_level),
                    .inval = p->def_inval, .level = p->def_level, .stage = p->def_stage,
                    .state = TK_CASEMATE_STATE_INVALID_CLEAN};
    return tmp;
}

/* Room for slot `i` in idx and for one more record; -1: no memory. */
static int own_room(cm_page *p, unsigned i)
{
    if (i >= p->idx_cap) {
        unsigned cap = p->idx_cap ? p->idx_cap : 4;
        while (cap <= i)
            cap *= 2;
        if (cap > CM_SLOTS)
            cap = CM_SLOTS;
        uint16_t *v = realloc(p->idx, cap * sizeof *v);
        if (!v)
            return -1;
        memset(v + p->idx_cap, 0, (cap - p->idx_cap) * sizeof *v);
        p->idx = v;
        p->idx_cap = cap;
    }
    if (p->nown == p->pte_cap) {
        unsigned cap = p->pte_cap ? 2 * p->pte_cap : 4;
        if (cap > CM_SLOTS)
            cap = CM_SLOTS;
        cm_pte *v = realloc(p->pte, cap * sizeof *v);
        if (!v)
            return -1;
        p->pte = v;
        p->pte_cap = cap;
    }
    return 0;
}

cm_pte *cm_pte_mut(cm_page *p, unsigned i)
{
    cm_pte *e = cm_pte_own(p, i), tmp;
    if (e)
        return e;
    if (own_room(p, i) != 0)
        return NULL;
    e = &p->pte[p->nown];
    *e = *cm_pte_view(p, i, &tmp);
    p->idx[i] = (uint16_t)++p->nown; /* at most CM_SLOTS */
    return e;
}

int cm_pte_pin(cm_page *p)
{
    for (unsigned i = 0; p->npte && i < CM_SLOTS; i++)
        if ((p->flags[i] & CM_PTE) && !cm_pte_mut(p, i))
            return -1;
    return 0;
}

void cm_page_drop(cm_shadow *s, cm_page *p)
{
    cm_map_del(&s->pages, p->base >> CM_PAGE_SHIFT);
    if (s->last == p)
        s->last = NULL;
    s->gen++;
    if (p->same && s->nspare < sizeof s->spare / sizeof *s->spare) {
        free(p->pte);
        free(p->idx);
        p->pte = NULL;
        p->idx = NULL;
        s->spare[s->nspare++] = p;
        return;
    }
    page_free(p);
}

typedef struct run {
    unsigned first, end; /* slots [first, end) */
} run;

/* The initialised runs of one value in `p`, into out[max]; -1 when there
 * are more, or a slot is more than initialised memory. One pass. */
static int page_runs(const cm_page *p, run *out, int max)
{
    uint64_t diff = 0;
    unsigned other = 0;
    /* the common case, branch-free: one value throughout, which for a
     * page made from one region needs a look at the slots written since */
    unsigned lo = p->uniform ? p->dirty_lo : 0, hi = p->uniform ? p->dirty_hi : CM_SLOTS - 1;
    uint64_t fill = p->uniform ? p->ufill : p->val[0];
    for (unsigned i = lo; i <= hi; i++) {
        diff |= p->val[i] ^ fill;
        other |= p->flags[i] ^ CM_INIT;
    }
    if (!diff && !other && max > 0) {
        out[0] = (run){0, CM_SLOTS};
        return 1;
    }
    int n = 0;
    for (unsigned i = 0; i < CM_SLOTS;) {
        uint8_t f = p->flags[i];
        if (f & ~CM_INIT)
            return -1;
        if (!f) {
            i++;
            continue;
        }
        unsigned j = i + 1;
        while (j < CM_SLOTS && p->flags[j] == CM_INIT && p->val[j] == p->val[i])
            j++;
        if (n == max)
            return -1;
        out[n++] = (run){i, j};
        i = j;
    }
    return n;
}

void cm_page_settle(cm_shadow *s, cm_page *p)
{
    enum { MAX_RUNS = 8 }; /* a few regions cost less than the page */
    if (p->npte)
        return;
    free(p->pte);
    free(p->idx);
    p->pte = NULL;
    p->idx = NULL;
    p->pte_cap = p->idx_cap = p->nown = 0;
    run runs[MAX_RUNS];
    int n = page_runs(p, runs, MAX_RUNS);
    /* the page is authoritative until dropped: on failure it stays */
    if (n < 0 || cm_region_clear(s, p->base, p->base + CM_PAGE - 1) != 0)
        return;
    for (int k = 0; k < n; k++)
        if (cm_region_assign(s, p->base + 8 * (uint64_t)runs[k].first,
                             p->base + 8 * (uint64_t)runs[k].end - 1,
                             p->val[runs[k].first], 0) != 0)
            return;
    if (n == 1 && runs[0].first == 0 && runs[0].end == CM_SLOTS) { /* worth keeping */
        p->same = 1;
        p->ufill = p->val[0];
    }
    cm_page_drop(s, p);
}

int cm_shadow_peek(const cm_shadow *s, uint64_t addr, uint64_t *val)
{
    cm_page *p = cm_page_find((cm_shadow *)s, addr); /* only the cache changes */
    if (p) {
        unsigned i = CM_SLOT_OF(addr);
        *val = p->val[i];
        return p->flags[i] & CM_INIT;
    }
    region *r = first_from(s, addr & ~(uint64_t)7);
    if (r && r->start <= addr) {
        *val = r->fill;
        return 1;
    }
    *val = 0;
    return 0;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

long cm_shadow_pages_in(const cm_shadow *s, uint64_t a, uint64_t last, uint64_t **out)
{
    *out = NULL;
    size_t n = s->pages.n, k = 0;
    if (!n)
        return 0;
    uint64_t first = a >> CM_PAGE_SHIFT, end = last >> CM_PAGE_SHIFT;
    uint64_t *v;
    if (end - first < 2 * (uint64_t)n) { /* probe each page of the range */
        v = malloc((size_t)(end - first + 1) * sizeof *v);
        if (!v)
            return -1;
        for (uint64_t pg = first;; pg++) {
            if (cm_map_find(&s->pages, pg))
                v[k++] = pg << CM_PAGE_SHIFT;
            if (pg == end)
                break;
        }
    } else { /* fewer pages than the range: look at each */
        v = malloc(n * sizeof *v);
        if (!v)
            return -1;
        for (size_t i = 0; i < s->pages.cap; i++)
            if (s->pages.used[i] && s->pages.keys[i] >= first && s->pages.keys[i] <= end)
                v[k++] = s->pages.keys[i] << CM_PAGE_SHIFT;
        qsort(v, k, sizeof *v, cmp_u64);
    }
    *out = v;
    return (long)k;
}

size_t cm_shadow_page_count(const cm_shadow *s)
{
    return s->pages.n;
}
