/* tracekit stack: call stacks of an XRay trace, as llvm-xray stack prints
 * them, plus folded self-time stacks for flame graphs. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "selection.h"

enum {
    OPT_PER_THREAD = OPT_FIRST_COMMAND_OPTION,
    OPT_AGGREGATE,
    OPT_ALL,
    OPT_STACK_FORMAT,
    OPT_AGGREGATION,
    OPT_FOLDED
};

static const char help[] =
    "usage: tracekit stack [OPTIONS] FILE\n"
    "\n"
    "Call-stack aggregation of an XRay trace. By default: the number of unique\n"
    "stacks and the top 10 stacks by the time and the number of calls of their\n"
    "leaf function (durations in TSC ticks), as llvm-xray stack prints them.\n"
    "\n"
    "options:\n"
    "  --per-thread-stacks   top stacks of each thread separately\n"
    "  --aggregate-threads   merge the same call path across threads\n"
    "  --all-stacks, --all   every stack (needs --stack-format flame)\n"
    "  --stack-format human|flame\n"
    "                        flame: llvm-xray's flame listing, one line per\n"
    "                        stack with its inclusive value (flamegraph.pl\n"
    "                        would count callees twice; prefer --folded)\n"
    "  --aggregation-type time|count\n"
    "                        value of flame lines: total ticks or calls\n"
    "  --folded              folded stacks weighted by self time, for\n"
    "                        flamegraph.pl and speedscope (threads merged\n"
    "                        unless --per-thread-stacks)\n"
    "  --json                every stack as a JSON line: thread, stack,\n"
    "                        calls, leaf_calls, total_ticks, self_ticks\n"
    "  --json-hex            --json with integers past 2^53 as \"0x...\"\n"
    "  -k, --keep-going      report exits without an entry and go on\n"
    "  -o, --output OUT      write to OUT (default: standard output)\n"
    CLI_XRAY_SELECT_HELP CLI_XRAY_MAP_HELP
    "  --format NAME         read the input as NAME\n"
    "  --progress WHEN       progress line on stderr: auto (on a terminal,\n"
    "                        after a second), always or never\n"
    "  -h, --help            show this help\n"
    "\nllvm-xray's spellings work too: -all-stacks, -stack-format=flame,\n"
    "-aggregation-type=count, -instr_map=BIN, -keep-going=false, ...\n";

static struct {
    int per_thread, aggregate, all, flame, count, folded, keep_going;
    const char *output;
} S = {.output = "-"};

static int extra(cli *c, int opt, const char *arg)
{
    switch (opt) {
    case OPT_PER_THREAD: S.per_thread = 1; return 1;
    case OPT_AGGREGATE: S.aggregate = 1; return 1;
    case OPT_ALL: S.all = 1; return 1;
    case OPT_FOLDED: S.folded = 1; return 1;
    case 'k': S.keep_going = 1; return 1;
    case 'o': S.output = arg; return 1;
    case OPT_STACK_FORMAT:
        if (strcmp(arg, "human") && strcmp(arg, "flame")) {
            cli_usage_error(c->command, "--stack-format takes human or flame, not '%s'", arg);
            return -1;
        }
        S.flame = strcmp(arg, "flame") == 0;
        return 1;
    case OPT_AGGREGATION:
        if (strcmp(arg, "time") && strcmp(arg, "count")) {
            cli_usage_error(c->command, "--aggregation-type takes time or count, not '%s'", arg);
            return -1;
        }
        S.count = strcmp(arg, "count") == 0;
        return 1;
    }
    return 0;
}

static const char *name_of(void *map, int32_t id) { return tk_xray_map_name(map, id); }

/* The chosen view (its JSON into cli_write_output's sink). */
typedef struct stacks_out {
    tk_xray_stacks *stacks;
    tk_xray_map *map;
} stacks_out;

static tk_status write_stacks(cli *c, FILE *f, tk_sink *json, void *ctx, tk_error *err)
{
    const stacks_out *out = ctx;
    tk_xray_stacks_print_options o = {
        .view = c->json ? TK_XRAY_STACKS_JSON
                : S.folded ? TK_XRAY_STACKS_FOLDED
                : S.all    ? TK_XRAY_STACKS_FLAME
                           : TK_XRAY_STACKS_TOP,
        .threads = S.aggregate ? TK_XRAY_STACKS_AGGREGATE
                   : S.per_thread ? TK_XRAY_STACKS_PER_THREAD
                   : S.folded ? TK_XRAY_STACKS_AGGREGATE
                              : TK_XRAY_STACKS_ALL_THREADS,
        .count = S.count,
        .name = name_of,
        .name_ctx = out->map,
        .json = json,
    };
    return tk_xray_stacks_print(out->stacks, f, &o, err);
}

