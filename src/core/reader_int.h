/* What a format supplies to the generic reader (include/tracekit/reader.h):
 * how to open its reader with the options and the selection, and how to
 * turn its next record into a tk_record. One per format, in
 * src/<format>/reader_adapter.c; src/core/reader.c picks it by format.
 *
 * tk_reader_next is a jump to r->next: the adapter's `next` while records
 * come, which does the whole per-record work itself (one call layer over
 * the format's reader: docs/architecture.md, "Reading any trace"); the
 * reader's own steps for --skip, --limit and after the end or an error. */
#ifndef TK_CORE_READER_INT_H
#define TK_CORE_READER_INT_H

#include <tracekit/reader.h>
#include <tracekit/select.h>

/* Where a format's record is read into: the reader keeps one, so records
 * cost no allocation and live until the next call. */
typedef union tk_reader_slot {
    tk_cacheray_record cacheray;
    tk_casemate_record casemate;
    tk_ucir_op ucir;
    tk_xray_record xray;
} tk_reader_slot;

typedef struct tk_reader_ops {
    tk_record_format format;
    /* Option keys the reader reads beyond skip, limit and the selection
     * keys (NULL-terminated; NULL: none). */
    const char *const *keys;
    /* The value of "records" that names the records it returns ("raw",
     * "logical"), NULL when the format has no such option. */
    const char *records;
    /* The format's reader on `in` with the options of `o` and the
     * selection `sel` applied (as the format's dump applies it); NULL with
     * `err` filled. */
    void *(*open)(tk_input *in, const tk_options *o, const tk_selection *sel,
                  tk_error *err);
    /* The next record into r->slot and `rec` filled: 1; the format
     * reader's 0 or -1 through tk_rd_ended. */
    int (*next)(tk_reader *r, tk_record *rec, tk_error *err);
    void (*free)(void *impl);
} tk_reader_ops;

struct tk_reader {
    /* what tk_reader_next does now: ops->next, or a step of the reader's
     * (skipping, counting down a limit, the sticky end or error) */
    int (*next)(tk_reader *r, tk_record *rec, tk_error *err);
    void *impl;            /* the format's reader */
    tk_reader_slot slot;
    const tk_reader_ops *ops;
    uint64_t skip;         /* "skip": records to pass over first */
    uint64_t left;         /* "limit": records still to return */
    const tk_format *fmt;
    tk_input *owned;       /* the input opened here: closed by free */
    tk_input *in;          /* the input read (owned or borrowed) */
    tk_error failure;      /* what every call returns after -1 */
};

/* The adapter's `next` got `rc` (0 or -1) from the format's reader: the
 * end or the error, made sticky (the format readers' are not all);
 * returns `rc`. Out of line: off the common path. */
#if defined(__GNUC__)
__attribute__((cold, noinline))
#endif
int tk_rd_ended(tk_reader *r, int rc, tk_error *err);

/* Not tk_reader_*: that prefix is the public API's. */
extern const tk_reader_ops tk_adapter_cacheray;
extern const tk_reader_ops tk_adapter_casemate;
extern const tk_reader_ops tk_adapter_ucir;
extern const tk_reader_ops tk_adapter_xray;

#endif
