/* casemate on a Perfetto timeline: the state shared by perfetto.c (the
 * pass over the log), perfetto_events.c (records as instants and lock
 * slices) and perfetto_check.c (the checker and the violations track).
 * The mapping is described in docs/formats/casemate.md, "Perfetto
 * timeline". */
#ifndef TK_CASEMATE_PERFETTO_INT_H
#define TK_CASEMATE_PERFETTO_INT_H

#include <stdint.h>

#include <tracekit/casemate.h>
#include <tracekit/casemate_check.h>

#include "core/hashmap.h"
#include "export/perfetto/perfetto.h"

/* Debug-annotation names, interned once. */
enum {
    TK_CMPF_A_ID, TK_CMPF_A_THREAD, TK_CMPF_A_MEM_ORDER, TK_CMPF_A_ADDR, TK_CMPF_A_VALUE,
    TK_CMPF_A_SIZE, TK_CMPF_A_SYSREG, TK_CMPF_A_BARRIER, TK_CMPF_A_TLBI, TK_CMPF_A_LEVEL,
    TK_CMPF_A_HINT, TK_CMPF_A_SRC, TK_CMPF_A_SRC_ID, TK_CMPF_A_CODE, TK_CMPF_A_MESSAGE,
    TK_CMPF_A_DETAIL, TK_CMPF_A_RECORD, TK_CMPF_A_LINE, TK_CMPF_A_RELATED, TK_CMPF_A_ENTRIES,
    TK_CMPF_A_COUNT
};

/* Annotations of one event: a violation has the most (10). */
enum { TK_CMPF_MAX_ARGS = 12 };

/* A lock address as the timeline sees it: the slices open on its track
 * (`depth`: a holder's re-entrant trylocks nest), who opened them, and the
 * id of the event that took it (for a violation's related ids). */
typedef struct tk_cmpf_lock {
    uint64_t depth;
    uint64_t track;
    uint64_t holder;
    uint64_t taken_id;
} tk_cmpf_lock;

typedef struct tk_cmpf {
    tk_perfetto *p;
    tk_perfetto_seq *seq;
    uint64_t next_uuid;
    uint64_t violations_track;
    tk_map threads;      /* tid -> track uuid */
    tk_map lock_tracks;  /* (tid, lock address) -> track uuid of earlier holders */
    tk_map locks;        /* lock address -> tk_cmpf_lock */
    /* interned ids */
    uint64_t kind_name[TK_CASEMATE_KIND_COUNT];
    uint64_t kind_cat[TK_CASEMATE_KIND_COUNT];
    uint64_t arg[TK_CMPF_A_COUNT];
    uint64_t mem_order[TK_CASEMATE_MEM_ORDER_COUNT];
    uint64_t barrier[TK_CASEMATE_BARRIER_COUNT];
    uint64_t tlbi[TK_CASEMATE_TLBI_COUNT];
    uint64_t sysreg[TK_CASEMATE_SYSREG_COUNT];
    uint64_t hint[TK_CASEMATE_HINT_COUNT];
    uint64_t cat_bbm, name_not_checked;
    /* the checker, until it stops */
    tk_casemate_checker *k;
    int checking;
    tk_map last_write;   /* 8-byte slot -> id of the last mem-write to it */
} tk_cmpf;

/* Intern the names and declare the violations track. */
tk_status tk_cmpf_setup(tk_cmpf *m, tk_error *err);
/* Free what the mapping holds besides the writer. */
void tk_cmpf_free(tk_cmpf *m);

/* Record `rec` (index `ts`) on its thread's track: an instant, or the
 * begin of a lock slice (perfetto_events.c). */
tk_status tk_cmpf_event(tk_cmpf *m, const tk_casemate_record *rec, uint64_t ts,
                        tk_error *err);
/* An unlock, selected or not, ends the slice of its lock. */
tk_status tk_cmpf_unlock(tk_cmpf *m, const tk_casemate_record *rec, uint64_t ts,
                         tk_error *err);
/* End every lock slice still open, at `ts` (the end of the log). */
tk_status tk_cmpf_close_locks(tk_cmpf *m, uint64_t ts, tk_error *err);

/* Feed `rec` to the checker; on a violation, or when the model gives up,
 * an instant on the violations track at `ts` (perfetto_check.c). `line`
 * is the record's line in the log. Call before tk_cmpf_event and
 * tk_cmpf_unlock, which change the lock table it reads. */
tk_status tk_cmpf_check(tk_cmpf *m, const tk_casemate_record *rec, uint64_t ts,
                        uint64_t line, tk_error *err);

#endif
