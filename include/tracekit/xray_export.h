/* tracekit — XRay exports for viewers: Chrome Trace Event JSON (Perfetto,
 * chrome://tracing). Folded stacks come from tk_xray_stacks_print.
 *
 * The export reads a reader handle (one thread at a time) to its end. */
#ifndef TRACEKIT_XRAY_EXPORT_H
#define TRACEKIT_XRAY_EXPORT_H

#include <stdio.h>
#include <tracekit/xray.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Names a function id for display; NULL falls back to "#<id>". */
typedef const char *(*tk_xray_name_fn)(void *ctx, int32_t func_id);

/* Stream every record of `r` as Chrome Trace Event JSON to `out`:
 * {"traceEvents":[...],"displayTimeUnit":"ns"}. Calls become B/E slices
 * per thread (an exit closes the calls opened after its entry; an exit
 * with no entry is dropped), entry arguments become args, custom and typed
 * events instant events with their payload, and each process and thread
 * gets a name record. ts is in microseconds with nanosecond digits,
 * computed exactly from the TSC and the cycle frequency (1 GHz assumed
 * when the trace has none). The output is valid JSON even when reading
 * fails part way (the error is still returned: the reader's, TK_EIO when
 * writing `out` failed, TK_ENOMEM). `out` is not closed; `name` (may be
 * NULL) is called with `name_ctx` on the calling thread. */
tk_status tk_xray_write_chrome(tk_xray_reader *r, FILE *out, tk_xray_name_fn name,
                               void *name_ctx, tk_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
