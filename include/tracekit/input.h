/* tracekit — byte input: files, stdin/pipes and memory behind one API.
 *
 * A tk_input is a handle (<tracekit/tracekit.h>, "Conventions"): opened by
 * tk_input_open, tk_input_from_fd or tk_input_from_memory (NULL with `err`
 * on failure), closed by tk_input_close, used by one thread at a time —
 * together with the reader that borrows it. */
#ifndef TRACEKIT_INPUT_H
#define TRACEKIT_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/error.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct tk_input tk_input;

/* Open a file; "-" means standard input. Input is read through a buffer
 * that grows only as far as the largest window asked for; regular files
 * also know their size, rewind, and skip without reading. Returns NULL and
 * fills `err` on failure. */
tk_input *tk_input_open(const char *path, tk_error *err);

/* Read from an already open descriptor (not closed by tk_input_close);
 * `name` (copied) names it in errors. NULL and `err` on failure. */
tk_input *tk_input_from_fd(int fd, const char *name, tk_error *err);

/* Read from caller-owned memory, which must outlive the input (nothing is
 * copied). NULL and `err` when out of memory. */
tk_input *tk_input_from_memory(const void *data, size_t size, const char *name,
                               tk_error *err);

/* Close the file tk_input_open opened and free `in` (NULL is fine). */
void tk_input_close(tk_input *in);

/* The name given at open ("-" shows as "<stdin>"); owned by `in`. */
const char *tk_input_name(const tk_input *in);

/* Total size in bytes, or -1 when unknown (pipes; not an error). */
int64_t tk_input_size(const tk_input *in);

/* Byte offset of the current position from the start of the input. */
uint64_t tk_input_offset(const tk_input *in);

/* Make at least `want` bytes from the current position readable without
 * copying and point `*data` at them. Returns how many bytes are readable
 * (more than `want` is common, fewer only at end of input), or -1 on an I/O
 * error (with `err` filled). The pointer stays valid until the next call to
 * tk_input_window, tk_input_advance or tk_input_rewind. */
int64_t tk_input_window(tk_input *in, size_t want, const uint8_t **data,
                        tk_error *err);

/* Move the current position forward by `n` bytes (n <= last window: that
 * precondition is the caller's; the call cannot fail). */
void tk_input_advance(tk_input *in, size_t n);

/* Move the current position forward by `n` bytes, past the window if need
 * be (files skip without reading, pipes read through). Returns 0, 1 when
 * the input ended first (positioned at its end), or -1 on an I/O error. */
int tk_input_skip(tk_input *in, uint64_t n, tk_error *err);

/* Move the current position to `offset` (at most the input's size).
 * Files and memory seek anywhere; a pipe only within what is buffered
 * (TK_EUNSUPPORTED otherwise). Windows taken before are invalid after. */
tk_status tk_input_seek(tk_input *in, uint64_t offset, tk_error *err);

/* Go back to offset 0. Always possible before the first advance (probing
 * peeks without advancing); afterwards only for files and memory. */
tk_status tk_input_rewind(tk_input *in, tk_error *err);

/* Reading progress, for a progress display (tk_input_set_progress). */
typedef struct tk_input_progress {
    uint64_t offset; /* the furthest byte read in this pass */
    int64_t size;    /* the input's size, -1 when unknown (pipes) */
    unsigned pass;   /* 1, then one more each time reading starts over */
} tk_input_progress;

typedef void (*tk_input_progress_fn)(void *ctx, const tk_input_progress *p);

/* Call `fn` after each read from a file or pipe (about every 256 KiB of
 * input) on the thread reading the input; NULL stops. `fn` runs inside
 * tk_input_window: it should be cheap (look at a clock, draw now and then)
 * and must not use the input. Memory inputs never call it. `ctx` is
 * passed to `fn` as is (not owned). */
void tk_input_set_progress(tk_input *in, tk_input_progress_fn fn, void *ctx);

/* Count what is read from here on as a new pass (for readers that scan
 * the input before reading it; tk_input_rewind does it when it rereads). */
void tk_input_new_pass(tk_input *in);

/* Report `to`'s reading through `from`'s hook, as its next pass (for a
 * reader that copies its input to a temporary file and reads that). Both
 * inputs are then used by the same thread. */
void tk_input_share_progress(tk_input *to, const tk_input *from);

/* ---- truncated tails ("allow-truncated", docs/api.md)
 *
 * A trace whose writer was killed may end inside a record. By default
 * every reader fails there (TK_EMALFORMED, "truncated ..."). Allowed on
 * an input, its readers stop cleanly after the last whole record instead
 * when the cut is only a missing tail: the bytes before it read fine and
 * the cut record's bytes are a valid beginning of a record as far as they
 * go (anything else still fails). The reader then notes the cut on the
 * input, where tk_input_truncation finds it. tk_reader_open and the
 * commands of <tracekit/format.h> turn it on for the option
 * "allow-truncated". Cannot fail. */
void tk_input_set_allow_truncated(tk_input *in, int allow);
/* Whether truncated tails are allowed on `in` (0 by default). */
int tk_input_allows_truncated(const tk_input *in);

/* A cut a reader stopped at. */
typedef struct tk_truncation {
    uint64_t offset;   /* where the cut record (or FDR buffer) starts */
    uint64_t dropped;  /* the bytes ignored from there to the end */
    char message[192]; /* "truncated tail: dropped 7 bytes of a function
                          record at offset 0x7fff8" */
} tk_truncation;

/* 1 with `*t` filled when a reader of `in` stopped at a truncated tail
 * (the first cut noted: a reader reading the input again notes the same
 * one), 0 otherwise. Cannot fail. */
int tk_input_truncation(const tk_input *in, tk_truncation *t);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
