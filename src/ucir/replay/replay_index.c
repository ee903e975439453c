/* The checkpoint index: a cache file holding the replay state at frame
 * boundaries every ~interval inflated bytes, so a seek replays at most one
 * interval. Memory is stored as versions of the pages changed since the
 * previous checkpoint (deflated), and a seek loads only the pages it
 * touches: the latest version at or before its checkpoint.
 *
 * Layout (host byte order; a cache, rebuilt when anything disagrees):
 *   header   magic, byte-order mark, trace identity (size, mtime, inode,
 *            hash of its first 64 KiB), interval, trailer offset
 *   body     page versions and checkpoint records, as the replay went
 *            (a record's memory map: in full, or as the map, protect and
 *            unmap operations since the checkpoint before, from a full
 *            one; a full list is written once the operations since the
 *            last outnumber the maps, so the index grows with the trace's
 *            map operations, not with maps times checkpoints, and a seek
 *            reads O(maps) entries)
 *   tables   checkpoints {instructions started, record offset};
 *            page versions {page, checkpoint, bytes, offset} by page
 *   trailer  table offsets and counts, total instructions, magic */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ucir/replay/replay_int.h"
#include "ucir/ucir_int.h"

#define IX_MAGIC 0x3130584943554b54ULL /* "TKUCIX01" */
#define IX_END 0x444e455843554b54ULL   /* "TKUCXEND" */
#define IX_BOM 0x01020304u
#define IX_VERSION 2u /* 2: memory maps as operations since a full list */
#define IX_UNMAP ((uint64_t)1 << 8) /* an operation's kind, above its prot */
#define IX_HASHED ((size_t)64 << 10)
#define PAGE_IMAGE (RP_PAGE + RP_PAGE / 8) /* data + known bits */

typedef struct ix_header {
    uint64_t magic;
    uint32_t bom, version;
    uint64_t trace_size, mtime_sec, mtime_nsec, inode, trace_hash;
    uint64_t interval, trailer;
} ix_header;

typedef struct ix_trailer {
    uint64_t ncheck, check_off, npages, page_off, instructions, magic;
} ix_trailer;

typedef struct ix_check {
    uint64_t started, off;
} ix_check;

typedef struct ix_page {
    uint64_t pn;
    uint32_t ckpt, clen;
    uint64_t off;
} ix_page;

/* A checkpoint record: this, then regs {num, value}, spregs {num, len,
 * bytes padded to 8}, and nmaps entries: maps {addr, size, prot} when
 * maps_from is this checkpoint's own number, else the map operations
 * since the checkpoint before {addr, size, prot | IX_UNMAP if unmap}, to
 * apply after those of the checkpoints from maps_from on. */
typedef struct ix_state {
    int64_t instr;
    uint64_t pc, last_size, next_pc;
    uint32_t pc_known, next_pc_known, first_key_done, exited;
    uint64_t records, syscalls, frames, skipped;
    uint64_t frame_offset, frame_index, record_index;
    uint32_t nregs, nspregs;
    uint64_t nmaps, maps_from;
} ix_state;

struct tk_ucir_index {
    const uint8_t *map;
    size_t size;
    ix_trailer t;
    const ix_check *checks;
    const ix_page *pages;
    ucir_inflater *z;
    uint8_t *zbuf;
    size_t zcap;
};

/* ---- the trace's identity */

static int trace_identity(const char *path, ix_header *h)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int bad = fstat(fd, &st) != 0 ? errno : 0;
    if (bad || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = bad; /* none: not a regular file */
        return -1;
    }
    uint8_t *buf = malloc(IX_HASHED);
    ssize_t n = buf ? pread(fd, buf, IX_HASHED, 0) : -1;
    int e = errno;
    close(fd);
    if (n < 0) {
        free(buf);
        errno = e;
        return -1;
    }
    h->trace_hash = tk_hash_bytes(buf, (size_t)n);
    free(buf);
    h->trace_size = (uint64_t)st.st_size;
    h->mtime_sec = (uint64_t)st.st_mtim.tv_sec;
    h->mtime_nsec = (uint64_t)st.st_mtim.tv_nsec;
    h->inode = (uint64_t)st.st_ino;
    return 0;
}

