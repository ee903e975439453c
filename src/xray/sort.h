/* Records sorted by TSC (stable: ties keep file order), as llvm-xray
 * convert sorts them, in bounded memory: records are held up to a budget,
 * then sorted and written to an unlinked temporary file as a run; the
 * runs and the last in-memory batch are merged at the end. */
#ifndef TK_XRAY_SORT_H
#define TK_XRAY_SORT_H

#include <stdint.h>
#include <tracekit/xray.h>

typedef struct tk_xr_sorter tk_xr_sorter;

/* budget_bytes: memory for held records (0: 64 MiB). */
tk_xr_sorter *tk_xr_sorter_new(uint64_t budget_bytes);
void tk_xr_sorter_free(tk_xr_sorter *s);

/* Copy a record in (its arguments and payload too). */
tk_status tk_xr_sorter_add(tk_xr_sorter *s, const tk_xray_record *rec, tk_error *err);

/* After the last add: records in order, 1 / 0 at the end / -1 on error.
 * A record stays valid until the next call. */
int tk_xr_sorter_next(tk_xr_sorter *s, tk_xray_record *rec, tk_error *err);

/* Runs written to the temporary file (tests). */
uint64_t tk_xr_sorter_runs(const tk_xr_sorter *s);

#endif
