/* Inside the cache simulator: the hierarchy's levels and the analyses fed
 * with every access (types and fields, threads, false sharing, reuse). */
#ifndef TK_CACHERAY_SIM_INT_H
#define TK_CACHERAY_SIM_INT_H

#include <string.h>

#include <tracekit/cachesim.h>
#include <tracekit/format.h>

#include "cacheray/cacheray_int.h"
#include "cacheray/sim/cache.h"
#include "cacheray/layout/layout.h"
#include "cacheray/sim/linemap.h"
#include "cacheray/sim/shadow.h"
#include "core/hashmap.h"
#include "core/id_index.h"

/* ---- a level of the hierarchy (hierarchy.c) */
typedef struct cs_level {
    cs_cache c;
    unsigned shift;          /* log2 of the line size */
    int write_back, write_allocate, inclusive;
    /* With 3C: the line last accessed here, +1 (0: none), while it is
     * present and most recent in the cache and in the shadow: a repeat
     * access changes no state, so it skips both lookups. */
    uint64_t last;
    uint8_t *last_slot;      /* its dirty byte */
    int classify;            /* 3C */
    cs_shadow shadow;        /* fully associative LRU of the same size */
    int32_t origin;          /* the access being served here, for the requests it makes */
    /* 3C below the first level in the stream: the shadow is fed alone,
     * the level's queue at a time, and each request carries its class
     * (queue3c.c); `cls` holds the class of the request being served. */
    int queued;
    unsigned cls;
    int oom;                 /* out of memory here (its thread's flag: see pipe.c) */
    int ahead;               /* first level: the last batch missed in 3/4 of its runs or
                                more, so the next one prefetches (toplevel_pass.h) */
    tk_cachesim_level_stats st;
} cs_level;

/* ---- live RTTA regions (regions.c, on region_tree.c's tree) */
/* type: the region's cs_type; elemsize, and stride: the layout's size
 * when elemsize is a multiple of it, else 0 (no fields). */
typedef tk_cr_region cs_region;
typedef struct cs_regions cs_regions;
/* What cs_regions_find returns for addresses in no region: untyped (type
 * 0), no bytes. A real region rather than NULL keeps the callers free of a
 * branch that mispredicts at every switch between stack and heap. */
extern const cs_region cs_no_region;

#define CS_REGION_PAGE_SHIFT 12
#define CS_REGION_PAGES 1024

/* The front of cs_regions: per 4 KiB page (direct-mapped), the interval
 * around the address last looked up there that lies in one region (the
 * whole region), or outside all (the gap between two). A hit is one
 * compare, with no generation to check: a region that comes or goes
 * clears the slots of its pages whose intervals it overlaps (all of them
 * when it covers more pages than there are). An
 * empty slot holds a one-byte interval in a page of another slot, which
 * no lookup there can match. */
typedef struct cs_region_slot {
    uint64_t lo, span;       /* [lo, lo + span] */
    const cs_region *r;      /* &cs_no_region: none */
    uint64_t type;           /* r->type, without a load from r */
} cs_region_slot;

typedef struct cs_region_pages {
    cs_region_slot page[CS_REGION_PAGES];
} cs_region_pages;
/* Called for each region that ends (removed or overlapped). */
typedef void (*cs_region_end_fn)(void *ctx, const cs_region *r);

cs_regions *cs_regions_new(cs_region_end_fn on_end, void *ctx);
void cs_regions_free(cs_regions *g);
/* Add [start, start+bytes) (bytes 0: an empty region), ending the regions
 * it overlaps and any region starting at `start`. NULL when out of memory. */
cs_region *cs_regions_add(cs_regions *g, uint64_t start, uint64_t bytes);
/* End the region starting at `start`; 0 when there is none. */
int cs_regions_remove(cs_regions *g, uint64_t start);
const cs_region *cs_regions_lookup(cs_regions *g, uint64_t addr);

/* The type of the non-empty region holding `addr`, which goes to *r, or
 * 0 and &cs_no_region. */
