/* tracekit — output files that appear whole or not at all.
 *
 * A tk_output is a handle (<tracekit/tracekit.h>, "Conventions"): one
 * thread at a time. It ends with exactly one of tk_output_commit (keep the
 * file) or tk_output_abort (drop it); both free it. */
#ifndef TRACEKIT_OUTPUT_H
#define TRACEKIT_OUTPUT_H

#include <stdio.h>
#include <tracekit/error.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct tk_output tk_output;

/* Open `path` for writing through a temporary file in the same directory
 * ("-" writes to standard output directly). NULL and `err` (TK_EIO with
 * the system's reason, TK_ENOMEM) on failure. */
tk_output *tk_output_open(const char *path, tk_error *err);
/* The stream to write to; owned by `o` (do not close it), valid until
 * commit or abort. */
FILE *tk_output_file(tk_output *o);
/* Flush, fsync-free close and rename into place. Frees `o`. TK_EIO with the
 * system's reason when a write, the close or the rename failed (the
 * temporary file is then removed). */
tk_status tk_output_commit(tk_output *o, tk_error *err);
/* Remove the temporary file. Frees `o`. NULL is fine. */
void tk_output_abort(tk_output *o);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
