/* Byte input behind one window API: a read buffer over a file or a pipe,
 * or caller memory.
 *
 * Files are read, not mapped. Streaming a mapping touches every 4 KiB page
 * through the TLB (and, in a VM, a nested page walk) while the simulators
 * want the caches for themselves: `validate` of a 360 MB Cacheray trace
 * took 0.33 s mapped and 0.12 s read into a buffer that stays in L2, and a
 * one-level cache simulation 1.11 s against 0.71 s. Files differ from pipes
 * only in knowing their size, rewinding and skipping without reading. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracekit/input.h>

#include "core/truncation.h"

enum { KIND_FILE, KIND_STREAM, KIND_MEMORY };

/* Input is read in chunks of this size (small enough to stay in L2); a
 * window needing more grows the buffer only as far as that window. */
#define CHUNK ((size_t)256 << 10)

struct tk_input {
    int kind;
    int fd;
    int own_fd;
    char *name;
    const uint8_t *base;   /* MEMORY: whole input; FILE/STREAM: buffer */
    uint64_t size;         /* MEMORY: total; FILE/STREAM: bytes in buffer */
    uint64_t pos;          /* MEMORY: offset; FILE/STREAM: index in buffer */
    uint64_t consumed;     /* FILE/STREAM: offset of buffer[0] in the input */
    uint64_t file_size;    /* FILE: at open */
    size_t cap;            /* FILE/STREAM: buffer capacity */
    int eof;               /* FILE/STREAM: read() returned 0 */
    tk_input_progress_fn progress; /* FILE/STREAM: called after each fill */
    void *progress_ctx;
    uint64_t furthest;     /* end of what this pass has read */
    unsigned pass;
    int allow_truncated;   /* readers may stop at a cut tail ... */
    int truncated;         /* ... and one did: */
    tk_truncation trunc;
};

static tk_input *input_alloc(const char *name, tk_error *err)
{
    tk_input *in = calloc(1, sizeof *in);
    if (in)
        in->name = strdup(name);
    if (!in || !in->name) {
        free(in);
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                     "out of memory");
        return NULL;
    }
    in->fd = -1;
    in->pass = 1;
    return in;
}

static tk_input *input_from_fd(int fd, int own_fd, const char *name,
                               tk_error *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "%s",
                     strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                     "is a directory");
        return NULL;
    }
    tk_input *in = input_alloc(name, err);
    if (!in)
        return NULL;
    in->fd = fd;
    in->own_fd = own_fd;
    if (S_ISREG(st.st_mode)) {
        in->kind = KIND_FILE;
        in->file_size = (uint64_t)st.st_size;
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
        return in;
    }
    in->kind = KIND_STREAM;
    return in;
}

tk_input *tk_input_open(const char *path, tk_error *err)
{
    if (strcmp(path, "-") == 0)
        return input_from_fd(STDIN_FILENO, 0, "<stdin>", err);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "%s",
                     strerror(errno));
        return NULL;
    }
    tk_input *in = input_from_fd(fd, 1, path, err);
    if (!in)
        close(fd);
    return in;
}

tk_input *tk_input_from_fd(int fd, const char *name, tk_error *err)
{
    return input_from_fd(fd, 0, name ? name : "<fd>", err);
}

tk_input *tk_input_from_memory(const void *data, size_t size, const char *name,
                               tk_error *err)
{
    tk_input *in = input_alloc(name ? name : "<memory>", err);
    if (!in)
        return NULL;
    in->kind = KIND_MEMORY;
    in->base = data;
    in->size = size;
    return in;
}

void tk_input_close(tk_input *in)
{
    if (!in)
        return;
    if (in->kind != KIND_MEMORY)
        free((void *)in->base);
    if (in->own_fd && in->fd >= 0)
        close(in->fd);
    free(in->name);
    free(in);
}

const char *tk_input_name(const tk_input *in) { return in->name; }

int64_t tk_input_size(const tk_input *in)
{
    return in->kind == KIND_STREAM ? -1
           : in->kind == KIND_FILE ? (int64_t)in->file_size
                                   : (int64_t)in->size;
}

uint64_t tk_input_offset(const tk_input *in)
{
    return in->consumed + in->pos; /* consumed is 0 for memory */
}

void tk_input_set_progress(tk_input *in, tk_input_progress_fn fn, void *ctx)
{
    in->progress = fn;
    in->progress_ctx = ctx;
}

void tk_input_new_pass(tk_input *in)
{
    in->pass++;
    in->furthest = 0;
}

void tk_input_share_progress(tk_input *to, const tk_input *from)
{
    to->progress = from->progress;
    to->progress_ctx = from->progress_ctx;
    to->pass = from->pass + 1;
    to->furthest = 0;
}

/* After a fill: one call per 256 KiB chunk at most, so a hook that reads
 * a clock each time costs far less than the bytes it reports. */
static void report_progress(tk_input *in)
{
    uint64_t end = in->consumed + in->size;
    if (end > in->furthest)
        in->furthest = end;
    tk_input_progress p = {in->furthest, tk_input_size(in), in->pass};
    in->progress(in->progress_ctx, &p);
}