int cmd_stack(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_BASE_LONG_OPTIONS,
        {"per-thread-stacks", no_argument, NULL, OPT_PER_THREAD},
        {"aggregate-threads", no_argument, NULL, OPT_AGGREGATE},
        {"all-stacks", no_argument, NULL, OPT_ALL},
        {"all", no_argument, NULL, OPT_ALL},
        {"stack-format", required_argument, NULL, OPT_STACK_FORMAT},
        {"aggregation-type", required_argument, NULL, OPT_AGGREGATION},
        {"folded", no_argument, NULL, OPT_FOLDED},
        {"keep-going", no_argument, NULL, 'k'},
        {"output", required_argument, NULL, 'o'},
        CLI_XRAY_MAP_LONG_OPTIONS,
        CLI_XRAY_SELECT_LONG_OPTIONS,
        {0}};
    cli c;
    const char *path = NULL;
    if (cli_init(&c, "stack") != EXIT_OK)
        return EXIT_TROUBLE;
    int rc = cli_parse(&c, argc, argv, "hkm:o:", longopts, help, extra, &path);
    if (rc < 0 && S.per_thread && S.aggregate)
        rc = cli_usage_error("stack", "--per-thread-stacks and --aggregate-threads "
                                      "exclude each other");
    if (rc < 0 && !S.all && S.flame)
        rc = cli_usage_error("stack", "--stack-format flame needs --all-stacks");
    if (rc < 0 && S.all && !S.flame)
        rc = cli_usage_error("stack", "--all-stacks needs --stack-format flame");
    /* --json lists every stack with calls, total and self time */
    rc = cli_exclusive(&c, rc, c.json && S.folded, "--folded", "--json");
    rc = cli_exclusive(&c, rc, c.json && S.all, "--all-stacks", "--json");
    rc = cli_exclusive(&c, rc, S.folded && S.all, "--folded", "--all-stacks");
    tk_xray_reader *r;
    rc = cli_open_xray(&c, rc, path, &r);
    if (!r)
        return rc;
    tk_error err;
    tk_error_clear(&err);
    tk_xray_map *map = cli_load_map(&c, &rc);
    tk_xray_stacks *st = rc == EXIT_OK ? tk_xray_stacks_new(&err) : NULL;
    if (rc != EXIT_OK)
        goto done;
    if (!st) {
        rc = cli_report(NULL, &err);
        goto done;
    }
    tk_xray_record rec;
    int got;
    while ((got = tk_xray_next(r, &rec, &err)) > 0) {
        int f = tk_xray_stacks_add(st, &rec, &err);
        if (f < 0) {
            rc = cli_report(NULL, &err);
            goto done;
        }
        if (f > 0) {
            fprintf(stderr, "tracekit: %s: offset 0x%llx (record %llu): %s%s of %s on "
                            "thread %u%s\n",
                    c.path, (unsigned long long)tk_xray_reader_offset(r),
                    (unsigned long long)tk_xray_reader_index(r),
                    S.keep_going ? "warning: " : "", tk_xray_kind_name(rec.kind),
                    tk_xray_map_name(map, rec.func_id), rec.tid,
                    f == 1 ? " has no matching entry"
                           : ": TSC goes back: the record is in its thread's past");
            if (!S.keep_going) {
                rc = EXIT_BAD_TRACE;
                goto done;
            }
        }
    }
    if (got < 0) {
        rc = cli_report(c.path, &err);
        goto done;
    }
    if (tk_xray_stacks_empty(st)) {
        fprintf(stderr, "tracekit: %s: no instrumented calls in the trace\n", c.path);
        rc = EXIT_BAD_TRACE;
        goto done;
    }
    stacks_out out = {st, map};
    rc = cli_write_output(&c, S.output, write_stacks, &out);
done:
    tk_xray_map_free(map);
    tk_xray_stacks_free(st);
    tk_xray_reader_free(r);
    cli_close(&c);
    return rc;
}