static inline uint32_t cs_regions_find_type(cs_regions *g, uint64_t addr, const cs_region **r)
{
    const cs_region_pages *p = (const cs_region_pages *)g; /* its first member */
    const cs_region_slot *sl = &p->page[(addr >> CS_REGION_PAGE_SHIFT) & (CS_REGION_PAGES - 1)];
    if (addr - sl->lo <= sl->span) {
        *r = sl->r;
        return (uint32_t)sl->type;
    }
    *r = cs_regions_lookup(g, addr);
    return (*r)->type;
}

static inline const cs_region *cs_regions_find(cs_regions *g, uint64_t addr)
{
    const cs_region *r;
    cs_regions_find_type(g, addr, &r);
    return r;
}

/* ---- per-type and per-field counts (types.c) */
typedef struct cs_type {
    tk_cachesim_type pub;    /* name, counts, regions, live ... */
    const tk_cacheray_layout *layout;
    tk_cachesim_field *fields;
} cs_type;

typedef struct cs_types {
    tk_map by_name;          /* name -> uint32 index */
    cs_type *v;
    size_t n, cap;
    const tk_cacheray_layouts *layouts;
    size_t nlevels;
    uint32_t *touched;       /* scratch: fields touched by one access */
} cs_types;

int cs_types_init(cs_types *t, const tk_cacheray_layouts *layouts, size_t nlevels);
void cs_types_free(cs_types *t);
/* Index of the type named `name` (created on first use); -1 when out of
 * memory. Index 0 is "(untyped)". */
long cs_types_intern(cs_types *t, const char *name, size_t len);
/* Counts of one access: reads or writes, bytes, misses by level. Below
 * the first level only when there is one: the loop's adds to memory made
 * a chain through every access of a type, costing more than the branch
 * mispredicts. */
static inline void cs_count(tk_cachesim_counts *c, int write, unsigned size,
                            unsigned mask, size_t nlevels)
{
    c->reads += !write;
    c->writes += write != 0;
    c->bytes += size;
    c->misses[0] += mask & 1;
    if (mask > 1)
        for (size_t k = 1; k < nlevels; k++)
            c->misses[k] += mask >> k & 1;
}

void cs_types_fields(cs_types *t, const cs_region *r, uint64_t addr,
                     unsigned size, int write, unsigned mask);

/* ---- per-thread counts (threads.c)
 *
 * A thread's counts take 3 + nlevels words (reads, writes, bytes and the
 * misses of the levels in use), not a whole tk_cachesim_counts: 40 bytes
 * with two levels where the struct takes 88, for traces of a million
 * threads. They are reached as a tk_cachesim_counts * all the same (its
 * misses past nlevels are never touched), and the array keeps a whole
 * struct's room after its last thread. Ids are found through a
 * tk_id_index (core/id_index.h), whose direct table takes the
 * usual small ids without a hash or a probe. */
typedef struct cs_threads {
    tk_id_index index;       /* id -> index, in order of first access */
    uint64_t *counts;        /* `stride` words per thread */
    size_t stride, cap;      /* words per thread; threads with room */
    int broken;              /* out of memory once: lookups fail */
    uint64_t last_id;
    tk_cachesim_counts *last; /* last_id's counts (NULL: none) */
    /* threads seen lately: traces of threads interleaved access by access
     * change thread at every other access */
    tk_id_recent recent;
    uint64_t pair[2];        /* cs_count_first: the two threads of the last batch */
} cs_threads;

/* nlevels: the levels whose misses are counted (1 to TK_CACHESIM_MAX_LEVELS). */
void cs_threads_init(cs_threads *t, size_t nlevels);
void cs_threads_free(cs_threads *t);
tk_cachesim_counts *cs_threads_lookup(cs_threads *t, uint64_t id);
/* Threads so far; thread i's id and counts (misses of the levels in use
 * only), and the whole of it, zeros past the levels. */
static inline size_t cs_threads_n(const cs_threads *t)
{
    return t->index.n <= t->cap ? t->index.n : t->cap; /* less when broken */
}
static inline uint64_t cs_threads_id(const cs_threads *t, size_t i)
{
    return t->index.keys[i];
}
static inline tk_cachesim_counts *cs_threads_at(const cs_threads *t, size_t i)
{
    return (tk_cachesim_counts *)(void *)(t->counts + i * t->stride);
}
void cs_threads_get_thread(const cs_threads *t, size_t i, tk_cachesim_thread *out);

