/* The FDR block grammar as a state table (as LLVM's BlockVerifier):
 *
 *   Unknown       -> BufferExtents | NewBuffer
 *   BufferExtents -> NewBuffer
 *   NewBuffer     -> WallClockTime
 *   WallClockTime -> Pid | NewCPUId
 *   Pid           -> NewCPUId
 *   body          -> body | EndOfBuffer      body = NewCPUId, TSCWrap,
 *   Function      -> body | CallArg | EOB           CustomEvent, TypedEvent,
 *   CallArg       -> body | CallArg | EOB           Function
 *
 * A block may end in EndOfBuffer or a body state. */
#include "xray/xray_int.h"

#define B(s) (1u << (s))
#define BODY (B(XV_NEW_CPU) | B(XV_TSC_WRAP) | B(XV_CUSTOM) | B(XV_TYPED) | B(XV_FUNCTION))

static const unsigned allowed[XV_MAX] = {
    [XV_UNKNOWN] = B(XV_EXTENTS) | B(XV_NEW_BUFFER),
    [XV_EXTENTS] = B(XV_NEW_BUFFER),
    [XV_NEW_BUFFER] = B(XV_WALLTIME),
    [XV_WALLTIME] = B(XV_PID) | B(XV_NEW_CPU),
    [XV_PID] = B(XV_NEW_CPU),
    [XV_NEW_CPU] = BODY | B(XV_EOB),
    [XV_TSC_WRAP] = BODY | B(XV_EOB),
    [XV_CUSTOM] = BODY | B(XV_EOB),
    [XV_TYPED] = BODY | B(XV_EOB),
    [XV_FUNCTION] = BODY | B(XV_CALL_ARG) | B(XV_EOB),
    [XV_CALL_ARG] = BODY | B(XV_CALL_ARG) | B(XV_EOB),
    [XV_EOB] = 0,
};

static const unsigned terminal = BODY | B(XV_CALL_ARG) | B(XV_EOB);

static const char *const names[XV_MAX] = {
    [XV_UNKNOWN] = "Unknown",         [XV_EXTENTS] = "BufferExtents",
    [XV_NEW_BUFFER] = "NewBuffer",    [XV_WALLTIME] = "WallClockTime",
    [XV_PID] = "Pid",                 [XV_NEW_CPU] = "NewCPUId",
    [XV_TSC_WRAP] = "TSCWrap",        [XV_CUSTOM] = "CustomEvent",
    [XV_TYPED] = "TypedEvent",        [XV_FUNCTION] = "Function",
    [XV_CALL_ARG] = "CallArg",        [XV_EOB] = "EndOfBuffer",
};

xv_state tk_xv_state_of(tk_xray_fdr_kind k)
{
    switch (k) {
    case TK_XRAY_FDR_NEW_BUFFER: return XV_NEW_BUFFER;
    case TK_XRAY_FDR_END_OF_BUFFER: return XV_EOB;
    case TK_XRAY_FDR_NEW_CPU: return XV_NEW_CPU;
    case TK_XRAY_FDR_TSC_WRAP: return XV_TSC_WRAP;
    case TK_XRAY_FDR_WALLTIME: return XV_WALLTIME;
    case TK_XRAY_FDR_CUSTOM_EVENT: return XV_CUSTOM;
    case TK_XRAY_FDR_CALL_ARG: return XV_CALL_ARG;
    case TK_XRAY_FDR_BUFFER_EXTENTS: return XV_EXTENTS;
    case TK_XRAY_FDR_TYPED_EVENT: return XV_TYPED;
    case TK_XRAY_FDR_PID: return XV_PID;
    case TK_XRAY_FDR_FUNCTION: return XV_FUNCTION;
    }
    return XV_UNKNOWN;
}

int tk_xv_allowed(xv_state from, xv_state to)
{
    return (allowed[from] & B(to)) != 0;
}

int tk_xv_terminal(xv_state s)
{
    return (terminal & B(s)) != 0;
}

const char *tk_xv_name(xv_state s)
{
    return s < XV_MAX ? names[s] : "?";
}
