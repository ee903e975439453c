/* tracekit — the one error type every call reports through.
 *
 * A call that can fail takes a `tk_error *err` last and returns tk_status,
 * NULL or -1, filling `*err` only then (the rules: "Conventions" in
 * <tracekit/tracekit.h>). A tk_error is a plain value owned by the caller:
 * no pointers, nothing to free; copy it freely. The functions below touch
 * only the tk_error given, so distinct errors may be used from different
 * threads at once. */
#ifndef TRACEKIT_ERROR_H
#define TRACEKIT_ERROR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Status codes returned by every fallible call (0 = success). */
typedef enum tk_status {
    TK_OK = 0,
    TK_EMALFORMED = 1,   /* the trace breaks its format: CLI exit 1 */
    TK_EVIOLATION = 2,   /* a check found violations:     CLI exit 1 */
    TK_EIO = 3,          /* reading or writing failed:    CLI exit 2 */
    TK_EUSAGE = 4,       /* bad option or argument:       CLI exit 2 */
    TK_ENOMEM = 5,       /* out of memory:                CLI exit 2 */
    TK_EUNSUPPORTED = 6  /* valid request tracekit cannot do (yet): exit 2 */
} tk_status;

#define TK_NO_OFFSET UINT64_MAX
#define TK_NO_RECORD UINT64_MAX

/* Where and what went wrong. Binary formats set `offset`; text formats set
 * `line`/`col` (1-based, 0 = unknown). `record` is the 0-based index of the
 * record being read, when there is one. `file` names the file the error is
 * about when it is not the trace being read (an instrumentation map, an
 * output file, "<stdout>"); empty otherwise. */
typedef struct tk_error {
    tk_status status;
    uint64_t offset;
    uint64_t line, col;
    uint64_t record;
    char message[256];
    char file[256];
} tk_error;

/* Reset to "no error" (status TK_OK, no place, empty message and file).
 * `err` may be NULL. */
void tk_error_clear(tk_error *err);

/* Fill `err` (may be NULL) and return `status`: `return tk_error_set(err,
 * TK_EMALFORMED, offset, record, "...", ...)` is the usual failure path.
 * printf-style message, cut to fit err->message. `offset` and `record`
 * may be TK_NO_OFFSET and TK_NO_RECORD. */
tk_status tk_error_set(tk_error *err, tk_status status, uint64_t offset,
                       uint64_t record, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Like tk_error_set, for text formats: a 1-based line and column (0:
 * unknown). */
tk_status tk_error_set_text(tk_error *err, tk_status status, uint64_t line,
                            uint64_t col, uint64_t record, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Say which file the error set in `err` is about (after tk_error_set:
 * setting an error forgets the file). `err` may be NULL; `file` is copied
 * (cut to fit). */
void tk_error_set_file(tk_error *err, const char *file);

/* One line, no newline: "FILE: offset 0x1234 (record 57): message" or
 * "FILE:12:3 (record 4): message", FILE being err->file when set, else
 * `file` (NULL: no file part). Written into `buf` of `size` bytes, cut and
 * NUL-terminated like snprintf; returns `buf`. Cannot fail. */
const char *tk_error_format(const tk_error *err, const char *file, char *buf,
                            size_t size);

/* Short name of a status ("malformed trace", "I/O error", ...): static
 * text; "unknown error" for a value outside the enumeration. */
const char *tk_status_name(tk_status status);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
