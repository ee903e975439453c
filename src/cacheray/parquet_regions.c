/* The live RTTA regions of a Parquet conversion and the `regions` table.
 * The regions live in the simulator's interval tree (sim/regions.c), so
 * an access finds its region as cachesim's per-type counts do, by the
 * same rules as the checker and the Perfetto mapping: a region ends at
 * the RTTA_REMOVE of its start, at an RTTA_ADD that overlaps it (or
 * starts where it starts), or at the end of the trace. Each ended region
 * whose RTTA_ADD is selected is a row; the regions one record ends are
 * written in address order. Memory follows the regions live at once. */
#include <stdlib.h>
#include <string.h>

#include "cacheray/parquet_int.h"

/* The regions table's columns (docs/formats/cacheray.md). */
enum { R_TYPE, R_ADDR, R_ELEMSIZE, R_ELEMCOUNT, R_BYTES, R_THREAD, R_FIRST, R_LAST, R_ENDED_BY };

static const tk_pq_column region_cols[] = {
    {"type_name", TK_PQ_STRING, 0, TK_PQ_ENC_DICT},
    {"addr", TK_PQ_UINT64, 0, TK_PQ_ENC_AUTO},
    {"elem_size", TK_PQ_UINT32, 0, TK_PQ_ENC_AUTO},
    {"elem_count", TK_PQ_UINT32, 0, TK_PQ_ENC_AUTO},
    {"bytes", TK_PQ_UINT64, 0, TK_PQ_ENC_AUTO},
    {"thread", TK_PQ_UINT64, 0, TK_PQ_ENC_AUTO},
    {"first_index", TK_PQ_UINT64, 0, TK_PQ_ENC_DELTA},
    {"last_index", TK_PQ_UINT64, 0, TK_PQ_ENC_DELTA},
    {"ended_by", TK_PQ_STRING, 0, TK_PQ_ENC_DICT},
};

/* An ended region, sorted by address before its row is written. */
typedef struct ended {
    uint64_t addr;
    uint32_t slot;
} ended;

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

/* cs_regions' callback: remember the slot; the rows come after the
 * record is applied (a callback cannot fail). */
static void region_ended(void *ctx, const cs_region *r)
{
    tk_crpq *c = ctx;
    if (c->nended == c->ended_cap) {
        size_t cap = c->ended_cap ? c->ended_cap * 2 : 16;
        uint32_t *v = realloc(c->ended, cap * sizeof *v);
        if (!v) {
            c->oom = 1;
            return;
        }
        c->ended = v;
        c->ended_cap = cap;
    }
    c->ended[c->nended++] = r->type;
}

tk_status tk_crpq_regions_init(tk_crpq *c, tk_pq_dir *d, tk_error *err)
{
    tk_map_init(&c->names, sizeof(uint32_t));
    c->free_slot = TK_CRPQ_NONE;
    c->regions = tk_pq_dir_table(d, "regions", region_cols,
                                 sizeof region_cols / sizeof *region_cols, err);
    if (!c->regions)
        return err->status;
    if (!(c->live = cs_regions_new(region_ended, c)))
        return oom(err);
    return TK_OK;
}

void tk_crpq_regions_free(tk_crpq *c)
{
    cs_regions_free(c->live);
    tk_map_free(&c->names);
    free(c->slots);
    free(c->ended);
}

/* A free slot for a new region, busy from now on. */
static tk_status take_slot(tk_crpq *c, uint32_t *slot, tk_error *err)
{
    if (c->free_slot != TK_CRPQ_NONE) {
        *slot = c->free_slot;
        c->free_slot = c->slots[*slot].next_free;
    } else {
        if (c->nslots == c->slots_cap) {
            size_t cap = c->slots_cap ? c->slots_cap * 2 : 64;
            tk_crpq_slot *v = cap < TK_CRPQ_NONE ? realloc(c->slots, cap * sizeof *v) : NULL;
            if (!v)
                return oom(err);
            c->slots = v;
            c->slots_cap = cap;
        }
        *slot = (uint32_t)c->nslots++;
    }
    c->slots[*slot].busy = 1;
    return TK_OK;
}

