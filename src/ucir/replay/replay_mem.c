/* Sparse replay memory: 4 KiB pages with a "has a value" bit per byte,
 * created on first touch. After a seek, pages come from the checkpoint
 * index on first read, so a seek restores only the memory it needs; a
 * write to a page not read yet only records its bytes, and the base's
 * are merged under them when the page is first read (a seek's replay
 * writes to many pages it never reads). */
#include <stdlib.h>
#include <string.h>
#include "core/hugemem.h"
#include "ucir/replay/replay_int.h"

/* Pages come from slabs: a small first one (most replays touch a few
 * pages), then 2 MiB ones backed by a huge page where the kernel offers
 * them: a malloc per page took a page fault per 4 KiB touched (tens of
 * microseconds each in some virtual machines: most of a seek's time).
 * Pages are never freed one by one. */
#define FIRST_SLAB_PAGES 8

typedef struct rp_slab {
    struct rp_slab *next;
    size_t used, cap;
    rp_page pages[];
} rp_slab;

static size_t slab_bytes(size_t pages)
{
    return sizeof(rp_slab) + pages * sizeof(rp_page);
}

static rp_page *page_alloc(rp_mem *m)
{
    rp_slab *s = m->slabs;
    if (!s || s->used == s->cap) {
        size_t cap = (TK_HUGE_PAGE - sizeof(rp_slab)) / sizeof(rp_page);
        s = m->slabs ? tk_huge_alloc(TK_HUGE_PAGE) /* zeroed */
                     : calloc(1, slab_bytes(cap = FIRST_SLAB_PAGES));
        if (!s)
            return NULL;
        s->cap = cap;
        s->next = m->slabs;
        m->slabs = s;
    }
    return &s->pages[s->used++];
}

static void slabs_free(rp_slab *s)
{
    for (rp_slab *next; s; s = next) {
        next = s->next;
        if (next)
            tk_huge_free(s, TK_HUGE_PAGE);
        else
            free(s); /* the first, small one */
    }
}

void rp_mem_init(rp_mem *m)
{
    memset(m, 0, sizeof *m);
    tk_map_init(&m->pages, sizeof(rp_page *));
    m->last_pn = UINT64_MAX;
}

void rp_mem_free(rp_mem *m)
{
    slabs_free(m->slabs);
    tk_map_free(&m->pages);
    free(m->dirty);
    memset(m, 0, sizeof *m);
}

static int mark_dirty(rp_mem *m, uint64_t pn, rp_page *p)
{
    if (p->dirty)
        return 0;
    if (m->ndirty == m->dirty_cap) {
        size_t cap = m->dirty_cap ? 2 * m->dirty_cap : 64;
        uint64_t *d = realloc(m->dirty, cap * sizeof *d);
        if (!d)
            return -1;
        m->dirty = d;
        m->dirty_cap = cap;
    }
    m->dirty[m->ndirty++] = pn;
    p->dirty = 1;
    return 0;
}

/* The base's bytes under the ones this replay gave the page. */
static int merge_base(rp_mem *m, uint64_t pn, rp_page *p)
{
    rp_page base;
    int rc = m->base.load(m->base.ctx, pn, &base);
    if (rc < 0)
        return -1;
    p->pending = 0;
    if (rc == 0)
        return 0;
    for (size_t w = 0; w < RP_PAGE / 64; w++) {
        uint64_t mine = p->known[w];
        if (mine == ~(uint64_t)0)
            continue;
        for (size_t i = 0; i < 64; i++)
            if (!(mine >> i & 1))
                p->data[w * 64 + i] = base.data[w * 64 + i];
        p->known[w] = mine | base.known[w];
    }
    return 0;
}

/* The page as stored (maybe pending), created empty when `create`. */
static rp_page *page_slot(rp_mem *m, uint64_t pn, int create, int *oom)
{
    if (pn == m->last_pn)
        return m->last;
    rp_page **slot = tk_map_find_u64(&m->pages, pn);
    if (slot) {
        m->last_pn = pn;
        return m->last = *slot;
    }
    if (!create)
        return NULL;
    rp_page *p = page_alloc(m); /* first: a slot must never hold NULL */
    slot = p ? tk_map_u64(&m->pages, pn) : NULL;
    if (!slot) {
        *oom = -1;
        return NULL;
    }
    p->pending = m->base.load != NULL;
    *slot = p;
    m->last_pn = pn;
    return m->last = p;
}

