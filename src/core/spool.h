/* A pipe copied to an unlinked temporary file, for readers that must read
 * their input more than once or out of order. */
#ifndef TK_CORE_SPOOL_H
#define TK_CORE_SPOOL_H

#include <tracekit/input.h>

typedef struct tk_spool {
    tk_input *in; /* reads the copy; its progress is reported as `from`'s */
    int fd;
    tk_input *from; /* the pipe: gets the copy's truncated-tail note at close */
} tk_spool;

/* Copy what is left of `from` (advancing it to its end) into a temporary
 * file in $TMPDIR and open an input on it: 0; 1 when no temporary file
 * could be made (nothing was read); -1 when copying failed. `err` says
 * why ("copying WHAT to a temporary file failed: ..."). The copy allows
 * truncated tails when `from` does, and tk_spool_close hands a cut its
 * readers noted back to `from` (which must outlive the spool). */
int tk_spool_open(tk_spool *sp, tk_input *from, const char *tag, const char *what,
                  tk_error *err);
void tk_spool_close(tk_spool *sp);

#endif