/* The counts of thread `id`, NULL when out of memory. */
static inline tk_cachesim_counts *cs_threads_get(cs_threads *t, uint64_t id)
{
    if (t->last && t->last_id == id) /* traces come in runs */
        return t->last;
    const int64_t i = tk_id_recent_find(&t->recent, id);
    if (i >= 0) {
        t->last_id = id;
        t->last = cs_threads_at(t, (size_t)i);
        return t->last;
    }
    return cs_threads_lookup(t, id);
}

/* ---- false sharing (falseshare.c)
 *
 * Per L1 line written, 16 bytes (cs_fs_state): the chunks written so far
 * (mask) and a tag saying whose they are: one thread (its index in `tids`
 * + 1, with the count of its writes), a record (`recs`: the line has
 * sharers of their own, usually two threads), or "dead". A line whose
 * writers wrote a common chunk is dead: it can never be reported again
 * (masks only grow), so it keeps no more than its tag, and its record is
 * recycled. On random traffic of two threads nearly every line ends dead.
 * The states live in blocks of 4 lines (one 64-byte cache line), which a
 * hash table of groups (line >> 2) finds; blocks never move, so a pass can
 * look its writes' blocks up first and prefetch them all. A dense
 * footprint's groups are found in a window instead, an array of block
 * indices over a range of groups: 4 bytes a group where the table took 32
 * to 64, and no probe. The table grows into it: when it must double, and
 * the groups it holds (with the window's) fill a sixteenth of the range
 * from the lowest to the highest, they move to a window over that range
 * (so a window never takes more than the doubled table would: 64 bytes a
 * group). */
enum {
    CS_FS_GROUP_SHIFT = 2,   /* lines per block: 4 */
    CS_FS_TAG_BITS = 16,
    CS_FS_MAX_OWNER = 0xFFFD, /* owner tags 1..0xFFFD (thread index + 1) */
    CS_FS_REC = 0xFFFE,      /* meta >> 16: index of the line's record */
    CS_FS_DEAD = 0xFFFF
};

typedef struct cs_fs_state {
    uint64_t mask;           /* owner: chunks written (64 per line) */
    uint64_t meta;           /* tag | owner's writes (or record index) << 16; 0: unwritten */
} cs_fs_state;

typedef struct cs_fs_block {
    cs_fs_state l[1 << CS_FS_GROUP_SHIFT];
} cs_fs_block;

typedef struct cs_fs_slot {  /* the table of groups */
    uint64_t group1;         /* group + 1; 0: empty */
    uint64_t block;          /* index in the pool */
} cs_fs_slot;

typedef struct cs_fs_sharer {
    uint64_t mask, writes;   /* chunks written, and how many writes */
    uint32_t thread;         /* index in tids */
    uint32_t type;           /* type at the lowest chunk when it was written (0 untyped) */
    uint32_t offset;         /* of that chunk in its element (elements are < 4 GiB) */
    int32_t field;           /* field there, -1 none */
} cs_fs_sharer;

/* A line with writers of its own: two or more threads that never wrote
 * a common chunk (or one thread past CS_FS_MAX_OWNER). Up to two sharers
 * inline, more in `more` (cap slots). Free records chain through
 * `alternations`. */
typedef struct cs_fs_rec {
    uint64_t line;           /* the report walks the records, not the lines */
    uint64_t alternations;   /* consecutive writes by different threads */
    uint32_t last, n;        /* last writer (index in tids), sharers */
    union {
        cs_fs_sharer in[2];
        struct {
            cs_fs_sharer *v;
            size_t cap;
        } more;
    } u;
} cs_fs_rec;

enum { CS_FS_POOL_CHUNK = 32768 }; /* blocks per pool chunk (2 MiB: a huge page) */
/* Blocks in all (256 GiB): a block's index + 1 fits a window entry. */
#define CS_FS_MAX_BLOCKS ((uint64_t)UINT32_MAX + 1 - CS_FS_POOL_CHUNK)

typedef struct cs_fs_report { /* a reported line */
    uint64_t line, writes, alternations;
    size_t rec;
} cs_fs_report;

