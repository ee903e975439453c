/* The violations track of a casemate timeline: the checker (what `tracekit
 * bbm` runs, with its options) steps with the conversion, and its verdict
 * becomes an instant at the time of the record that raised it, with the
 * code, message, detail, the related entries and the ids of the events
 * related to it. The checker stops at the first violation, as bbm does. */
#include <stdio.h>
#include <string.h>

#include "casemate/export_check.h"
#include "casemate/perfetto_int.h"

static tk_status violation(tk_cmpf *m, const tk_casemate_violation *v,
                           const tk_casemate_record *rec, uint64_t ts, uint64_t line,
                           tk_error *err)
{
    uint64_t code = tk_perfetto_string(m->p, v->code, strlen(v->code), err);
    uint64_t name = code ? tk_perfetto_name(m->p, v->message, strlen(v->message), err) : 0;
    if (!name)
        return err->status;
    /* the lock a lock operation names, as its slice holds it */
    const tk_cmpf_lock *l = tk_map_find_u64(&m->locks, rec->address);
    tk_cmx_text ids, ents;
    tk_cmx_related_ids(&m->last_write, v, rec, l && l->depth ? &l->taken_id : NULL, &ids);
    tk_cmx_entries(v, &ents);
    tk_perfetto_arg a[TK_CMPF_MAX_ARGS] = {
        {m->arg[TK_CMPF_A_CODE], TK_PERFETTO_ARG_ISTR, {.u = code}},
        {m->arg[TK_CMPF_A_MESSAGE], TK_PERFETTO_ARG_STR, {.s = {v->message, strlen(v->message)}}},
        {m->arg[TK_CMPF_A_DETAIL], TK_PERFETTO_ARG_STR, {.s = {v->detail, strlen(v->detail)}}},
        {m->arg[TK_CMPF_A_ID], TK_PERFETTO_ARG_UINT, {.u = v->id}},
        {m->arg[TK_CMPF_A_THREAD], TK_PERFETTO_ARG_UINT, {.u = v->tid}},
        {m->arg[TK_CMPF_A_RECORD], TK_PERFETTO_ARG_UINT, {.u = ts}},
        {m->arg[TK_CMPF_A_LINE], TK_PERFETTO_ARG_UINT, {.u = line}},
        {m->arg[TK_CMPF_A_RELATED], TK_PERFETTO_ARG_STR, {.s = {ids.s, ids.n}}},
        {m->arg[TK_CMPF_A_ENTRIES], TK_PERFETTO_ARG_STR, {.s = {ents.s, ents.n}}},
    };
    size_t n = ents.n ? 9 : 8;
    if (v->src_kind == TK_CASEMATE_SRC_STRING)
        a[n++] = (tk_perfetto_arg){m->arg[TK_CMPF_A_SRC], TK_PERFETTO_ARG_STR,
                                   {.s = {v->src, v->src_len}}};
    else if (v->src_kind == TK_CASEMATE_SRC_INT)
        a[n++] = (tk_perfetto_arg){m->arg[TK_CMPF_A_SRC_ID], TK_PERFETTO_ARG_UINT,
                                   {.u = v->src_int}};
    tk_perfetto_event e = {.ts = ts, .track = m->violations_track, .name = name,
                           .category = m->cat_bbm, .args = a, .nargs = n};
    return tk_perfetto_instant(m->seq, &e, err);
}

/* The model gave up (a configuration it does not cover): say so on the
 * violations track, and go on converting without it. */
static tk_status not_checked(tk_cmpf *m, const tk_error *why, uint64_t ts, uint64_t line,
                             tk_error *err)
{
    size_t len = strlen(why->message);
    tk_perfetto_arg a[] = {
        {m->arg[TK_CMPF_A_MESSAGE], TK_PERFETTO_ARG_STR, {.s = {why->message, len}}},
        {m->arg[TK_CMPF_A_RECORD], TK_PERFETTO_ARG_UINT, {.u = ts}},
        {m->arg[TK_CMPF_A_LINE], TK_PERFETTO_ARG_UINT, {.u = line}},
    };
    tk_perfetto_event e = {.ts = ts, .track = m->violations_track, .name = m->name_not_checked,
                           .category = m->cat_bbm, .args = a, .nargs = 3};
    return tk_perfetto_instant(m->seq, &e, err);
}

tk_status tk_cmpf_check(tk_cmpf *m, const tk_casemate_record *rec, uint64_t ts,
                        uint64_t line, tk_error *err)
{
    if (!m->checking)
        return TK_OK;
    tk_error why;
    tk_error_clear(&why);
    int verdict = tk_casemate_check_feed(m->k, rec, &why);
    tk_status st = TK_OK;
    if (verdict > 0) {
        st = violation(m, tk_casemate_check_violation(m->k), rec, ts, line, err);
    } else if (verdict < 0) {
        if (why.status == TK_ENOMEM) {
            *err = why;
            return err->status;
        }
        st = not_checked(m, &why, ts, line, err);
    } else if (tk_cmx_note_write(&m->last_write, rec, err) != TK_OK) {
        return err->status;
    }
    if (verdict != 0) { /* the checker has stopped: so does what serves it */
        m->checking = 0;
        tk_map_free(&m->last_write);
        tk_map_init(&m->last_write, sizeof(uint64_t));
    }
    return st;
}
