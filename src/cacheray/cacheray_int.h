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