typedef struct cs_falseshare {
    unsigned shift;          /* log2 of the L1 line size */
    unsigned chunk_shift;    /* log2 of the bytes per mask bit (line / 64) */
    cs_fs_slot *tab;         /* groups, open addressing, at most half full */
    size_t slots, n;
    unsigned tab_shift;      /* 64 - log2(slots) */
    uint32_t *win;           /* block index + 1 of groups win_lo.. (0: none) */
    uint64_t win_lo;
    size_t win_n, win_used;  /* groups in the window; those with a block */
    cs_fs_block **pool;      /* chunks of CS_FS_POOL_CHUNK blocks */
    size_t nblocks, nchunks;
    cs_fs_rec *recs;
    size_t nrecs, cap_recs;
    uint64_t free_rec;       /* index + 1 of a free record, 0 none */
    uint64_t nshared;        /* lines two or more threads wrote */
    tk_id_index tids;        /* thread id -> index (order of first write) */
    uint64_t last_id;        /* the last thread looked up, and its index */
    uint32_t last_index;
    int has_last;
    uint64_t prev_id;        /* the one before (threads interleaved write by */
    uint32_t prev_index;     /* write take turns), and its index */
    int has_prev;
    /* the report (cs_fs_finish): lines with disjoint writers, sorted */
    cs_fs_report *order;
    size_t norder, nout;     /* lines; the first nout have their sharers */
    tk_cachesim_sharer *out; /* their sharers, ordered by first byte */
    size_t *out_at;          /* first sharer of each reported line */
} cs_falseshare;

int cs_fs_init(cs_falseshare *f, unsigned line_shift);
void cs_fs_free(cs_falseshare *f);
/* A write of [addr, last] by `thread`, line by line. -1 when out of
 * memory. */
int cs_fs_write_lines(cs_falseshare *f, tk_cachesim *s, uint64_t addr, uint64_t last,
                      uint64_t thread);
/* The block of `line`'s group, created when new; NULL when out of memory. */
cs_fs_block *cs_fs_block_of(cs_falseshare *f, uint64_t line);
/* Room for CS_FS_POOL_CHUNK more blocks, zeroed. -1 when out of memory
 * (or past CS_FS_MAX_BLOCKS). */
int cs_fs_add_chunk(cs_falseshare *f);

/* A new zeroed block's index; UINT64_MAX when out of memory. */
static inline uint64_t cs_fs_new_block(cs_falseshare *f)
{
    if (f->nblocks == f->nchunks * CS_FS_POOL_CHUNK && cs_fs_add_chunk(f) != 0)
        return UINT64_MAX;
    return f->nblocks++;
}

static inline cs_fs_block *cs_fs_block_at(const cs_falseshare *f, uint64_t i)
{
    return &f->pool[i / CS_FS_POOL_CHUNK][i % CS_FS_POOL_CHUNK];
}

/* The block of a group in the window, created when new; NULL when out of
 * memory. Inline: the batch's find pass (sim.c) takes it for every new
 * group of a dense footprint. */
static inline cs_fs_block *cs_fs_win_block(cs_falseshare *f, uint64_t group)
{
    uint32_t *e = &f->win[group - f->win_lo];
    if (!*e) {
        const uint64_t b = cs_fs_new_block(f);
        if (b == UINT64_MAX)
            return NULL;
        *e = (uint32_t)b + 1;
        f->win_used++;
    }
    return cs_fs_block_at(f, *e - 1);
}
/* The index of thread `id` in tids (created when new); UINT32_MAX when
 * out of memory. */
uint32_t cs_fs_thread_slow(cs_falseshare *f, uint64_t id);
static inline uint32_t cs_fs_thread(cs_falseshare *f, uint64_t id)
{
    if (f->has_last && f->last_id == id)
        return f->last_index;
    if (f->has_prev && f->prev_id == id) { /* the two swap places */
        uint32_t index = f->prev_index;
        f->prev_id = f->last_id;
        f->prev_index = f->last_index;
        f->last_id = id;
        f->last_index = index;
        return index;
    }
    return cs_fs_thread_slow(f, id);
}
/* A write of chunks `mask` of `line` (state st) by thread index `t` in
 * any case but the owner's own (cs_fs_state's fast case). -1 when out of
 * memory. */
int cs_fs_write_state(cs_falseshare *f, tk_cachesim *s, uint64_t line, cs_fs_state *st,
                      uint32_t t, uint64_t mask);