/* Fill the buffer until it holds `want` bytes past pos, or EOF. */
static int fill_buffer(tk_input *in, size_t want, tk_error *err)
{
    uint8_t *buf = (uint8_t *)in->base;
    if (in->pos > 0) { /* drop consumed bytes */
        memmove(buf, buf + in->pos, (size_t)(in->size - in->pos));
        in->consumed += in->pos;
        in->size -= in->pos;
        in->pos = 0;
    }
    while (in->size < want && !in->eof) {
        if (in->size == in->cap) {
            /* Grow with the data that actually arrives, not with what a
             * (possibly corrupt) length field asks for. */
            size_t cap = in->cap ? in->cap * 2 : CHUNK;
            if (cap < in->cap) {
                tk_error_set(err, TK_ENOMEM, tk_input_offset(in), TK_NO_RECORD,
                             "out of memory buffering input");
                return -1;
            }
            uint8_t *nb = realloc(buf, cap);
            if (!nb) {
                tk_error_set(err, TK_ENOMEM, tk_input_offset(in), TK_NO_RECORD,
                             "out of memory buffering %zu bytes", cap);
                return -1;
            }
            in->base = buf = nb;
            in->cap = cap;
        }
        size_t room = in->cap - (size_t)in->size;
        ssize_t n = in->kind == KIND_FILE
                        ? pread(in->fd, buf + in->size, room, (off_t)(in->consumed + in->size))
                        : read(in->fd, buf + in->size, room);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            tk_error_set(err, TK_EIO, in->consumed + in->size, TK_NO_RECORD,
                         "read failed: %s", strerror(errno));
            return -1;
        }
        if (n == 0)
            in->eof = 1;
        in->size += (uint64_t)n;
    }
    if (in->progress)
        report_progress(in);
    return 0;
}

int64_t tk_input_window(tk_input *in, size_t want, const uint8_t **data,
                        tk_error *err)
{
    if (in->kind != KIND_MEMORY && in->size - in->pos < want && !in->eof) {
        if (fill_buffer(in, want, err) != 0)
            return -1;
    }
    *data = in->base ? in->base + in->pos : (const uint8_t *)"";
    return (int64_t)(in->size - in->pos);
}

void tk_input_advance(tk_input *in, size_t n)
{
    uint64_t left = in->size - in->pos;
    in->pos += n < left ? n : left;
}

int tk_input_skip(tk_input *in, uint64_t n, tk_error *err)
{
    uint64_t left = in->size - in->pos;
    if (n <= left || in->kind == KIND_MEMORY) {
        tk_input_advance(in, n <= left ? (size_t)n : (size_t)left);
        return n <= left ? 0 : 1;
    }
    if (in->kind == KIND_FILE) { /* drop the buffer, read on from there */
        uint64_t at = in->consumed + in->pos;
        uint64_t room = at < in->file_size ? in->file_size - at : 0;
        in->consumed = at + (n < room ? n : room);
        in->size = in->pos = 0;
        in->eof = 0;
        return n > room;
    }
    while (n > 0) { /* a pipe: read through */
        left = in->size - in->pos;
        if (left == 0) {
            const uint8_t *p;
            int64_t got = tk_input_window(in, 1, &p, err);
            if (got < 0)
                return -1;
            if (got == 0)
                return 1;
            continue;
        }
        uint64_t step = n < left ? n : left;
        tk_input_advance(in, (size_t)step);
        n -= step;
    }
    return 0;
}

tk_status tk_input_seek(tk_input *in, uint64_t offset, tk_error *err)
{
    uint64_t end = (uint64_t)tk_input_size(in);
    if (in->kind != KIND_STREAM && offset > end)
        offset = end;
    if (offset >= in->consumed && offset - in->consumed <= in->size) {
        in->pos = offset - in->consumed; /* inside the buffer */
        return TK_OK;
    }
    if (in->kind == KIND_STREAM)
        return tk_error_set(err, TK_EUNSUPPORTED, tk_input_offset(in), TK_NO_RECORD,
                            "cannot seek a pipe to offset 0x%llx",
                            (unsigned long long)offset);
    in->consumed = offset; /* a file: read on from there */
    in->size = in->pos = 0;
    in->eof = 0;
    return TK_OK;
}

tk_status tk_input_rewind(tk_input *in, tk_error *err)
{
    if (in->kind == KIND_STREAM && in->consumed > 0)
        return tk_error_set(err, TK_EUNSUPPORTED, tk_input_offset(in), TK_NO_RECORD,
                            "cannot rewind a pipe after reading past its buffer");
    if (in->kind == KIND_FILE && in->consumed > 0) { /* reread from the start */
        in->consumed = in->size = 0;
        in->eof = 0;
        tk_input_new_pass(in);
    }
    in->pos = 0;
    return TK_OK;
}

/* ---- truncated tails */

void tk_input_set_allow_truncated(tk_input *in, int allow) { in->allow_truncated = allow != 0; }

int tk_input_allows_truncated(const tk_input *in) { return in->allow_truncated; }

int tk_input_truncation(const tk_input *in, tk_truncation *t)
{
    if (in->truncated && t)
        *t = in->trunc;
    return in->truncated;
}

void tk_input_note_truncation(tk_input *in, uint64_t offset, uint64_t dropped,
                              const char *fmt, ...)
{
    if (in->truncated)
        return;
    in->truncated = 1;
    in->trunc.offset = offset;
    in->trunc.dropped = dropped;
    int n = snprintf(in->trunc.message, sizeof in->trunc.message, "truncated tail: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->trunc.message + n, sizeof in->trunc.message - (size_t)n, fmt, ap);
    va_end(ap);
}

void tk_input_note_cut(tk_input *in, uint64_t offset, uint64_t dropped, const char *what)
{
    tk_input_note_truncation(in, offset, dropped, "dropped %llu byte%s of %s at offset 0x%llx",
                             (unsigned long long)dropped, dropped == 1 ? "" : "s", what,
                             (unsigned long long)offset);
}
