/* Unlinked temporary files, for analyses that keep bounded memory by
 * spilling (XRay account latencies, convert's sorted runs). */
#ifndef TK_CORE_TEMPFILE_H
#define TK_CORE_TEMPFILE_H

#include <stddef.h>

/* A file in $TMPDIR (default /tmp) named after `tag`, already unlinked so
 * it disappears when closed. Returns the descriptor, or -1 (errno set). */
int tk_tempfile_open(const char *tag);

/* write() all n bytes, retrying short writes; 0, or -1 (errno set). */
int tk_write_all(int fd, const void *buf, size_t n);

#endif
