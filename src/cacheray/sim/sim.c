/* The cache simulator: records in (one at a time, or a whole input through
 * a fast path that decodes accesses straight from the input's window),
 * every access through the hierarchy and the analyses, results out. */
#include <stdlib.h>
#include <string.h>

#include "cacheray/sim/hierarchy.h"
#include "core/bytes.h"
#include "cacheray/cacheray_int.h"
#include "core/cursor.h"

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

static cs_count_fn count_pass_for(int fields, int single);

static void region_ended(void *ctx, const cs_region *r)
{
    tk_cachesim *s = ctx;
    s->types.v[r->type].pub.live--;
}

tk_cachesim *tk_cachesim_new(const tk_cachesim_config *c, tk_error *err)
{
    if (tk_cachesim_config_check(c, err) != TK_OK)
        return NULL;
    tk_cachesim *s = calloc(1, sizeof *s);
    if (!s) {
        oom(err);
        return NULL;
    }
    s->cfg = *c;
    s->cfg.debug_info = NULL; /* not ours to keep */
    cs_threads_init(&s->threads, c->nlevels);
    if (c->debug_info && !(s->layouts = tk_cacheray_layouts_load(c->debug_info, err)))
        goto fail;
    s->l1_shift = (unsigned)__builtin_ctz(c->levels[0].line);
    s->count_pass = count_pass_for(s->layouts != NULL, c->nlevels == 1);
    if (cs_levels_init(s) != 0 || !(s->top_pass = cs_top_pass(s)) ||
        !(s->regions = cs_regions_new(region_ended, s)) ||
        cs_types_init(&s->types, s->layouts, s->nlevels) != 0 ||
        cs_fs_init(&s->fs, s->l1_shift) != 0 ||
        ((c->flags & TK_CACHESIM_REUSE) && !(s->reuse = cs_reuse_new()))) {
        oom(err);
        goto fail;
    }
    return s;
fail:
    tk_cachesim_free(s);
    return NULL;
}

void tk_cachesim_free(tk_cachesim *s)
{
    if (!s)
        return;
    cs_pipe_stop(s);
    cs_levels_free(s);
    cs_stream_free(s);
    cs_regions_free(s->regions);
    cs_types_free(&s->types);
    cs_threads_free(&s->threads);
    cs_fs_free(&s->fs);
    cs_reuse_free(s->reuse);
    tk_cacheray_layouts_free(s->layouts);
    free(s);
}

/* ---- feeding
 *
 * Accesses go through in batches: decoded once, then each analysis runs
 * over the whole batch in its own loop (the hierarchy, threads, types,
 * false sharing, reuse). Tight loops keep each one's state in registers
 * and its branches predictable; taken one access at a time they competed
 * (1.5x slower). A batch ends before any RTTA record, so every analysis
 * sees the regions live at each access. */

/* Bits 0-3 of a miss mask as 1s in the 16-bit lanes 0-3 of a word: a
 * thread's misses at each level summed in two words over its run (at most
 * CS_BATCH accesses, so no lane overflows), where adding to its counters
 * in memory made a chain of stores and loads through every access. */
#define LANES(m) ((uint64_t)((m) & 1) | (uint64_t)((m) >> 1 & 1) << 16 | \
                  (uint64_t)((m) >> 2 & 1) << 32 | (uint64_t)((m) >> 3 & 1) << 48)
static const uint64_t mask_lanes[16] = {
    LANES(0),  LANES(1),  LANES(2),  LANES(3),  LANES(4),  LANES(5),  LANES(6),  LANES(7),
    LANES(8),  LANES(9),  LANES(10), LANES(11), LANES(12), LANES(13), LANES(14), LANES(15),
};
#undef LANES

/* Per type and per thread, access by access: runs of one type are short
 * (a program goes between its stack and its heap all the time), runs of
 * one thread long, so a thread's counts are summed in locals over its run
 * and the type's are added at each access. What the loop reads stays in
 * locals: the counters it adds to are uint64_t, like nlevels and the
 * batch's fields, so each store would otherwise have them loaded again.
 * Inlined into a copy per (layouts or not, one level or more), so the
 * common run has neither the field check nor the loop over levels. */