static tk_status region_row(tk_crpq *c, const tk_crpq_slot *s, uint64_t last,
                            const char *end, tk_error *err)
{
    tk_pq_writer *w = tk_pq_table_writer(c->regions);
    tk_pq_put_bytes(w, R_TYPE, c->names.skeys[s->name], c->names.skey_len[s->name]);
    tk_pq_put_u64(w, R_ADDR, s->addr);
    tk_pq_put_u64(w, R_ELEMSIZE, s->elemsize);
    tk_pq_put_u64(w, R_ELEMCOUNT, s->elemcount);
    tk_pq_put_u64(w, R_BYTES, (uint64_t)s->elemsize * s->elemcount);
    tk_pq_put_u64(w, R_THREAD, s->thread);
    tk_pq_put_u64(w, R_FIRST, s->first);
    tk_pq_put_u64(w, R_LAST, last);
    tk_pq_put_str(w, R_ENDED_BY, end);
    return tk_pq_table_row_end(c->regions, err);
}

static int by_addr(const void *a, const void *b)
{
    const ended *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The rows of the regions in c->ended, in address order, ended at `last`
 * for reason `end`; their slots are free afterwards. */
static tk_status write_ended(tk_crpq *c, uint64_t last, const char *end, tk_error *err)
{
    if (c->oom)
        return oom(err);
    if (!c->nended)
        return TK_OK;
    ended one, *v = &one;
    if (c->nended > 1 && !(v = malloc(c->nended * sizeof *v)))
        return oom(err);
    for (size_t i = 0; i < c->nended; i++)
        v[i] = (ended){c->slots[c->ended[i]].addr, c->ended[i]};
    qsort(v, c->nended, sizeof *v, by_addr);
    tk_status st = TK_OK;
    for (size_t i = 0; i < c->nended && st == TK_OK; i++) {
        tk_crpq_slot *s = &c->slots[v[i].slot];
        if (s->selected)
            st = region_row(c, s, last, end, err);
        s->busy = 0;
        s->next_free = c->free_slot;
        c->free_slot = v[i].slot;
    }
    c->nended = 0;
    if (v != &one)
        free(v);
    return st;
}

static tk_status add(tk_crpq *c, const tk_cacheray_record *rec, uint64_t idx, int selected,
                     tk_error *err)
{
    uint32_t *v = tk_map_str(&c->names, rec->type_name, rec->typename_len), slot = 0;
    if (!v || c->names.n >= TK_CRPQ_NONE)
        return oom(err);
    uint32_t name = (uint32_t)(((unsigned char *)v - c->names.values) / c->names.value_size);
    if (take_slot(c, &slot, err) != TK_OK)
        return err->status;
    cs_region *r = cs_regions_add(c->live, rec->addr, (uint64_t)rec->elemsize * rec->elemcount);
    if (!r)
        return oom(err);
    r->type = slot;
    r->elemsize = rec->elemsize;
    c->slots[slot] = (tk_crpq_slot){rec->addr,     rec->thread,    idx, rec->elemsize,
                                    rec->elemcount, name, TK_CRPQ_NONE, (uint8_t)!!selected,
                                    1};
    return write_ended(c, idx, "overlap", err);
}

tk_status tk_crpq_rtta(tk_crpq *c, const tk_cacheray_record *rec, uint64_t idx,
                       int selected, tk_error *err)
{
    if (rec->type == TK_CACHERAY_RTTA_ADD)
        return add(c, rec, idx, selected, err);
    cs_regions_remove(c->live, rec->addr);
    return write_ended(c, idx, "remove", err);
}

tk_status tk_crpq_regions_end(tk_crpq *c, uint64_t end, tk_error *err)
{
    c->nended = 0;
    for (size_t i = 0; i < c->nslots; i++) {
        if (!c->slots[i].busy)
            continue;
        region_ended(c, &(cs_region){.type = (uint32_t)i});
    }
    return write_ended(c, end, "trace_end", err);
}
