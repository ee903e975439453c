/* Internals shared by the XRay reader, writer and commands. */
#ifndef TK_XRAY_INT_H
#define TK_XRAY_INT_H

#include <tracekit/format.h>
#include <tracekit/xray.h>

/* Block verifier states (verify.c). */
typedef enum xv_state {
    XV_UNKNOWN,
    XV_EXTENTS,
    XV_NEW_BUFFER,
    XV_WALLTIME,
    XV_PID,
    XV_NEW_CPU,
    XV_TSC_WRAP,
    XV_CUSTOM,
    XV_TYPED,
    XV_FUNCTION,
    XV_CALL_ARG,
    XV_EOB,
    XV_MAX
} xv_state;

xv_state tk_xv_state_of(tk_xray_fdr_kind k);
int tk_xv_allowed(xv_state from, xv_state to);
int tk_xv_terminal(xv_state s);
const char *tk_xv_name(xv_state s);

/* The map named by the "instr-map" option ("demangle" = "0" keeps C++
 * names mangled). NULL with err->status TK_OK when there is none. */
struct tk_xray_map *tk_xr_open_map(const tk_options *o, tk_error *err);
/* A tk_xray_name_fn over a tk_xray_map (ctx), "#<id>" without one. */
const char *tk_xr_map_name(void *map, int32_t id);

/* Commands (commands.c, info.c). */
tk_xray_reader *tk_xr_open(tk_input *in, tk_error *err);
void tk_xr_sink_record(tk_sink *s, const tk_xray_record *r, uint64_t i, uint64_t off);
tk_status tk_xr_info(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err);
tk_status tk_xr_report(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err);

#endif