__attribute__((always_inline)) static inline void count_pass(tk_cachesim *s, const cs_batch *b,
                                                             const int fields, const int single)
{
    cs_types *const t = &s->types;
    cs_type *const v = t->v; /* no type is added during the pass */
    cs_regions *const g = s->regions;
    const size_t n = b->n, nlevels = single ? 1 : s->nlevels;
    for (size_t i = 0, j; i < n; i = j) {
        const uint64_t id = b->thread[i];
        uint64_t writes = 0, bytes = 0, miss0 = 0, lanes[2] = {0, 0};
        for (j = i; j < n && b->thread[j] == id; j++) {
            const uint64_t addr = b->addr[j];
            const unsigned size = b->size[j], write = b->write[j], mask = b->mask[j];
            const cs_region *r;
            cs_type *T = &v[cs_regions_find_type(g, addr, &r)];
            cs_count(&T->pub.c, (int)write, size, mask, nlevels);
            if (fields && T->layout && size)
                cs_types_fields(t, r, addr, size, (int)write, mask);
            writes += write;
            bytes += size;
            miss0 += mask & 1;
            if (!single) {
                lanes[0] += mask_lanes[mask & 15];
                lanes[1] += mask_lanes[mask >> 4 & 15];
            }
        }
        tk_cachesim_counts *tc = cs_threads_get(&s->threads, id);
        if (!tc) {
            s->oom = 1;
            continue;
        }
        tc->reads += (j - i) - writes;
        tc->writes += writes;
        tc->bytes += bytes;
        tc->misses[0] += miss0;
        for (size_t l = 1; l < nlevels; l++)
            tc->misses[l] += lanes[l / 4] >> (16 * (l % 4)) & 0xFFFF;
    }
}

/* One level without fields: pipe.c's pass (two threads summed without a
 * branch, few types in words). */
static void count_pass_1(tk_cachesim *s, cs_batch *b) { cs_count_first(s, b, 1); }
static void count_pass_n(tk_cachesim *s, cs_batch *b) { count_pass(s, b, 0, 0); }
static void count_pass_fields_1(tk_cachesim *s, cs_batch *b) { count_pass(s, b, 1, 1); }
static void count_pass_fields_n(tk_cachesim *s, cs_batch *b) { count_pass(s, b, 1, 0); }

static cs_count_fn count_pass_for(int fields, int single)
{
    return fields ? (single ? count_pass_fields_1 : count_pass_fields_n)
                  : (single ? count_pass_1 : count_pass_n);
}

/* The false-sharing window entries or table slots of the batch's writes
 * asked for now: the other passes run while they arrive. The prefetch
 * stays in this loop: GCC 12 takes a helper holding only a prefetch for a
 * const function and deletes its calls. A read prefetch: x86-64's base
 * instruction set has no write prefetch, and GCC drops a write hint
 * rather than emit a read one. */
__attribute__((always_inline)) static inline void prefetch_as(tk_cachesim *s, cs_batch *b,
                                                             const int windowed)
{
    const cs_falseshare *f = &s->fs;
    /* in locals: the stores of homes could, for the compiler, change f */
    const unsigned shift = f->shift + CS_FS_GROUP_SHIFT;
    const uint64_t wlo = f->win_lo, wn = f->win_n;
    const uint32_t *const win = f->win;
    const cs_fs_slot *const tab = f->tab;
    const cs_falseshare table = {.slots = f->slots, .tab_shift = f->tab_shift};
    const size_t nw = b->nwrites;
    for (size_t k = 0; k < nw; k++) {
        const uint64_t group = b->addr[b->writes[k]] >> shift;
        if (windowed && group - wlo < wn) {
            __builtin_prefetch(&win[group - wlo]);
        } else {
            size_t home = cs_fs_home(&table, group);
            b->fs_home[k] = home;
            __builtin_prefetch(&tab[home]);
        }
    }
}