/* ---- building */

typedef struct builder {
    FILE *out;
    uint64_t off;
    ix_check *checks;
    size_t ncheck, check_cap;
    ix_page *pages;
    size_t npages, page_cap;
    ucir_deflater *z;
    uint8_t *zbuf;
    size_t zcap;
    uint64_t (*mops)[3];     /* map operations since the last checkpoint */
    size_t nmops, mops_cap;
    uint64_t maps_from;      /* the last checkpoint with a full map list */
    uint64_t since;          /* entries and records written since */
    uint8_t image[PAGE_IMAGE];
} builder;

static int put(builder *b, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, b->out) != n)
        return -1;
    b->off += n;
    return 0;
}

static int grow(void **v, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 256;
    void *nv = realloc(*v, c * elem);
    if (!nv)
        return -1;
    *v = nv;
    *cap = c;
    return 0;
}

/* Versions of the pages changed since the last checkpoint. */
static int put_pages(builder *b, tk_ucir_replay *rp)
{
    rp_mem *m = &rp->mem;
    for (size_t i = 0; i < m->ndirty; i++) {
        int oom = 0;
        rp_page *p = rp_mem_page(m, m->dirty[i], &oom);
        if (!p)
            return -1;
        p->dirty = 0;
        memcpy(b->image, p->data, RP_PAGE);
        memcpy(b->image + RP_PAGE, p->known, RP_PAGE / 8);
        size_t n = ucir_deflate(b->z, b->image, PAGE_IMAGE, &b->zbuf, &b->zcap);
        if (!n || grow((void **)&b->pages, &b->page_cap, b->npages, sizeof *b->pages) != 0)
            return -1;
        b->pages[b->npages++] = (ix_page){m->dirty[i], (uint32_t)b->ncheck, (uint32_t)n, b->off};
        if (put(b, b->zbuf, n) != 0)
            return -1;
    }
    m->ndirty = 0;
    return 0;
}

/* A map operation the replay applied, for the next checkpoint. */
static int note_map_op(builder *b, const tk_ucir_op *op)
{
    if (grow((void **)&b->mops, &b->mops_cap, b->nmops, sizeof *b->mops) != 0)
        return -1;
    b->mops[b->nmops][0] = op->addr;
    b->mops[b->nmops][1] = op->size;
    b->mops[b->nmops][2] = op->prot | (op->kind == TK_UCIR_MEM_UNMAP ? IX_UNMAP : 0);
    b->nmops++;
    return 0;
}

/* The memory map: in full (the first time, and once the operations and
 * records since the last full list outnumber the maps), else the
 * operations since the checkpoint before. */
static int put_maps(builder *b, tk_ucir_replay *rp, int full)
{
    if (!full)
        return b->nmops && put(b, b->mops, b->nmops * sizeof *b->mops) != 0 ? -1 : 0;
    for (uint32_t k = tk_ucir_atree_first(&rp->map_tree); k;
         k = tk_ucir_atree_next(&rp->map_tree, k)) {
        uint64_t mp[3] = {rp->maps[k].addr, rp->maps[k].size, rp->maps[k].prot};
        if (put(b, mp, sizeof mp) != 0)
            return -1;
    }
    return 0;
}

