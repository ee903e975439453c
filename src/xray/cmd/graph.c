/* tracekit graph: the function call graph of an XRay trace as a DOT graph,
 * as llvm-xray graph prints it. */
#include <stdio.h>
#include <string.h>

#include <tracekit/xray_graph.h>

#include "core/strbuf.h"
#include "xray/cmd/cmd.h"

/* The label and colour options, in the graph's print options' order. */
static const char *const styles[] = {"edge-label", "color-edges", "vertex-label",
                                     "color-vertices"};

/* The arguments, from c->opts. */
typedef struct graph_args {
    tk_xray_graph_options opt;
    tk_xray_graph_print_options print;
    int keep_going;
    const char *output;
    char styled[32]; /* the first label or colour option given, or "" */
} graph_args;

static void read_args(const tk_command_ctx *c, graph_args *a)
{
    tk_xray_graph_stat *stat[] = {&a->print.edge_label, &a->print.edge_color,
                                  &a->print.vertex_label, &a->print.vertex_color};
    memset(a, 0, sizeof *a);
    for (size_t i = 0; i < 4; i++) {
        const char *v = tk_options_get(c->opts, styles[i]);
        tk_error err; /* checked when parsed */
        if (v)
            tk_xray_graph_parse_stat(v, stat[i], &err);
    }
    for (size_t k = 0; k < tk_options_count(c->opts) && !a->styled[0]; k++)
        for (size_t i = 0; i < 4; i++)
            if (strcmp(tk_options_key(c->opts, k), styles[i]) == 0)
                snprintf(a->styled, sizeof a->styled, "--%s", styles[i]);
    a->opt.deduce_sibling_calls = tk_cmd_flag(c, "deduce-sibling-calls");
    a->keep_going = tk_cmd_flag(c, "keep-going");
    a->output = tk_options_get(c->opts, "output");
    if (!a->output)
        a->output = "-";
}

static const char *name_of(void *map, int32_t id) { return tk_xray_map_name(map, id); }

static void report_failure(tk_command_ctx *c, tk_xray_map *map, const tk_xray_graph *g,
                           const tk_xray_reader *r, const tk_xray_record *rec, int failure,
                           int warning)
{
    int32_t stack[8];
    size_t depth = tk_xray_graph_stack(g, rec->tid, stack, 8);
    unsigned long long index = tk_xray_reader_index(r);
    tk_strbuf b = {0};
    if (tk_xray_reader_is_yaml(r)) /* YAML records have no byte offsets */
        sb_printf(&b, "%s: record %llu: ", c->path, index);
    else
        sb_printf(&b, "%s: offset 0x%llx (record %llu): ", c->path,
                  (unsigned long long)tk_xray_reader_offset(r), index);
    sb_printf(&b, "%s%s of %s on thread %u: %s", warning ? "warning: " : "",
              tk_xray_kind_name(rec->kind), tk_xray_map_name(map, rec->func_id), rec->tid,
              tk_xray_graph_failure_text((tk_xray_graph_failure)failure));
    if (depth) {
        sb_puts(&b, " (open:");
        for (size_t i = 0; i < depth && i < 8; i++)
            sb_printf(&b, " %s", tk_xray_map_name(map, stack[i]));
        sb_puts(&b, depth > 8 ? " ...)" : ")");
    }
    tk_cmd_note(c, "%s", b.oom ? "out of memory" : b.p);
    sb_free(&b);
}

/* A statistic in seconds; null when the trace has no cycle frequency (the
 * graph then holds ticks of unknown length). */
static void seconds(tk_sink *s, const char *key, double v, uint64_t freq)
{
    if (freq)
        tk_sink_f64_flags(s, key, v, TK_SINK_SECONDS);
    else
        tk_sink_null(s, key);
}

void tk_xray_cmd_graph_stats(tk_sink *s, const tk_xray_graph_stats *st, uint64_t freq)
{
    tk_sink_u64(s, "count", st->count, 0);
    seconds(s, "min_s", st->min, freq);
    seconds(s, "med_s", st->med, freq);
    seconds(s, "p90_s", st->p90, freq);
    seconds(s, "p99_s", st->p99, freq);
    seconds(s, "max_s", st->max, freq);
    seconds(s, "sum_s", st->sum, freq);
}

