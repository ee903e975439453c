/* Stable TSC sort of XRay records in bounded memory (see sort.h): sorted
 * runs in an unlinked temporary file, merged through a binary heap. */
#include "xray/sort.h"

#include "core/tempfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_BUDGET ((uint64_t)64 << 20)
#define IO_CHUNK ((size_t)1 << 16)

/* A held record; its arguments and payload are at `off` in the arena. */
typedef struct entry {
    tk_xray_record rec;
    uint64_t order, off;
} entry;

/* A record in the temporary file (native layout: the file never leaves
 * this process), followed by its arguments and payload. */
typedef struct disk_rec {
    uint64_t tsc, order;
    int32_t func_id;
    uint32_t tid, pid, nargs, data_len;
    uint16_t cpu, event_type;
    uint32_t kind;
} disk_rec;

typedef struct run {
    uint64_t off, len;
} run;

/* One sorted sequence being merged: a run of the file, or the records
 * still in memory. */
typedef struct source {
    int in_memory;
    size_t next;            /* in memory: next entry */
    uint64_t pos, end;      /* file: bytes not yet buffered */
    uint8_t *buf;
    size_t at, len, cap;    /* buffered bytes [at, len) */
    uint64_t *args;         /* the current record's own copies */
    uint8_t *data;
    uint32_t args_cap, data_cap;
    tk_xray_record rec;     /* current record */
    uint64_t order;
} source;

struct tk_xr_sorter {
    uint64_t budget;
    entry *e;
    size_t n, cap;
    uint8_t *arena;
    size_t used, acap;
    uint64_t order;
    int fd;
    uint64_t file_end;
    run *runs;
    size_t nruns, runs_cap;
    /* merging */
    int started;
    source *src;
    size_t *heap, nheap;
    int returned; /* the heap top was handed out: advance it first */
};

tk_xr_sorter *tk_xr_sorter_new(uint64_t budget_bytes)
{
    tk_xr_sorter *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->budget = budget_bytes ? budget_bytes : DEFAULT_BUDGET;
    s->fd = -1;
    return s;
}

void tk_xr_sorter_free(tk_xr_sorter *s)
{
    if (!s)
        return;
    if (s->src)
        for (size_t i = 0; i <= s->nruns; i++) {
            free(s->src[i].buf);
            free(s->src[i].args);
            free(s->src[i].data);
        }
    if (s->fd >= 0)
        close(s->fd);
    free(s->src);
    free(s->heap);
    free(s->runs);
    free(s->e);
    free(s->arena);
    free(s);
}

uint64_t tk_xr_sorter_runs(const tk_xr_sorter *s) { return s->nruns; }

static tk_status nomem(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

static tk_status io_error(tk_error *err, const char *what)
{
    return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                        "temporary file for sorting: %s: %s", what, strerror(errno));
}

static int before(const tk_xray_record *a, uint64_t oa, const tk_xray_record *b, uint64_t ob)
{
    return a->tsc != b->tsc ? a->tsc < b->tsc : oa < ob;
}

