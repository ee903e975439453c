/* Per-type and per-field counts. A region's type is its RTTA name; with a
 * struct layout (--debug-info) the offset of an access in its element is
 * (addr - region start) mod sizeof(struct), and the access counts once for
 * each field it touches. */
#include <stdlib.h>
#include <string.h>

#include "cacheray/sim/sim_int.h"

#define UNTYPED "(untyped)"

int cs_types_init(cs_types *t, const tk_cacheray_layouts *layouts, size_t nlevels)
{
    memset(t, 0, sizeof *t);
    tk_map_init(&t->by_name, sizeof(uint32_t));
    t->layouts = layouts;
    t->nlevels = nlevels;
    t->touched = malloc(256 * sizeof *t->touched); /* sizes are one byte */
    if (!t->touched)
        return -1;
    /* "(untyped)" is not an LLVM name, so no RTTA name can collide */
    return cs_types_intern(t, UNTYPED, strlen(UNTYPED)) == 0 ? 0 : -1;
}

void cs_types_free(cs_types *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].fields);
    free(t->v);
    free(t->touched);
    tk_map_free(&t->by_name);
    memset(t, 0, sizeof *t);
}

static int attach_layout(cs_type *T, const tk_cacheray_layout *l)
{
    T->layout = l;
    T->pub.layout = l->name;
    T->pub.layout_size = l->size;
    if (!l->nfields)
        return 0;
    T->fields = calloc(l->nfields, sizeof *T->fields);
    if (!T->fields)
        return -1;
    for (size_t f = 0; f < l->nfields; f++) {
        T->fields[f].name = l->fields[f].name;
        T->fields[f].offset = l->fields[f].offset;
        T->fields[f].size = l->fields[f].size;
    }
    T->pub.nfields = l->nfields;
    T->pub.fields = T->fields;
    return 0;
}

long cs_types_intern(cs_types *t, const char *name, size_t len)
{
    size_t before = t->by_name.n;
    uint32_t *idx = tk_map_str(&t->by_name, name, len);
    if (!idx)
        return -1;
    if (t->by_name.n == before)
        return *idx;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        cs_type *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return -1;
        t->v = v;
        t->cap = cap;
    }
    cs_type *T = &t->v[t->n];
    memset(T, 0, sizeof *T);
    T->pub.name = t->by_name.skeys[before];
    const tk_cacheray_layout *l = t->layouts && t->n ? tk_cacheray_layouts_find(t->layouts, name, len) : NULL;
    if (l && attach_layout(T, l) != 0)
        return -1;
    *idx = (uint32_t)t->n;
    return (long)t->n++;
}

/* Count an access for every field among [off, off + size) of an element
 * of `stride` bytes (wrapping into the next element). */
static void count_fields(cs_types *t, cs_type *T, uint64_t off, uint64_t stride,
                         unsigned size, int write, unsigned mask)
{
    size_t ntouched = 0;
    for (uint64_t left = size; left;) {
        long f = tk_cacheray_layout_field_at(T->layout, off);
        uint64_t step = 1;
        if (f >= 0) {
            const tk_cachesim_field *F = &T->fields[f];
            step = F->offset + F->size > off ? F->offset + F->size - off : 1;
            if (step > left)
                step = left;
            size_t i = 0;
            while (i < ntouched && t->touched[i] != (uint32_t)f)
                i++;
            if (i == ntouched)
                t->touched[ntouched++] = (uint32_t)f;
            T->fields[f].c.bytes += step;
        }
        left -= step;
        off = (off + step) % stride; /* on into the next element */
    }
    for (size_t i = 0; i < ntouched; i++)
        cs_count(&T->fields[t->touched[i]].c, write, 0, mask, t->nlevels);
    if (!ntouched)
        T->pub.padding++;
}

/* The fields an access of `size` > 0 bytes to `r` touches, its type
 * having a layout (the simulator's types pass counts the type itself). */
void cs_types_fields(cs_types *t, const cs_region *r, uint64_t addr,
                     unsigned size, int write, unsigned mask)
{
    cs_type *T = &t->v[r->type];
    if (!r->stride) {
        T->pub.unmatched++;
        return;
    }
    count_fields(t, T, (addr - r->start) % r->stride, r->stride, size, write, mask);
}

void cs_types_locate(tk_cachesim *s, uint64_t addr, uint32_t *type,
                     uint64_t *offset, int32_t *field)
{
    const cs_region *r = cs_regions_find(s->regions, addr);
    *type = r->type;
    *offset = r != &cs_no_region ? addr - r->start : 0;
    *field = -1;
    if (r->stride) {
        *offset %= r->stride;
        *field = (int32_t)tk_cacheray_layout_field_at(s->types.v[r->type].layout, *offset);
    } else if (r->elemsize) {
        *offset %= r->elemsize;
    }
}
