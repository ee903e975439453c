/* tracekit graph-diff: the call graphs of two XRay traces as one DOT graph
 * coloured by their relative differences, as llvm-xray graph-diff prints
 * it (src/xray/analysis/graph_diff.c), or as JSON. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "xray/cmd/cmd.h"
#include "xray/cmd/threads.h"

static const char *const styles[] = {"edge-label", "color-edges", "vertex-label",
                                     "color-vertices"};

/* One side's graph, its map and frequency. */
typedef struct side {
    const char *path;
    tk_input *in;
    tk_xray_reader *r;
    tk_xray_map *map;
    tk_xray_graph *g;
    uint64_t freq;
    int allow_truncated; /* B: as A */
} side;

/* A side's option: "NAME-1" (or "-2") when given, else "NAME". */
static const char *side_opt(tk_command_ctx *c, const char *name, int i)
{
    char key[64];
    snprintf(key, sizeof key, "%s-%d", name, i + 1);
    const char *v = tk_options_get(c->opts, key);
    return v ? v : tk_options_get(c->opts, name);
}

static int side_flag(tk_command_ctx *c, const char *name, int i)
{
    const char *v = side_opt(c, name, i);
    return v && strcmp(v, "0") != 0;
}

static const char *name_of(void *map, int32_t id) { return tk_xray_map_name(map, id); }

/* Open side i: A through the host, B by its path (the same truncation
 * rule as A). -1 to go on, or the exit status after a message. */
static int open_side(tk_command_ctx *c, side *s, int i)
{
    tk_error err;
    tk_error_clear(&err);
    int rc;
    if (i == 0) {
        if ((rc = tk_xray_cmd_open(c, -1, &s->r)) != TK_EXIT_OK)
            return rc;
        s->path = c->path;
        return -1;
    }
    s->path = tk_options_get(c->opts, "file-b");
    if (!(s->in = tk_input_open(s->path, &err)))
        return c->host->report(c, s->path, &err);
    tk_input_set_allow_truncated(s->in, s->allow_truncated);
    if (!(s->r = tk_xray_reader_new(s->in, &err)))
        return c->host->report(c, s->path, &err);
    return -1;
}

/* Open (B) and read side i's graph, finished. -1 to go on, or the exit
 * status after a message. */
static int build(tk_command_ctx *c, side *s, int i)
{
    tk_error err;
    tk_error_clear(&err);
    int rc;
    if (i == 1 && (rc = open_side(c, s, i)) >= 0)
        return rc;
    const char *map_path = side_opt(c, "instr-map", i);
    if (map_path && !(s->map = tk_xray_map_open(map_path, &err)))
        return c->host->report(c, map_path, &err);
    tk_xray_graph_options o = {.deduce_sibling_calls = side_flag(c, "deduce-sibling-calls", i)};
    if (!(s->g = tk_xray_graph_new(&o, &err)))
        return c->host->report(c, NULL, &err);
    s->freq = tk_xray_reader_header(s->r)->cycle_frequency;
    const char *saved = c->path;
    c->path = s->path; /* the notes name the trace they are about */
    rc = tk_xray_cmd_graph_feed(c, side_flag(c, "keep-going", i), s->r, s->g, s->map);
    tk_truncation cut; /* the host notes A's cut; B's is this command's */
    if (i == 1 && tk_input_truncation(s->in, &cut))
        tk_cmd_note(c, "warning: %s: %s", s->path, cut.message);
    c->path = saved;
    return rc;
}

/* B is built on a thread of its own while A is, with a copy of the
 * command whose host keeps B's notes and errors (in order) until A is
 * done: then they are printed as if B had been read after A, and dropped
 * when A failed (B would not have been read). */
typedef struct held {
    struct held *next;
    int report;     /* an error (file, err), else a note (line) */
    const char *file;
    tk_error err;
    char line[];
} held;

