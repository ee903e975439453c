/* tracekit graph: the function call graph of an XRay trace as a DOT graph,
 * as llvm-xray graph prints it. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "selection.h"

static const char help[] =
    "usage: tracekit graph [OPTIONS] FILE\n"
    "\n"
    "The function call graph of an XRay trace in Graphviz DOT, as llvm-xray\n"
    "graph prints it: an edge F<caller> -> F<callee> for every caller/callee\n"
    "pair (F0 is the root: calls with no caller), a vertex per function.\n"
    "Edges and vertices can be labelled and coloured by a statistic of the\n"
    "calls' durations (seconds; TSC ticks when the trace has no cycle\n"
    "frequency). A vertex's statistics cover its calls from all callers.\n"
    "\n"
    "STAT is one of none (default), count, min, med, 90p, 99p, max, sum.\n"
    "\n"
    "options:\n"
    "  -e, --edge-label STAT       label edges with STAT\n"
    "  -v, --vertex-label STAT     label vertices with STAT (record shapes)\n"
    "  -c, --color-edges STAT      colour edges by STAT (OrRd scale)\n"
    "  -b, --color-vertices STAT   colour vertices by STAT\n"
    "  -d, --deduce-sibling-calls  an exit that matches a deeper frame closes\n"
    "                              the frames above it too (missing tail exits)\n"
    "  -k, --keep-going            report unmatched exits and go on\n"
    "  -o, --output OUT            write to OUT (default: standard output)\n"
    CLI_XRAY_SELECT_HELP CLI_XRAY_MAP_HELP
    "  --json                      a JSON object: vertices and edges in the\n"
    "                              same order, with all their statistics\n"
    "                              (seconds: min_s, ..., sum_s)\n"
    "  --json-hex                  --json with integers past 2^53 as \"0x...\"\n"
    "  --format NAME               read the input as NAME\n"
    "  --progress WHEN             progress line on stderr: auto (on a terminal,\n"
    "                              after a second), always or never\n"
    "  -h, --help                  show this help\n"
    "\nllvm-xray's spellings work too: -edge-label=sum, -color-vertices=90p,\n"
    "-output=OUT, -instr_map=BIN, -keep-going=false, ...\n";

static struct {
    tk_xray_graph_options opt;
    tk_xray_graph_print_options print;
    int keep_going;
    const char *output;
    const char *styled; /* the first label or colour option given */
} G = {.output = "-"};

static int stat_option(cli *c, const char *what, const char *arg, tk_xray_graph_stat *st)
{
    if (!G.styled)
        G.styled = what;
    tk_error err; /* the message names the option instead */
    if (tk_xray_graph_parse_stat(arg, st, &err) != TK_OK) {
        cli_usage_error(c->command,
                        "%s takes none, count, min, med, 90p, 99p, max or sum, not '%s'",
                        what, arg);
        return -1;
    }
    return 1;
}

static int extra(cli *c, int opt, const char *arg)
{
    switch (opt) {
    case 'e': return stat_option(c, "--edge-label", arg, &G.print.edge_label);
    case 'v': return stat_option(c, "--vertex-label", arg, &G.print.vertex_label);
    case 'c': return stat_option(c, "--color-edges", arg, &G.print.edge_color);
    case 'b': return stat_option(c, "--color-vertices", arg, &G.print.vertex_color);
    case 'd': G.opt.deduce_sibling_calls = 1; return 1;
    case 'k': G.keep_going = 1; return 1;
    case 'o': G.output = arg; return 1;
    }
    return 0;
}

static const char *name_of(void *map, int32_t id) { return tk_xray_map_name(map, id); }

