/* Byte input behind one window API: a file mapping, a growing read buffer
 * for pipes, or caller memory. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracekit/input.h>

enum { KIND_MAP, KIND_STREAM, KIND_MEMORY };

/* Pipes are read in chunks of this size; a window needing more grows the
 * buffer only as far as that window. */
#define STREAM_CHUNK (1u << 20)
/* Mapped pages more than this far behind the position are released so the
 * resident set stays flat on long sequential reads. */
#define MAP_RELEASE_STEP ((uint64_t)8 << 20)

struct tk_input {
    int kind;
    int fd;
    int own_fd;
    char *name;
    const uint8_t *base;   /* MAP/MEMORY: whole input; STREAM: buffer */
    uint64_t size;         /* MAP/MEMORY: total; STREAM: bytes in buffer */
    uint64_t pos;          /* MAP/MEMORY: offset; STREAM: index in buffer */
    uint64_t consumed;     /* STREAM: offset of buffer[0] in the input */
    size_t cap;            /* STREAM: buffer capacity */
    int eof;               /* STREAM: read() returned 0 */
    int advanced;          /* STREAM: bytes were dropped from the buffer */
    uint64_t released;     /* MAP: pages before this were released */
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
        in->kind = KIND_MAP;
        in->size = (uint64_t)st.st_size;
        if (in->size > 0) {
            void *p = mmap(NULL, (size_t)in->size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (p == MAP_FAILED) {
                tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                             "cannot map file: %s", strerror(errno));
                in->own_fd = 0;
                tk_input_close(in);
                return NULL;
            }
            madvise(p, (size_t)in->size, MADV_SEQUENTIAL);
            in->base = p;
        }
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
    if (in->kind == KIND_MAP && in->base)
        munmap((void *)in->base, (size_t)in->size);
    if (in->kind == KIND_STREAM)
        free((void *)in->base);
    if (in->own_fd && in->fd >= 0)
        close(in->fd);
    free(in->name);
    free(in);
}

const char *tk_input_name(const tk_input *in) { return in->name; }

int64_t tk_input_size(const tk_input *in)
{
    return in->kind == KIND_STREAM ? -1 : (int64_t)in->size;
}

uint64_t tk_input_offset(const tk_input *in)
{
    return in->kind == KIND_STREAM ? in->consumed + in->pos : in->pos;
}

/* Fill the stream buffer until it holds `want` bytes past pos, or EOF. */
static int stream_fill(tk_input *in, size_t want, tk_error *err)
{
    uint8_t *buf = (uint8_t *)in->base;
    if (in->pos > 0) { /* drop consumed bytes */
        memmove(buf, buf + in->pos, (size_t)(in->size - in->pos));
        in->consumed += in->pos;
        in->size -= in->pos;
        in->pos = 0;
        in->advanced = 1;
    }
    while (in->size < want && !in->eof) {
        if (in->size == in->cap) {
            /* Grow with the data that actually arrives, not with what a
             * (possibly corrupt) length field asks for. */
            size_t cap = in->cap ? in->cap * 2 : STREAM_CHUNK;
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
        ssize_t n = read(in->fd, buf + in->size, in->cap - (size_t)in->size);
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
    return 0;
}

int64_t tk_input_window(tk_input *in, size_t want, const uint8_t **data,
                        tk_error *err)
{
    if (in->kind == KIND_STREAM && in->size - in->pos < want && !in->eof) {
        if (stream_fill(in, want, err) != 0)
            return -1;
    }
    *data = in->base ? in->base + in->pos : (const uint8_t *)"";
    return (int64_t)(in->size - in->pos);
}

void tk_input_advance(tk_input *in, size_t n)
{
    uint64_t left = in->size - in->pos;
    in->pos += n < left ? n : left;
    if (in->kind == KIND_MAP && in->pos - in->released > 2 * MAP_RELEASE_STEP) {
        /* Keep the last step mapped in; the kernel re-reads released pages
         * from the page cache if anyone looks back. */
        uint64_t upto = (in->pos - MAP_RELEASE_STEP) & ~(uint64_t)0xFFFFF;
        madvise((void *)(in->base + in->released), (size_t)(upto - in->released),
                MADV_DONTNEED);
        in->released = upto;
    }
}

tk_status tk_input_rewind(tk_input *in, tk_error *err)
{
    if (in->kind == KIND_STREAM) {
        if (in->advanced || in->consumed > 0)
            return tk_error_set(err, TK_EUNSUPPORTED, tk_input_offset(in),
                                TK_NO_RECORD,
                                "cannot rewind a pipe after reading past its buffer");
        in->pos = 0;
        return TK_OK;
    }
    in->pos = 0;
    in->released = 0; /* released pages fault back in from the page cache */
    return TK_OK;
}