typedef struct side_job {
    tk_command_ctx c;    /* B's copy of the command */
    tk_command_host host;
    side *s;
    held *first, **last;
    int oom;             /* a note could not be kept */
    int rc;
} side_job;

static void hold_note(tk_command_ctx *c, const char *line)
{
    side_job *j = c->host_data;
    size_t n = strlen(line) + 1;
    held *h = malloc(sizeof *h + n);
    if (!h) {
        j->oom = 1;
        return;
    }
    memset(h, 0, sizeof *h);
    memcpy(h->line, line, n);
    *j->last = h;
    j->last = &h->next;
}

static int hold_report(tk_command_ctx *c, const char *file, const tk_error *err)
{
    side_job *j = c->host_data;
    held *h = malloc(sizeof *h + 1);
    if (!h)
        j->oom = 1;
    else {
        memset(h, 0, sizeof *h + 1);
        h->report = 1;
        h->file = file ? file : j->s->path; /* B's: name it */
        h->err = *err;
        *j->last = h;
        j->last = &h->next;
    }
    return tk_exit_status(err->status);
}

static void *build_b(void *arg)
{
    side_job *j = arg;
    j->rc = build(&j->c, j->s, 1);
    return NULL;
}

/* B's messages printed (print = 1) or dropped, and freed. */
static void release(tk_command_ctx *c, side_job *j, int print)
{
    for (held *h = j->first, *next; h; h = next) {
        next = h->next;
        if (print && h->report)
            c->host->report(c, h->file, &h->err);
        else if (print)
            c->host->note(c, h->line);
        free(h);
    }
    if (print && j->oom)
        tk_cmd_note(c, "out of memory");
}

/* Both graphs: A on this thread, B on another (both here, one after the
 * other, with TRACEKIT_THREADS=1 or when no thread can be made). -1 to go
 * on, or the exit status after a message. */
static int build_both(tk_command_ctx *c, side s[2])
{
    int rc = open_side(c, &s[0], 0);
    if (rc >= 0)
        return rc;
    s[1].allow_truncated = tk_input_allows_truncated(c->in);
    side_job *j = calloc(1, sizeof *j);
    pthread_t th;
    int two = 0;
    if (j && tk_xray_cmd_threads() > 1) {
        j->c = *c;
        j->host = *c->host;
        j->host.note = hold_note;
        j->host.report = hold_report;
        j->c.host = &j->host;
        j->c.host_data = j;
        j->s = &s[1];
        j->last = &j->first;
        two = pthread_create(&th, NULL, build_b, j) == 0;
    }
    rc = build(c, &s[0], 0);
    if (two) {
        pthread_join(th, NULL);
        release(c, j, rc < 0);
        if (rc < 0)
            rc = j->rc;
    } else if (rc < 0) {
        rc = build(c, &s[1], 1);
    }
    free(j);
    return rc;
}

typedef struct out_ctx {
    tk_xray_graph_diff *d;
    tk_xray_graph_diff_print_options print;
    uint64_t freq[2];
} out_ctx;

static void json_rel(tk_sink *s, const tk_xray_graph_stats *st[2])
{
    static const char *const keys[] = {"count", "min", "med", "p90", "p99", "max", "sum"};
    tk_sink_object_begin(s, "rel");
    for (int t = TK_XRAY_GRAPH_COUNT; t <= TK_XRAY_GRAPH_SUM; t++) {
        double v = st[0] && st[1] ? tk_xray_graph_diff_rel(st, (tk_xray_graph_stat)t) : NAN;
        if (isfinite(v))
            tk_sink_f64(s, keys[t - 1], v);
        else
            tk_sink_null(s, keys[t - 1]);
    }
    tk_sink_object_end(s);
}

static void json_sides(tk_sink *s, const tk_xray_graph_stats *st[2], const uint64_t freq[2])
{
    for (int k = 0; k < 2; k++) {
        if (!st[k]) {
            tk_sink_null(s, k ? "b" : "a");
            continue;
        }
        tk_sink_object_begin(s, k ? "b" : "a");
        tk_xray_cmd_graph_stats(s, st[k], freq[k]);
        tk_sink_object_end(s);
    }
    json_rel(s, st);
}