static int put_checkpoint(builder *b, tk_ucir_replay *rp, const tk_ucir_pos *pos)
{
    if (put_pages(b, rp) != 0 ||
        grow((void **)&b->checks, &b->check_cap, b->ncheck, sizeof *b->checks) != 0)
        return -1;
    b->checks[b->ncheck++] = (ix_check){(uint64_t)(rp->clk.instr + 1), b->off};
    size_t nregs = tk_ucir_replay_regs(rp, NULL, NULL, 0);
    uint64_t nmaps = b->nmops;
    b->since += b->nmops + 1;
    int full = b->ncheck == 1 || b->since > rp->map_tree.n;
    if (full) {
        b->maps_from = b->ncheck - 1;
        b->since = 0;
        nmaps = rp->map_tree.n;
    }
    ix_state s = {rp->clk.instr, rp->pc, rp->last_size, rp->next_pc,
                  (uint32_t)rp->pc_known, (uint32_t)rp->next_pc_known,
                  (uint32_t)rp->clk.first_key_done, (uint32_t)rp->exited,
                  rp->records, rp->syscalls, rp->frames, rp->skipped,
                  pos->frame_offset, pos->frame, pos->record,
                  (uint32_t)nregs, (uint32_t)rp->nspregs, nmaps, b->maps_from};
    if (put(b, &s, sizeof s) != 0)
        return -1;
    for (uint32_t w = 0; w < RP_NREGS / 64; w++)
        for (uint64_t bits = rp->have[w]; bits; bits &= bits - 1) {
            uint64_t num = w * 64 + (uint32_t)__builtin_ctzll(bits), r[2] = {num, rp->regs[num]};
            if (put(b, r, sizeof r) != 0)
                return -1;
        }
    static const uint8_t zeros[8];
    for (size_t i = 0; i < rp->nspregs; i++) {
        uint32_t hd[2] = {rp->spregs[i].num, rp->spregs[i].len};
        if (put(b, hd, sizeof hd) != 0 || put(b, rp->spregs[i].data, hd[1]) != 0 ||
            put(b, zeros, (8 - hd[1] % 8) % 8) != 0)
            return -1;
    }
    int rc = put_maps(b, rp, full);
    b->nmops = 0;
    return rc;
}

static int page_order(const void *a, const void *b)
{
    const ix_page *x = a, *y = b;
    if (x->pn != y->pn)
        return x->pn < y->pn ? -1 : 1;
    return x->ckpt < y->ckpt ? -1 : x->ckpt > y->ckpt;
}

/* A write failure: the index file and the system's reason (err->file). */
static tk_status build_fail(builder *b, tk_error *err, const char *what, const char *path)
{
    if (err->status == TK_OK) {
        tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "checkpoint index: %s%s%s",
                     what, errno ? ": " : "", errno ? strerror(errno) : "");
        tk_error_set_file(err, path);
    }
    (void)b;
    return err->status;
}

static tk_status build(builder *b, tk_ucir_reader *r, tk_ucir_replay *rp, ix_header *h,
                       const char *index_path, tk_error *err)
{
    if (put(b, h, sizeof *h) != 0)
        return build_fail(b, err, "cannot write", index_path);
    tk_ucir_op op;
    tk_ucir_pos pos;
    uint64_t last = 0;
    int rc;
    while ((rc = tk_ucir_next(r, &op, err)) == 1) {
        tk_ucir_reader_pos(r, &pos);
        if (op.kind == TK_UCIR_FRAME) {
            tk_ucir_counts c;
            tk_ucir_reader_counts(r, &c);
            if (b->ncheck == 0 || c.inflated - last >= h->interval) {
                last = c.inflated;
                if (put_checkpoint(b, rp, &pos) != 0)
                    return build_fail(b, err, "cannot write", index_path);
            }
        }
        int applied = tk_ucir_replay_apply(rp, &op, &pos, err);
        if (applied < 0)
            return err->status;
        if (applied && (op.kind == TK_UCIR_MEM_MAP || op.kind == TK_UCIR_MEM_PROT ||
                        op.kind == TK_UCIR_MEM_UNMAP) && note_map_op(b, &op) != 0)
            return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    }
    if (rc < 0)
        return err->status;
    if (put_pages(b, rp) != 0) /* not used by any checkpoint: dropped */
        return build_fail(b, err, "cannot write", index_path);
    while (b->npages && b->pages[b->npages - 1].ckpt == b->ncheck)
        b->npages--;
    if (b->npages) /* none: a trace that never wrote memory */
        qsort(b->pages, b->npages, sizeof *b->pages, page_order);
    ix_trailer t = {b->ncheck, 0, b->npages, 0, (uint64_t)(rp->clk.instr + 1), IX_END};
    static const uint8_t zeros[8];
    if (put(b, zeros, (8 - b->off % 8) % 8) != 0) /* the tables are read in place */
        return build_fail(b, err, "cannot write", index_path);
    t.check_off = b->off;
    if (put(b, b->checks, b->ncheck * sizeof *b->checks) != 0)
        return build_fail(b, err, "cannot write", index_path);
    t.page_off = b->off;
    if (put(b, b->pages, b->npages * sizeof *b->pages) != 0)
        return build_fail(b, err, "cannot write", index_path);
    h->trailer = b->off;
    if (put(b, &t, sizeof t) != 0 || fseek(b->out, 0, SEEK_SET) != 0 ||
        fwrite(h, sizeof *h, 1, b->out) != 1 || fflush(b->out) != 0)
        return build_fail(b, err, "cannot write", index_path);
    return TK_OK;
}

