/* casemate's HTML report (report --html): what the one pass over the log
 * gathers (html_collect.c) for the page's sections: the verdict and the
 * summary (html.c), the violation's card (html_card.c), the per-thread
 * timeline (html_timeline.c) and the page-table tree (html_tree.c). */
#ifndef TK_CASEMATE_HTML_INT_H
#define TK_CASEMATE_HTML_INT_H

#include <stdio.h>

#include <tracekit/casemate.h>
#include <tracekit/casemate_check.h>
#include <tracekit/format.h>

#include "casemate/export_check.h"
#include "core/hashmap.h"
#include "export/html/html.h"

/* Windows of the timeline (over record indexes), threads with a lane. */
#define TK_CMH_WINDOWS 128
#define TK_CMH_LANES 64
/* Events a violation relates: its own, the last write to each related
 * entry (export_check.c shows 8), the lock taker. */
#define TK_CMH_RELATED 10

/* A thread's records: how many, its first and last record index (its
 * records per window, for the first TK_CMH_LANES threads, are in tk_cmh:
 * a million threads cost 24 bytes each). */
typedef struct tk_cmh_thread {
    uint64_t records, first, last;
} tk_cmh_thread;

/* Why an event is related to the violation. */
typedef enum tk_cmh_role { TK_CMH_SELF, TK_CMH_WRITE, TK_CMH_TAKER } tk_cmh_role;

/* An event's place in the log. `id` comes first: the map of last writes
 * (slot -> tk_cmh_event) is read as slot -> id by export_check.h. */
typedef struct tk_cmh_event {
    uint64_t id, record, line, tid, address;
    tk_casemate_kind kind;
    tk_cmh_role role;
} tk_cmh_event;

/* A lock as the log took it: the taking event (a lock or trylock of the
 * lock's address, so only what differs is kept), and re-entries. */
typedef struct tk_cmh_lock {
    uint64_t id, record, line, tid; /* of the taking event */
    uint64_t depth;
    uint8_t kind;
} tk_cmh_lock;

typedef struct tk_cmh {
    tk_casemate_reader *r;
    tk_casemate_checker *k;
    const char *file;        /* the input's name, as bbm prints it */
    /* the text report's counts */
    uint64_t records, by_kind[TK_CASEMATE_KIND_COUNT];
    tk_map threads;          /* tid -> tk_cmh_thread */
    uint64_t last_tid;       /* the thread of the record before, */
    tk_cmh_thread *last;     /* NULL: none (valid until the map grows) */
    size_t followed;         /* threads with windows: the first ones seen */
    uint64_t *win[TK_CMH_LANES]; /* [i]: windows of the thread seen i-th */
    uint64_t width;          /* records per window */
    /* the verdict: 0 ok, 1 violation, -1 the model gave up */
    int verdict;
    uint64_t at_line, at_col, at_record, at_tid;
    tk_error gave_up;
    /* what the checker's violation relates, while it checks */
    tk_map writes;           /* 8-byte slot -> tk_cmh_event (its last mem-write) */
    tk_map locks;            /* lock address -> tk_cmh_lock */
    tk_cmh_event related[TK_CMH_RELATED];
    size_t nrelated;
    tk_cmx_text related_ids; /* as the Perfetto and Parquet exports say */
} tk_cmh;

/* The records per window of thread `t` (of x->threads), NULL when none
 * are kept. */
static inline const uint64_t *tk_cmh_win(const tk_cmh *x, const tk_cmh_thread *t)
{
    size_t i = (size_t)((const unsigned char *)t - x->threads.values) / sizeof *t;
    return i < x->followed ? x->win[i] : NULL;
}

/* Read the log into the counts and the checker, as the text report does
 * (html_collect.c). TK_OK, or the reader's error / TK_ENOMEM. */
tk_status tk_cmh_collect(tk_cmh *x, tk_error *err);
void tk_cmh_free(tk_cmh *x);

/* The sections. */
void tk_cmh_card(tk_html *h, tk_cmh *x);
void tk_cmh_timeline(tk_html *h, tk_cmh *x);
void tk_cmh_tree(tk_html *h, tk_cmh *x);
/* The locks the violation involves: its entries' root locks and the locks
 * held at the verdict (html_locks.c). */
void tk_cmh_locks(tk_html *h, tk_cmh *x);

/* A name in the JSON's snake_case ("mem-write" -> "mem_write") into buf. */
const char *tk_cmh_snake(const char *name, char *buf, size_t size);

/* report --html for casemate (html.c). */
tk_status tk_casemate_report_html(tk_input *in, const tk_options *o, FILE *out, tk_error *err);

#endif
