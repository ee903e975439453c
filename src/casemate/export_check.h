/* What casemate's exports (convert --to perfetto, --to parquet) share:
 * convert's checker options and selection, and what a violation relates
 * beyond the checker's own report (the ids of the events behind it, its
 * entries in short), as text. One place, so the Perfetto violations track
 * and the Parquet violations table say the same. */
#ifndef TK_CASEMATE_EXPORT_CHECK_H
#define TK_CASEMATE_EXPORT_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <tracekit/casemate.h>
#include <tracekit/casemate_check.h>
#include <tracekit/format.h>
#include <tracekit/select.h>

#include "core/hashmap.h"

/* The checker's options: bbm's, under the same names. Cannot fail. */
void tk_cmx_check_options(const tk_options *o, tk_casemate_check_options *c);

/* The selection (--thread, --range, --addr), checked as the reader would
 * (tk_casemate_reader_select); *sel NULL when none is given. TK_EUSAGE,
 * TK_ENOMEM. The caller frees *sel, also on failure. */
tk_status tk_cmx_selection(const tk_options *o, tk_selection **sel, tk_error *err);

/* A short text, cut at its end (a violation relates a handful of ids and
 * entries). */
typedef struct tk_cmx_text {
    char s[1024];
    size_t n;
} tk_cmx_text;

/* After the checker accepted `rec`: a mem-write becomes the last write of
 * its 8-byte slot in `last_write` (slot -> id). TK_ENOMEM. */
tk_status tk_cmx_note_write(tk_map *last_write, const tk_casemate_record *rec, tk_error *err);

/* The event ids related to violation `v` raised at `rec`, comma-separated
 * without repeats: the record's own, the last mem-write to each related
 * entry, and `lock_taker` (the id of the lock/trylock holding the lock a
 * lock operation names; NULL when none). Replaces `t`. */
void tk_cmx_related_ids(const tk_map *last_write, const tk_casemate_violation *v,
                        const tk_casemate_record *rec, const uint64_t *lock_taker,
                        tk_cmx_text *t);

/* The related entries, shortly: "0x81000=0x0 S2 L1 IU by tid 1
 * root:0x80000; ..." (up to 8). Replaces `t`; empty when none. */
void tk_cmx_entries(const tk_casemate_violation *v, tk_cmx_text *t);

#endif
