/* Output files written under a temporary name and renamed into place, so a
 * failed conversion never leaves a partial file behind. */
#include <errno.h>
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
};

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
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* /dev/null, a FIFO, a terminal: renaming over it would replace
         * the device with a file, so write to it directly. */
        o->direct = 1;
        o->path = strdup(path);
        o->fp = o->path ? fopen(path, "wb") : NULL;
        if (!o->fp) {
            tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "cannot open %s: %s",
                         path, strerror(errno));
            tk_output_abort(o);
            return NULL;
        }
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
                     "cannot create %s: %s", o->tmp, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        tk_output_abort(o);
        return NULL;
    }
    mode_t mask = umask(0); /* mkstemp makes 0600; give the usual mode */
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    o->fp = fdopen(fd, "wb");
    if (!o->fp) {
        close(fd);
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        goto oom;
    }
    return o;
oom:
    tk_output_abort(o);
    tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return NULL;
}

FILE *tk_output_file(tk_output *o) { return o->fp; }

/* "writing WHAT failed", with the system's reason when the failing flush
 * or close gave one (e: its errno, 0 when only the error flag was set). */
static tk_status write_failed(tk_error *err, const char *what, int e)
{
    if (e)
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "writing %s failed: %s",
                            what, strerror(e));
    return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "writing %s failed", what);
}

tk_status tk_output_commit(tk_output *o, tk_error *err)
{
    tk_status st = TK_OK;
    if (!o->path) { /* standard output */
        int e = fflush(o->fp) != 0 ? errno : 0;
        if (e || ferror(o->fp))
            st = write_failed(err, "standard output", e);
        free(o);
        return st;
    }
    int bad = ferror(o->fp);
    int e = fclose(o->fp) != 0 ? errno : 0;
    o->fp = NULL;
    if (o->direct) {
        if (e || bad)
            st = write_failed(err, o->path, e);
        tk_output_abort(o);
        return st;
    }
    if (e || bad) {
        st = write_failed(err, o->path, e);
    } else {
        if (rename(o->tmp, o->path) != 0)
            st = tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                              "cannot rename to %s: %s", o->path, strerror(errno));
        else {
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
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    free(o);
}
