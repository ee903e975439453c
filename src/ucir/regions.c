/* The mapped regions as disjoint spans (regions.h): a map cuts what it
 * covers out of the spans before and inserts its own; an unmap cuts. */
#include <stdlib.h>
#include <string.h>

#include "ucir/regions.h"

void tk_ucir_regions_init(tk_ucir_regions *r) { memset(r, 0, sizeof *r); }

void tk_ucir_regions_free(tk_ucir_regions *r)
{
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

/* The first span ending after addr. */
static size_t first_after(const tk_ucir_regions *r, uint64_t addr)
{
    size_t lo = 0, hi = r->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->spans[mid].hi <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int grow(tk_ucir_regions *r)
{
    if (r->n < r->cap)
        return 0;
    size_t cap = r->cap ? r->cap * 2 : 16;
    tk_ucir_span *s = realloc(r->spans, cap * sizeof *s);
    if (!s)
        return -1;
    r->spans = s;
    r->cap = cap;
    return 0;
}

/* Take [lo, hi) out of the spans (trimming or splitting the ones it
 * overlaps). -1: out of memory for a split. */
static int cut(tk_ucir_regions *r, uint64_t lo, uint64_t hi)
{
    size_t i = first_after(r, lo);
    r->hint = 0;
    if (i < r->n && r->spans[i].lo < lo) {
        tk_ucir_span *s = &r->spans[i];
        if (s->hi > hi) { /* [lo, hi) is inside: split */
            if (r->n >= TK_UCIR_MAX_SPANS) {
                s->hi = lo; /* no room: the right part is forgotten */
                return 0;
            }
            if (grow(r) != 0)
                return -1;
            s = &r->spans[i];
            memmove(s + 2, s + 1, (r->n - i - 1) * sizeof *s);
            s[1] = s[0];
            s[1].lo = hi;
            s->hi = lo;
            r->n++;
            return 0;
        }
        s->hi = lo;
        i++;
    }
    size_t j = i;
    while (j < r->n && r->spans[j].hi <= hi)
        j++;
    if (j < r->n && r->spans[j].lo < hi)
        r->spans[j].lo = hi;
    if (j > i) {
        memmove(r->spans + i, r->spans + j, (r->n - j) * sizeof *r->spans);
        r->n -= j - i;
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
    if (r->n >= TK_UCIR_MAX_SPANS)
        return TK_OK;
    if (grow(r) != 0)
        return oom(err);
    size_t i = first_after(r, addr);
    tk_ucir_span *s = &r->spans[i];
    memmove(s + 1, s, (r->n - i) * sizeof *s);
    r->n++;
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
    if (r->hint < r->n && r->spans[r->hint].lo <= addr && addr < r->spans[r->hint].hi)
        return &r->spans[r->hint];
    size_t i = first_after(r, addr);
    if (i == r->n || r->spans[i].lo > addr)
        return NULL;
    r->hint = i;
    return &r->spans[i];
}
