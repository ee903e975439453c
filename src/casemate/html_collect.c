/* casemate's HTML report: the one pass over the log. Each record is
 * counted as the text report counts it (report.c) and fed to the checker
 * with its defaults until the verdict; meanwhile the last write to each
 * 8-byte slot and each lock's taker are kept (export_check.h), so the
 * violation can name the events behind it, and each thread's records are
 * counted per window of record indexes for the timeline. */
#include <stdlib.h>
#include <string.h>

#include "casemate/html_int.h"

void tk_cmh_free(tk_cmh *x)
{
    for (size_t i = 0; i < x->followed; i++)
        free(x->win[i]);
    tk_map_free(&x->threads);
    tk_map_free(&x->writes);
    tk_map_free(&x->locks);
    tk_casemate_check_free(x->k);
}

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

/* Windows twice as wide, each the sum of two: the log outgrew them. */
static void widen(tk_cmh *x)
{
    for (size_t i = 0; i < x->followed; i++) {
        uint64_t *w = x->win[i];
        for (int k = 0; k < TK_CMH_WINDOWS; k++)
            w[k] = k < TK_CMH_WINDOWS / 2 ? w[2 * k] + w[2 * k + 1] : 0;
    }
    x->width *= 2;
}

/* The record's thread: counts and its window. */
static tk_status count_thread(tk_cmh *x, const tk_casemate_record *rec, uint64_t index,
                              tk_error *err)
{
    /* a thread's records often come together: one lookup for them all */
    tk_cmh_thread *t = x->last && x->last_tid == rec->tid ? x->last
                                                          : tk_map_u64(&x->threads, rec->tid);
    if (!t)
        return oom(err);
    x->last = t; /* the map grows only in tk_map_u64, which gave t */
    x->last_tid = rec->tid;
    if (!t->records) {
        t->first = index;
        /* the first threads seen, while windows can be had */
        if (x->followed < TK_CMH_LANES && x->followed == x->threads.n - 1 &&
            (x->win[x->followed] = calloc(TK_CMH_WINDOWS, sizeof **x->win)))
            x->followed++;
    }
    t->records++;
    t->last = index;
    while (index / x->width >= TK_CMH_WINDOWS)
        widen(x);
    uint64_t *w = (uint64_t *)tk_cmh_win(x, t);
    if (w)
        w[index / x->width]++;
    return TK_OK;
}

static tk_cmh_event event_of(const tk_casemate_record *rec, uint64_t index, uint64_t line,
                             tk_cmh_role role)
{
    return (tk_cmh_event){.id = rec->id, .record = index, .line = line, .tid = rec->tid,
                          .address = rec->address, .kind = rec->kind, .role = role};
}

/* After the checker accepted `rec`: the last writes and the locks' takers
 * (a holder's re-entrant trylocks nest, as the checker counts them). */
static tk_status follow(tk_cmh *x, const tk_casemate_record *rec, uint64_t index,
                        uint64_t line, tk_error *err)
{
    if (tk_cmx_note_write(&x->writes, rec, err) != TK_OK)
        return err->status;
    if (rec->kind == TK_CASEMATE_MEM_WRITE) {
        tk_cmh_event *w = tk_map_find_u64(&x->writes, rec->address & ~(uint64_t)7);
        *w = event_of(rec, index, line, TK_CMH_WRITE);
    } else if (rec->kind == TK_CASEMATE_LOCK || rec->kind == TK_CASEMATE_TRYLOCK) {
        tk_cmh_lock *l = tk_map_u64(&x->locks, rec->address);
        if (!l)
            return oom(err);
        if (!l->depth)
            *l = (tk_cmh_lock){.id = rec->id, .record = index, .line = line, .tid = rec->tid,
                               .kind = (uint8_t)rec->kind};
        if (!l->depth || (rec->kind == TK_CASEMATE_TRYLOCK && l->tid == rec->tid))
            l->depth++;
    } else if (rec->kind == TK_CASEMATE_UNLOCK) {
        tk_cmh_lock *l = tk_map_find_u64(&x->locks, rec->address);
        if (l && l->depth)
            l->depth--;
    }
    return TK_OK;
}

