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

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

static tk_status region_row(tk_crpq *c, const tk_crpq_slot *s, uint64_t last,
                            const char *end, tk_error *err)
{
    tk_pq_writer *w = tk_pq_table_writer(c->regions);
    uint32_t thread = s->thread & ~TK_CRPQ_SELECTED;
    tk_pq_put_bytes(w, R_TYPE, c->names.skeys[s->name], c->names.skey_len[s->name]);
    tk_pq_put_u64(w, R_ADDR, s->addr);
    tk_pq_put_u64(w, R_ELEMSIZE, s->elemsize);
    tk_pq_put_u64(w, R_ELEMCOUNT, s->elemcount);
    tk_pq_put_u64(w, R_BYTES, (uint64_t)s->elemsize * s->elemcount);
    tk_pq_put_u64(w, R_THREAD, c->threads.keys[thread]);
    tk_pq_put_u64(w, R_FIRST, s->first);
    tk_pq_put_u64(w, R_LAST, last);
    tk_pq_put_str(w, R_ENDED_BY, end);
    return tk_pq_table_row_end(c->regions, err);
}

/* cs_regions' callback, in address order (region_tree.c ends the regions
 * one record ends in that order): the region's row, then its slot is
 * free. A failure is kept for after the record (a callback cannot fail). */
static void region_ended(void *ctx, const cs_region *r)
{
    tk_crpq *c = ctx;
    tk_crpq_slot *s = &c->slots[r->type];
    if (c->st == TK_OK && (s->thread & TK_CRPQ_SELECTED))
        c->st = region_row(c, s, c->end_idx, c->end_why, c->err);
    s->name = TK_CRPQ_NONE;
    s->first = c->free_slot;
    c->free_slot = r->type;
}

/* The regions a record ends from now on end at `idx` for `why`. */
static void ending(tk_crpq *c, uint64_t idx, const char *why, tk_error *err)
{
    c->end_idx = idx;
    c->end_why = why;
    c->err = err;
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
    tk_id_index_free(&c->threads);
    free(c->slots);
}

/* A free slot for a new region (the caller fills it). */
static tk_status take_slot(tk_crpq *c, uint32_t *slot, tk_error *err)
{
    if (c->free_slot != TK_CRPQ_NONE) {
        *slot = c->free_slot;
        c->free_slot = (uint32_t)c->slots[*slot].first;
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
    c->slots[*slot].name = TK_CRPQ_NONE; /* not live until filled */
    return TK_OK;
}

/* The index of the region's thread in c->threads; most regions have the
 * last one's. */
static tk_status thread_of(tk_crpq *c, uint64_t thread, uint32_t *idx, tk_error *err)
{
    if (c->threads.n && c->threads.keys[c->last_thread] == thread) {
        *idx = c->last_thread;
        return TK_OK;
    }
    int added;
    int64_t i = tk_id_index_get(&c->threads, thread, &added);
    if (i < 0 || i >= TK_CRPQ_SELECTED)
        return oom(err);
    *idx = c->last_thread = (uint32_t)i;
    return TK_OK;
}

static tk_status add(tk_crpq *c, const tk_cacheray_record *rec, uint64_t idx, int selected,
                     tk_error *err)
{
    uint32_t *v = tk_map_str(&c->names, rec->type_name, rec->typename_len), slot = 0, thread = 0;
    if (!v || c->names.n >= TK_CRPQ_NONE)
        return oom(err);
    uint32_t name = (uint32_t)(((unsigned char *)v - c->names.values) / c->names.value_size);
    if (thread_of(c, rec->thread, &thread, err) != TK_OK || take_slot(c, &slot, err) != TK_OK)
        return err->status;
    ending(c, idx, "overlap", err);
    cs_region *r = cs_regions_add(c->live, rec->addr, (uint64_t)rec->elemsize * rec->elemcount);
    if (c->st != TK_OK)
        return c->st;
    if (!r)
        return oom(err);
    r->type = slot;
    r->elemsize = rec->elemsize;
    c->slots[slot] = (tk_crpq_slot){rec->addr, idx, rec->elemsize, rec->elemcount, name,
                                    thread | (selected ? TK_CRPQ_SELECTED : 0)};
    return TK_OK;
}

tk_status tk_crpq_rtta(tk_crpq *c, const tk_cacheray_record *rec, uint64_t idx,
                       int selected, tk_error *err)
{
    if (rec->type == TK_CACHERAY_RTTA_ADD)
        return add(c, rec, idx, selected, err);
    ending(c, idx, "remove", err);
    cs_regions_remove(c->live, rec->addr);
    return c->st;
}

/* The regions still live, ended at `end`: their slots, in address order,
 * the rows of the selected ones. The slots are packed and sorted in place
 * (no list of a million regions, no sort's buffer); no record follows, so
 * the tree's slot indexes are not needed any more. */
tk_status tk_crpq_regions_end(tk_crpq *c, uint64_t end, tk_error *err)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nslots; i++)
        if (c->slots[i].name != TK_CRPQ_NONE)
            c->slots[n++] = c->slots[i];
    c->nslots = n;
    c->free_slot = TK_CRPQ_NONE;
    tk_crpq_sort_slots(c->slots, n);
    for (size_t i = 0; i < n; i++)
        if ((c->slots[i].thread & TK_CRPQ_SELECTED) &&
            region_row(c, &c->slots[i], end, "trace_end", err) != TK_OK)
            return err->status;
    return TK_OK;
}