/* A group's first slot in the table. Neighbouring groups get neighbouring
 * slots (4 to a cache line), so a program walking through memory finds
 * their entries in the same cache lines. */
static inline size_t cs_fs_home(const cs_falseshare *f, uint64_t group)
{
    size_t g = (size_t)(((group >> 2) * 0x9E3779B97F4A7C15ULL) >> f->tab_shift);
    return (g << 2 | (group & 3)) & (f->slots - 1);
}

/* The mask chunks of bytes [lo, hi] of a line. */
static inline uint64_t cs_fs_chunks(const cs_falseshare *f, uint64_t lo, uint64_t hi)
{
    unsigned a = (unsigned)(lo >> f->chunk_shift), b = (unsigned)(hi >> f->chunk_shift);
    return (b == 63 ? ~0ULL : (1ULL << (b + 1)) - 1) & ~((1ULL << a) - 1);
}

/* Build the report, the sharers of the first `lines` lines only (0: all);
 * -1 when out of memory. */
int cs_fs_finish(cs_falseshare *f, const tk_cachesim *s, size_t lines);
/* tk_cachesim_false_sharing_count with the sharers of the first `top`
 * lines only (0: all): tk_cachesim_get_false_sharing gives the others
 * without them. */
tk_status cs_false_sharing_top(tk_cachesim *s, size_t top, size_t *count,
                               uint64_t *shared_lines, tk_error *err);

/* ---- reuse distance (reuse.c) */
typedef struct cs_reuse cs_reuse;
cs_reuse *cs_reuse_new(void);
void cs_reuse_free(cs_reuse *r);
/* An access to `line`. -1 when out of memory. */
int cs_reuse_access(cs_reuse *r, uint64_t line);
void cs_reuse_get(const cs_reuse *r, tk_cachesim_reuse *out);

/* ---- the simulator */

/* Accesses decoded for the analyses to take in turn (sim.c). Filled with
 * n and nwrites in locals: every byte stored into the arrays could, for
 * the compiler, change them. */
enum { CS_BATCH = 256 };
typedef struct cs_batch {
    size_t n;
    uint64_t addr[CS_BATCH], thread[CS_BATCH];
    uint8_t size[CS_BATCH], write[CS_BATCH], mask[CS_BATCH]; /* mask: levels missed */
    uint16_t writes[CS_BATCH];  /* indices of the writes of 1 byte or more */
    size_t nwrites;
    size_t fs_home[CS_BATCH];   /* their groups' home slots in the false-sharing table
                                   (groups outside its window only) */
    cs_fs_block *fs_block[CS_BATCH]; /* their lines' blocks (NULL: out of memory) */
    /* Runs of accesses within one first-level line, the line of the
     * access before (found while decoding, without a branch): the first
     * access of each, and whether any in the run writes. An access that
     * is empty or crosses a line is a run of its own. */
    uint16_t head[CS_BATCH];
    uint8_t run_write[CS_BATCH];
    uint32_t type[CS_BATCH];    /* pipe.c: each access's type, for its misses below */
    uint8_t below[CS_BATCH];    /* pipe.c: the levels below the first missed (the worker's) */
    size_t nruns;
} cs_batch;

/* The first index from i on (< n) whose byte in m is not 0, or n: eight
 * zero bytes (accesses that hit, with locality most) a load. */
static inline size_t cs_next_set(const uint8_t *m, size_t i, size_t n)
{
    while (i < n) {
        uint64_t word;
        if (i % 8 == 0 && i + 8 <= n) {
            memcpy(&word, m + i, 8);
            if (!word) {
                i += 8;
                continue;
            }
        }
        if (m[i])
            return i;
        i++;
    }
    return n;
}

/* A request to a level below the first: bytes [lo, hi] read or written,
 * for access `origin` of the batch (its demand path: a miss there counts
 * for it), or -1 (a writeback). */
typedef struct cs_req {
    uint64_t lo, hi;
    int32_t origin;
    uint16_t write;
    uint16_t cls;            /* 3C (cs_level.queued): 1 seen before, | 2 in the shadow */
} cs_req;

typedef struct cs_queue {
    cs_req *v;
    size_t n, cap;
} cs_queue;

