/* Unlinked temporary files (see tempfile.h). */
#include "core/tempfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int tk_tempfile_open(const char *tag)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/tracekit-%s-XXXXXX", dir && *dir ? dir : "/tmp",
                     tag);
    if (n < 0 || (size_t)n >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(path);
    if (fd >= 0)
        unlink(path); /* gone when closed, whatever happens */
    return fd;
}

int tk_write_all(int fd, const void *buf, size_t n)
{
    const char *b = buf;
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}