/* Without a window (traces with locality), no test for it. */
static void falseshare_prefetch(tk_cachesim *s, cs_batch *b)
{
    if (s->fs.win_n)
        prefetch_as(s, b, 1);
    else
        prefetch_as(s, b, 0);
}

/* In two loops: the writes' blocks found (their window entries or table
 * slots, asked for before the first level's and the counting passes,
 * arrived meanwhile) and asked for, then each write applied. The first is
 * kept lean (a run of writes to one group looks it up once) for the
 * traffic with locality, where it finds the blocks in the CPU's caches
 * anyway. A write within one line by the thread that alone wrote the line
 * before only updates its state; anything else (a new line, a second
 * thread, line-crossing) takes the general path. Blocks never move, so a
 * pointer found in the first loop holds through the second. A group new
 * here may move the table (larger, or smaller when its groups moved to
 * the window): a group outside the window before is then looked for from
 * a home of the old table (masked to the new size), which may fail, and
 * then found by cs_fs_block_of. */
__attribute__((always_inline)) static inline void find_as(tk_cachesim *s, cs_batch *b,
                                                         const int windowed)
{
    cs_falseshare *f = &s->fs;
    /* in locals: each store through a uint64_t pointer could, for the
     * compiler, change f's fields */
    const unsigned shift = f->shift;
    const cs_fs_slot *tab = f->tab;
    uint64_t wlo = f->win_lo, wn = f->win_n;
    const size_t nw = b->nwrites;
    size_t smask = f->slots - 1;
    uint64_t last_group1 = 0, prev_group1 = 0; /* the last two groups: programs */
    cs_fs_block *blk = NULL, *prev_blk = NULL; /* go between stack and heap */
    for (size_t k = 0; k < nw; k++) {
        uint64_t group1 = (b->addr[b->writes[k]] >> shift >> CS_FS_GROUP_SHIFT) + 1;
        if (group1 == prev_group1 && group1 != last_group1) {
            cs_fs_block *t = blk;
            blk = prev_blk;
            prev_blk = t;
            prev_group1 = last_group1;
            last_group1 = group1;
        } else if (group1 != last_group1) {
            prev_group1 = last_group1;
            prev_blk = blk;
            cs_fs_block *found = NULL;
            if (windowed && group1 - 1 - wlo < wn) {
                found = cs_fs_win_block(f, group1 - 1);
            } else {
                size_t j = b->fs_home[k] & smask; /* the table may have shrunk */
                while (tab[j].group1 && tab[j].group1 != group1)
                    j = (j + 1) & smask;
                if (tab[j].group1)
                    found = cs_fs_block_at(f, tab[j].block);
            }
            if (found) {
                blk = found;
            } else { /* a new group */
                blk = cs_fs_block_of(f, (group1 - 1) << CS_FS_GROUP_SHIFT);
                tab = f->tab;
                smask = f->slots - 1;
                wlo = f->win_lo;
                wn = f->win_n;
            }
            last_group1 = blk ? group1 : 0;
            __builtin_prefetch(blk);
        }
        b->fs_block[k] = blk;
    }
}

/* Without a window when the batch starts, no test for it (one made
 * meanwhile is found through cs_fs_block_of). */
static void falseshare_find(tk_cachesim *s, cs_batch *b)
{
    if (s->fs.win_n)
        find_as(s, b, 1);
    else
        find_as(s, b, 0);
}

/* A write's thread index, or CS_FS_MAX_OWNER when it has none that fits
 * a tag (or out of memory): the general path. */
static uint32_t fs_owner(cs_falseshare *f, uint64_t tid)
{
    uint32_t t = cs_fs_thread(f, tid);
    return t < CS_FS_MAX_OWNER ? t : CS_FS_MAX_OWNER;
}

/* A write stays in its line when its last byte's offset there, `end`,
 * is below the line size (a write past 2^64 - 1 crosses a line too). */
