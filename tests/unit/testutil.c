/* Shared test helpers; see testutil.h. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* ------------------------------------------------------------ files */

uint8_t *tu_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *p = malloc(cap);
    assert_non_null(p);
    size_t got;
    while ((got = fread(p + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            p = realloc(p, cap);
            assert_non_null(p);
        }
    }
    fclose(f);
    *size = n;
    return p;
}

void tu_write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

char *tu_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/tk-test-XXXXXX", base && *base ? base : "/tmp");
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

void tu_rmdir(char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                unlink(tu_path(dir, e->d_name));
        closedir(d);
    }
    rmdir(dir);
    free(dir);
}

int tu_dir_count(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

const char *tu_path(const char *dir, const char *name)
{
    static char bufs[4][4096];
    static int next;
    char *b = bufs[next++ & 3];
    int n = snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    assert_true(n > 0 && (size_t)n < sizeof bufs[0]);
    return b;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **tu_examples(const char *subdir)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", TK_EXAMPLES_DIR, subdir);
    DIR *d = opendir(dir);
    assert_non_null(d);
    char **v = calloc(64, sizeof *v);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 63) {
        size_t len = strlen(e->d_name);
        if (len > 6 && strcmp(e->d_name + len - 6, ".trace") == 0)
            v[n++] = strdup(tu_path(dir, e->d_name));
    }
    closedir(d);
    qsort(v, n, sizeof *v, cmp_str);
    return v;
}

void tu_free_list(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* ---------------------------------------------------------- capture */

void tu_capture_open(tu_capture *c)
{
    c->buf = NULL;
    c->len = 0;
    c->fp = open_memstream(&c->buf, &c->len);
    assert_non_null(c->fp);
}

char *tu_capture_close(tu_capture *c)
{
    assert_int_equal(fclose(c->fp), 0);
    c->fp = NULL;
    return c->buf;
}

tk_sink *tu_sink_open(tu_capture *c, tk_sink_style style)
{
    tk_error err;
    tu_capture_open(c);
    tk_sink *s = tk_sink_new(c->fp, style, &err);
    assert_non_null(s);
    return s;
}

char *tu_sink_text(tk_sink *s, tu_capture *c)
{
    tk_error err;
    tk_error_clear(&err);
    assert_int_equal(tk_sink_finish(s, &err), TK_OK);
    tk_sink_free(s);
    return tu_capture_close(c);
}

/* ------------------------------------------------------------ pipes */

pid_t tu_pipe_feed(const void *data, size_t n, uint64_t seed, int *rfd)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    fflush(NULL); /* the child must not flush our buffers again */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        const uint8_t *d = data;
        uint64_t rs = seed;
        size_t off = 0;
        while (off < n) {
            size_t k = 1 + (size_t)tu_rand_below(&rs, 70000);
            if (k > n - off)
                k = n - off;
            ssize_t w = write(p[1], d + off, k);
            if (w <= 0)
                _exit(1);
            off += (size_t)w;
        }
        _exit(0);
    }
    close(p[1]);
    *rfd = p[0];
    return pid;
}

void tu_pipe_wait(pid_t pid, int rfd)
{
    int status;
    close(rfd); /* a reader that stopped early makes the writer exit */
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) || WIFSIGNALED(status));
}

/* ----------------------------------------------------------- random */

uint64_t tu_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

uint64_t tu_rand_below(uint64_t *state, uint64_t n)
{
    return n ? tu_rand(state) % n : 0;
}

/* --------------------------------------------------------- encoding */

void tu_putn(tu_buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        assert_non_null(b->p);
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
}

void tu_put8(tu_buf *b, uint8_t v) { tu_putn(b, &v, 1); }

/* Byte by byte, most significant first for big-endian. */
static void put_int(tu_buf *b, uint64_t v, int bytes)
{
    uint8_t tmp[8];
    for (int i = 0; i < bytes; i++) {
        int shift = 8 * (b->big ? bytes - 1 - i : i);
        tmp[i] = (uint8_t)(v >> shift);
    }
    tu_putn(b, tmp, (size_t)bytes);
}

void tu_put32(tu_buf *b, uint32_t v) { put_int(b, v, 4); }
void tu_put64(tu_buf *b, uint64_t v) { put_int(b, v, 8); }

