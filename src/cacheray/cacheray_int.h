/* Helpers shared by the Cacheray command implementations. */
#ifndef TK_CACHERAY_INT_H
#define TK_CACHERAY_INT_H

#include <stdio.h>

#include <tracekit/cacheray.h>
#include <tracekit/cachesim.h>
#include <tracekit/format.h>

/* A reader honouring the "endian" option and the selection of `o`
 * (flags: TK_CACHERAY_SELECT_*). */
tk_cacheray_reader *tk_cacheray_open(tk_input *in, const tk_options *o, unsigned select_flags,
                               tk_error *err);

/* Where a record stands in a selection (select.c). */
enum { TK_CACHERAY_SEL_DROP, TK_CACHERAY_SEL_KEEP, TK_CACHERAY_SEL_CONTEXT, TK_CACHERAY_SEL_END };
int tk_cacheray_select(const tk_selection *s, unsigned flags, const tk_cacheray_record *rec,
                 uint64_t index);
const char *tk_cacheray_endian_name(tk_endian e);
/* One dump record (text line or JSON object). */
void tk_cacheray_sink_record(tk_sink *s, const tk_cacheray_record *rec,
                       uint64_t index, uint64_t offset);
tk_status tk_cacheray_info(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err);

/* region_tree.c: the live RTTA regions of a trace, the checker's and the
 * simulator's. A region ends at its RTTA_REMOVE, or when an RTTA_ADD
 * overlaps it or starts where it starts. */
typedef struct tk_cr_region {
    uint64_t start, last;    /* [start, last]; empty regions: last = start */
    uint32_t type;           /* the user's: the simulator's type, the checker's tag */
    uint32_t elemsize;       /* the simulator's, like stride (sim_int.h) */
    uint64_t stride;
} tk_cr_region;
typedef struct tk_cr_regions tk_cr_regions;
/* Called for each region that ends, before its memory is reused. */
typedef void (*tk_cr_region_end_fn)(void *ctx, tk_cr_region *r);
tk_cr_regions *tk_cr_regions_new(void);
void tk_cr_regions_free(tk_cr_regions *t);
uint64_t tk_cr_regions_count(const tk_cr_regions *t);
/* Add [start, start + bytes) (clamped at the end of the address space;
 * bytes 0: an empty region), first ending, in address order, the regions
 * it overlaps and any region starting at `start`. The new region is
 * zeroed past [start, last]; NULL when out of memory. */
tk_cr_region *tk_cr_regions_add(tk_cr_regions *t, uint64_t start, uint64_t bytes,
                                tk_cr_region_end_fn fn, void *ctx);
/* End the region starting at `start`; 0 when there is none. */
int tk_cr_regions_remove(tk_cr_regions *t, uint64_t start, tk_cr_region_end_fn fn, void *ctx);
/* The non-empty region starting at or before `addr` (NULL: none; it may
 * end before addr), and in *after the first one starting after it. */
const tk_cr_region *tk_cr_regions_around(tk_cr_regions *t, uint64_t addr,
                                         const tk_cr_region **after);

/* check.c: a caller's tag on each live region of a checker (Perfetto's
 * lane of a region's slice, instead of a table of its own by address).
 * After a tk_cacheray_check: tag the region it added; the tag of the
 * region its warning i ended (an OVERLAP), of the region an RTTA_REMOVE
 * ended; TK_CACHERAY_NO_TAG when there is none or it was never tagged. */
#define TK_CACHERAY_NO_TAG UINT32_MAX
void tk_cacheray_checker_tag(tk_cacheray_checker *c, uint32_t tag);
uint32_t tk_cacheray_checker_ended(const tk_cacheray_checker *c, int i);
uint32_t tk_cacheray_checker_removed(const tk_cacheray_checker *c);

/* slow_record.c: the record at cursor `c` that a fast path does not take
 * (RTTA, malformed), through the reader, into `feed`; the cursor then
 * restarts after it. Errors are the reader's, their record index moved
 * by `records_before` (the records the fast path took). */
struct tk_cursor;
typedef tk_status (*tk_cacheray_feed_fn)(void *ctx, const tk_cacheray_record *rec,
                                         tk_error *err);
tk_status tk_cacheray_slow_record(struct tk_cursor *c, tk_endian e, uint64_t records_before,
                                  tk_cacheray_feed_fn feed, void *ctx, tk_error *err);
/* convert --to perfetto (perfetto.c): Perfetto's protobuf trace on `out`. */
tk_status tk_cacheray_perfetto(tk_input *in, const tk_options *o, FILE *out, tk_error *err);
/* The hierarchy `report` simulates (sim_report.c): --config, the --level
 * specs or cachesim's default, and --debug-info. TK_EUSAGE for both
 * --config and --level or a bad spec; the config file's errors name it. */
tk_status tk_cacheray_report_config(const tk_options *o, tk_cachesim_config *cfg,
                                   tk_error *err);
/* report --html (html.c): the report as one page (src/export/html/). */
tk_status tk_cacheray_report_html(tk_input *in, const tk_options *o, FILE *out,
                                  tk_error *err);


/* convert --to parquet: the format's tables into `dir`
 * (src/export/parquet/tables.h; docs/formats/cacheray.md lists them). */
tk_status tk_cacheray_parquet(tk_input *in, const tk_options *o, const char *source, const char *dir,
                        tk_error *err);

#endif
