/* XRay file header (both modes) and record-kind names. */
#include <string.h>

#include <tracekit/xray.h>

#include "core/bytes.h"

tk_status tk_xray_parse_header(const uint8_t *d, size_t n, tk_xray_header *h,
                               tk_error *err)
{
    if (n < TK_XRAY_HEADER_SIZE)
        return tk_error_set(err, TK_EMALFORMED, 0, TK_NO_RECORD,
                            "file too small for an XRay header (%zu of 32 bytes)", n);
    memset(h, 0, sizeof *h);
    memcpy(h->raw, d, TK_XRAY_HEADER_SIZE);
    h->version = tk_ld16(d, 0);
    h->type = tk_ld16(d + 2, 0);
    h->bitfield = tk_ld32(d + 4, 0);
    h->cycle_frequency = tk_ld64(d + 8, 0);
    h->buffer_size = tk_ld64(d + 16, 0);
    if (h->type > TK_XRAY_FDR) {
        uint16_t bt = tk_ld16(d + 2, 1);
        if (bt <= TK_XRAY_FDR)
            return tk_error_set(err, TK_EUNSUPPORTED, 2, TK_NO_RECORD,
                                "big-endian XRay traces are not supported (no "
                                "XRay runtime writes them)");
        return tk_error_set(err, TK_EMALFORMED, 2, TK_NO_RECORD,
                            "unknown XRay trace type %u (0 basic, 1 FDR)", h->type);
    }
    unsigned max = h->type == TK_XRAY_BASIC ? 3 : 5;
    if (h->version < 1 || h->version > max)
        return tk_error_set(err, TK_EMALFORMED, 0, TK_NO_RECORD,
                            "unsupported version %u for %s mode (1 to %u)", h->version,
                            h->type == TK_XRAY_BASIC ? "basic" : "FDR", max);
    return TK_OK;
}

const char *tk_xray_kind_name(tk_xray_kind k)
{
    switch (k) {
    case TK_XRAY_ENTER: return "function-enter";
    case TK_XRAY_EXIT: return "function-exit";
    case TK_XRAY_TAIL_EXIT: return "function-tail-exit";
    case TK_XRAY_ENTER_ARG: return "function-enter-arg";
    case TK_XRAY_CUSTOM_EVENT: return "custom-event";
    case TK_XRAY_TYPED_EVENT: return "typed-event";
    }
    return "unknown";
}

const char *tk_xray_fdr_kind_name(tk_xray_fdr_kind k)
{
    switch (k) {
    case TK_XRAY_FDR_NEW_BUFFER: return "new-buffer";
    case TK_XRAY_FDR_END_OF_BUFFER: return "end-of-buffer";
    case TK_XRAY_FDR_NEW_CPU: return "new-cpu";
    case TK_XRAY_FDR_TSC_WRAP: return "tsc-wrap";
    case TK_XRAY_FDR_WALLTIME: return "walltime";
    case TK_XRAY_FDR_CUSTOM_EVENT: return "custom-event";
    case TK_XRAY_FDR_CALL_ARG: return "call-argument";
    case TK_XRAY_FDR_BUFFER_EXTENTS: return "buffer-extents";
    case TK_XRAY_FDR_TYPED_EVENT: return "typed-event";
    case TK_XRAY_FDR_PID: return "pid";
    case TK_XRAY_FDR_FUNCTION: return "function";
    }
    return "unknown";
}