typedef void (*cs_pass_fn)(tk_cachesim *s, cs_batch *b);
typedef struct cs_pipe cs_pipe;
typedef void (*cs_count_fn)(tk_cachesim *s, cs_batch *b); /* notes b->type */

struct tk_cachesim {
    tk_cachesim_config cfg;
    size_t nlevels;
    cs_level lv[TK_CACHESIM_MAX_LEVELS];
    tk_cachesim_totals tot;
    tk_cacheray_layouts *layouts;
    cs_regions *regions;
    cs_types types;
    cs_threads threads;
    cs_falseshare fs;
    cs_reuse *reuse;
    unsigned l1_shift;
    int oom;
    int warming;             /* --warmup: accesses change state, not counts */
    cs_pass_fn top_pass;     /* the batch through the first level */
    /* With no inclusive level below the first, nothing a level does
     * reaches back up: each level takes the batch's requests to it after
     * the level above is done with the batch (stream.c), in a loop that
     * can prefetch. Otherwise (stream 0) a request is served at once. */
    int stream;
    cs_queue queue[TK_CACHESIM_MAX_LEVELS]; /* requests to level k */
    cs_pipe *pipe;           /* levels 2..n on a second thread (pipe.c), or NULL */
    int classes2_main;       /* pipe.c: the main thread works out the classes of
                                level 2's requests (queue3c.c), not the worker */
    cs_count_fn count_pass;  /* per type and thread */
    cs_batch batch;
};

/* The type and field at `addr` (for false sharing): type index (0 when
 * untyped), offset in the element, field index or -1. */
void cs_types_locate(tk_cachesim *s, uint64_t addr, uint32_t *type,
                     uint64_t *offset, int32_t *field);

/* The batch through every analysis (sim.c); b->n is 0 after. In parts
 * for pipe.c: the first level (its requests to level 2 into q, or
 * s->queue[1] when q is NULL); false sharing (find: the blocks asked for;
 * side: the writes applied) and reuse, which need no level below; the
 * count pass (s->count_pass) needs the levels' misses. */
void cs_run_batch(tk_cachesim *s, cs_batch *b);
void cs_run_front(tk_cachesim *s, cs_batch *b, cs_queue *q);
void cs_run_find(tk_cachesim *s, cs_batch *b);
void cs_run_side(tk_cachesim *s, cs_batch *b);
/* pipe.c: the counts per type and thread of one level, without per-field
 * counts, and each access's type noted in b->type; mask0: with the
 * first level's misses (b->mask), else without (the worker counts them). */
void cs_count_first(tk_cachesim *s, cs_batch *b, int mask0);
/* Out of memory anywhere (levels included: call with no worker running). */
int cs_oom(const tk_cachesim *s);

/* pipe.c: start the worker when the hierarchy allows it (nothing to do
 * otherwise; failing to start leaves one thread); the next batch to
 * fill; hand a filled one over; wait until every batch handed over is
 * served and counted; stop the worker (after a drain). */
int cs_pipe_start(tk_cachesim *s);
/* Whether the next record, not an access, may go through tk_cachesim_feed
 * while the worker runs: RTTA records, without per-field counts. */
int cs_pipe_rtta_ok(const tk_cachesim *s, unsigned tag);
cs_batch *cs_pipe_batch(tk_cachesim *s);
void cs_pipe_submit(tk_cachesim *s, cs_batch *b);
void cs_pipe_drain(tk_cachesim *s);
void cs_pipe_stop(tk_cachesim *s);
/* An RTTA record: regions change; `counted` adds it to the totals. */
void cs_rtta(tk_cachesim *s, const tk_cacheray_record *rec, int counted);
/* Forget what the reuse histogram counted (the end of a warm-up). */
void cs_reuse_reset_counts(cs_reuse *r);

/* sim_select.c: the simulation with the selection of `o` (report). */
tk_status tk_cacheray_sim_run(tk_cachesim *s, tk_input *in, tk_endian e, const tk_options *o,
                        tk_error *err);

/* sim_report.c: `tracekit report` for Cacheray (commands.c). */
tk_status tk_cacheray_sim_report(tk_input *in, const tk_options *o, tk_sink *out,
                           tk_error *err);

#endif