static void print_json(tk_command_ctx *c, tk_sink *s, const out_ctx *o)
{
    const tk_xray_graph_diff *d = o->d;
    const tk_xray_graph_stats *st[2];
    const char *name;
    tk_sink_record_begin(s);
    tk_sink_cstr(s, "file", c->path, 0);
    tk_sink_cstr(s, "file_b", tk_options_get(c->opts, "file-b"), 0);
    tk_sink_cstr(s, "format", "xray", TK_SINK_ENUM);
    for (size_t i = 0; i < tk_xray_graph_diff_vertices(d); i++) {
        tk_xray_graph_diff_vertex(d, i, &name, NULL);
        if (!*name)
            tk_sink_u64(s, "root", i, 0); /* the vertex of calls with no caller */
    }
    tk_sink_array_begin(s, "vertices");
    for (size_t i = 0; i < tk_xray_graph_diff_vertices(d); i++) {
        tk_xray_graph_diff_vertex(d, i, &name, st);
        tk_sink_object_begin(s, NULL);
        tk_sink_u64(s, "vertex", i, 0);
        tk_sink_cstr(s, "function", name, 0);
        json_sides(s, st, o->freq);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_array_begin(s, "edges");
    for (size_t i = 0; i < tk_xray_graph_diff_edges(d); i++) {
        size_t from, to;
        tk_xray_graph_diff_edge(d, i, &from, &to, st);
        tk_sink_object_begin(s, NULL);
        tk_sink_u64(s, "caller", from, 0);
        tk_sink_u64(s, "callee", to, 0);
        json_sides(s, st, o->freq);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_record_end(s);
}

static tk_status write_diff(tk_command_ctx *c, FILE *f, tk_sink *json, void *ctx,
                            tk_error *err)
{
    const out_ctx *o = ctx;
    if (json) {
        print_json(c, json, o);
        return TK_OK;
    }
    return tk_xray_graph_diff_print_dot(o->d, f, &o->print, err);
}

static void read_print(tk_command_ctx *c, tk_xray_graph_diff_print_options *p)
{
    tk_xray_graph_stat *stat[] = {&p->edge_label, &p->edge_color, &p->vertex_label,
                                  &p->vertex_color};
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < 4; i++) {
        const char *v = tk_options_get(c->opts, styles[i]);
        tk_error err; /* checked when parsed */
        if (v)
            tk_xray_graph_parse_stat(v, stat[i], &err);
    }
    uint64_t t = 40;
    tk_error err;
    if (tk_options_get_u64(c->opts, "vertex-label-trun", 40, &t, &err) == TK_OK && t > 0 &&
        t < 1u << 20)
        p->vertex_label_trunc = (int)t;
}

static int run(tk_command_ctx *c)
{
    side s[2];
    memset(s, 0, sizeof s);
    int rc = build_both(c, s);
    if (rc < 0) {
        tk_error err;
        void *ctx[2] = {s[0].map, s[1].map};
        out_ctx o = {tk_xray_graph_diff_new(s[0].g, s[1].g, name_of, ctx, &err), {0},
                     {s[0].freq, s[1].freq}};
        read_print(c, &o.print);
        const char *output = tk_options_get(c->opts, "output");
        rc = o.d ? c->host->write_output(c, output ? output : "-", write_diff, &o)
                 : c->host->report(c, NULL, &err);
        tk_xray_graph_diff_free(o.d);
    }
    for (int i = 0; i < 2; i++) {
        tk_xray_graph_free(s[i].g);
        tk_xray_map_free(s[i].map);
        tk_xray_reader_free(s[i].r);
        if (s[i].in)
            tk_input_close(s[i].in);
    }
    return rc;
}

#define STATS "none count min med 90p 99p max sum"

static const tk_option options[] = {
    {.name = "edge-label", .letter = 'e', .value = "STAT", .choices = STATS,
     .help = "label edges with STAT's relative difference (B / A - 1, in %)"},
    {.name = "vertex-label", .letter = 'v', .value = "STAT", .choices = STATS,
     .help = "label vertices with STAT's relative difference (record shapes)"},
    {.name = "color-edges", .letter = 'c', .value = "STAT", .choices = STATS,
     .help = "colour edges by STAT's difference (PiYG: pink slower, green faster; red: "
             "only in A, green: only in B); pen width the difference above 100%"},
    {.name = "edge-color", .flags = TK_OPTION_ALIAS},
    {.name = "color-vertices", .letter = 'b', .value = "STAT", .choices = STATS,
     .help = "colour vertices by STAT's difference"},
    {.name = "vertex-color", .flags = TK_OPTION_ALIAS},
    {.name = "vertex-label-trun", .letter = 't', .value = "N",
     .help = "cut vertex names to N bytes (default 40)"},
    {.name = "instr-map", .letter = 'm', .value = "BIN",
     .help = "map naming the functions of both traces (llvm-xray 14 reads none and "
             "matches ids)"},
    {.name = "instr-map-1", .value = "BIN", .help = "map of trace A"},
    {.name = "m1", .flags = TK_OPTION_ALIAS},
    {.name = "instr-map-2", .value = "BIN", .help = "map of trace B"},
    {.name = "m2", .flags = TK_OPTION_ALIAS},
    {.name = "keep-going", .letter = 'k', .help = "go on past unmatched exits"},
    {.name = "keep-going-1", .help = "... in trace A only"},
    {.name = "k1", .flags = TK_OPTION_ALIAS},
    {.name = "keep-going-2", .help = "... in trace B only"},
    {.name = "k2", .flags = TK_OPTION_ALIAS},
    {.name = "deduce-sibling-calls", .letter = 'd',
     .help = "an exit that matches a deeper frame closes the frames above it too"},
    {.name = "deduce-sibling-calls-1", .help = "... in trace A only"},
    {.name = "d1", .flags = TK_OPTION_ALIAS},
    {.name = "deduce-sibling-calls-2", .help = "... in trace B only"},
    {.name = "d2", .flags = TK_OPTION_ALIAS},
    {.name = "output", .letter = 'o', .value = "OUT",
     .help = "write to OUT (default: standard output)"},
    {.name = "json", .flags = TK_OPTION_SHARED,
     .help = "a JSON object: vertices and edges (caller, callee: vertex numbers) with "
             "their statistics in A and B (seconds, as graph --json; null where missing) "
             "and the relative differences rel"},
    {.name = "json-hex", .flags = TK_OPTION_SHARED,
     .help = "--json with integers past 2^53 as \"0x...\""},
    {0}};

const tk_command tk_xray_cmd_graph_diff = {
    .name = "graph-diff",
    .summary = "XRay: two traces' call graphs as one, coloured by what changed",
    .synopsis = "[OPTIONS] A B",
    .help = "The union of the call graphs of XRay traces A and B in Graphviz DOT, as\n"
            "llvm-xray graph-diff prints it: functions are matched by name (\"#<id>\"\n"
            "without a map), each edge and vertex labelled and coloured by the\n"
            "relative difference B / A - 1 of a statistic of its calls' durations;\n"
            "what only one trace has is red (only A) or green (only B).\n"
            "\n"
            "STAT is one of none (default), count, min, med, 90p, 99p, max, sum.\n",
    .notes = "llvm-xray's spellings work too: -edge-label=sum, -c=sum, --k1, --m2=BIN, ...\n"
             "With -m, -m1 or -m2 functions are named (llvm-xray 14 ignores its maps).\n",
    .needs = "; graph-diff needs XRay",
    .options = options,
    .run = run,
};