void tu_buf_free(tu_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

void tu_access(tu_buf *b, uint8_t tag, uint64_t addr, uint8_t size, uint64_t thread)
{
    tu_put8(b, tag);
    tu_put64(b, addr);
    tu_put8(b, size);
    tu_put64(b, thread);
}

void tu_add(tu_buf *b, uint64_t addr, uint64_t thread, uint32_t elemsize,
            uint32_t elemcount, const char *name, uint32_t len)
{
    tu_put8(b, TK_CACHERAY_RTTA_ADD);
    tu_put64(b, addr);
    tu_put64(b, thread);
    tu_put32(b, elemsize);
    tu_put32(b, elemcount);
    tu_put32(b, len);
    tu_putn(b, name, len);
}

void tu_remove(tu_buf *b, uint64_t addr, uint64_t thread)
{
    tu_put8(b, TK_CACHERAY_RTTA_REMOVE);
    tu_put64(b, addr);
    tu_put64(b, thread);
}

size_t tu_boundaries(const uint8_t *d, size_t size, int big, uint64_t **offsets)
{
    size_t n = 0, cap = 1024, i = 0;
    uint64_t *v = malloc(cap * sizeof *v);
    assert_non_null(v);
    while (i < size) {
        if (n + 2 > cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
            assert_non_null(v);
        }
        v[n++] = i;
        uint8_t base = d[i] & 0x3F;
        if (base <= 1) {
            i += 18;
        } else if (base == 3) {
            i += 17;
        } else {
            assert_int_equal(base, 2);
            assert_true(i + 29 <= size);
            const uint8_t *l = d + i + 25;
            uint32_t len = big ? (uint32_t)l[0] << 24 | (uint32_t)l[1] << 16 | (uint32_t)l[2] << 8 | l[3]
                               : (uint32_t)l[3] << 24 | (uint32_t)l[2] << 16 | (uint32_t)l[1] << 8 | l[0];
            i += 29 + (size_t)len;
        }
    }
    assert_int_equal(i, size); /* the sample itself must be well formed */
    v[n] = size;
    *offsets = v;
    return n;
}

/* ---------------------------------------------------------- reading */

static void recs_push(tu_recs *r, const tk_cacheray_record *rec, uint64_t off)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 256;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        r->offset = realloc(r->offset, r->cap * sizeof *r->offset);
        assert_non_null(r->v);
        assert_non_null(r->offset);
    }
    tk_cacheray_record *c = &r->v[r->n];
    *c = *rec;
    if (rec->type == TK_CACHERAY_RTTA_ADD) {
        char *name = malloc(rec->typename_len + 1u);
        assert_non_null(name);
        if (rec->typename_len)
            memcpy(name, rec->type_name, rec->typename_len);
        c->type_name = name;
    }
    r->offset[r->n++] = off;
}

int tu_read_all(tk_input *in, tk_endian e, tu_recs *out, tk_error *err)
{
    memset(out, 0, sizeof *out);
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, e, err);
    assert_non_null(r);
    tk_cacheray_record rec;
    int rc;
    while ((rc = tk_cacheray_next(r, &rec, err)) > 0) {
        assert_int_equal(tk_cacheray_reader_index(r), out->n);
        recs_push(out, &rec, tk_cacheray_reader_offset(r));
    }
    tk_cacheray_reader_free(r);
    return rc;
}

int tu_read_mem(const uint8_t *d, size_t n, tk_endian e, tu_recs *out, tk_error *err)
{
    tk_input *in = tk_input_from_memory(d, n, "mem", err);
    assert_non_null(in);
    int rc = tu_read_all(in, e, out, err);
    tk_input_close(in);
    return rc;
}

void tu_recs_free(tu_recs *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].type == TK_CACHERAY_RTTA_ADD)
            free((char *)r->v[i].type_name);
    free(r->v);
    free(r->offset);
    memset(r, 0, sizeof *r);
}

void tu_assert_rec_equal(const tk_cacheray_record *want, const tk_cacheray_record *got)
{
    assert_int_equal(got->type, want->type);
    assert_int_equal(got->flags, want->flags);
    assert_int_equal(got->addr, want->addr);
    assert_int_equal(got->thread, want->thread);
    if (want->type <= TK_CACHERAY_WRITE)
        assert_int_equal(got->size, want->size);
    if (want->type == TK_CACHERAY_RTTA_ADD) {
        assert_int_equal(got->elemsize, want->elemsize);
        assert_int_equal(got->elemcount, want->elemcount);
        assert_int_equal(got->typename_len, want->typename_len);
        if (want->typename_len)
            assert_memory_equal(got->type_name, want->type_name, want->typename_len);
    }
}
