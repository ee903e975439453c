/* The mapped regions as disjoint spans (regions.h) in an address tree
 * (addr_tree.h): a map cuts what it covers out of the spans around it and
 * inserts its own; an unmap cuts. */
#include <stdlib.h>
#include <string.h>

#include "ucir/regions.h"

void tk_ucir_regions_init(tk_ucir_regions *r) { memset(r, 0, sizeof *r); }

void tk_ucir_regions_free(tk_ucir_regions *r)
{
    tk_ucir_atree_free(&r->tree);
    free(r->spans);
    memset(r, 0, sizeof *r);
}

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

uint64_t tk_ucir_region_end(uint64_t addr, uint64_t size)
{
    return addr + size < addr ? UINT64_MAX : addr + size;
}

static int reserve(tk_ucir_regions *r)
{
    void *spans = r->spans;
    int rc = tk_ucir_atree_reserve(&r->tree, &spans, sizeof *r->spans);
    r->spans = spans;
    return rc;
}

/* The first span ending after addr, 0: none. */
static uint32_t first_after(tk_ucir_regions *r, uint64_t addr)
{
    uint32_t k = tk_ucir_atree_floor(&r->tree, addr);
    if (k && r->spans[k].hi > addr)
        return k;
    return k ? tk_ucir_atree_next(&r->tree, k) : tk_ucir_atree_first(&r->tree);
}

/* Span k holds [lo, hi) strictly inside: split it in two around it (or,
 * with no room, keep its left part only). -1: out of memory. */
static int split(tk_ucir_regions *r, uint32_t k, uint64_t lo, uint64_t hi)
{
    if (r->tree.n >= TK_UCIR_MAX_SPANS) {
        r->spans[k].hi = lo; /* no room: the right part is forgotten */
        return 0;
    }
    if (reserve(r) != 0)
        return -1;
    uint32_t right = tk_ucir_atree_insert(&r->tree, hi);
    r->spans[right] = r->spans[k];
    r->spans[right].lo = hi;
    r->spans[k].hi = lo;
    return 0;
}

/* Take [lo, hi) out of the spans (trimming or splitting the ones it
 * overlaps). -1: out of memory for a split. */
static int cut(tk_ucir_regions *r, uint64_t lo, uint64_t hi)
{
    uint32_t k = first_after(r, lo);
    r->hint = 0;
    if (k && r->spans[k].lo < lo) {
        if (r->spans[k].hi > hi) /* [lo, hi) is inside */
            return split(r, k, lo, hi);
        r->spans[k].hi = lo;
        k = tk_ucir_atree_next(&r->tree, k);
    }
    while (k && r->spans[k].hi <= hi) { /* wholly inside */
        uint32_t next = tk_ucir_atree_next(&r->tree, k);
        tk_ucir_atree_erase(&r->tree, k);
        k = next;
    }
    if (k && r->spans[k].lo < hi) {
        r->spans[k].lo = hi;
        tk_ucir_atree_rekey(&r->tree, k, hi);
    }
    return 0;
}

tk_status tk_ucir_regions_map(tk_ucir_regions *r, uint64_t addr, uint64_t size, uint8_t prot,
                              const char *label, size_t label_len, tk_error *err)
{
    uint64_t hi = tk_ucir_region_end(addr, size);
    if (hi == addr)
        return TK_OK;
    if (cut(r, addr, hi) != 0)
        return oom(err);
    if (r->tree.n >= TK_UCIR_MAX_SPANS)
        return TK_OK;
    if (reserve(r) != 0)
        return oom(err);
    tk_ucir_span *s = &r->spans[tk_ucir_atree_insert(&r->tree, addr)];
    memset(s, 0, sizeof *s);
    s->lo = addr;
    s->hi = hi;
    s->map_addr = addr;
    s->map_size = size;
    s->prot = prot;
    if (label_len >= sizeof s->label)
        label_len = sizeof s->label - 1;
    if (label_len)
        memcpy(s->label, label, label_len);
    return TK_OK;
}

tk_status tk_ucir_regions_unmap(tk_ucir_regions *r, uint64_t addr, uint64_t size,
                                tk_error *err)
{
    uint64_t hi = tk_ucir_region_end(addr, size);
    return hi > addr && cut(r, addr, hi) != 0 ? oom(err) : TK_OK;
}

tk_ucir_span *tk_ucir_regions_find(tk_ucir_regions *r, uint64_t addr)
{
    uint32_t k = r->hint;
    if (k && r->spans[k].lo <= addr && addr < r->spans[k].hi)
        return &r->spans[k];
    k = tk_ucir_atree_floor(&r->tree, addr);
    if (!k || r->spans[k].hi <= addr)
        return NULL;
    r->hint = k;
    return &r->spans[k];
}
