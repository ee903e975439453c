/* tracekit — cache simulation of Cacheray traces: a hierarchy of any number
 * of levels, per-type (and per-field) statistics from the RTTA records,
 * per-thread statistics, false sharing and reuse distances.
 * Semantics: docs/formats/cacheray.md, "Cache simulation".
 *
 * A tk_cachesim is a handle (<tracekit/tracekit.h>, "Conventions"): made
 * by tk_cachesim_new, freed by tk_cachesim_free, used by one thread at a
 * time; distinct simulators are independent (several may run on several
 * threads). Results are read through the getters at any point; the
 * pointers they hand out (type and field names, field and sharer arrays)
 * belong to the simulator and stay valid until it is fed again or freed.
 * A tk_cachesim_config is a plain value: the config functions touch only
 * the one given. */
#ifndef TRACEKIT_CACHESIM_H
#define TRACEKIT_CACHESIM_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/cacheray.h>
#include <tracekit/error.h>
#include <tracekit/input.h>
#include <tracekit/sink.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

enum { TK_CACHESIM_MAX_LEVELS = 8, TK_CACHESIM_NAME_MAX = 32 };

typedef enum tk_cachesim_policy {
    TK_CACHESIM_LRU = 0,
    TK_CACHESIM_FIFO,
    TK_CACHESIM_PLRU,   /* tree pseudo-LRU: ways must be a power of two */
    TK_CACHESIM_RANDOM  /* victims drawn from a generator seeded by `seed` */
} tk_cachesim_policy;

/* One level. Sizes in bytes. `line` is a power of two from 4 to 1 MiB;
 * `size` a multiple of line * ways; the set count (size / line / ways) need
 * not be a power of two. ways 0 = fully associative (one set). */
typedef struct tk_cachesim_level {
    char name[TK_CACHESIM_NAME_MAX];
    uint64_t size;
    uint32_t line;
    uint32_t ways;
    tk_cachesim_policy policy;
    int write_back;     /* 1 write-back (default), 0 write-through */
    int write_allocate; /* 1 a write miss fetches the line (default) */
    int inclusive;      /* 1 evicting here invalidates the copies above */
} tk_cachesim_level;

/* Analyses beyond the level counters (tk_cachesim_config.flags). */
enum {
    TK_CACHESIM_NO_3C = 1u << 0,  /* skip compulsory/capacity/conflict */
    TK_CACHESIM_REUSE = 1u << 1   /* reuse-distance histogram */
};

typedef struct tk_cachesim_config {
    size_t nlevels;                 /* L1 first */
    tk_cachesim_level levels[TK_CACHESIM_MAX_LEVELS];
    uint64_t seed;                  /* random replacement (default 1) */
    unsigned flags;
    const char *debug_info;         /* ELF with DWARF or dwarf2json file for
                                       per-field statistics, or NULL */
} tk_cachesim_config;

/* No levels, seed 1, no flags. Cannot fail. */
void tk_cachesim_config_init(tk_cachesim_config *c);
/* tracekit's default hierarchy: L1 32 KiB 8-way, L2 1 MiB 16-way, 64-byte
 * lines, LRU, write-back, write-allocate, non-inclusive (replaces any
 * levels already there). */
void tk_cachesim_config_default(tk_cachesim_config *c);
/* Append a level from "NAME:SIZE:WAYS:LINE[:POLICY]": SIZE and LINE take
 * K/M/G suffixes, WAYS is a number or "full", POLICY lru (default), fifo,
 * plru or random. Write policies default as above. TK_EUSAGE on a bad
 * spec. */
tk_status tk_cachesim_config_add_level(tk_cachesim_config *c, const char *spec,
                                       tk_error *err);
/* Read levels from a JSON document: tracekit's {"levels":[...]} or the
 * original simulator's {"caches":[...]} (detected by the key). The levels
 * replace any already there. TK_EUSAGE when the configuration is not
 * acceptable (the message says where: "levels[1]: ..."). */
tk_status tk_cachesim_config_parse(tk_cachesim_config *c, const char *json,
                                   size_t len, tk_error *err);
