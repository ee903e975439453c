/* tracekit — read, validate, write, convert and analyze execution traces.
 *
 * Conventions. Every public header follows these; a function's comment
 * says only what it adds to them or where it differs.
 *
 * Errors. A call that can fail — out of memory, I/O, input that breaks
 * its format, a bad argument or option — takes a `tk_error *err` as its
 * last parameter and says so in its return value:
 *   - tk_status: TK_OK, or the failure's status;
 *   - a pointer: NULL;
 *   - an integer (a record read, a count, a kind): -1.
 * On failure `*err` holds the status, a message and, when there is one,
 * the place in the trace (<tracekit/error.h>). Test the return value, not
 * err->status: after a success `*err` is unspecified. `err` must point to
 * a tk_error of the caller unless the function says it may be NULL.
 * Outcomes that are not failures stay in the return value and leave `err`
 * alone: a reader's 0 at the end, an analysis's reason for skipping a
 * record (tk_xray_account_add's TK_XRAY_ACCOUNT_*), a lookup's NULL or 0
 * for "no such thing" (tk_format_find). Calls that cannot fail (getters,
 * predicates, names of enumerations) take no tk_error.
 *
 * Ownership. What tk_X_new or tk_X_open returns is freed with tk_X_free
 * or tk_X_close, which accept NULL (writers' free also flushes and returns
 * the flush's status; a tk_output ends with commit or abort). Other
 * returned pointers belong to the library or to the handle they came from
 * (most are const); the few that the caller frees say so
 * (tk_xray_demangle, tk_xray_account_rows: free()). Objects handed to a constructor — the
 * tk_input of a reader, the FILE of a writer or sink — are borrowed: they
 * must outlive the handle, which never closes them. Options (structs and
 * tk_options) and selections are read or copied during the call: they
 * need not outlive it.
 *
 * Lifetimes. Pointers into what a reader returns (a record's type name,
 * payload, arguments, data) stay valid until the next call on that reader;
 * pointers into a handle's results, until the handle is changed or freed
 * (each function says which); names of enumerations and statuses forever.
 *
 * Threads. A handle is used by one thread at a time (it may move between
 * threads), together with what it borrows: a reader and its tk_input are
 * one unit. Distinct handles are independent and may be used concurrently:
 * there is no global state beyond one-time initialisation. Functions that
 * take no handle (names of enumerations, probes, tk_selection_check,
 * tk_xray_demangle, the format registry) are safe to call from any
 * thread. Environment variables (TMPDIR, TRACEKIT_NO_AVX2, ...) are read
 * when first needed: do not change them while other threads use tracekit.
 *
 * Symbols. What these headers declare is the library's whole ABI: the
 * library is compiled with -fvisibility=hidden and each header declares
 * inside `#pragma GCC visibility push(default)`, so libtracekit.so exports
 * exactly these functions (<tracekit/cacheray_record.h> is the recorder's)
 * and libtracekit.a has no other global symbol (its internals are local: a
 * program may define its own sb_append).
 * The soname is libtracekit.so.MAJOR (libtracekit.so.0); tk_version says
 * which release is loaded. */
#ifndef TRACEKIT_TRACEKIT_H
#define TRACEKIT_TRACEKIT_H

/* 0.x: a new minor version may change the command line and its JSON
 * (CHANGELOG.md); tests/unit/docs_test.sh keeps these, CMakeLists.txt, the
 * man page and the changelog on one version. */
#define TRACEKIT_VERSION_MAJOR 0
#define TRACEKIT_VERSION_MINOR 2
#define TRACEKIT_VERSION_PATCH 0
#define TRACEKIT_VERSION_STRING "0.2.0"

#include <tracekit/error.h>
#include <tracekit/input.h>
#include <tracekit/sink.h>
#include <tracekit/output.h>
#include <tracekit/format.h>
#include <tracekit/command.h>
#include <tracekit/select.h>
#include <tracekit/cacheray.h>
#include <tracekit/cachesim.h>
#include <tracekit/cacheray_mrc.h>
#include <tracekit/casemate.h>
#include <tracekit/casemate_check.h>
#include <tracekit/ucir.h>
#include <tracekit/ucir_replay.h>
#include <tracekit/ucir_export.h>
#include <tracekit/xray.h>
#include <tracekit/xray_account.h>
#include <tracekit/xray_diff.h>
#include <tracekit/xray_stack.h>
#include <tracekit/xray_graph.h>
#include <tracekit/xray_export.h>
#include <tracekit/xray_map.h>
#include <tracekit/xray_yaml.h>
#include <tracekit/reader.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)
/* The library's version, "0.2.0" (static text). */
const char *tk_version(void);
#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