static void report_failure(cli *c, tk_xray_map *map, const tk_xray_graph *g,
                           const tk_xray_reader *r, const tk_xray_record *rec, int failure,
                           int warning)
{
    int32_t stack[8];
    size_t depth = tk_xray_graph_stack(g, rec->tid, stack, 8);
    unsigned long long index = tk_xray_reader_index(r);
    if (tk_xray_reader_is_yaml(r)) /* YAML records have no byte offsets */
        fprintf(stderr, "tracekit: %s: record %llu: ", c->path, index);
    else
        fprintf(stderr, "tracekit: %s: offset 0x%llx (record %llu): ", c->path,
                (unsigned long long)tk_xray_reader_offset(r), index);
    fprintf(stderr, "%s%s of %s on thread %u: %s",
            warning ? "warning: " : "", tk_xray_kind_name(rec->kind),
            tk_xray_map_name(map, rec->func_id), rec->tid,
            tk_xray_graph_failure_text((tk_xray_graph_failure)failure));
    if (depth) {
        fprintf(stderr, " (open:");
        for (size_t i = 0; i < depth && i < 8; i++)
            fprintf(stderr, " %s", tk_xray_map_name(map, stack[i]));
        fprintf(stderr, "%s)", depth > 8 ? " ..." : "");
    }
    fputc('\n', stderr);
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

static void json_stats(tk_sink *s, const tk_xray_graph_stats *st, uint64_t freq)
{
    tk_sink_u64(s, "count", st->count, 0);
    seconds(s, "min_s", st->min, freq);
    seconds(s, "med_s", st->med, freq);
    seconds(s, "p90_s", st->p90, freq);
    seconds(s, "p99_s", st->p99, freq);
    seconds(s, "max_s", st->max, freq);
    seconds(s, "sum_s", st->sum, freq);
}

static void print_json(cli *c, tk_sink *s, const tk_xray_graph *g, tk_xray_map *map,
                       uint64_t freq)
{
    tk_xray_graph_stats st;
    int32_t id, from, to;
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "file", c->path, 0);
    tk_sink_cstr(s, "format", tk_format_name(c->fmt), 0);
    tk_sink_u64(s, "cycle_frequency", freq, 0);
    tk_sink_i64(s, "root", 0);
    tk_sink_array_begin(s, "vertices");
    for (size_t i = 0; i < tk_xray_graph_vertices(g); i++) {
        tk_xray_graph_vertex(g, i, &id, &st);
        tk_sink_object_begin(s, NULL);
        tk_sink_i64(s, "func_id", id);
        tk_sink_cstr(s, "function", tk_xray_map_name(map, id), 0);
        json_stats(s, &st, freq);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_array_begin(s, "edges");
    for (size_t i = 0; i < tk_xray_graph_edges(g); i++) {
        tk_xray_graph_edge(g, i, &from, &to, &st);
        tk_sink_object_begin(s, NULL);
        tk_sink_i64(s, "caller", from);
        tk_sink_i64(s, "callee", to);
        json_stats(s, &st, freq);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_object_end(s);
}

/* The DOT graph (or JSON). */
typedef struct graph_out {
    tk_xray_graph *g;
    tk_xray_map *map;
    uint64_t freq;
} graph_out;

static tk_status write_graph(cli *c, FILE *f, tk_sink *json, void *ctx, tk_error *err)
{
    const graph_out *o = ctx;
    if (json) {
        print_json(c, json, o->g, o->map, o->freq);
        return TK_OK;
    }
    G.print.name = name_of;
    G.print.name_ctx = o->map;
    return tk_xray_graph_print_dot(o->g, f, &G.print, err);
}

int cmd_graph(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_BASE_LONG_OPTIONS,
        {"edge-label", required_argument, NULL, 'e'},
        {"vertex-label", required_argument, NULL, 'v'},
        {"color-edges", required_argument, NULL, 'c'},
        {"color-vertices", required_argument, NULL, 'b'},
        {"deduce-sibling-calls", no_argument, NULL, 'd'},
        {"keep-going", no_argument, NULL, 'k'},
        {"output", required_argument, NULL, 'o'},
        CLI_XRAY_MAP_LONG_OPTIONS,
        CLI_XRAY_SELECT_LONG_OPTIONS,
        {0}};
    cli c;
    const char *path = NULL;
    if (cli_init(&c, "graph") != EXIT_OK)
        return EXIT_TROUBLE;
    tk_xray_reader *r;
    int rc = cli_parse(&c, argc, argv, "he:v:c:b:dko:m:", longopts, help, extra, &path);
    /* labels and colours are the DOT text's; --json has every statistic */
    rc = cli_exclusive(&c, rc, c.json && G.styled, G.styled, "--json");
    rc = cli_open_xray(&c, rc, path, &r);
    if (!r)
        return rc;
    tk_error err;
    tk_error_clear(&err);
    tk_xray_map *map = cli_load_map(&c, &rc);
    tk_xray_graph *g = rc == EXIT_OK ? tk_xray_graph_new(&G.opt, &err) : NULL;
    if (rc != EXIT_OK)
        goto done;
    if (!g) {
        rc = cli_report(NULL, &err);
        goto done;
    }
    tk_xray_record rec;
    int got;
    uint64_t failures = 0;
    while ((got = tk_xray_next(r, &rec, &err)) > 0) {
        int f = tk_xray_graph_add(g, &rec, &err);
        if (f < 0) {
            rc = cli_report(NULL, &err);
            goto done;
        }
        if (f == TK_XRAY_GRAPH_OK)
            continue;
        failures++;
        if (!G.keep_going || failures <= 20)
            report_failure(&c, map, g, r, &rec, f, G.keep_going);
        if (!G.keep_going) {
            rc = EXIT_BAD_TRACE;
            goto done;
        }
    }
    if (got < 0) {
        rc = cli_report(c.path, &err);
        goto done;
    }
    if (failures > 20)
        fprintf(stderr, "tracekit: %s: warning: %llu records could not be added\n", c.path,
                (unsigned long long)failures);
    uint64_t freq = tk_xray_reader_header(r)->cycle_frequency;
    if (tk_xray_graph_finish(g, freq, &err) != TK_OK) {
        rc = cli_report(NULL, &err);
        goto done;
    }
    graph_out out = {g, map, freq};
    rc = cli_write_output(&c, G.output, write_graph, &out);
done:
    tk_xray_map_free(map);
    tk_xray_graph_free(g);
    tk_xray_reader_free(r);
    cli_close(&c);
    return rc;
}