/* The same from a file (TK_EIO when it cannot be read). */
tk_status tk_cachesim_config_load(tk_cachesim_config *c, const char *path,
                                  tk_error *err);
/* Check every level (TK_EUSAGE naming the level and what is wrong). */
tk_status tk_cachesim_config_check(const tk_cachesim_config *c, tk_error *err);
/* "lru", "fifo", "plru", "random"; "unknown" (static text). */
const char *tk_cachesim_policy_name(tk_cachesim_policy p);

/* ---- simulation */
typedef struct tk_cachesim tk_cachesim;

/* A simulator of configuration `c` (copied). Checks the configuration
 * (TK_EUSAGE) and loads `debug_info` if set (its errors: TK_EIO,
 * TK_EMALFORMED, ...). NULL and `err` on failure. Free with
 * tk_cachesim_free (NULL is fine). */
tk_cachesim *tk_cachesim_new(const tk_cachesim_config *c, tk_error *err);
void tk_cachesim_free(tk_cachesim *s);

/* Feed one record. TK_ENOMEM is the only failure. */
tk_status tk_cachesim_feed(tk_cachesim *s, const tk_cacheray_record *rec,
                           tk_error *err);
/* Read `in` (from its current position) to the end and feed every record:
 * the same results as tk_cacheray_next + tk_cachesim_feed, faster. Errors
 * are the reader's (offset and record index of the input). */
tk_status tk_cachesim_run(tk_cachesim *s, tk_input *in, tk_endian endian,
                          tk_error *err);
/* The same over the records `sel` selects (tk_cacheray_reader_select;
 * NULL or empty: all), the RTTA records before the window's end applied
 * to the regions whether selected or not (so each access has the type it
 * has in the whole trace) but counted only when selected. The first
 * `warmup` selected records only warm the state up (cache contents, the
 * 3C shadows, regions, the reuse stack) and are not counted anywhere. */
tk_status tk_cachesim_run_selected(tk_cachesim *s, tk_input *in, tk_endian endian,
                                   const tk_selection *sel, uint64_t warmup,
                                   tk_error *err);

/* ---- results */
typedef struct tk_cachesim_totals {
    uint64_t records, accesses, reads, writes, bytes;
    uint64_t zero_size;   /* accesses of 0 bytes: counted, touch no line */
    uint64_t rtta_add, rtta_remove;
} tk_cachesim_totals;
/* The counts over every record fed so far, into *t. */
void tk_cachesim_get_totals(const tk_cachesim *s, tk_cachesim_totals *t);

/* Counts of line accesses at one level. A level below L1 sees the misses
 * of the level above as reads of the line and its writebacks (and, when it
 * writes through or does not allocate, its writes) as writes. */
typedef struct tk_cachesim_level_stats {
    uint64_t reads, writes, read_misses, write_misses;
    uint64_t compulsory, capacity, conflict; /* misses, when 3C is on */
    uint64_t writebacks;    /* dirty lines leaving the level */
    uint64_t invalidations; /* lines dropped by an inclusive level below */
} tk_cachesim_level_stats;
/* The number of levels; level i's configuration (owned by `s`, NULL past
 * the end) and counts (zeros past the end). */
size_t tk_cachesim_levels(const tk_cachesim *s);
const tk_cachesim_level *tk_cachesim_level_config(const tk_cachesim *s, size_t i);
void tk_cachesim_get_level(const tk_cachesim *s, size_t i,
                           tk_cachesim_level_stats *out);

/* An access "misses at level k" when any of its line accesses (or the
 * fetches they cause further down) missed there. */
typedef struct tk_cachesim_counts {
    uint64_t reads, writes, bytes;
    uint64_t misses[TK_CACHESIM_MAX_LEVELS];
} tk_cachesim_counts;

typedef struct tk_cachesim_field {
    const char *name;
    uint64_t offset, size;
    tk_cachesim_counts c;
} tk_cachesim_field;

/* Types in order of first RTTA_ADD; index 0 is "(untyped)": accesses
 * whose first byte lies in no live region. */
