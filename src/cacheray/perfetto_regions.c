/* RTTA regions as slices: a "regions" track, under it one track per type
 * name, under that the type's lanes. A region is a slice on a free lane
 * of its type from its RTTA_ADD to its RTTA_REMOVE, to the RTTA_ADD that
 * overlaps it (validate's "overlap": the checker says which regions end),
 * or to the end of the trace. Regions of a type overlap in any order, and
 * slices on one track must nest, hence the lanes. */
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
                   &c->name_unmatched, err) ||
        tk_crpf_id(tk_perfetto_arg_name(p, "address", 7, err), &c->arg_addr, err) ||
        tk_crpf_id(tk_perfetto_arg_name(p, "elem_size", 9, err), &c->arg_elemsize, err) ||
        tk_crpf_id(tk_perfetto_arg_name(p, "elem_count", 10, err), &c->arg_elemcount, err) ||
        tk_crpf_id(tk_perfetto_arg_name(p, "bytes", 5, err), &c->arg_bytes, err) ||
        tk_crpf_id(tk_perfetto_arg_name(p, "thread", 6, err), &c->arg_thread, err))
        return err->status;
    return TK_OK;
}

void tk_crpf_regions_free(tk_crpf *c)
{
    for (size_t i = 0; i < c->types.n; i++)
        free(((tk_crpf_type *)tk_map_value(&c->types, i))->label);
    tk_cacheray_checker_free(c->checker);
    tk_map_free(&c->types);
    free(c->lanes);
}

/* The "regions" track, declared before the first RTTA record's event. */
static tk_status regions_track(tk_crpf *c, tk_error *err)
{
    if (c->regions_uuid)
        return TK_OK;
    c->regions_uuid = c->next_uuid++;
    return tk_perfetto_track(c->seq, c->regions_uuid, 0, "regions", err);
}

/* The index of the type named by `rec`, its track declared when new. */
static tk_status type_of(tk_crpf *c, const tk_cacheray_record *rec, uint32_t *type,
                         tk_error *err)
{
    size_t before = c->types.n;
    tk_crpf_type *t = tk_map_str(&c->types, rec->type_name, rec->typename_len);
    if (!t || c->types.n > UINT32_MAX)
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

/* The track of the type's newest lane, "TYPE #k" (a NUL in the name cuts
 * the track's name short there), made without printf: a trace may need a
 * million lanes. */
static tk_status lane_track(tk_crpf *c, const tk_crpf_type *t, uint64_t uuid, tk_error *err)
{
    char small[128], *label = small;
    size_t n = strlen(t->label);
    if (n + 24 > sizeof small && !(label = malloc(n + 24)))
        return oom(err);
    memcpy(label, t->label, n);
    memcpy(label + n, " #", 2);
    tk_num_printf_u(label + n + 2, t->nlanes, 0);
    tk_status st = tk_perfetto_track(c->seq, uuid, t->uuid, label, err);
    if (label != small)
        free(label);
    return st;
}

/* A free lane of `type`, declared when the type needs one more. */
static tk_status take_lane(tk_crpf *c, uint32_t type, uint32_t *lane, tk_error *err)
{
    tk_crpf_type *t = tk_map_value(&c->types, type);
    if (t->free_lane != TK_CRPF_NONE) {
        *lane = t->free_lane;
        t->free_lane = c->lanes[*lane].next_free;
        c->lanes[*lane].next_free = TK_CRPF_BUSY;
        return TK_OK;
    }
    if (c->nlanes == c->lanes_cap) {
        size_t cap = c->lanes_cap ? c->lanes_cap * 2 : 16;
        tk_crpf_lane *v = cap < UINT32_MAX ? realloc(c->lanes, cap * sizeof *v) : NULL;
        if (!v)
            return oom(err);
        c->lanes = v;
        c->lanes_cap = cap;
    }
    *lane = (uint32_t)c->nlanes++;
    c->lanes[*lane] = (tk_crpf_lane){c->next_uuid++, type, TK_CRPF_BUSY};
    t->nlanes++;
    return lane_track(c, t, c->lanes[*lane].uuid, err);
}

/* End the slice on `lane` (the checker's tag of the region that ended;
 * TK_CRPF_NONE: none). */
static tk_status end_region(tk_crpf *c, uint32_t lane, uint64_t ts, tk_error *err)
{
    if (lane == TK_CRPF_NONE)
        return TK_OK;
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
    const tk_crpf_type *t = tk_map_value(&c->types, type);
    tk_perfetto_arg args[] = {
        {c->arg_addr, TK_PERFETTO_ARG_HEX, {.u = rec->addr}},
        {c->arg_elemsize, TK_PERFETTO_ARG_UINT, {.u = rec->elemsize}},
        {c->arg_elemcount, TK_PERFETTO_ARG_UINT, {.u = rec->elemcount}},
        {c->arg_bytes, TK_PERFETTO_ARG_UINT, {.u = (uint64_t)rec->elemsize * rec->elemcount}},
        {c->arg_thread, TK_PERFETTO_ARG_UINT, {.u = rec->thread}},
    };
    tk_perfetto_event e = {ts, c->lanes[lane].uuid, t->name, c->cat_rtta, args,
                           sizeof args / sizeof *args};
    return tk_perfetto_begin(c->seq, &e, err);
}

/* An RTTA_REMOVE of no live region: an instant on "regions". */
static tk_status unmatched(tk_crpf *c, const tk_cacheray_record *rec, uint64_t ts,
                           tk_error *err)
{
    tk_perfetto_arg args[] = {
        {c->arg_addr, TK_PERFETTO_ARG_HEX, {.u = rec->addr}},
        {c->arg_thread, TK_PERFETTO_ARG_UINT, {.u = rec->thread}},
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

tk_status tk_crpf_regions_end(tk_crpf *c, uint64_t ts, tk_error *err)
{
    for (size_t i = 0; i < c->nlanes; i++)
        if (c->lanes[i].next_free == TK_CRPF_BUSY && tk_perfetto_end(c->seq, ts, c->lanes[i].uuid, err) != TK_OK)
            return err->status;
    return TK_OK;
}
