/* XRay's commands (account, stack, graph) and its options of the common
 * commands, as include/tracekit/command.h describes them. */
#ifndef TK_XRAY_CMD_H
#define TK_XRAY_CMD_H

#include <tracekit/command.h>
#include <tracekit/xray.h>
#include <tracekit/xray_account.h>
#include <tracekit/xray_graph.h>
#include <tracekit/xray_map.h>

#include "core/command_int.h"
#include "core/format_ops.h"

extern const tk_command tk_xray_cmd_account, tk_xray_cmd_stack, tk_xray_cmd_graph,
    tk_xray_cmd_extract, tk_xray_cmd_graph_diff, tk_xray_cmd_diff;
/* For tk_fmt_xray (options.c). */
extern const tk_command *const tk_xray_commands[];
extern const tk_option tk_xray_command_options[];
extern const struct tk_format_help tk_xray_help[];

/* After the command's checks left `rc` (-1: go on): open c's trace, check
 * it is XRay and start a reader with the selection of c->opts (a --func
 * name looked up in -m's map). Returns the exit status, 0 with *r set. */
int tk_xray_cmd_open(tk_command_ctx *c, int rc, tk_xray_reader **r);

/* What account and graph feed records into: `add` returns 0 (added), a
 * failure code > 0 (the record is skipped; `describe` notes it, as a
 * warning with -k) or -1 with `err` filled. */
typedef struct tk_xray_cmd_sink {
    int (*add)(void *analysis, const tk_xray_record *rec, tk_error *err);
    void (*describe)(tk_command_ctx *c, void *ctx, const tk_xray_reader *r,
                     const tk_xray_record *rec, int failure, int warning);
    void *analysis, *ctx;
    const char *verb; /* "accounted": "N records could not be accounted" */
} tk_xray_cmd_sink;

/* Every record of `r` into the sink: without `keep_going` the first
 * failure ends it (TK_EXIT_FAILED), with it the first 20 are noted and
 * the rest counted. Returns -1 to go on, or the exit status. */
int tk_xray_cmd_feed(tk_command_ctx *c, tk_xray_reader *r, int keep_going,
                     const tk_xray_cmd_sink *s);

/* graph's feed (graph.c): every record into `g`, then its statistics
 * (durations in seconds at the trace's frequency); returns -1 to go on,
 * or the exit status. And a vertex's or edge's statistics as graph
 * --json writes them (seconds, null without a frequency). */
int tk_xray_cmd_graph_feed(tk_command_ctx *c, int keep_going, tk_xray_reader *r,
                           tk_xray_graph *g, tk_xray_map *map);
void tk_xray_cmd_graph_stats(tk_sink *s, const tk_xray_graph_stats *st, uint64_t freq);

/* The instrumentation map given with -m (NULL without one, or on error
 * with *rc set to the exit status after the message). */
tk_xray_map *tk_xray_cmd_map(tk_command_ctx *c, int *rc);

/* account's rows (account_print.c) as llvm-xray's table and CSV print
 * them (durations in seconds: ticks / scale) and as JSON (seconds, null
 * without a cycle frequency `freq`); names from `map` ("#<id>" without). */
void tk_xray_account_print_text(FILE *out, tk_xray_map *map, const tk_xray_account_row *r,
                                size_t n, size_t total, double scale);
void tk_xray_account_print_csv(FILE *out, tk_xray_map *map, const tk_xray_account_row *r,
                               size_t n, double scale);
void tk_xray_account_print_json(tk_sink *s, tk_xray_map *map, const tk_xray_account_row *r,
                                size_t n, uint64_t freq);

#endif