static void relate(tk_cmh *x, tk_cmh_event e)
{
    for (size_t i = 0; i < x->nrelated; i++)
        if (x->related[i].id == e.id && x->related[i].record == e.record)
            return;
    if (x->nrelated < TK_CMH_RELATED)
        x->related[x->nrelated++] = e;
}

/* The events behind the violation, as tk_cmx_related_ids names them. */
static void violation(tk_cmh *x, const tk_casemate_record *rec)
{
    const tk_casemate_violation *v = tk_casemate_check_violation(x->k);
    const tk_cmh_lock *l = tk_map_find_u64(&x->locks, rec->address);
    int lock_op = rec->kind == TK_CASEMATE_LOCK || rec->kind == TK_CASEMATE_TRYLOCK ||
                  rec->kind == TK_CASEMATE_UNLOCK;
    const tk_cmh_lock *taker = lock_op && l && l->depth ? l : NULL;
    tk_cmx_related_ids(&x->writes, v, rec, taker ? &taker->id : NULL, &x->related_ids);
    relate(x, event_of(rec, x->at_record, x->at_line, TK_CMH_SELF));
    for (size_t i = 0; i < v->nentries && i < 8; i++) {
        const tk_cmh_event *w = tk_map_find_u64(&x->writes, v->entries[i].address & ~(uint64_t)7);
        if (w)
            relate(x, *w);
    }
    if (taker)
        relate(x, (tk_cmh_event){.id = taker->id, .record = taker->record, .line = taker->line,
                                 .tid = taker->tid, .address = rec->address,
                                 .kind = (tk_casemate_kind)taker->kind, .role = TK_CMH_TAKER});
}

/* Count the record and step the checker (until its verdict). */
static tk_status step(tk_cmh *x, const tk_casemate_record *rec, tk_error *err)
{
    uint64_t index = tk_casemate_reader_index(x->r), line = tk_casemate_reader_line(x->r);
    x->records++;
    x->by_kind[rec->kind]++;
    if (count_thread(x, rec, index, err) != TK_OK)
        return err->status;
    if (x->verdict != 0) /* stopped: the rest is only counted */
        return TK_OK;
    tk_error e;
    tk_error_clear(&e);
    x->verdict = tk_casemate_check_feed(x->k, rec, &e);
    if (x->verdict == 0)
        return follow(x, rec, index, line, err);
    x->at_line = line;
    x->at_col = tk_casemate_reader_col(x->r);
    x->at_record = index;
    x->at_tid = rec->tid;
    x->gave_up = e;
    if (x->verdict > 0)
        violation(x, rec);
    else if (e.status == TK_ENOMEM)
        return oom(err);
    return TK_OK;
}

tk_status tk_cmh_collect(tk_cmh *x, tk_error *err)
{
    tk_map_init(&x->threads, sizeof(tk_cmh_thread));
    tk_map_init(&x->writes, sizeof(tk_cmh_event));
    tk_map_init(&x->locks, sizeof(tk_cmh_lock));
    x->width = 1;
    tk_casemate_check_options opt;
    tk_casemate_check_options_init(&opt); /* the text report's: casemate-check's defaults */
    if (!(x->k = tk_casemate_check_new(&opt, err)))
        return err->status;
    tk_casemate_record rec;
    int rc;
    tk_status st = TK_OK;
    while (st == TK_OK && (rc = tk_casemate_next(x->r, &rec, err)) > 0)
        st = step(x, &rec, err);
    if (st == TK_OK && rc < 0)
        st = err->status;
    return st;
}

const char *tk_cmh_snake(const char *name, char *buf, size_t size)
{
    size_t i = 0;
    for (; name[i] && i + 1 < size; i++)
        buf[i] = name[i] == '-' || name[i] == ' ' ? '_' : name[i];
    buf[i] = '\0';
    return buf;
}
