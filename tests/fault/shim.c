/* Fault injection for tests/fault (LD_PRELOAD; never in the library).
 *
 * Makes the reads or writes of one file fail part way, as a disk error or
 * a full file system would, to check that tracekit reports them (the file,
 * the system's reason, exit 2) and leaves nothing half written. The file is
 * chosen by its path (/proc/self/fd/N), so temporary names that mkstemp
 * makes beside an output match too:
 *   TK_FAULT_PATH   a substring of the path whose I/O fails (required)
 *   TK_FAULT_OP     read (read, pread), write (write, pwrite, fwrite) or
 *                   close (close reports the error after closing)
 *   TK_FAULT_AFTER  bytes that go through before the failure (default 0):
 *                   the call crossing it is cut short there, the next fails
 *                   (pread: the bytes of the file from this offset on)
 *   TK_FAULT_ERRNO  EIO or ENOSPC (default EIO for read and close, ENOSPC
 *                   for write)
 * Sanitizer runtimes must come first in the preload order, so the tests
 * that use the shim are not run in sanitized builds. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

enum { OP_NONE, OP_READ, OP_WRITE, OP_CLOSE };

static int op = -1, fail_errno;
static const char *pattern;
static unsigned long long after, done;

static void setup(void)
{
    if (op >= 0)
        return;
    const char *o = getenv("TK_FAULT_OP"), *a = getenv("TK_FAULT_AFTER");
    const char *e = getenv("TK_FAULT_ERRNO");
    pattern = getenv("TK_FAULT_PATH");
    int want = !o || !pattern ? OP_NONE
               : !strcmp(o, "read")  ? OP_READ
               : !strcmp(o, "write") ? OP_WRITE
               : !strcmp(o, "close") ? OP_CLOSE
                                     : OP_NONE;
    after = a ? strtoull(a, NULL, 0) : 0;
    fail_errno = e && !strcmp(e, "ENOSPC") ? ENOSPC
                 : e && !strcmp(e, "EIO")  ? EIO
                 : want == OP_WRITE        ? ENOSPC
                                           : EIO;
    op = want;
}

/* Is fd the file under test, for operation `kind`? */
static int target(int fd, int kind)
{
    setup();
    if (op != kind || fd < 0)
        return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0)
        return 0;
    path[n] = '\0';
    return strstr(path, pattern) != NULL;
}

/* How many of `n` bytes may go through (0: fail the call now, -1 set). */
static size_t allowance(size_t n)
{
    if (done >= after) {
        errno = fail_errno;
        return 0;
    }
    unsigned long long left = after - done;
    return n < left ? n : (size_t)left;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t read(int fd, void *buf, size_t n)
{
    size_t k = n;
    if (n && target(fd, OP_READ) && !(k = allowance(n)))
        return -1;
    ssize_t r = REAL(read)(fd, buf, k);
    if (r > 0 && op == OP_READ)
        done += (unsigned long long)r;
    return r;
}

/* A file read at an offset fails from byte TK_FAULT_AFTER of the file on,
 * in every pass over it (a bad sector), not after so many bytes read. */
ssize_t pread(int fd, void *buf, size_t n, off_t at)
{
    size_t k = n;
    if (n && target(fd, OP_READ)) {
        if ((unsigned long long)at >= after) {
            errno = fail_errno;
            return -1;
        }
        if (after - (unsigned long long)at < n)
            k = (size_t)(after - (unsigned long long)at);
    }
    return REAL(pread)(fd, buf, k, at);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t at) { return pread(fd, buf, n, at); }

ssize_t write(int fd, const void *buf, size_t n)
{
    size_t k = n;
    if (n && target(fd, OP_WRITE) && !(k = allowance(n)))
        return -1;
    ssize_t r = REAL(write)(fd, buf, k);
    if (r > 0 && op == OP_WRITE)
        done += (unsigned long long)r;
    return r;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t at)
{
    size_t k = n;
    if (n && target(fd, OP_WRITE) && !(k = allowance(n)))
        return -1;
    ssize_t r = REAL(pwrite)(fd, buf, k, at);
    if (r > 0 && op == OP_WRITE)
        done += (unsigned long long)r;
    return r;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t at) { return pwrite(fd, buf, n, at); }

/* stdio's own writes bypass write(): fail at fwrite, as a flush would. */
size_t fwrite(const void *p, size_t size, size_t count, FILE *f)
{
    if (!size || !count || !target(fileno(f), OP_WRITE))
        return REAL(fwrite)(p, size, count, f);
    size_t fit = allowance(size * count) / size; /* whole items */
    size_t r = fit ? REAL(fwrite)(p, size, fit, f) : 0;
    done += (unsigned long long)(r * size);
    if (r < count)
        errno = fail_errno;
    return r;
}

int close(int fd)
{
    int hit = target(fd, OP_CLOSE);
    int r = REAL(close)(fd);
    if (hit && r == 0) {
        errno = fail_errno;
        return -1;
    }
    return r;
}