rp_page *rp_mem_page(rp_mem *m, uint64_t pn, int *oom)
{
    rp_page *p = page_slot(m, pn, 0, oom);
    if (p) {
        if (p->pending && merge_base(m, pn, p) != 0) {
            *oom = -1;
            return NULL;
        }
        return p;
    }
    /* not touched yet: the base's version, if it has one */
    rp_page tmp;
    int rc = m->base.load ? m->base.load(m->base.ctx, pn, &tmp) : 0;
    if (rc < 0) {
        *oom = -1;
        return NULL;
    }
    if (rc == 0)
        return NULL;
    p = page_slot(m, pn, 1, oom);
    if (p) {
        memcpy(p->data, tmp.data, RP_PAGE);
        memcpy(p->known, tmp.known, sizeof p->known);
        p->pending = 0;
    }
    return p;
}

/* Set (value != NULL) or clear the known bits of [off, off + n) in p. */
static void set_known(rp_page *p, size_t off, size_t n, int on)
{
    for (size_t i = off; i < off + n;) {
        size_t w = i / 64, b = i % 64, k = 64 - b < off + n - i ? 64 - b : off + n - i;
        uint64_t mask = (k == 64 ? ~(uint64_t)0 : (((uint64_t)1 << k) - 1)) << b;
        p->known[w] = on ? p->known[w] | mask : p->known[w] & ~mask;
        i += k;
    }
}

int rp_mem_store(rp_mem *m, uint64_t addr, const uint8_t *data, uint64_t len)
{
    while (len) {
        uint64_t pn = addr >> RP_PAGE_SHIFT, off = addr & (RP_PAGE - 1);
        uint64_t n = RP_PAGE - off < len ? RP_PAGE - off : len;
        int oom = 0;
        rp_page *p = page_slot(m, pn, 1, &oom);
        if (!p || mark_dirty(m, pn, p) != 0)
            return -1;
        memcpy(p->data + off, data, n);
        set_known(p, off, n, 1);
        data += n;
        len -= n;
        if (addr + n < addr) /* the top of the address space */
            break;
        addr += n;
    }
    return 0;
}

static int forget_page(rp_mem *m, uint64_t pn, uint64_t off, uint64_t n)
{
    int oom = 0;
    rp_page *p = rp_mem_page(m, pn, &oom);
    if (oom)
        return -1;
    if (!p)
        return 0;
    if (mark_dirty(m, pn, p) != 0)
        return -1;
    memset(p->data + off, 0, n);
    set_known(p, off, n, 0);
    return 0;
}

typedef struct forget_ctx {
    rp_mem *m;
    uint64_t addr, end; /* inclusive end */
} forget_ctx;

static int forget_one(void *arg, uint64_t pn)
{
    forget_ctx *c = arg;
    uint64_t lo = pn << RP_PAGE_SHIFT, hi = lo + (RP_PAGE - 1);
    uint64_t a = c->addr > lo ? c->addr : lo, e = c->end < hi ? c->end : hi;
    return forget_page(c->m, pn, a - lo, e - a + 1);
}

int rp_mem_forget(rp_mem *m, uint64_t addr, uint64_t len)
{
    if (!len)
        return 0;
    uint64_t end = addr + len - 1 < addr ? UINT64_MAX : addr + len - 1;
    forget_ctx c = {m, addr, end};
    uint64_t lo = addr >> RP_PAGE_SHIFT, hi = end >> RP_PAGE_SHIFT;
    /* the live pages in the range, then the base's (loaded to be cleared) */
    size_t n = m->pages.n;
    for (size_t i = 0; i < n; i++) {
        uint64_t pn = m->pages.ukeys[i];
        if (pn >= lo && pn <= hi && forget_one(&c, pn) != 0)
            return -1;
    }
    if (m->base.each)
        return m->base.each(m->base.ctx, lo, hi, forget_one, &c);
    return 0;
}

int rp_mem_read(rp_mem *m, uint64_t addr, size_t len, uint8_t *buf, uint8_t *known)
{
    while (len) {
        uint64_t pn = addr >> RP_PAGE_SHIFT, off = addr & (RP_PAGE - 1);
        size_t n = RP_PAGE - off < len ? (size_t)(RP_PAGE - off) : len;
        int oom = 0;
        rp_page *p = rp_mem_page(m, pn, &oom);
        if (oom)
            return -1;
        for (size_t i = 0; i < n; i++) {
            int k = p && (p->known[(off + i) / 64] >> ((off + i) % 64) & 1);
            buf[i] = k ? p->data[off + i] : 0;
            if (known)
                known[i] = (uint8_t)k;
        }
        buf += n;
        if (known)
            known += n;
        len -= n;
        addr += n;
    }
    return 0;
}
