/* The violations track of a casemate timeline: the checker (what `tracekit
 * bbm` runs, with its options) steps with the conversion, and its verdict
 * becomes an instant at the time of the record that raised it, with the
 * code, message, detail, the related entries and the ids of the events
 * related to it. The checker stops at the first violation, as bbm does. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "casemate/perfetto_int.h"

/* Entries shown in the annotation; a violation relates a handful. */
enum { MAX_RELATED = 8 };

typedef struct text {
    char s[1024];
    size_t n;
} text;

/* Append to `t`, cut at its end. */
__attribute__((format(printf, 2, 3))) static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->s + t->n, sizeof t->s - t->n, fmt, ap);
    va_end(ap);
    t->n += k > 0 ? (size_t)k : 0;
    if (t->n >= sizeof t->s)
        t->n = sizeof t->s - 1;
}

static void add_str(text *t, const char *s)
{
    size_t room = sizeof t->s - 1 - t->n, k = strlen(s);
    if (k > room)
        k = room;
    memcpy(t->s + t->n, s, k);
    t->n += k;
    t->s[t->n] = '\0';
}

/* The event ids related to the violation: the record's own, the last
 * mem-write to each related entry, and, for a lock operation, the event
 * that took the lock it names. Comma-separated, without repeats. */
static void related_ids(const tk_cmpf *m, const tk_casemate_violation *v,
                        const tk_casemate_record *rec, text *t)
{
    uint64_t ids[MAX_RELATED + 2];
    size_t n = 0;
    ids[n++] = rec->id;
    for (size_t i = 0; i < v->nentries && i < MAX_RELATED; i++) {
        uint64_t *w = tk_map_find_u64(&m->last_write, v->entries[i].address & ~(uint64_t)7);
        if (w)
            ids[n++] = *w;
    }
    if (rec->kind == TK_CASEMATE_LOCK || rec->kind == TK_CASEMATE_TRYLOCK ||
        rec->kind == TK_CASEMATE_UNLOCK) {
        const tk_cmpf_lock *l = tk_map_find_u64(&m->locks, rec->address);
        if (l && l->depth)
            ids[n++] = l->taken_id;
    }
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && ids[j] != ids[i])
            j++;
        if (j == i)
            add(t, "%s%llu", t->n ? "," : "", (unsigned long long)ids[i]);
    }
}

/* The related entries, shortly: "0x81000=0x0 S2 L1 IU; ...". */
static void entries(const tk_casemate_violation *v, text *t)
{
    for (size_t i = 0; i < v->nentries && i < MAX_RELATED; i++) {
        const tk_casemate_entry *e = &v->entries[i];
        if (i)
            add_str(t, "; ");
        add(t, "0x%llx=0x%llx", (unsigned long long)e->address, (unsigned long long)e->value);
        if (e->state == TK_CASEMATE_STATE_NONE) {
            add_str(t, e->initialised ? " not a page-table entry" : " uninitialised");
            continue;
        }
        add(t, " S%u L%u ", e->stage, e->level);
        add_str(t, tk_casemate_state_name(e->state));
        if (e->state != TK_CASEMATE_STATE_VALID)
            add(t, " by tid %llu", (unsigned long long)e->invalidator);
        add(t, " root:0x%llx", (unsigned long long)e->root);
    }
    if (v->nentries > MAX_RELATED)
        add(t, "; ... (%zu in all)", v->nentries);
}

static tk_status violation(tk_cmpf *m, const tk_casemate_violation *v,
                           const tk_casemate_record *rec, uint64_t ts, uint64_t line,
                           tk_error *err)
{
    uint64_t code = tk_perfetto_string(m->p, v->code, strlen(v->code), err);
    uint64_t name = code ? tk_perfetto_name(m->p, v->message, strlen(v->message), err) : 0;
    if (!name)
        return err->status;
    text ids = {.n = 0}, ents = {.n = 0};
    ids.s[0] = ents.s[0] = '\0';
    related_ids(m, v, rec, &ids);
    entries(v, &ents);
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
    } else if (rec->kind == TK_CASEMATE_MEM_WRITE) {
        uint64_t *w = tk_map_u64(&m->last_write, rec->address & ~(uint64_t)7);
        if (!w)
            return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        *w = rec->id;
    }
    if (verdict != 0) { /* the checker has stopped: so does what serves it */
        m->checking = 0;
        tk_map_free(&m->last_write);
        tk_map_init(&m->last_write, sizeof(uint64_t));
    }
    return st;
}
