/* Inside the cache simulator: the hierarchy's levels and the analyses fed
 * with every access (types and fields, threads, false sharing, reuse). */
#ifndef TK_CACHERAY_SIM_INT_H
#define TK_CACHERAY_SIM_INT_H

#include <tracekit/cachesim.h>
#include <tracekit/format.h>

#include "cacheray/sim/cache.h"
#include "cacheray/layout/layout.h"
#include "cacheray/sim/linemap.h"
#include "cacheray/sim/shadow.h"
#include "core/hashmap.h"

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
    tk_cachesim_level_stats st;
} cs_level;

/* ---- live RTTA regions (regions.c) */
typedef struct cs_region {
    uint64_t start, last;    /* [start, last]; empty regions: last = start */
    uint32_t type;
    uint32_t elemsize;
    uint64_t stride;         /* the layout's size when elemsize is a
                                multiple of it, else 0 (no fields) */
} cs_region;
typedef struct cs_regions cs_regions;
/* What cs_regions_find returns for addresses in no region: untyped (type
 * 0), no bytes. A real region rather than NULL keeps the callers free of a
 * branch that mispredicts at every switch between stack and heap. */
extern const cs_region cs_no_region;

#define CS_REGION_PAGE_SHIFT 12
#define CS_REGION_PAGES 1024

/* The front of cs_regions: per 4 KiB page (direct-mapped), the interval
 * of that page around the address last looked up there that lies in one
 * region, or outside all: the whole page mostly, the part up to or from a
 * region's boundary where one cuts it. A hit is one compare, with no
 * generation to check: a region that comes or goes clears the slots it
 * overlaps (all of them when it covers more pages than there are). An
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

/* ---- per-thread counts (threads.c) */
typedef struct cs_threads {
    tk_map by_id;            /* id -> tk_cachesim_thread */
    uint64_t last_id;
    tk_cachesim_counts *last; /* last_id's counts (NULL: none) */
} cs_threads;

void cs_threads_init(cs_threads *t);
void cs_threads_free(cs_threads *t);
tk_cachesim_counts *cs_threads_lookup(cs_threads *t, uint64_t id);

/* The counts of thread `id`, NULL when out of memory. */
static inline tk_cachesim_counts *cs_threads_get(cs_threads *t, uint64_t id)
{
    if (t->last && t->last_id == id) /* traces come in runs */
        return t->last;
    return cs_threads_lookup(t, id);
}

/* ---- false sharing (falseshare.c) */
typedef struct cs_fs_sharer {
    uint64_t thread, mask, writes; /* mask: written chunks of the line */
    uint64_t offset;         /* of the lowest chunk written, in its element */
    uint32_t type;           /* type there when it was written (0 untyped) */
    int32_t field;           /* field there, -1 none */
} cs_fs_sharer;

typedef struct cs_fs_line {  /* a line written by two or more threads */
    uint64_t line, writes, alternations, last_thread;
    cs_fs_sharer *v;
    size_t n;
} cs_fs_line;

/* A written line: its one writer so far (mask != 0), or, once shared,
 * mask 0 and the index + 1 of its record in `shared` in `writes`. */
typedef struct cs_fs_entry {
    uint64_t line1;          /* line + 1; 0: empty slot */
    uint64_t thread, mask, writes;
} cs_fs_entry;

typedef struct cs_falseshare {
    unsigned shift;          /* log2 of the L1 line size */
    unsigned chunk_shift;    /* log2 of the bytes per mask bit (line / 64) */
    cs_fs_entry *tab;        /* open addressing, at most half full */
    size_t slots, n;
    unsigned tab_shift;      /* 64 - log2(slots) */
    cs_fs_line *shared;
    size_t nshared, cap_shared;
    /* the report (cs_fs_finish): lines with disjoint writers, sorted */
    size_t *order, norder;
    tk_cachesim_sharer *out; /* their sharers, ordered by first byte */
    size_t *out_at;          /* first sharer of each reported line */
} cs_falseshare;

int cs_fs_init(cs_falseshare *f, unsigned line_shift);
void cs_fs_free(cs_falseshare *f);
/* A write of [addr, last] by `thread`, line by line. -1 when out of
 * memory. (The simulator's pass takes the common case itself: one line
 * this thread alone wrote before, found at its home slot.) */
int cs_fs_write_lines(cs_falseshare *f, tk_cachesim *s, uint64_t addr, uint64_t last,
                      uint64_t thread);

/* A line's first slot in the table. Neighbouring lines get neighbouring
 * slots (groups of 8), so a program walking through memory finds their
 * entries in the same cache lines. */
static inline size_t cs_fs_home(const cs_falseshare *f, uint64_t line)
{
    size_t group = (size_t)(((line >> 3) * 0x9E3779B97F4A7C15ULL) >> f->tab_shift);
    return (group << 3 | (line & 7)) & (f->slots - 1);
}

/* The mask chunks of bytes [lo, hi] of a line. */
static inline uint64_t cs_fs_chunks(const cs_falseshare *f, uint64_t lo, uint64_t hi)
{
    unsigned a = (unsigned)(lo >> f->chunk_shift), b = (unsigned)(hi >> f->chunk_shift);
    return (b == 63 ? ~0ULL : (1ULL << (b + 1)) - 1) & ~((1ULL << a) - 1);
}

/* Build the report; -1 when out of memory. */
int cs_fs_finish(cs_falseshare *f, const tk_cachesim *s);

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
    size_t fs_home[CS_BATCH];   /* their lines' home slots in the false-sharing table */
    /* Runs of accesses within one first-level line, the line of the
     * access before (found while decoding, without a branch): the first
     * access of each, and whether any in the run writes. An access that
     * is empty or crosses a line is a run of its own. */
    uint16_t head[CS_BATCH];
    uint8_t run_write[CS_BATCH];
    size_t nruns;
} cs_batch;

/* A request to a level below the first: bytes [lo, hi] read or written,
 * for access `origin` of the batch (its demand path: a miss there counts
 * for it), or -1 (a writeback). */
typedef struct cs_req {
    uint64_t lo, hi;
    int32_t origin;
    uint32_t write;
} cs_req;

typedef struct cs_queue {
    cs_req *v;
    size_t n, cap;
} cs_queue;

typedef void (*cs_pass_fn)(tk_cachesim *s, cs_batch *b);
typedef void (*cs_count_fn)(tk_cachesim *s, const cs_batch *b);

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
    int32_t origin;          /* the access being served, for the requests it makes */
    cs_queue queue[TK_CACHESIM_MAX_LEVELS]; /* requests to level k */
    cs_count_fn count_pass;  /* per type and thread */
    cs_batch batch;
};

/* The type and field at `addr` (for false sharing): type index (0 when
 * untyped), offset in the element, field index or -1. */
void cs_types_locate(tk_cachesim *s, uint64_t addr, uint32_t *type,
                     uint64_t *offset, int32_t *field);

/* The batch through every analysis (sim.c); b->n is 0 after. */
void cs_run_batch(tk_cachesim *s, cs_batch *b);
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