tk_status tk_ucir_index_build(tk_ucir_reader *r, const char *trace_path, const char *index_path,
                              const tk_ucir_index_options *o, tk_error *err)
{
    const tk_ucir_header *th = tk_ucir_reader_header(r);
    if (th->variant != TK_UCIR_SPEC)
        return tk_error_set(err, TK_EUNSUPPORTED, TK_NO_OFFSET, TK_NO_RECORD,
                            "usercorn .uc traces cannot seek: no checkpoint index");
    ix_header h = {IX_MAGIC, IX_BOM, IX_VERSION, 0, 0, 0, 0, 0, 0, 0};
    h.interval = o && o->interval ? o->interval : TK_UCIR_DEFAULT_INTERVAL;
    errno = 0;
    if (trace_identity(trace_path, &h) != 0) {
        if (errno)
            tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                         "cannot read it to index it: %s", strerror(errno));
        else
            tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                         "not a regular file that can be indexed");
        tk_error_set_file(err, trace_path);
        return TK_EIO;
    }
    size_t plen = strlen(index_path);
    char *tmp = malloc(plen + 16);
    if (!tmp)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", index_path);
    int fd = mkstemp(tmp);
    builder b;
    memset(&b, 0, sizeof b);
    b.out = fd >= 0 ? fdopen(fd, "wb") : NULL;
    int open_errno = errno;
    tk_ucir_replay *rp = tk_ucir_replay_new(th, err);
    b.z = ucir_deflater_new(1);
    tk_status st;
    if (!b.out) {
        tk_error_clear(err);
        errno = open_errno;
        st = build_fail(&b, err, "cannot create", index_path);
        if (fd >= 0)
            close(fd);
    } else if (!rp || !b.z) {
        st = tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    } else {
        errno = 0;
        st = build(&b, r, rp, &h, index_path, err);
    }
    if (st == TK_OK)
        tk_error_clear(err); /* build_fail fills only a clear error */
    errno = 0;
    if (b.out && fclose(b.out) != 0 && st == TK_OK)
        st = build_fail(&b, err, "cannot write", index_path);
    if (fd >= 0 && st == TK_OK && rename(tmp, index_path) != 0)
        st = build_fail(&b, err, "cannot rename into place", index_path);
    if (fd >= 0 && st != TK_OK)
        unlink(tmp);
    free(tmp);
    tk_ucir_replay_free(rp);
    ucir_deflater_free(b.z);
    ucir_buf_free(b.zbuf, b.zcap);
    free(b.checks);
    free(b.pages);
    free(b.mops);
    return st;
}

/* ---- opening */