static int cmp_entry(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    if (a->rec.tsc != b->rec.tsc)
        return a->rec.tsc < b->rec.tsc ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static tk_status open_file(tk_xr_sorter *s, tk_error *err)
{
    s->fd = tk_tempfile_open("sort");
    return s->fd < 0 ? io_error(err, "create") : TK_OK;
}

/* Sort the held records and append them to the file as a run. */
static tk_status spill(tk_xr_sorter *s, tk_error *err)
{
    if (s->fd < 0 && open_file(s, err) != TK_OK)
        return err->status;
    if (s->nruns == s->runs_cap) {
        size_t cap = s->runs_cap ? s->runs_cap * 2 : 8;
        run *r = realloc(s->runs, cap * sizeof *r);
        if (!r)
            return nomem(err);
        s->runs = r;
        s->runs_cap = cap;
    }
    qsort(s->e, s->n, sizeof *s->e, cmp_entry);
    uint8_t *out = malloc(IO_CHUNK);
    if (!out)
        return nomem(err);
    size_t fill = 0;
    uint64_t start = s->file_end;
    tk_status st = TK_OK;
    for (size_t i = 0; i < s->n && st == TK_OK; i++) {
        const entry *e = &s->e[i];
        disk_rec d = {e->rec.tsc, e->order, e->rec.func_id, e->rec.tid, e->rec.pid,
                      e->rec.nargs, e->rec.data_len, e->rec.cpu, e->rec.event_type,
                      (uint32_t)e->rec.kind};
        size_t extra = (size_t)e->rec.nargs * sizeof(uint64_t) + e->rec.data_len;
        const uint8_t *parts[2] = {(const uint8_t *)&d, extra ? s->arena + e->off : NULL};
        size_t lens[2] = {sizeof d, extra};
        for (int k = 0; k < 2 && st == TK_OK; k++) {
            const uint8_t *p = parts[k];
            size_t left = lens[k];
            while (left && st == TK_OK) {
                size_t take = IO_CHUNK - fill < left ? IO_CHUNK - fill : left;
                memcpy(out + fill, p, take);
                fill += take;
                p += take;
                left -= take;
                if (fill == IO_CHUNK) {
                    if (tk_write_all(s->fd, out, fill) != 0)
                        st = io_error(err, "write");
                    s->file_end += fill;
                    fill = 0;
                }
            }
        }
    }
    if (st == TK_OK && fill) {
        if (tk_write_all(s->fd, out, fill) != 0)
            st = io_error(err, "write");
        s->file_end += fill;
    }
    free(out);
    if (st != TK_OK)
        return st;
    s->runs[s->nruns++] = (run){start, s->file_end - start};
    s->n = 0;
    s->used = 0;
    return TK_OK;
}

tk_status tk_xr_sorter_add(tk_xr_sorter *s, const tk_xray_record *rec, tk_error *err)
{
    size_t extra = (size_t)rec->nargs * sizeof(uint64_t) + rec->data_len;
    if (s->n && s->n * sizeof(entry) + s->used + extra > s->budget &&
        spill(s, err) != TK_OK)
        return err->status;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        entry *e = realloc(s->e, cap * sizeof *e);
        if (!e)
            return nomem(err);
        s->e = e;
        s->cap = cap;
    }
    size_t at = (s->used + 7) & ~(size_t)7;
    if (at + extra > s->acap) {
        size_t cap = s->acap ? s->acap : 4096;
        while (cap < at + extra)
            cap *= 2;
        uint8_t *a = realloc(s->arena, cap);
        if (!a)
            return nomem(err);
        s->arena = a;
        s->acap = cap;
    }
    if (rec->nargs)
        memcpy(s->arena + at, rec->args, rec->nargs * sizeof(uint64_t));
    if (rec->data_len)
        memcpy(s->arena + at + rec->nargs * sizeof(uint64_t), rec->data, rec->data_len);
    entry *e = &s->e[s->n++];
    e->rec = *rec;
    e->rec.args = NULL;
    e->rec.data = NULL;
    e->order = s->order++;
    e->off = at;
    s->used = at + extra;
    return TK_OK;
}

/* ---------------------------------------------------------------- merge */

/* Make `need` bytes of a file source readable at buf + at. 0 ok, -1 I/O
 * error, 1 the run ends first. */
static int ensure(tk_xr_sorter *s, source *src, size_t need)
{
    if (src->len - src->at >= need)
        return 0;
    memmove(src->buf, src->buf + src->at, src->len - src->at);
    src->len -= src->at;
    src->at = 0;
    if (need > src->cap) {
        size_t cap = src->cap;
        while (cap < need)
            cap *= 2;
        uint8_t *b = realloc(src->buf, cap);
        if (!b)
            return -1;
        src->buf = b;
        src->cap = cap;
    }
    while (src->len < need) {
        size_t want = src->cap - src->len;
        if (want > src->end - src->pos)
            want = (size_t)(src->end - src->pos);
        if (want == 0)
            return 1;
        ssize_t got = pread(s->fd, src->buf + src->len, want, (off_t)src->pos);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        src->len += (size_t)got;
        src->pos += (uint64_t)got;
    }
    return 0;
}