static void falseshare_apply(tk_cachesim *s, cs_batch *b)
{
    cs_falseshare *f = &s->fs;
    const unsigned shift = f->shift, chunk_shift = f->chunk_shift;
    const uint64_t in_line = (1ULL << shift) - 1;
    const size_t nw = b->nwrites;
    if (nw == 0)
        return;
    uint64_t tid = b->thread[b->writes[0]];
    uint32_t t = fs_owner(f, tid);
    for (size_t k = 0; k < nw; k++) {
        const size_t i = b->writes[k];
        const uint64_t addr = b->addr[i], off = addr & in_line, end = off + (b->size[i] - 1u);
        cs_fs_block *bk = b->fs_block[k];
        if (b->thread[i] != tid) {
            tid = b->thread[i];
            t = fs_owner(f, tid);
        }
        if (!bk || end > in_line || t == CS_FS_MAX_OWNER) {
            uint64_t last = addr + (b->size[i] - 1u);
            if (cs_fs_write_lines(f, s, addr, last < addr ? UINT64_MAX : last, tid) != 0)
                s->oom = 1;
            continue;
        }
        const uint64_t line = addr >> shift;
        cs_fs_state *st = &bk->l[line & ((1u << CS_FS_GROUP_SHIFT) - 1)];
        const unsigned lo = (unsigned)(off >> chunk_shift), hi = (unsigned)(end >> chunk_shift);
        const uint64_t mask = ((2ULL << (hi - lo)) - 1) << lo; /* hi 63, lo 0: 2 << 63 is 0 */
        const uint64_t tag = st->meta & 0xFFFF;
        if (tag == t + 1) { /* the owner again */
            st->mask |= mask;
            st->meta += 1ULL << CS_FS_TAG_BITS;
        } else if (tag == 0) { /* a new line */
            st->mask = mask;
            st->meta = (t + 1) | 1ULL << CS_FS_TAG_BITS;
        } else if (tag == CS_FS_DEAD) { /* never reported: nothing to keep */
        } else if (cs_fs_write_state(f, s, line, st, t, mask) != 0) {
            s->oom = 1;
        }
    }
}

static void reuse_pass(tk_cachesim *s, const cs_batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        if (!b->size[i])
            continue;
        uint64_t addr = b->addr[i], last = addr + (b->size[i] - 1u);
        if (last < addr)
            last = UINT64_MAX;
        for (uint64_t line = addr >> s->l1_shift;; line++) {
            if (cs_reuse_access(s->reuse, line) != 0)
                s->oom = 1;
            if (line == last >> s->l1_shift)
                break;
        }
    }
}

/* While warming up, the accesses only change state: the caches and the
 * reuse stack (whose counts are reset after), not the counts per type,
 * thread or shared line. */
void cs_run_front(tk_cachesim *s, cs_batch *b, cs_queue *q)
{
    if (!s->warming)
        falseshare_prefetch(s, b);
    if (!q) {
        s->top_pass(s, b);
        return;
    }
    cs_queue mine = s->queue[1];
    s->queue[1] = *q;
    s->top_pass(s, b);
    *q = s->queue[1];
    s->queue[1] = mine;
}

void cs_run_find(tk_cachesim *s, cs_batch *b)
{
    if (!s->warming)
        falseshare_find(s, b);
}

void cs_run_side(tk_cachesim *s, cs_batch *b)
{
    if (!s->warming)
        falseshare_apply(s, b);
    if (s->reuse)
        reuse_pass(s, b);
}

void cs_run_batch(tk_cachesim *s, cs_batch *b)
{
    cs_run_front(s, b, NULL);
    if (s->stream)
        cs_stream_run(s, b);
    if (!s->warming) /* while the false-sharing table slots arrive */
        s->count_pass(s, b);
    cs_run_find(s, b);
    cs_run_side(s, b);
    b->n = 0;
}

int cs_oom(const tk_cachesim *s)
{
    int any = s->oom;
    for (size_t k = 0; k < s->nlevels; k++)
        any |= s->lv[k].oom;
    return any;
}

