/* tracekit — selections: which records of a trace the commands look at.
 *
 * A selection is made from the options "thread", "range", "addr" and
 * "func" (the command line's --thread, --range, --addr and --func), parsed
 * once here; each format's reader applies it (tk_cacheray_reader_select,
 * tk_xray_reader_new_selected, ...), so every command and export reading
 * through it sees the same records. What each option means for each
 * format: docs/formats/<format>.md, "Selection".
 *
 *   thread  LIST: ids and inclusive id ranges, "1,5-9"
 *   range   FROM:TO, a half-open window [FROM, TO) in the format's unit
 *           (record index, event id, instruction index; XRay: time since
 *           the trace's first TSC); ":TO" and "FROM:" leave an end open.
 *           Counts: decimal or 0x hex, K/M/G multiply by 2^10/2^20/2^30;
 *           times: a number with ns, us, ms or s ("10ms", "2.5s"), plain
 *           numbers being ns.
 *   addr    LIST of byte ranges: "LO-HI" (HI excluded, as in
 *           /proc/PID/maps), "ADDR+LEN", or one "ADDR"; decimal or 0x hex.
 *   func    XRay: a function id, "#ID", or a name (with a map).
 *
 * A tk_selection is immutable once made: readers copy what they need, so
 * it may be freed once they are set up, and one selection may be handed
 * to readers on several threads at once. */
#ifndef TRACEKIT_SELECT_H
#define TRACEKIT_SELECT_H

#include <tracekit/error.h>
#include <tracekit/format.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct tk_selection tk_selection;

/* The selection the options of `o` make (an empty one selects every
 * record). NULL with TK_EUSAGE for a value that does not parse, or
 * TK_ENOMEM. Free with tk_selection_free (NULL is fine). */
tk_selection *tk_selection_new(const tk_options *o, tk_error *err);
void tk_selection_free(tk_selection *s);

/* 1 when the selection keeps every record (no option given). */
int tk_selection_empty(const tk_selection *s);

/* The first selection option given, as the command line spells it
 * ("--thread", static text), or NULL: for commands that refuse them. */
const char *tk_selection_option(const tk_selection *s);

/* Check one option's value alone (key "thread", "range", "addr" or
 * "func"): TK_OK, or TK_EUSAGE with the reason (for early errors). */
tk_status tk_selection_check(const char *key, const char *value, tk_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
