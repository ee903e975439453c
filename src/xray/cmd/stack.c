/* tracekit stack: call stacks of an XRay trace, as llvm-xray stack prints
 * them, plus folded self-time stacks for flame graphs. */
#include <stdio.h>
#include <string.h>

#include <tracekit/xray_stack.h>

#include "xray/cmd/cmd.h"

/* The arguments, from c->opts. */
typedef struct stack_args {
    int per_thread, aggregate, all, flame, count, folded, keep_going;
    const char *output;
} stack_args;

static void read_args(const tk_command_ctx *c, stack_args *a)
{
    const char *format = tk_options_get(c->opts, "stack-format");
    const char *type = tk_options_get(c->opts, "aggregation-type");
    a->per_thread = tk_cmd_flag(c, "per-thread-stacks");
    a->aggregate = tk_cmd_flag(c, "aggregate-threads");
    a->all = tk_cmd_flag(c, "all-stacks");
    a->folded = tk_cmd_flag(c, "folded");
    a->keep_going = tk_cmd_flag(c, "keep-going");
    a->flame = format && strcmp(format, "flame") == 0;
    a->count = type && strcmp(type, "count") == 0;
    a->output = tk_options_get(c->opts, "output");
    if (!a->output)
        a->output = "-";
}

/* The options that do not go together; -1 when they all do. */
static int check_args(tk_command_ctx *c, const stack_args *a)
{
    int rc = -1;
    if (a->per_thread && a->aggregate)
        rc = tk_cmd_usage(c, "--per-thread-stacks and --aggregate-threads exclude each other");
    if (rc < 0 && !a->all && a->flame)
        rc = tk_cmd_usage(c, "--stack-format flame needs --all-stacks");
    if (rc < 0 && a->all && !a->flame)
        rc = tk_cmd_usage(c, "--all-stacks needs --stack-format flame");
    /* --json lists every stack with calls, total and self time */
    rc = tk_cmd_exclusive(c, rc, c->json && a->folded, "--folded", "--json");
    rc = tk_cmd_exclusive(c, rc, c->json && a->all, "--all-stacks", "--json");
    return tk_cmd_exclusive(c, rc, a->folded && a->all, "--folded", "--all-stacks");
}

static const char *name_of(void *map, int32_t id) { return tk_xray_map_name(map, id); }

/* The chosen view (its JSON into write_output's sink). */
typedef struct stacks_out {
    const stack_args *a;
    tk_xray_stacks *stacks;
    tk_xray_map *map;
} stacks_out;

static tk_status write_stacks(tk_command_ctx *c, FILE *f, tk_sink *json, void *ctx,
                              tk_error *err)
{
    const stacks_out *out = ctx;
    const stack_args *a = out->a;
    tk_xray_stacks_print_options o = {
        .view = c->json ? TK_XRAY_STACKS_JSON
                : a->folded ? TK_XRAY_STACKS_FOLDED
                : a->all    ? TK_XRAY_STACKS_FLAME
                            : TK_XRAY_STACKS_TOP,
        .threads = a->aggregate ? TK_XRAY_STACKS_AGGREGATE
                   : a->per_thread ? TK_XRAY_STACKS_PER_THREAD
                   : a->folded ? TK_XRAY_STACKS_AGGREGATE
                               : TK_XRAY_STACKS_ALL_THREADS,
        .count = a->count,
        .name = name_of,
        .name_ctx = out->map,
        .json = json,
    };
    return tk_xray_stacks_print(out->stacks, f, &o, err);
}

/* The sink's calls (tk_xray_cmd_feed). */
static int add(void *analysis, const tk_xray_record *rec, tk_error *err)
{
    return tk_xray_stacks_add(analysis, rec, err);
}