/* Load the source's next record: 1, 0 when it is exhausted, -1 error. */
static int advance(tk_xr_sorter *s, source *src)
{
    if (src->in_memory) {
        if (src->next == s->n)
            return 0;
        const entry *e = &s->e[src->next++];
        src->rec = e->rec;
        src->order = e->order;
        src->rec.args = e->rec.nargs ? (const uint64_t *)(void *)(s->arena + e->off) : NULL;
        src->rec.data = e->rec.data_len ? s->arena + e->off + e->rec.nargs * sizeof(uint64_t)
                                        : NULL;
        return 1;
    }
    int rc = ensure(s, src, sizeof(disk_rec));
    if (rc != 0)
        return rc > 0 && src->len == src->at ? 0 : -1;
    disk_rec d;
    memcpy(&d, src->buf + src->at, sizeof d);
    size_t args = (size_t)d.nargs * sizeof(uint64_t);
    if (ensure(s, src, sizeof d + args + d.data_len) != 0)
        return -1;
    const uint8_t *p = src->buf + src->at + sizeof d;
    if (d.nargs > src->args_cap) {
        uint64_t *a = realloc(src->args, args);
        if (!a)
            return -1;
        src->args = a;
        src->args_cap = d.nargs;
    }
    if (d.data_len > src->data_cap) {
        uint8_t *x = realloc(src->data, d.data_len);
        if (!x)
            return -1;
        src->data = x;
        src->data_cap = d.data_len;
    }
    if (args)
        memcpy(src->args, p, args);
    if (d.data_len)
        memcpy(src->data, p + args, d.data_len);
    src->at += sizeof d + args + d.data_len;
    memset(&src->rec, 0, sizeof src->rec);
    src->rec.kind = (tk_xray_kind)d.kind;
    src->rec.cpu = d.cpu;
    src->rec.event_type = d.event_type;
    src->rec.func_id = d.func_id;
    src->rec.tsc = d.tsc;
    src->rec.tid = d.tid;
    src->rec.pid = d.pid;
    src->rec.nargs = d.nargs;
    src->rec.args = d.nargs ? src->args : NULL;
    src->rec.data_len = d.data_len;
    src->rec.data = d.data_len ? src->data : NULL;
    src->order = d.order;
    return 1;
}

static int heap_less(const tk_xr_sorter *s, size_t a, size_t b)
{
    const source *x = &s->src[s->heap[a]], *y = &s->src[s->heap[b]];
    return before(&x->rec, x->order, &y->rec, y->order);
}

static void sift_down(tk_xr_sorter *s, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->nheap && heap_less(s, l, m))
            m = l;
        if (r < s->nheap && heap_less(s, r, m))
            m = r;
        if (m == i)
            return;
        size_t t = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = t;
        i = m;
    }
}

static tk_status start_merge(tk_xr_sorter *s, tk_error *err)
{
    if (s->n > 1)
        qsort(s->e, s->n, sizeof *s->e, cmp_entry);
    size_t nsrc = s->nruns + 1;
    s->src = calloc(nsrc, sizeof *s->src);
    s->heap = malloc(nsrc * sizeof *s->heap);
    if (!s->src || !s->heap)
        return nomem(err);
    for (size_t i = 0; i < nsrc; i++) {
        source *src = &s->src[i];
        if (i == s->nruns) {
            src->in_memory = 1;
        } else {
            src->pos = s->runs[i].off;
            src->end = s->runs[i].off + s->runs[i].len;
            src->cap = IO_CHUNK;
            if (!(src->buf = malloc(src->cap)))
                return nomem(err);
        }
        int rc = advance(s, src);
        if (rc < 0)
            return io_error(err, "read");
        if (rc > 0)
            s->heap[s->nheap++] = i;
    }
    for (size_t i = s->nheap; i-- > 0;)
        sift_down(s, i);
    return TK_OK;
}

int tk_xr_sorter_next(tk_xr_sorter *s, tk_xray_record *rec, tk_error *err)
{
    if (!s->started) {
        s->started = 1;
        if (start_merge(s, err) != TK_OK)
            return -1;
    }
    if (s->returned && s->nheap) {
        int rc = advance(s, &s->src[s->heap[0]]);
        if (rc < 0)
            return io_error(err, "read"), -1;
        if (rc == 0)
            s->heap[0] = s->heap[--s->nheap];
        sift_down(s, 0);
    }
    if (s->nheap == 0)
        return 0;
    *rec = s->src[s->heap[0]].rec;
    s->returned = 1;
    return 1;
}
