/* tracekit — output files that appear whole or not at all. */
#ifndef TRACEKIT_OUTPUT_H
#define TRACEKIT_OUTPUT_H

#include <stdio.h>
#include <tracekit/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tk_output tk_output;

/* Open `path` for writing through a temporary file in the same directory
 * ("-" writes to standard output directly). */
tk_output *tk_output_open(const char *path, tk_error *err);
FILE *tk_output_file(tk_output *o);
/* Flush, fsync-free close and rename into place. Frees `o`. */
tk_status tk_output_commit(tk_output *o, tk_error *err);
/* Remove the temporary file. Frees `o`. NULL is fine. */
void tk_output_abort(tk_output *o);

#ifdef __cplusplus
}
#endif
#endif