/* While pipe.c's worker runs (records off the fast path), through it. */
static void on_access(tk_cachesim *s, uint64_t addr, unsigned size, int write,
                      uint64_t thread)
{
    cs_batch *b = s->pipe ? cs_pipe_batch(s) : &s->batch;
    b->addr[0] = addr;
    b->size[0] = (uint8_t)size;
    b->write[0] = (uint8_t)write;
    b->thread[0] = thread;
    b->writes[0] = 0;
    b->nwrites = write && size;
    b->head[0] = 0;
    b->run_write[0] = (uint8_t)write;
    b->nruns = 1;
    b->n = 1;
    if (s->pipe)
        cs_pipe_submit(s, b);
    else
        cs_run_batch(s, b);
}

static void rtta_add(tk_cachesim *s, const tk_cacheray_record *rec)
{
    long type = cs_types_intern(&s->types, rec->type_name ? rec->type_name : "",
                                rec->type_name ? rec->typename_len : 0);
    cs_region *r = type < 0 ? NULL
                            : cs_regions_add(s->regions, rec->addr,
                                             (uint64_t)rec->elemsize * rec->elemcount);
    if (!r) {
        s->oom = 1;
        return;
    }
    cs_type *T = &s->types.v[type];
    r->type = (uint32_t)type;
    r->elemsize = rec->elemsize;
    r->stride = T->layout && T->layout->size && rec->elemsize % T->layout->size == 0
                    ? T->layout->size
                    : 0;
    T->pub.regions++;
    if (++T->pub.live > T->pub.peak_live)
        T->pub.peak_live = T->pub.live;
}

void cs_rtta(tk_cachesim *s, const tk_cacheray_record *rec, int counted)
{
    if (rec->type == TK_CACHERAY_RTTA_ADD) {
        s->tot.rtta_add += counted != 0;
        rtta_add(s, rec);
    } else {
        s->tot.rtta_remove += counted != 0;
        cs_regions_remove(s->regions, rec->addr);
    }
}

tk_status tk_cachesim_feed(tk_cachesim *s, const tk_cacheray_record *rec, tk_error *err)
{
    if (rec->type <= TK_CACHERAY_WRITE)
        on_access(s, rec->addr, rec->size, rec->type == TK_CACHERAY_WRITE, rec->thread);
    else
        cs_rtta(s, rec, 1);
    return cs_oom(s) ? oom(err) : TK_OK;
}

/* ---- the fast path */

/* Simulate the access records at c->p while whole ones are there. */
static inline void run_accesses(tk_cachesim *s, tk_cursor *c, int big)
{
    const uint8_t *p = c->p, *end = c->end;
    const unsigned shift = s->lv[0].shift;
    const uint64_t line_bytes = (uint64_t)1 << shift;
    for (;;) {
        cs_batch *b = s->pipe ? cs_pipe_batch(s) : &s->batch;
        size_t n = 0, nw = 0, nruns = 0, whole = (size_t)(end - p) / TK_CACHERAY_ACCESS_SIZE;
        size_t lim = whole < CS_BATCH ? whole : CS_BATCH;
        /* the last access's line if it stayed in one, else the access's
         * ~index (lines are below 2^62: neither matches a line, nor the
         * next access's ~index); at first neither */
        uint64_t prev = UINT64_MAX - CS_BATCH;
        unsigned run_write = 0;
        for (; n < lim && (p[0] & 0x3E) == 0; n++, p += TK_CACHERAY_ACCESS_SIZE) {
            unsigned write = p[0] & 1, size = p[9]; /* base tag 0 read, 1 write; flags ignored */
            uint64_t addr = tk_ld64(p + 1, big);
            b->write[n] = (uint8_t)write;
            b->addr[n] = addr;
            b->size[n] = (uint8_t)size;
            b->thread[n] = tk_ld64(p + 10, big);
            b->writes[nw] = (uint16_t)n;
            nw += write & (size != 0);
            uint64_t line = size != 0 && (addr & (line_bytes - 1)) + size <= line_bytes
                                ? addr >> shift
                                : ~(uint64_t)n;
            const unsigned same = line == prev;
            prev = line;
            b->head[nruns] = (uint16_t)n; /* a new run's head, or past the runs */
            nruns += same ^ 1;
            run_write = same ? run_write | write : write;
            b->run_write[nruns - 1] = (uint8_t)run_write;
        }
        if (n == 0)
            break;
        b->n = n;
        b->nwrites = nw;
        b->nruns = nruns;
        if (s->pipe)
            cs_pipe_submit(s, b);
        else
            cs_run_batch(s, b);
    }
    c->p = p;
}

