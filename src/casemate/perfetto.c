/* casemate on a Perfetto timeline (`convert --to perfetto`): one pass over
 * the log, one packet sequence. The log has no clock, so time is the
 * record's index (1 ns per record) and the UI shows the log's order. The
 * checker runs over the whole log while the selection (--thread, --range,
 * --addr) picks the records shown. Tracks and events:
 * docs/formats/casemate.md, "Perfetto timeline". */
#include <stdio.h>
#include <string.h>

#include <tracekit/error.h>
#include <tracekit/format.h>
#include <tracekit/input.h>

#include "casemate/casemate_int.h"
#include "casemate/export_check.h"
#include "casemate/perfetto_int.h"
#include "core/select.h"

static const char *const arg_names[TK_CMPF_A_COUNT] = {
    "id", "thread", "mem_order", "addr", "value", "size", "sysreg", "barrier", "tlbi",
    "level", "hint", "src", "src_id", "code", "message", "detail", "record", "line",
    "related_ids", "entries"};

/* The category of each kind: the timeline filters by it. */
static const char *kind_category(tk_casemate_kind k)
{
    switch (k) {
    case TK_CASEMATE_SYSREG_WRITE: return "sysreg";
    case TK_CASEMATE_BARRIER: return "barrier";
    case TK_CASEMATE_TLBI: return "tlbi";
    case TK_CASEMATE_HINT: return "hint";
    case TK_CASEMATE_LOCK:
    case TK_CASEMATE_TRYLOCK:
    case TK_CASEMATE_UNLOCK: return "lock";
    default: return "memory";
    }
}

/* Intern `n` names of a table (`name(i)`) as annotation string values. */
static int intern_words(tk_cmpf *m, uint64_t *ids, size_t n, const char *(*name)(int),
                        tk_error *err)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = name((int)i);
        if (!(ids[i] = tk_perfetto_string(m->p, s, strlen(s), err)))
            return -1;
    }
    return 0;
}

static const char *mem_order_name(int i)
{
    return tk_casemate_mem_order_name((tk_casemate_mem_order)i);
}
static const char *barrier_name(int i) { return tk_casemate_barrier_name((tk_casemate_barrier)i); }
static const char *tlbi_name(int i) { return tk_casemate_tlbi_name((tk_casemate_tlbi)i); }
static const char *sysreg_name(int i) { return tk_casemate_sysreg_name((tk_casemate_sysreg)i); }
static const char *hint_name(int i) { return tk_casemate_hint_name((tk_casemate_hint)i); }

tk_status tk_cmpf_setup(tk_cmpf *m, tk_error *err)
{
    for (int k = 0; k < TK_CASEMATE_KIND_COUNT; k++) {
        const char *name = tk_casemate_kind_name((tk_casemate_kind)k);
        const char *cat = kind_category((tk_casemate_kind)k);
        if (!(m->kind_name[k] = tk_perfetto_name(m->p, name, strlen(name), err)) ||
            !(m->kind_cat[k] = tk_perfetto_category(m->p, cat, strlen(cat), err)))
            return err->status;
    }
    for (int a = 0; a < TK_CMPF_A_COUNT; a++)
        if (!(m->arg[a] = tk_perfetto_arg_name(m->p, arg_names[a], strlen(arg_names[a]), err)))
            return err->status;
    if (intern_words(m, m->mem_order, TK_CASEMATE_MEM_ORDER_COUNT, mem_order_name, err) ||
        intern_words(m, m->barrier, TK_CASEMATE_BARRIER_COUNT, barrier_name, err) ||
        intern_words(m, m->tlbi, TK_CASEMATE_TLBI_COUNT, tlbi_name, err) ||
        intern_words(m, m->sysreg, TK_CASEMATE_SYSREG_COUNT, sysreg_name, err) ||
        intern_words(m, m->hint, TK_CASEMATE_HINT_COUNT, hint_name, err) ||
        !(m->cat_bbm = tk_perfetto_category(m->p, "bbm", 3, err)) ||
        !(m->name_not_checked = tk_perfetto_name(m->p, "not checked", 11, err)))
        return err->status;
    m->violations_track = m->next_uuid++;
    return tk_perfetto_track(m->seq, m->violations_track, 0, "violations", err);
}

void tk_cmpf_free(tk_cmpf *m)
{
    tk_map_free(&m->threads);
    tk_map_free(&m->lock_tracks);
    tk_map_free(&m->locks);
    tk_map_free(&m->last_write);
    tk_casemate_check_free(m->k);
}

/* Every record: the checker first (it reads the lock table as it was),
 * then the record if selected, and the end of a lock slice. */
static tk_status pass(tk_cmpf *m, tk_casemate_reader *r, const tk_selection *sel,
                      uint64_t *records, tk_error *err)
{
    tk_casemate_record rec;
    int rc;
    while ((rc = tk_casemate_next(r, &rec, err)) > 0) {
        uint64_t ts = tk_casemate_reader_index(r);
        int shown = !sel || tk_casemate_selected(sel, &rec);
        if (tk_cmpf_check(m, &rec, ts, tk_casemate_reader_line(r), err) != TK_OK ||
            (shown && tk_cmpf_event(m, &rec, ts, err) != TK_OK) ||
            (rec.kind == TK_CASEMATE_UNLOCK && tk_cmpf_unlock(m, &rec, ts, err) != TK_OK))
            break;
        ++*records;
    }
    if (rc > 0 && err->status != TK_EIO) { /* the mapping failed: at which record */
        err->line = tk_casemate_reader_line(r);
        err->col = tk_casemate_reader_col(r);
        err->record = tk_casemate_reader_index(r);
    }
    return rc == 0 ? TK_OK : err->status;
}

tk_status tk_casemate_perfetto(tk_input *in, const tk_options *o, FILE *out, tk_error *err)
{
    tk_selection *sel;
    tk_cmpf m;
    memset(&m, 0, sizeof m);
    m.next_uuid = 1;
    tk_map_init(&m.threads, sizeof(uint64_t));
    tk_map_init(&m.lock_tracks, sizeof(uint64_t));
    tk_map_init(&m.locks, sizeof(tk_cmpf_lock));
    tk_map_init(&m.last_write, sizeof(uint64_t));
    tk_casemate_check_options copt;
    tk_cmx_check_options(o, &copt);
    tk_casemate_reader *r = NULL;
    tk_status st = tk_cmx_selection(o, &sel, err);
    if (st == TK_OK && (!(r = tk_casemate_reader_new(in, err)) ||
                        !(m.k = tk_casemate_check_new(&copt, err)) ||
                        !(m.p = tk_perfetto_new(out, err)) ||
                        !(m.seq = tk_perfetto_seq_new(m.p, err))))
        st = err->status;
    m.checking = 1;
    uint64_t records = 0;
    if (st == TK_OK)
        st = tk_cmpf_setup(&m, err);
    if (st == TK_OK)
        st = pass(&m, r, sel, &records, err);
    if (st == TK_OK) /* locks never released: held to the end of the log */
        st = tk_cmpf_close_locks(&m, records, err);
    if (st == TK_OK) {
        st = tk_perfetto_finish(m.p, err);
        m.p = NULL;
    }
    tk_perfetto_free(m.p);
    tk_cmpf_free(&m);
    tk_casemate_reader_free(r);
    tk_selection_free(sel);
    return st;
}
