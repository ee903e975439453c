/* tracekit — one way to read any trace.
 *
 * Open a file, a tk_input or memory; the format is detected from the first
 * bytes (or forced by name); then pull the records one at a time
 * (tk_reader_next) or have them pushed to a callback (tk_reader_foreach).
 * Every record comes as a common header — format, kind, index, where it is
 * in the input, thread and time where the format has them — and a pointer
 * to the format's own record, whose fields <tracekit/FORMAT.h> documents.
 * Every format is behind it, both UCIR flavours included (the 2016 spec
 * and usercorn's .uc files). The per-format readers (tk_cacheray_next,
 * tk_casemate_next, tk_ucir_next, tk_xray_next) stay for code that wants
 * one format's details.
 *
 * Options are the same keys the commands use (<tracekit/format.h>): the
 * format's own (e.g. "endian" for Cacheray, "threads" for UCIR) and the
 * selection (<tracekit/select.h>: "thread", "range", "addr", "func"), which
 * is applied here, once, so the records a consumer sees are exactly those
 * the commands see with the same options. A key the format does not read
 * is TK_EUSAGE, as on the command line. "allow-truncated" (any value but
 * "0") lets every format's reader end cleanly after the last whole record
 * of a trace cut inside a record (<tracekit/input.h>); the reader's input
 * is then set to allow it, and tk_reader_truncation says what was dropped.
 *
 * Conventions (<tracekit/tracekit.h>): calls that can fail take a tk_error * and
 * return tk_status, NULL or -1. A reader is used by one thread at a time;
 * distinct readers are independent. */
#ifndef TRACEKIT_READER_H
#define TRACEKIT_READER_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/cacheray.h>
#include <tracekit/casemate.h>
#include <tracekit/error.h>
#include <tracekit/format.h>
#include <tracekit/input.h>
#include <tracekit/ucir.h>
#include <tracekit/xray.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct tk_reader tk_reader;

/* Which format's record a tk_record carries. */
typedef enum tk_record_format {
    TK_RECORD_CACHERAY = 1,
    TK_RECORD_CASEMATE = 2,
    TK_RECORD_UCIR = 3,     /* both UCIR flavours: the spec's and .uc */
    TK_RECORD_XRAY = 4
} tk_record_format;

/* One record: the header every format fills, and the format's own. */
typedef struct tk_record {
    tk_record_format format;
    const char *kind;    /* the kind in docs/json.md's spelling:
                            "mem_write", "function_enter", "rtta_add", ... */
    uint64_t index;      /* 0-based, in the trace, in reading order (UCIR:
                            records, not instructions; XRay: logical records) */
    uint64_t offset;     /* byte offset in the input (binary formats); for
                            UCIR the frame's offset; TK_NO_OFFSET otherwise */
    uint64_t line;       /* text formats: 1-based line; 0 otherwise */
    int has_thread;      /* 1 when the format records threads */
    uint64_t thread;     /* Cacheray thread, casemate tid, XRay tid */
    int has_time;        /* 1 when the format records time */
    uint64_t time;       /* XRay: the absolute TSC (ticks at the header's
                            cycle frequency) */
    union {              /* exactly the member `format` names is set */
        const tk_cacheray_record *cacheray;
        const tk_casemate_record *casemate;
        const tk_ucir_op *ucir;
        const tk_xray_record *xray;
    } as;
} tk_record;

/* Open a trace. `format` names one (tk_format_find) or is NULL to detect
 * it; `o` holds the format's options and the selection, or is NULL.
 *   tk_reader_open         a path; "-" is standard input
 *   tk_reader_new          an input the reader borrows (it must outlive
 *                          the reader; its position is the trace's start)
 *   tk_reader_from_memory  caller memory that must outlive the reader
 * NULL on failure with `err` filled: the input cannot be opened
 * (TK_EIO), no format recognises it or its header is malformed
 * (TK_EMALFORMED), an option does not apply or does not parse (TK_EUSAGE),
 * out of memory (TK_ENOMEM). Free with tk_reader_free. */
tk_reader *tk_reader_open(const char *path, const char *format, const tk_options *o,
                          tk_error *err);
tk_reader *tk_reader_new(tk_input *in, const char *format, const tk_options *o,
                         tk_error *err);
tk_reader *tk_reader_from_memory(const void *data, size_t size, const char *format,
                                 const tk_options *o, tk_error *err);
void tk_reader_free(tk_reader *r); /* NULL is fine */

/* The format read (never NULL for an open reader). */
const tk_format *tk_reader_format(const tk_reader *r);

/* 1 with `*t` filled when reading stopped at a truncated tail (only with
 * "allow-truncated": tk_reader_next returned 0 there), 0 otherwise. Ask
 * after the end. Cannot fail. */
int tk_reader_truncation(const tk_reader *r, tk_truncation *t);

/* The next record: 1 with `rec` filled, 0 at the end, -1 on a malformed
 * record or an I/O error (`err` says where: offset or line:col, and the
 * record index). After -1 every call returns -1. `rec` and everything it
 * points to stay valid until the next call on `r` (copy what you keep). */
int tk_reader_next(tk_reader *r, tk_record *rec, tk_error *err);

/* Called for each record; return 0 to go on, anything else to stop. */
typedef int (*tk_record_fn)(const tk_record *rec, void *ctx);

/* Push the remaining records to `fn`, in order. TK_OK at the end or when
 * `fn` stopped it (tk_reader_next then goes on after the last record
 * pushed); the reading error otherwise. */
tk_status tk_reader_foreach(tk_reader *r, tk_record_fn fn, void *ctx, tk_error *err);

/* The format's reader under the generic one, for that format's calls
 * (tk_xray_reader_header, tk_ucir_reader_header, ...): NULL when the trace
 * is of another format. Owned by `r`; do not read records through it. */
tk_cacheray_reader *tk_reader_cacheray(tk_reader *r);
tk_casemate_reader *tk_reader_casemate(tk_reader *r);
tk_ucir_reader *tk_reader_ucir(tk_reader *r);
tk_xray_reader *tk_reader_xray(tk_reader *r);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