static tk_status feed_sim(void *s, const tk_cacheray_record *rec, tk_error *err)
{
    return tk_cachesim_feed(s, rec, err);
}

static tk_status run(tk_cachesim *s, tk_input *in, tk_endian endian, tk_error *err);

/* A well-formed RTTA record wholly in the cursor's window, decoded here
 * as the reader would and fed: 1, or 0 when the reader has to (a flag, a
 * name past the window, anything else). A reader per record cost more
 * than the region itself on traces of millions of regions. */
static int fast_rtta(tk_cachesim *s, tk_cursor *c, int big)
{
    const uint8_t *p = c->p;
    size_t avail = tk_cursor_avail(c), len = TK_CACHERAY_RTTA_REMOVE_SIZE;
    tk_cacheray_record rec = {.type = (tk_cacheray_type)p[0]};
    if (p[0] == TK_CACHERAY_RTTA_ADD) {
        if (avail < TK_CACHERAY_RTTA_ADD_FIXED)
            return 0;
        rec.typename_len = tk_ld32(p + 25, big);
        if (rec.typename_len > avail - TK_CACHERAY_RTTA_ADD_FIXED)
            return 0;
        len = TK_CACHERAY_RTTA_ADD_FIXED + rec.typename_len;
        rec.elemsize = tk_ld32(p + 17, big);
        rec.elemcount = tk_ld32(p + 21, big);
        rec.type_name = (const char *)p + TK_CACHERAY_RTTA_ADD_FIXED;
    } else if (p[0] != TK_CACHERAY_RTTA_REMOVE || avail < len) {
        return 0;
    }
    rec.addr = tk_ld64(p + 1, big);
    rec.thread = tk_ld64(p + 9, big);
    cs_rtta(s, &rec, 1);
    c->p = p + len;
    return 1;
}

/* With the levels below the first on a second thread when the hierarchy
 * allows it (pipe.c); records off the fast path wait for it to catch up. */
tk_status tk_cachesim_run(tk_cachesim *s, tk_input *in, tk_endian endian, tk_error *err)
{
    if (cs_pipe_start(s) != 0)
        return oom(err);
    tk_status st = run(s, in, endian, err);
    cs_pipe_stop(s);
    if (st == TK_OK && cs_oom(s))
        return oom(err);
    return st;
}

static tk_status run(tk_cachesim *s, tk_input *in, tk_endian endian, tk_error *err)
{
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, endian, err); /* the byte order */
    if (!r)
        return err->status;
    tk_endian e = tk_cacheray_reader_endian(r);
    int big = e == TK_ENDIAN_BIG;
    tk_cacheray_reader_free(r);
    tk_cursor c;
    if (tk_cursor_init(&c, in, TK_CACHERAY_RTTA_ADD_FIXED, err) < 0)
        return err->status;
    for (;;) {
        if (big)
            run_accesses(s, &c, 1);
        else
            run_accesses(s, &c, 0);
        if (s->oom || s->lv[0].oom) /* the worker's levels: after it stops */
            return oom(err);
        if (tk_cursor_avail(&c) < TK_CACHERAY_RTTA_ADD_FIXED) { /* see a whole record */
            int64_t n = tk_cursor_refill(&c, TK_CACHERAY_RTTA_ADD_FIXED, err);
            if (n < 0)
                return err->status;
            if (n == 0)
                return TK_OK;
            if (n >= TK_CACHERAY_ACCESS_SIZE && (c.p[0] & 0x3E) == 0)
                continue;
        }
        if (!cs_pipe_rtta_ok(s, c.p[0]))
            cs_pipe_drain(s);
        if (fast_rtta(s, &c, big))
            continue;
        tk_cachesim_totals t;
        tk_cachesim_get_totals(s, &t);
        tk_status st = tk_cacheray_slow_record(&c, e, t.records, feed_sim, s, err);
        if (st != TK_OK)
            return st;
    }
}