static tk_ucir_index *stale(tk_ucir_index *ix, tk_error *err, const char *path, const char *why)
{
    tk_ucir_index_close(ix);
    tk_error_set(err, TK_EUNSUPPORTED, TK_NO_OFFSET, TK_NO_RECORD, "checkpoint index %s: %s",
                 path, why);
    return NULL;
}

tk_ucir_index *tk_ucir_index_open(const char *index_path, const char *trace_path,
                                  tk_error *err)
{
    tk_ucir_index *ix = calloc(1, sizeof *ix);
    if (!ix) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    int fd = open(index_path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return stale(ix, err, index_path, "cannot open");
    }
    ix->size = (size_t)st.st_size;
    void *m = ix->size >= sizeof(ix_header) + sizeof(ix_trailer)
                  ? mmap(NULL, ix->size, PROT_READ, MAP_PRIVATE, fd, 0)
                  : MAP_FAILED;
    close(fd);
    if (m == MAP_FAILED)
        return stale(ix, err, index_path, "too short");
    ix->map = m;
    ix_header h, now;
    memcpy(&h, ix->map, sizeof h);
    if (h.magic != IX_MAGIC || h.bom != IX_BOM || h.version != IX_VERSION)
        return stale(ix, err, index_path, "not a tracekit checkpoint index of this machine");
    if (trace_identity(trace_path, &now) != 0 || now.trace_size != h.trace_size ||
        now.mtime_sec != h.mtime_sec || now.mtime_nsec != h.mtime_nsec ||
        now.inode != h.inode || now.trace_hash != h.trace_hash)
        return stale(ix, err, index_path, "made for another version of the trace");
    if (h.trailer > ix->size - sizeof(ix_trailer))
        return stale(ix, err, index_path, "truncated");
    memcpy(&ix->t, ix->map + h.trailer, sizeof ix->t);
    ix_trailer *t = &ix->t;
    if (t->magic != IX_END || t->ncheck == 0 || t->check_off > h.trailer ||
        t->ncheck > (h.trailer - t->check_off) / sizeof(ix_check) ||
        t->page_off > h.trailer || t->npages > (h.trailer - t->page_off) / sizeof(ix_page) ||
        t->check_off % 8 || t->page_off % 8)
        return stale(ix, err, index_path, "damaged");
    ix->checks = (const ix_check *)(ix->map + t->check_off);
    ix->pages = (const ix_page *)(ix->map + t->page_off);
    if (!(ix->z = ucir_inflater_new())) {
        tk_ucir_index_close(ix);
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    return ix;
}

void tk_ucir_index_close(tk_ucir_index *ix)
{
    if (!ix)
        return;
    if (ix->map)
        munmap((void *)ix->map, ix->size);
    ucir_inflater_free(ix->z);
    ucir_buf_free(ix->zbuf, ix->zcap);
    free(ix);
}

uint64_t tk_ucir_index_checkpoints(const tk_ucir_index *ix) { return ix->t.ncheck; }
uint64_t tk_ucir_index_instructions(const tk_ucir_index *ix) { return ix->t.instructions; }

/* ---- memory of a checkpoint */

typedef struct base_ref {
    tk_ucir_index *ix;
    uint64_t ckpt;
} base_ref;

/* First page version with pn >= want. */
static size_t first_at(const tk_ucir_index *ix, uint64_t want)
{
    size_t lo = 0, hi = (size_t)ix->t.npages;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->pages[mid].pn < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The version of page pn at checkpoint ckpt: its index, or SIZE_MAX. */
static size_t version_of(const tk_ucir_index *ix, uint64_t pn, uint64_t ckpt, size_t i)
{
    size_t found = SIZE_MAX;
    for (; i < ix->t.npages && ix->pages[i].pn == pn && ix->pages[i].ckpt <= ckpt; i++)
        found = i;
    return found;
}

static int base_load(const void *ctx, uint64_t pn, rp_page *p)
{
    const base_ref *b = ctx;
    tk_ucir_index *ix = b->ix;
    size_t v = version_of(ix, pn, b->ckpt, first_at(ix, pn));
    if (v == SIZE_MAX)
        return 0;
    const ix_page *e = &ix->pages[v];
    size_t out, trailing;
    if (e->off > ix->size || e->clen > ix->size - e->off ||
        ucir_inflate(ix->z, ix->map + e->off, e->clen, &ix->zbuf, &ix->zcap, &out, PAGE_IMAGE,
                     &trailing) != UCIR_Z_OK ||
        out != PAGE_IMAGE)
        return -1;
    memcpy(p->data, ix->zbuf, RP_PAGE);
    memcpy(p->known, ix->zbuf + RP_PAGE, RP_PAGE / 8);
    return 1;
}

static int base_each(const void *ctx, uint64_t lo, uint64_t hi,
                     int (*fn)(void *arg, uint64_t pn), void *arg)
{
    const base_ref *b = ctx;
    const tk_ucir_index *ix = b->ix;
    for (size_t i = first_at(ix, lo); i < ix->t.npages && ix->pages[i].pn <= hi;) {
        uint64_t pn = ix->pages[i].pn;
        if (version_of(ix, pn, b->ckpt, i) != SIZE_MAX && fn(arg, pn) != 0)
            return -1;
        while (i < ix->t.npages && ix->pages[i].pn == pn)
            i++;
    }
    return 0;
}

/* ---- seeking */

static tk_status damaged(tk_error *err)
{
    return tk_error_set(err, TK_EMALFORMED, TK_NO_OFFSET, TK_NO_RECORD,
                        "checkpoint index damaged (delete it to rebuild)");
}

/* Checkpoint ckpt's record: its state into *s; where its map entries
 * start (checked to be in the file), NULL: damaged. */
static const uint8_t *record_maps(const tk_ucir_index *ix, uint64_t ckpt, ix_state *s)
{
    uint64_t off = ix->checks[ckpt].off;
    if (off > ix->size || ix->size - off < sizeof *s)
        return NULL;
    memcpy(s, ix->map + off, sizeof *s);
    const uint8_t *p = ix->map + off + sizeof *s, *end = ix->map + ix->size;
    if ((uint64_t)(end - p) / 16 < s->nregs)
        return NULL;
    p += (size_t)s->nregs * 16;
    for (uint32_t i = 0; i < s->nspregs; i++) {
        uint32_t hd[2];
        if (end - p < 8)
            return NULL;
        memcpy(hd, p, sizeof hd);
        size_t padded = ((size_t)hd[1] + 7) / 8 * 8;
        if ((size_t)(end - p - 8) < padded)
            return NULL;
        p += 8 + padded;
    }
    if (s->maps_from > ckpt || (uint64_t)(end - p) / 24 < s->nmaps)
        return NULL;
    return p;
}

/* The memory map at checkpoint ckpt (record *s, entries at p): the full
 * list at s->maps_from, then the operations of each record after it. */
static tk_status restore_maps(tk_ucir_replay *rp, const tk_ucir_index *ix, uint64_t ckpt,
                              const ix_state *s, const uint8_t *p, tk_error *err)
{
    uint64_t from = s->maps_from;
    for (uint64_t c = from; c <= ckpt; c++) {
        ix_state r = *s;
        const uint8_t *q = c == ckpt ? p : record_maps(ix, c, &r);
        if (!q || r.maps_from != from)
            return damaged(err);
        for (uint64_t i = 0; i < r.nmaps; i++, q += 24) {
            uint64_t mp[3];
            memcpy(mp, q, sizeof mp);
            int rc = c != from && mp[2] & IX_UNMAP ? rp_unmap(rp, mp[0], mp[1])
                                                   : rp_map(rp, mp[0], mp[1], (uint8_t)mp[2]);
            if (rc != 0)
                return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                                    "out of memory");
        }
    }
    return TK_OK;
}

static tk_status restore(tk_ucir_replay *rp, const tk_ucir_index *ix, uint64_t ckpt,
                         ix_state *s, tk_error *err)
{
    if (!record_maps(ix, ckpt, s))
        return damaged(err);
    uint64_t off = ix->checks[ckpt].off;
    const uint8_t *p = ix->map + off + sizeof *s, *end = ix->map + ix->size;
    rp->clk.instr = s->instr;
    rp->pc = s->pc;
    rp->last_size = s->last_size;
    rp->next_pc = s->next_pc;
    rp->pc_known = (int)s->pc_known;
    rp->next_pc_known = (int)s->next_pc_known;
    rp->clk.first_key_done = (int)s->first_key_done;
    rp->exited = (int)s->exited;
    rp->records = s->records;
    rp->syscalls = s->syscalls;
    rp->frames = s->frames;
    rp->skipped = s->skipped;
    for (uint32_t i = 0; i < s->nregs; i++, p += 16) {
        uint64_t r[2];
        if (end - p < 16)
            return damaged(err);
        memcpy(r, p, sizeof r);
        rp_set_reg(rp, (uint32_t)r[0], r[1]);
    }
    for (uint32_t i = 0; i < s->nspregs; i++) {
        uint32_t hd[2];
        if (end - p < 8)
            return damaged(err);
        memcpy(hd, p, sizeof hd);
        p += 8;
        size_t padded = ((size_t)hd[1] + 7) / 8 * 8;
        if ((size_t)(end - p) < padded)
            return damaged(err);
        if (rp_set_spreg(rp, hd[0], p, hd[1]) != 0)
            return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        p += padded;
    }
    return restore_maps(rp, ix, ckpt, s, p, err);
}

tk_status tk_ucir_replay_seek(tk_ucir_replay *rp, tk_ucir_reader *r, const tk_ucir_index *ix,
                              uint64_t n, tk_error *err)
{
    /* the last checkpoint that has not started instruction n + 1 */
    size_t lo = 0, hi = (size_t)ix->t.ncheck;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->checks[mid].started <= n + 1)
            lo = mid;
        else
            hi = mid;
    }
    ix_state s;
    tk_status st = restore(rp, ix, lo, &s, err);
    if (st != TK_OK)
        return st;
    base_ref *b = malloc(sizeof *b);
    if (!b)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    *b = (base_ref){(tk_ucir_index *)ix, lo};
    free(rp->base_ref);
    rp->base_ref = b;
    rp->mem.base = (rp_base){base_load, base_each, b};
    return tk_ucir_reader_seek(r, s.frame_offset, s.frame_index, s.record_index, err);
}

tk_status tk_ucir_index_default_path(const char *trace_path, char *buf, size_t size,
                                     tk_error *err)
{
    char *abs = realpath(trace_path, NULL);
    if (!abs)
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "%s: %s", trace_path,
                            strerror(errno));
    uint64_t h = tk_hash_bytes(abs, strlen(abs));
    free(abs);
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[4096];
    if (xdg && *xdg)
        snprintf(dir, sizeof dir, "%s/tracekit", xdg);
    else if (home && *home)
        snprintf(dir, sizeof dir, "%s/.cache/tracekit", home);
    else
        return tk_error_set(err, TK_EUNSUPPORTED, TK_NO_OFFSET, TK_NO_RECORD,
                            "no cache directory: neither XDG_CACHE_HOME nor HOME is set");
    /* create the cache directories as needed */
    for (char *s = dir + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(dir, 0755);
            *s = '/';
        }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "cannot create %s: %s",
                            dir, strerror(errno));
    int n = snprintf(buf, size, "%s/ucir-%016llx.idx", dir, (unsigned long long)h);
    if (n <= 0 || (size_t)n >= size)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "the index path needs %d bytes, the buffer has %zu", n + 1, size);
    return TK_OK;
}
