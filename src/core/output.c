/* Output files written under a temporary name and renamed into place, so a
 * failed conversion never leaves a partial file behind.
 *
 * Files are written through a stdio stream of our own (fopencookie) that
 * keeps the errno of the first failed write: stdio forgets it once a
 * failed flush has dropped the buffer, and a write error must say why. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracekit/output.h>

struct tk_output {
    FILE *fp;
    char *path, *tmp; /* NULL for standard output */
    int direct;       /* writing straight into a device or FIFO */
    int fd;           /* under fp (files) */
    int write_errno;  /* of the first failed write or close, 0 if none */
};

static ssize_t stream_write(void *cookie, const char *buf, size_t n)
{
    tk_output *o = cookie;
    for (size_t done = 0; done < n;) {
        ssize_t w = write(o->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            if (!o->write_errno)
                o->write_errno = errno;
            return -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

static int stream_close(void *cookie)
{
    tk_output *o = cookie;
    int r = close(o->fd);
    if (r != 0 && !o->write_errno)
        o->write_errno = errno;
    o->fd = -1;
    return r;
}

/* A stream over o->fd that notes the first failure (NULL: out of memory). */
static FILE *open_stream(tk_output *o)
{
    cookie_io_functions_t io = {.write = stream_write, .close = stream_close};
    return fopencookie(o, "w", io);
}

tk_output *tk_output_open(const char *path, tk_error *err)
{
    tk_output *o = calloc(1, sizeof *o);
    if (!o)
        goto oom;
    if (strcmp(path, "-") == 0) {
        o->fp = stdout;
        return o;
    }
    struct stat st;
    o->fd = -1;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* /dev/null, a FIFO, a terminal: renaming over it would replace
         * the device with a file, so write to it directly. */
        o->direct = 1;
        o->path = strdup(path);
        if (!o->path)
            goto oom;
        o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (o->fd < 0) {
            tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "cannot open: %s",
                         strerror(errno));
            tk_error_set_file(err, path);
            tk_output_abort(o);
            return NULL;
        }
        if (!(o->fp = open_stream(o)))
            goto oom;
        return o;
    }
    /* Through a symbolic link, replace the file it points to, not the link. */
    o->path = realpath(path, NULL);
    if (!o->path)
        o->path = strdup(path);
    path = o->path;
    size_t n = strlen(path) + 16;
    o->tmp = malloc(n);
    if (!o->path || !o->tmp)
        goto oom;
    snprintf(o->tmp, n, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                     "cannot create a temporary file beside it: %s", strerror(errno));
        tk_error_set_file(err, path);
        free(o->tmp);
        o->tmp = NULL;
        tk_output_abort(o);
        return NULL;
    }
    mode_t mask = umask(0); /* mkstemp makes 0600; give the usual mode */
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    o->fd = fd;
    if (!(o->fp = open_stream(o)))
        goto oom; /* tk_output_abort closes fd and removes tmp */
    return o;
oom:
    tk_output_abort(o);
    tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return NULL;
}

FILE *tk_output_file(tk_output *o) { return o->fp; }

/* The one write-failure error: "FILE: write failed: <reason>", with the
 * system's reason when the failing flush or close gave one (e: its errno,
 * 0 when only the error flag was set). */
static tk_status write_failed(tk_error *err, const char *file, int e)
{
    if (e)
        tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "write failed: %s",
                     strerror(e));
    else
        tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "write failed");
    tk_error_set_file(err, file);
    return TK_EIO;
}

tk_status tk_output_commit(tk_output *o, tk_error *err)
{
    tk_status st = TK_OK;
    if (!o->path) { /* standard output */
        int e = fflush(o->fp) != 0 ? errno : 0;
        if (e || ferror(o->fp))
            st = write_failed(err, "<stdout>", e);
        free(o);
        return st;
    }
    int bad = ferror(o->fp);
    int e = fclose(o->fp) != 0 ? errno : 0;
    o->fp = NULL;
    if (o->write_errno) /* the first failure, not what a later flush saw */
        e = o->write_errno;
    if (o->direct) {
        if (e || bad)
            st = write_failed(err, o->path, e);
        tk_output_abort(o);
        return st;
    }
    if (e || bad) {
        st = write_failed(err, o->path, e);
    } else {
        if (rename(o->tmp, o->path) != 0) {
            st = tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                              "cannot rename the temporary file into place: %s",
                              strerror(errno));
            tk_error_set_file(err, o->path);
        } else {
            free(o->tmp);
            o->tmp = NULL;
        }
    }
    tk_output_abort(o);
    return st;
}

void tk_output_abort(tk_output *o)
{
    if (!o)
        return;
    if (o->fp && o->path)
        fclose(o->fp);
    else if (o->path && o->fd >= 0)
        close(o->fd);
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    free(o);
}