/* ---- results */

/* Accesses are counted per thread only (the loop does no more than it
 * must): the totals are their sums. */
void tk_cachesim_get_totals(const tk_cachesim *s, tk_cachesim_totals *t)
{
    *t = s->tot;
    for (size_t i = 0; i < cs_threads_n(&s->threads); i++) {
        const tk_cachesim_counts *c = cs_threads_at(&s->threads, i);
        t->reads += c->reads;
        t->writes += c->writes;
        t->bytes += c->bytes;
    }
    t->accesses = t->reads + t->writes;
    t->records = t->accesses + t->rtta_add + t->rtta_remove;
}

size_t tk_cachesim_levels(const tk_cachesim *s) { return s->nlevels; }

const tk_cachesim_level *tk_cachesim_level_config(const tk_cachesim *s, size_t i)
{
    return i < s->nlevels ? &s->cfg.levels[i] : NULL;
}

void tk_cachesim_get_level(const tk_cachesim *s, size_t i, tk_cachesim_level_stats *out)
{
    memset(out, 0, sizeof *out);
    if (i < s->nlevels)
        *out = s->lv[i].st;
}

size_t tk_cachesim_types(const tk_cachesim *s) { return s->types.n; }

void tk_cachesim_get_type(const tk_cachesim *s, size_t i, tk_cachesim_type *out)
{
    memset(out, 0, sizeof *out);
    if (i < s->types.n)
        *out = s->types.v[i].pub;
}

size_t tk_cachesim_threads(const tk_cachesim *s) { return cs_threads_n(&s->threads); }

void tk_cachesim_get_thread(const tk_cachesim *s, size_t i, tk_cachesim_thread *out)
{
    cs_threads_get_thread(&s->threads, i, out);
}

tk_status tk_cachesim_false_sharing_count(tk_cachesim *s, size_t *count,
                                          uint64_t *shared_lines, tk_error *err)
{
    return cs_false_sharing_top(s, 0, count, shared_lines, err);
}

tk_status cs_false_sharing_top(tk_cachesim *s, size_t top, size_t *count,
                               uint64_t *shared_lines, tk_error *err)
{
    *count = 0;
    if (shared_lines)
        *shared_lines = s->fs.nshared;
    if (cs_fs_finish(&s->fs, s, top) != 0) {
        s->oom = 1;
        s->fs.norder = 0; /* the report is incomplete: show none of it */
        return oom(err);
    }
    *count = s->fs.norder;
    return TK_OK;
}

void tk_cachesim_get_false_sharing(const tk_cachesim *s, size_t i,
                                   tk_cachesim_false_sharing *out)
{
    memset(out, 0, sizeof *out);
    if (i >= s->fs.norder)
        return;
    const cs_fs_report *L = &s->fs.order[i];
    out->line = L->line << s->fs.shift;
    out->writes = L->writes;
    out->alternations = L->alternations;
    if (i >= s->fs.nout)
        return; /* cs_false_sharing_top left its sharers out */
    out->nthreads = s->fs.out_at[i + 1] - s->fs.out_at[i];
    out->threads = s->fs.out + s->fs.out_at[i];
}

int tk_cachesim_get_reuse(const tk_cachesim *s, tk_cachesim_reuse *out)
{
    memset(out, 0, sizeof *out);
    if (!s->reuse)
        return 0;
    cs_reuse_get(s->reuse, out);
    return 1;
}