typedef struct tk_cachesim_type {
    const char *name;       /* the RTTA type name (NUL-terminated copy) */
    tk_cachesim_counts c;
    uint64_t regions;       /* RTTA_ADDs */
    uint64_t live, peak_live; /* regions live at the end / at most */
    const char *layout;     /* the struct's name with --debug-info, or NULL */
    uint64_t layout_size;   /* its size: the array stride */
    uint64_t unmatched;     /* accesses in regions whose element size is not
                               a multiple of layout_size (no fields) */
    uint64_t padding;       /* accesses touching only padding bytes */
    size_t nfields;
    const tk_cachesim_field *fields;
} tk_cachesim_type;
/* The number of types, and type i into *out (zeros past the end). */
size_t tk_cachesim_types(const tk_cachesim *s);
void tk_cachesim_get_type(const tk_cachesim *s, size_t i, tk_cachesim_type *out);

typedef struct tk_cachesim_thread {
    uint64_t id;
    tk_cachesim_counts c;
} tk_cachesim_thread;
/* The number of threads, and thread i (in order of appearance) into *out
 * (zeros past the end). */
size_t tk_cachesim_threads(const tk_cachesim *s);
void tk_cachesim_get_thread(const tk_cachesim *s, size_t i, tk_cachesim_thread *out);

/* False sharing: an L1 line written by two or more threads where no byte
 * was written by two of them. */
typedef struct tk_cachesim_sharer {
    uint64_t thread;
    uint64_t first, last;   /* lowest and highest byte written (addresses) */
    uint64_t writes;
    const char *type;       /* type at `first` when written, NULL untyped */
    uint64_t offset;        /* of `first` in its element */
    const char *field;      /* field at `first`, or NULL */
} tk_cachesim_sharer;
typedef struct tk_cachesim_false_sharing {
    uint64_t line;          /* address of the line */
    uint64_t writes;        /* writes to the line, all threads */
    uint64_t alternations;  /* consecutive writes by different threads */
    size_t nthreads;
    const tk_cachesim_sharer *threads; /* ordered by first byte */
} tk_cachesim_false_sharing;
/* Build the false-sharing report: *shared_lines (may be NULL) gets the
 * lines written by 2+ threads, *count those of them with disjoint bytes,
 * which tk_cachesim_get_false_sharing then gives sorted by alternations
 * (most first; zeros past the end). TK_ENOMEM leaves *count 0. The report
 * is valid until the simulator is fed again. */
tk_status tk_cachesim_false_sharing_count(tk_cachesim *s, size_t *count,
                                          uint64_t *shared_lines, tk_error *err);
void tk_cachesim_get_false_sharing(const tk_cachesim *s, size_t i,
                                   tk_cachesim_false_sharing *out);

/* Reuse distance (TK_CACHESIM_REUSE): LRU stack distance in distinct L1
 * lines between two accesses to a line. bucket[0] counts distance 0,
 * bucket[k] distances in [2^(k-1), 2^k). */
enum { TK_CACHESIM_REUSE_BUCKETS = 48 };
typedef struct tk_cachesim_reuse {
    uint64_t cold;          /* first accesses to a line */
    uint64_t bucket[TK_CACHESIM_REUSE_BUCKETS];
    size_t nbuckets;        /* buckets up to the last non-empty one */
} tk_cachesim_reuse;
/* 1 and *out filled, or 0 (zeros) when reuse distances were not computed
 * (no TK_CACHESIM_REUSE). */
int tk_cachesim_get_reuse(const tk_cachesim *s, tk_cachesim_reuse *out);

/* Everything as one document: levels, types, threads, false sharing
 * (at most `top` lines; 0 = all) and reuse. Text lists at most `top`
 * threads too: of more, the busiest (by accesses) after their count.
 * TK_CACHESIM_TYPES_FIRST puts the type table first (tracekit report).
 * `file` (may be NULL) names the trace in the document. TK_ENOMEM when a
 * table could not be built (the document is then incomplete); write
 * errors are the sink's (tk_sink_finish). */
enum { TK_CACHESIM_TYPES_FIRST = 1u << 0 };
tk_status tk_cachesim_write(tk_cachesim *s, tk_sink *out, const char *file,
                            size_t top, unsigned flags, tk_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