static void describe(tk_command_ctx *c, void *ctx, const tk_xray_reader *r,
                     const tk_xray_record *rec, int failure, int warning)
{
    tk_cmd_note(c, "%s: offset 0x%llx (record %llu): %s%s of %s on thread %u%s", c->path,
                (unsigned long long)tk_xray_reader_offset(r),
                (unsigned long long)tk_xray_reader_index(r), warning ? "warning: " : "",
                tk_xray_kind_name(rec->kind), tk_xray_map_name(ctx, rec->func_id), rec->tid,
                failure == 1 ? " has no matching entry"
                             : ": TSC goes back: the record is in its thread's past");
}

/* Every record into `st`; returns -1 to go on, or the exit status. */
static int feed(tk_command_ctx *c, const stack_args *a, tk_xray_reader *r, tk_xray_stacks *st,
                tk_xray_map *map)
{
    tk_xray_cmd_sink s = {add, describe, st, map, "stacked"};
    int rc = tk_xray_cmd_feed(c, r, a->keep_going, &s);
    if (rc < 0 && tk_xray_stacks_empty(st)) {
        tk_cmd_note(c, "%s: no instrumented calls in the trace", c->path);
        return TK_EXIT_FAILED;
    }
    return rc;
}

static int run(tk_command_ctx *c)
{
    stack_args a;
    read_args(c, &a);
    tk_xray_reader *r;
    int rc = tk_xray_cmd_open(c, check_args(c, &a), &r);
    if (rc != TK_EXIT_OK)
        return rc;
    tk_error err;
    tk_error_clear(&err);
    tk_xray_map *map = tk_xray_cmd_map(c, &rc);
    tk_xray_stacks *st = rc == TK_EXIT_OK ? tk_xray_stacks_new(&err) : NULL;
    if (rc == TK_EXIT_OK && !st)
        rc = c->host->report(c, NULL, &err);
    if (rc == TK_EXIT_OK && (rc = feed(c, &a, r, st, map)) < 0) {
        stacks_out out = {&a, st, map};
        rc = c->host->write_output(c, a.output, write_stacks, &out);
    }
    tk_xray_map_free(map);
    tk_xray_stacks_free(st);
    tk_xray_reader_free(r);
    return rc;
}

static const tk_option options[] = {
    {.name = "per-thread-stacks", .help = "top stacks of each thread separately"},
    {.name = "aggregate-threads", .help = "merge the same call path across threads"},
    {.name = "all-stacks", .help = "every stack (needs --stack-format flame)"},
    {.name = "all", .flags = TK_OPTION_ALIAS},
    {.name = "stack-format", .value = "human|flame", .choices = "human flame",
     .help = "flame: llvm-xray's flame listing, one line per stack with its inclusive "
             "value (flamegraph.pl would count callees twice; prefer --folded)"},
    {.name = "aggregation-type", .value = "time|count", .choices = "time count",
     .help = "value of flame lines: total ticks or calls"},
    {.name = "folded",
     .help = "folded stacks weighted by self time, for flamegraph.pl and speedscope "
             "(threads merged unless --per-thread-stacks)"},
    {.name = "json", .flags = TK_OPTION_SHARED,
     .help = "every stack as a JSON line: thread, stack, calls, leaf_calls, total_ticks, "
             "self_ticks"},
    {.name = "json-hex", .flags = TK_OPTION_SHARED,
     .help = "--json with integers past 2^53 as \"0x...\""},
    {.name = "keep-going", .letter = 'k', .help = "report exits without an entry and go on"},
    {.name = "output", .letter = 'o', .value = "OUT",
     .help = "write to OUT (default: standard output)"},
    {0}};

const tk_command tk_xray_cmd_stack = {
    .name = "stack",
    .summary = "XRay: call stacks by time and count, flame graphs",
    .synopsis = "[OPTIONS] FILE",
    .help = "Call-stack aggregation of an XRay trace. By default: the number of unique\n"
            "stacks and the top 10 stacks by the time and the number of calls of their\n"
            "leaf function (durations in TSC ticks), as llvm-xray stack prints them.\n",
    .notes = "llvm-xray's spellings work too: -all-stacks, -stack-format=flame,\n"
             "-aggregation-type=count, -instr_map=BIN, -keep-going=false, ...\n",
    .needs = "; stack needs XRay",
    .options = options,
    .run = run,
};
