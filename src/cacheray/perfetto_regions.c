/* RTTA regions as slices: a "regions" track, under it one track per type
 * name, under that the type's lanes. A region is a slice on a free lane
 * of its type from its RTTA_ADD to its RTTA_REMOVE, to the RTTA_ADD that
 * overlaps it (validate's "overlap": the checker says which regions end),
 * or to the end of the trace. Regions of a type overlap in any order, and
 * slices on one track must nest, hence the lanes. A type has at most
 * --max-tracks lanes: a region finding them all busy gets no slice, and is
 * counted on the type's "TYPE regions without a lane" instead. */
#include <stdlib.h>
#include <string.h>

#include "cacheray/cacheray_int.h"
#include "cacheray/perfetto_int.h"
#include "core/numfmt.h"
#include "core/strbuf.h"

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

/* A type name as protobuf's strings must be, UTF-8: each byte of an
 * invalid sequence becomes U+FFFD, as in the JSON outputs. NULL on OOM. */
static char *utf8_label(const char *s, size_t n, size_t *len)
{
    const unsigned char *u = (const unsigned char *)s;
    char *out = malloc(3 * n + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n;) {
        size_t k = tk_utf8_len(u + i, n - i);
        if (k) {
            memcpy(o, s + i, k);
            o += k;
            i += k;
        } else {
            memcpy(o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    *o = '\0';
    *len = (size_t)(o - out);
    return out;
}

/* -------------------------------------------------------------- setup */

tk_status tk_crpf_regions_init(tk_crpf *c, tk_error *err)
{
    tk_map_init(&c->types, sizeof(tk_crpf_type));
    c->checker = tk_cacheray_checker_new(err);
    if (!c->checker)
        return err->status;
    tk_perfetto *p = c->p;
    if (tk_crpf_id(tk_perfetto_category(p, "rtta", 4, err), &c->cat_rtta, err) ||
        tk_crpf_id(tk_perfetto_name(p, "rtta_remove of no live region", 29, err),
                   &c->name_unmatched, err))
        return err->status;
    static const char *const names[TK_CRPF_NARGS] = {"address", "elem_size", "elem_count",
                                                     "bytes", "thread"};
    for (int i = 0; i < TK_CRPF_NARGS; i++) {
        tk_perfetto_arg *a = &c->args[i];
        a->type = i == TK_CRPF_ARG_ADDR ? TK_PERFETTO_ARG_HEX : TK_PERFETTO_ARG_UINT;
        if (tk_crpf_id(tk_perfetto_arg_name(p, names[i], strlen(names[i]), err), &a->name,
                       err))
            return err->status;
    }
    return TK_OK;
}

void tk_crpf_regions_free(tk_crpf *c)
{
    for (size_t i = 0; i < c->types.n; i++)
        free(((tk_crpf_type *)tk_map_value(&c->types, i))->label);
    tk_cacheray_checker_free(c->checker);
    tk_map_free(&c->types);
    free(c->lanes);
    free(c->dirty.v);
}

/* The "regions" track, declared before the first RTTA record's event. */
static tk_status regions_track(tk_crpf *c, tk_error *err)
{
    if (c->regions_uuid)
        return TK_OK;
    c->regions_uuid = c->next_uuid++;
    return tk_perfetto_track(c->seq, c->regions_uuid, 0, "regions", err);
}

static tk_status type_of(tk_crpf *c, const tk_cacheray_record *rec, uint32_t *type,
                         tk_error *err)
{
    size_t before = c->types.n;
    tk_crpf_type *t = tk_map_str_recent(&c->types, &c->recent_types, rec->type_name,
                                        rec->typename_len);
    if (!t || c->types.n >= TK_CRPF_NO_LANE - 1) /* a tag holds the index */
        return oom(err);
    *type = (uint32_t)(t - (tk_crpf_type *)tk_map_value(&c->types, 0));
    if (c->types.n == before)
        return TK_OK;
    t->free_lane = TK_CRPF_NONE;
    t->uuid = c->next_uuid++;
    t->label = utf8_label(rec->type_name, rec->typename_len, &t->label_len);
    if (!t->label)
        return oom(err);
    if (tk_crpf_id(tk_perfetto_name(c->p, t->label, t->label_len, err), &t->name, err))
        return err->status;
    return tk_perfetto_track(c->seq, t->uuid, c->regions_uuid, t->label, err);
}

#define NOLANE_SUFFIX " regions without a lane"

/* A track under the type's: its newest lane, "TYPE #k", or (lane 0) its
 * counter of regions without one. A NUL in the name cuts the track's name
 * short there. Made without printf: a trace may have many lanes. */
static tk_status type_child(tk_crpf *c, const tk_crpf_type *t, uint64_t uuid, int lane,
                            tk_error *err)
{
    char small[128], *label = small;
    size_t n = strlen(t->label), more = sizeof NOLANE_SUFFIX;
    if (n + more > sizeof small && !(label = malloc(n + more)))
        return oom(err);
    memcpy(label, t->label, n);
    tk_status st;
    if (lane) {
        memcpy(label + n, " #", 2);
        tk_num_printf_u(label + n + 2, t->nlanes, 0);
        st = tk_perfetto_track(c->seq, uuid, t->uuid, label, err);
    } else {
        memcpy(label + n, NOLANE_SUFFIX, sizeof NOLANE_SUFFIX);
        st = tk_perfetto_counter_track(c->seq, uuid, t->uuid, label,
                                       TK_PERFETTO_UNIT_COUNT, NULL, err);
    }
    if (label != small)
        free(label);
    return st;
}

/* The count of `t`'s regions without a lane changed: listed once for the
 * window's end. */
static tk_status nolane_changed(tk_crpf *c, tk_crpf_type *t, uint32_t type, tk_error *err)
{
    if (t->dirty)
        return TK_OK;
    t->dirty = 1;
    return tk_crpf_list_push(&c->dirty, type) == 0 ? TK_OK : oom(err);
}

/* A region of `type` without a lane: its tag, its type's count up. */
static tk_status no_lane(tk_crpf *c, uint32_t type, uint32_t *tag, tk_error *err)
{
    tk_crpf_type *t = tk_map_value(&c->types, type);
    *tag = TK_CRPF_NO_LANE | type;
    t->nolane++;
    if (!t->nolane_uuid) {
        t->nolane_uuid = c->next_uuid++;
        if (type_child(c, t, t->nolane_uuid, 0, err) != TK_OK)
            return err->status;
    }
    return nolane_changed(c, t, type, err);
}

/* A free lane of `type`, declared when the type needs one more; with
 * --max-tracks lanes all busy, none (a TK_CRPF_NO_LANE tag). */
static tk_status take_lane(tk_crpf *c, uint32_t type, uint32_t *lane, tk_error *err)
{
    tk_crpf_type *t = tk_map_value(&c->types, type);
    if (t->free_lane != TK_CRPF_NONE) {
        *lane = t->free_lane;
        t->free_lane = c->lanes[*lane].next_free;
        c->lanes[*lane].next_free = TK_CRPF_BUSY;
        return TK_OK;
    }
    if (c->max_tracks && t->nlanes >= c->max_tracks)
        return no_lane(c, type, lane, err);
    if (c->nlanes == c->lanes_cap) {
        size_t cap = c->lanes_cap ? c->lanes_cap * 2 : 16;
        tk_crpf_lane *v = cap < TK_CRPF_NO_LANE ? realloc(c->lanes, cap * sizeof *v) : NULL;
        if (!v)
            return oom(err);
        c->lanes = v;
        c->lanes_cap = cap;
    }
    *lane = (uint32_t)c->nlanes++;
    c->lanes[*lane] = (tk_crpf_lane){c->next_uuid++, type, TK_CRPF_BUSY};
    t->nlanes++;
    return type_child(c, t, c->lanes[*lane].uuid, 1, err);
}

/* End the slice on `lane` (the checker's tag of the region that ended;
 * TK_CRPF_NONE: none), or count down its type's regions without one. */
static tk_status end_region(tk_crpf *c, uint32_t lane, uint64_t ts, tk_error *err)
{
    if (lane == TK_CRPF_NONE)
        return TK_OK;
    if (lane & TK_CRPF_NO_LANE) {
        tk_crpf_type *t = tk_map_value(&c->types, lane & ~TK_CRPF_NO_LANE);
        t->nolane--;
        return nolane_changed(c, t, lane & ~TK_CRPF_NO_LANE, err);
    }
    tk_crpf_lane *l = &c->lanes[lane];
    tk_crpf_type *t = tk_map_value(&c->types, l->type);
    l->next_free = t->free_lane;
    t->free_lane = lane;
    return tk_perfetto_end(c->seq, ts, l->uuid, err);
}

static tk_status begin_region(tk_crpf *c, const tk_cacheray_record *rec, uint64_t ts,
                              tk_error *err)
{
    uint32_t type = 0, lane = 0;
    if (type_of(c, rec, &type, err) != TK_OK || take_lane(c, type, &lane, err) != TK_OK)
        return err->status;
    tk_cacheray_checker_tag(c->checker, lane);
    if (lane & TK_CRPF_NO_LANE)
        return TK_OK;
    const tk_crpf_type *t = tk_map_value(&c->types, type);
    tk_perfetto_arg *a = c->args;
    a[TK_CRPF_ARG_ADDR].v.u = rec->addr;
    a[TK_CRPF_ARG_ELEMSIZE].v.u = rec->elemsize;
    a[TK_CRPF_ARG_ELEMCOUNT].v.u = rec->elemcount;
    a[TK_CRPF_ARG_BYTES].v.u = (uint64_t)rec->elemsize * rec->elemcount;
    a[TK_CRPF_ARG_THREAD].v.u = rec->thread;
    tk_perfetto_event e = {ts, c->lanes[lane].uuid, t->name, c->cat_rtta, a, TK_CRPF_NARGS};
    return tk_perfetto_begin(c->seq, &e, err);
}

/* An RTTA_REMOVE of no live region: an instant on "regions". */
static tk_status unmatched(tk_crpf *c, const tk_cacheray_record *rec, uint64_t ts,
                           tk_error *err)
{
    tk_perfetto_arg args[] = {
        {c->args[TK_CRPF_ARG_ADDR].name, TK_PERFETTO_ARG_HEX, {.u = rec->addr}},
        {c->args[TK_CRPF_ARG_THREAD].name, TK_PERFETTO_ARG_UINT, {.u = rec->thread}},
    };
    tk_perfetto_event e = {ts, c->regions_uuid, c->name_unmatched, c->cat_rtta, args, 2};
    return tk_perfetto_instant(c->seq, &e, err);
}

tk_status tk_crpf_region(tk_crpf *c, const tk_cacheray_record *rec, uint64_t ts, tk_error *err)
{
    if (regions_track(c, err) != TK_OK)
        return err->status;
    int n = tk_cacheray_check(c->checker, rec, TK_NO_OFFSET, ts, NULL, 0, err);
    if (n < 0)
        return err->status;
    const tk_cacheray_warning *w = tk_cacheray_checker_warnings(c->checker);
    if (rec->type == TK_CACHERAY_RTTA_REMOVE)
        return n ? unmatched(c, rec, ts, err)
                 : end_region(c, tk_cacheray_checker_removed(c->checker), ts, err);
    for (int i = 0; i < n; i++)
        if (w[i].kind == TK_CACHERAY_WARN_OVERLAP &&
            end_region(c, tk_cacheray_checker_ended(c->checker, i), ts, err) != TK_OK)
            return err->status;
    return begin_region(c, rec, ts, err);
}

tk_status tk_crpf_regions_window(tk_crpf *c, uint64_t ts, tk_error *err)
{
    for (size_t i = 0; i < c->dirty.n; i++) {
        tk_crpf_type *t = tk_map_value(&c->types, c->dirty.v[i]);
        t->dirty = 0;
        if (t->nolane == t->nolane_shown)
            continue;
        t->nolane_shown = t->nolane;
        if (tk_perfetto_counter(c->seq, ts, t->nolane_uuid, (int64_t)t->nolane, err) != TK_OK)
            return err->status;
    }
    c->dirty.n = 0;
    return TK_OK;
}

tk_status tk_crpf_regions_end(tk_crpf *c, uint64_t ts, tk_error *err)
{
    for (size_t i = 0; i < c->nlanes; i++)
        if (c->lanes[i].next_free == TK_CRPF_BUSY && tk_perfetto_end(c->seq, ts, c->lanes[i].uuid, err) != TK_OK)
            return err->status;
    /* the regions without a lane end too */
    for (size_t i = 0; i < c->types.n; i++) {
        tk_crpf_type *t = tk_map_value(&c->types, i);
        if (t->nolane_uuid && (t->nolane || t->nolane_shown) &&
            tk_perfetto_counter(c->seq, ts, t->nolane_uuid, 0, err) != TK_OK)
            return err->status;
    }
    return TK_OK;
}
