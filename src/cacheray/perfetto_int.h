/* Cacheray on a Perfetto timeline (docs/formats/cacheray.md, "Perfetto
 * timeline"): the state one conversion keeps, shared by perfetto.c (the
 * pass over the records), perfetto_regions.c (RTTA regions as slices) and
 * perfetto_counters.c (accesses and cache misses per window). */
#ifndef TK_CACHERAY_PERFETTO_INT_H
#define TK_CACHERAY_PERFETTO_INT_H

#include <stdint.h>

#include <tracekit/cacheray.h>
#include <tracekit/cachesim.h>

#include "core/hashmap.h"
#include "core/id_index.h"
#include "export/perfetto/perfetto.h"

#define TK_CRPF_NONE UINT32_MAX
#define TK_CRPF_BUSY (UINT32_MAX - 1)
/* The checker's tag of a live region: its lane (below TK_CRPF_NO_LANE), or
 * for a region that found none under --max-tracks, TK_CRPF_NO_LANE | its
 * type (TK_CRPF_NONE, the checker's "no tag", stays out of both ranges:
 * lanes and types are fewer than 2^31 - 1). */
#define TK_CRPF_NO_LANE 0x80000000u
/* A region slice's annotations, in order. */
enum { TK_CRPF_ARG_ADDR, TK_CRPF_ARG_ELEMSIZE, TK_CRPF_ARG_ELEMCOUNT, TK_CRPF_ARG_BYTES,
       TK_CRPF_ARG_THREAD, TK_CRPF_NARGS };

/* A row a live region's slice sits on; lanes of a type are reused once
 * free, so a type has as many lanes as it ever had regions live at once
 * (up to --max-tracks). */
typedef struct tk_crpf_lane {
    uint64_t uuid;
    uint32_t type;      /* index in tk_crpf.types */
    uint32_t next_free; /* the type's free list; TK_CRPF_NONE ends it,
                           TK_CRPF_BUSY: a slice is open on the lane */
} tk_crpf_lane;

typedef struct tk_crpf_type {
    char *label;        /* the type name as UTF-8 (invalid bytes U+FFFD) */
    size_t label_len;
    uint64_t name;      /* event name id: the label */
    uint64_t uuid;      /* the type's track, parent of its lanes */
    uint32_t free_lane; /* TK_CRPF_NONE: none free */
    uint32_t nlanes;
    /* regions live without a lane (the type has --max-tracks lanes, all
     * busy), counted on "TYPE regions without a lane" */
    uint64_t nolane_uuid; /* 0 until the first such region */
    uint64_t nolane, nolane_shown; /* live now; the value last written */
    int dirty;          /* listed in tk_crpf.dirty */
} tk_crpf_type;

/* One thread's accesses in the current window. */
typedef struct tk_crpf_thread {
    uint64_t count[2];  /* [TK_CACHERAY_READ], [TK_CACHERAY_WRITE] */
    uint64_t uuid;      /* its reads counter; writes is uuid + 1 */
    uint64_t mark;      /* the window it was last listed active in */
} tk_crpf_thread;

/* A list of thread indexes (in tk_crpf.threads). */
typedef struct tk_crpf_list {
    uint32_t *v;
    size_t n, cap;
} tk_crpf_list;

/* A simulated level's counters. */
typedef struct tk_crpf_level {
    uint64_t uuid;      /* misses counter; miss rate is uuid + 1 */
    uint64_t misses, accesses; /* totals at the last window's end */
    int shown;          /* the last values written were not zero */
} tk_crpf_level;

typedef struct tk_crpf {
    tk_perfetto *p;
    tk_perfetto_seq *seq;
    uint64_t next_uuid;
    /* regions (the checker's tag of a live region is its lane) */
    tk_cacheray_checker *checker;
    uint64_t regions_uuid;          /* 0 until the first RTTA record */
    tk_map types;                   /* name -> tk_crpf_type */
    tk_map_recent recent_types;     /* each RTTA_ADD's name is a new pointer */
    tk_crpf_lane *lanes;
    size_t nlanes, lanes_cap;
    uint64_t max_tracks;            /* lanes per type, threads with their
                                       own counters (0: no cap) */
    tk_crpf_list dirty;             /* types whose nolane changed */
    uint64_t cat_rtta, name_unmatched;
    /* a slice's annotations (TK_CRPF_ARG_*), names and types set once */
    tk_perfetto_arg args[TK_CRPF_NARGS];
    /* accesses per thread and window */
    uint64_t window, win_end, win_no;
    uint64_t accesses_uuid;         /* 0 until the first access */
    char unit_reads[64], unit_writes[64]; /* the threads' counters' units */
    tk_id_index thread_index;       /* thread id -> index in threads */
    tk_id_recent thread_recent;     /* threads taking turns skip the index's probe */
    tk_crpf_thread *threads;        /* thread_index.n of them */
    size_t threads_cap;
    uint64_t tid;                   /* the thread `cur` counts for */
    tk_crpf_thread *cur;            /* NULL: none yet */
    tk_crpf_list active, was_active;
    /* the threads past the first max_tracks, counted together on "other
     * threads reads/writes" (other.uuid 0 until the first) */
    tk_crpf_thread other;
    int other_was;                  /* other was active in the last window */
    /* cache simulation (NULL: off) */
    tk_cachesim *sim;
    tk_crpf_level levels[TK_CACHESIM_MAX_LEVELS];
    size_t nlevels;
} tk_crpf;

/* perfetto_regions.c: an RTTA record at time `ts` (its record index);
 * all regions still live end at `ts` (the end of the trace). */
tk_status tk_crpf_regions_init(tk_crpf *c, tk_error *err);
tk_status tk_crpf_region(tk_crpf *c, const tk_cacheray_record *rec, uint64_t ts,
                         tk_error *err);
tk_status tk_crpf_regions_end(tk_crpf *c, uint64_t ts, tk_error *err);
/* The "regions without a lane" counters that changed, at a window's end. */
tk_status tk_crpf_regions_window(tk_crpf *c, uint64_t ts, tk_error *err);
void tk_crpf_regions_free(tk_crpf *c);

/* perfetto_counters.c: the levels' counter tracks (after c->sim is set);
 * `cur` for thread `tid` (after an access of another thread); the values
 * of the window ending before record `ts` (c->win_end; and zeros at the
 * end of the next when `ts` is past that: a selection's gap). */
tk_status tk_crpf_counters_init(tk_crpf *c, tk_error *err);
tk_status tk_crpf_thread_switch(tk_crpf *c, uint64_t tid, tk_error *err);
tk_status tk_crpf_window_end(tk_crpf *c, uint64_t ts, tk_error *err);
/* The values of the window so far, at `ts` (the end of the trace). */
tk_status tk_crpf_flush(tk_crpf *c, uint64_t ts, tk_error *err);
void tk_crpf_counters_free(tk_crpf *c);

/* Append v to l; -1 when out of memory. */
int tk_crpf_list_push(tk_crpf_list *l, uint32_t v);

/* A string id, or TK_ENOMEM (`err` filled) when it is 0. */
static inline tk_status tk_crpf_id(uint64_t id, uint64_t *out, tk_error *err)
{
    *out = id;
    return id ? TK_OK : err->status;
}

#endif