static void print_json(tk_command_ctx *c, tk_sink *s, const tk_xray_graph *g,
                       tk_xray_map *map, uint64_t freq)
{
    tk_xray_graph_stats st;
    int32_t id, from, to;
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "file", c->path, 0);
    tk_sink_cstr(s, "format", tk_format_name(c->format), 0);
    tk_sink_u64(s, "cycle_frequency", freq, 0);
    tk_sink_i64(s, "root", 0);
    tk_sink_array_begin(s, "vertices");
    for (size_t i = 0; i < tk_xray_graph_vertices(g); i++) {
        tk_xray_graph_vertex(g, i, &id, &st);
        tk_sink_object_begin(s, NULL);
        tk_sink_i64(s, "func_id", id);
        tk_sink_cstr(s, "function", tk_xray_map_name(map, id), 0);
        tk_xray_cmd_graph_stats(s, &st, freq);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_array_begin(s, "edges");
    for (size_t i = 0; i < tk_xray_graph_edges(g); i++) {
        tk_xray_graph_edge(g, i, &from, &to, &st);
        tk_sink_object_begin(s, NULL);
        tk_sink_i64(s, "caller", from);
        tk_sink_i64(s, "callee", to);
        tk_xray_cmd_graph_stats(s, &st, freq);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_object_end(s);
}

/* The DOT graph (or JSON). */
typedef struct graph_out {
    graph_args *a;
    tk_xray_graph *g;
    tk_xray_map *map;
    uint64_t freq;
} graph_out;

static tk_status write_graph(tk_command_ctx *c, FILE *f, tk_sink *json, void *ctx,
                             tk_error *err)
{
    const graph_out *o = ctx;
    if (json) {
        print_json(c, json, o->g, o->map, o->freq);
        return TK_OK;
    }
    o->a->print.name = name_of;
    o->a->print.name_ctx = o->map;
    return tk_xray_graph_print_dot(o->g, f, &o->a->print, err);
}

/* The sink's calls (tk_xray_cmd_feed): the analysis, and the map that
 * names functions in the notes. */
typedef struct feed_ctx {
    tk_xray_map *map;
    const tk_xray_graph *g;
} feed_ctx;

static int add(void *analysis, const tk_xray_record *rec, tk_error *err)
{
    return tk_xray_graph_add(analysis, rec, err);
}

static void describe(tk_command_ctx *c, void *ctx, const tk_xray_reader *r,
                     const tk_xray_record *rec, int failure, int warning)
{
    const feed_ctx *x = ctx;
    report_failure(c, x->map, x->g, r, rec, failure, warning);
}

int tk_xray_cmd_graph_feed(tk_command_ctx *c, int keep_going, tk_xray_reader *r,
                           tk_xray_graph *g, tk_xray_map *map)
{
    feed_ctx x = {map, g};
    tk_xray_cmd_sink s = {add, describe, g, &x, "added"};
    int rc = tk_xray_cmd_feed(c, r, keep_going, &s);
    if (rc >= 0)
        return rc;
    tk_error err;
    uint64_t freq = tk_xray_reader_header(r)->cycle_frequency;
    if (tk_xray_graph_finish(g, freq, &err) != TK_OK)
        return c->host->report(c, NULL, &err);
    return -1;
}

static int run(tk_command_ctx *c)
{
    graph_args a;
    read_args(c, &a);
    /* labels and colours are the DOT text's; --json has every statistic */
    int rc = tk_cmd_exclusive(c, -1, c->json && a.styled[0], a.styled, "--json");
    tk_xray_reader *r;
    if ((rc = tk_xray_cmd_open(c, rc, &r)) != TK_EXIT_OK)
        return rc;
    tk_error err;
    tk_error_clear(&err);
    tk_xray_map *map = tk_xray_cmd_map(c, &rc);
    tk_xray_graph *g = rc == TK_EXIT_OK ? tk_xray_graph_new(&a.opt, &err) : NULL;
    if (rc == TK_EXIT_OK && !g)
        rc = c->host->report(c, NULL, &err);
    if (rc == TK_EXIT_OK && (rc = tk_xray_cmd_graph_feed(c, a.keep_going, r, g, map)) < 0) {
        graph_out out = {&a, g, map, tk_xray_reader_header(r)->cycle_frequency};
        rc = c->host->write_output(c, a.output, write_graph, &out);
    }
    tk_xray_map_free(map);
    tk_xray_graph_free(g);
    tk_xray_reader_free(r);
    return rc;
}

#define STATS "none count min med 90p 99p max sum"

static const tk_option options[] = {
    {.name = "edge-label", .letter = 'e', .value = "STAT", .choices = STATS,
     .help = "label edges with STAT"},
    {.name = "vertex-label", .letter = 'v', .value = "STAT", .choices = STATS,
     .help = "label vertices with STAT (record shapes)"},
    {.name = "color-edges", .letter = 'c', .value = "STAT", .choices = STATS,
     .help = "colour edges by STAT (OrRd scale)"},
    {.name = "color-vertices", .letter = 'b', .value = "STAT", .choices = STATS,
     .help = "colour vertices by STAT"},
    {.name = "deduce-sibling-calls", .letter = 'd',
     .help = "an exit that matches a deeper frame closes the frames above it too "
             "(missing tail exits)"},
    {.name = "keep-going", .letter = 'k', .help = "report unmatched exits and go on"},
    {.name = "output", .letter = 'o', .value = "OUT",
     .help = "write to OUT (default: standard output)"},
    {.name = "json", .flags = TK_OPTION_SHARED,
     .help = "a JSON object: vertices and edges in the same order, with all their "
             "statistics (seconds: min_s, ..., sum_s)"},
    {.name = "json-hex", .flags = TK_OPTION_SHARED,
     .help = "--json with integers past 2^53 as \"0x...\""},
    {0}};

const tk_command tk_xray_cmd_graph = {
    .name = "graph",
    .summary = "XRay: function call graph (DOT) with call statistics",
    .synopsis = "[OPTIONS] FILE",
    .help = "The function call graph of an XRay trace in Graphviz DOT, as llvm-xray\n"
            "graph prints it: an edge F<caller> -> F<callee> for every caller/callee\n"
            "pair (F0 is the root: calls with no caller), a vertex per function.\n"
            "Edges and vertices can be labelled and coloured by a statistic of the\n"
            "calls' durations (seconds; TSC ticks when the trace has no cycle\n"
            "frequency). A vertex's statistics cover its calls from all callers.\n"
            "\n"
            "STAT is one of none (default), count, min, med, 90p, 99p, max, sum.\n",
    .notes = "llvm-xray's spellings work too: -edge-label=sum, -color-vertices=90p,\n"
             "-output=OUT, -instr_map=BIN, -keep-going=false, ...\n",
    .needs = "; graph needs XRay",
    .options = options,
    .run = run,
};
