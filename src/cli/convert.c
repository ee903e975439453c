/* tracekit convert: rewrite a trace in another form, atomically. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "selection.h"

enum { OPT_TO = OPT_FIRST_COMMAND_OPTION, OPT_OUT_ENDIAN, OPT_NO_SORT, OPT_MEMORY_LIMIT };

/* llvm-xray convert's -output-format names and the targets they are. */
static const char *const llvm_targets[][2] = {
    {"yaml", "yaml"}, {"trace_event", "chrome"}, {"raw", "xray-basic"}};

static const char help[] =
    "usage: tracekit convert [OPTIONS] --to TARGET -o OUT FILE\n"
    "\n"
    "Write the trace as TARGET to OUT ('-' for standard output). The file is\n"
    "written under a temporary name and renamed, so a failure never leaves a\n"
    "partial OUT behind.\n"
    "\n"
    "targets:\n"
    "  cacheray          Cacheray binary (with --out-endian to switch byte order)\n"
    "  casemate          casemate log, canonical keyword form\n"
    "  casemate-compact  casemate log, positional form (casemate-check -c)\n"
    "  jsonl             JSON Lines, one object per record (as dump --json;\n"
    "                    with --json-hex as dump --json-hex)\n"
    "  ucir              Usercorn replay trace, 2016 spec (frames and keyframes\n"
    "                    kept, recompressed)\n"
    "  tenet             UCIR: Tenet's text trace (one line per instruction:\n"
    "                    changed registers, memory reads and writes)\n"
    "  drcov             UCIR: DynamoRIO drcov coverage (Lighthouse, bncov)\n"
    "  xray-basic        XRay basic mode v3 (events are dropped)\n"
    "  xray-fdr          XRay FDR v5\n"
    "  chrome            Chrome Trace Event JSON (Perfetto, chrome://tracing)\n"
    "  folded            folded stacks with self time (flamegraph.pl, speedscope)\n"
    "  yaml              llvm-xray's YAML trace, sorted by TSC like llvm-xray convert\n"
    "                    in bounded memory (--memory-limit, default 64M; sorted\n"
    "                    runs go to a temporary file in $TMPDIR); --no-sort: file\n"
    "                    order\n"
    "\n"
    "options:\n"
    "  --to TARGET       output form (required)\n"
    "  -f, --output-format yaml|trace_event|raw\n"
    "                    llvm-xray's names for --to yaml, chrome, xray-basic\n"
    "  -o, --output OUT  output file (default: standard output)\n"
    "  --out-endian ORDER  byte order written: little or big (default: the input's)\n"
    "  --no-sort         XRay yaml: records in file order (-s, --sort: sorted,\n"
    "                    the default)\n"
    "  -y, --symbolize   llvm-xray's: -m names the functions anyway; without\n"
    "                    -m, yaml names them #<id> as llvm-xray does\n"
    CLI_SELECT_HELP CLI_XRAY_MAP_HELP CLI_COMMON_HELP
    "\nllvm-xray's spellings work too: -output-format=yaml, -output=OUT,\n"
    "-instr_map=BIN, -symbolize, -sort=false, -demangle=false, ...\n";

static const char *target, *output = "-";

static int extra(cli *c, int opt, const char *arg)
{
    switch (opt) {
    case OPT_TO:
        target = arg;
        return 1;
    case 'f':
        for (size_t i = 0; i < sizeof llvm_targets / sizeof llvm_targets[0]; i++)
            if (strcmp(arg, llvm_targets[i][0]) == 0) {
                target = llvm_targets[i][1];
                return 1;
            }
        cli_usage_error(c->command, "--output-format takes yaml, trace_event or raw, not '%s'",
                        arg);
        return -1;
    case 's':
        return cli_set(c, "sort", "1") == EXIT_OK ? 1 : -1;
    case 'y': /* -m names the functions alone; without it, "#<id>" */
        return cli_set(c, "symbolize", "1") == EXIT_OK ? 1 : -1;
    case 'o':
        output = arg;
        return 1;
    case OPT_NO_SORT:
        return cli_set(c, "sort", "0") == EXIT_OK ? 1 : -1;
    case OPT_MEMORY_LIMIT: {
        uint64_t v;
        char buf[32];
        if (cli_parse_size(c->command, "--memory-limit", arg, &v) != 0)
            return -1;
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
        return cli_set(c, "memory-limit", buf) == EXIT_OK ? 1 : -1;
    }
    case OPT_OUT_ENDIAN:
        if (strcmp(arg, "little") && strcmp(arg, "big")) {
            cli_usage_error(c->command, "--out-endian takes little or big, not '%s'", arg);
            return -1;
        }
        return cli_set(c, "out-endian", arg) == EXIT_OK ? 1 : -1;
    default:
        return 0;
    }
}

/* The trace as the target, into -o's file or standard output. */
static tk_status write_target(cli *c, FILE *f, tk_sink *json, void *ctx, tk_error *err)
{
    (void)json;
    (void)ctx;
    return tk_convert(c->fmt, c->in, c->opts, target, f, err);
}

int cmd_convert(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONG_OPTIONS,
        CLI_SELECT_LONG_OPTIONS,
        CLI_XRAY_MAP_LONG_OPTIONS,
        {"to", required_argument, NULL, OPT_TO},
        {"output", required_argument, NULL, 'o'},
        {"out-endian", required_argument, NULL, OPT_OUT_ENDIAN},
        {"no-sort", no_argument, NULL, OPT_NO_SORT},
        {"sort", no_argument, NULL, 's'},
        {"output-format", required_argument, NULL, 'f'},
        {"symbolize", no_argument, NULL, 'y'},
        {"memory-limit", required_argument, NULL, OPT_MEMORY_LIMIT},
        {0}};
    cli c;
    const char *path = NULL;
    if (cli_init(&c, "convert") != EXIT_OK)
        return EXIT_TROUBLE;
    int rc = cli_parse(&c, argc, argv, "ho:m:f:sy", longopts, help, extra, &path);
    if (rc < 0 && !target)
        rc = cli_usage_error("convert", "--to TARGET is required");
    /* --json-hex shapes --to jsonl's numbers; --json alone means nothing */
    if (rc < 0 && c.json_hex && strcmp(target, "jsonl") != 0)
        rc = cli_usage_error("convert", "--json-hex applies to --to jsonl, not --to %s", target);
    else if (rc < 0 && c.json_hex)
        rc = cli_set(&c, "json-hex", "1") == EXIT_OK ? rc : EXIT_TROUBLE;
    else if (rc < 0 && c.json)
        rc = cli_usage_error("convert", "--json does not apply: the output is --to's target "
                                        "(--to jsonl writes JSON Lines)");
    /* only Cacheray is written in either byte order */
    if (rc < 0 && tk_options_get(c.opts, "out-endian") && strcmp(target, "cacheray") != 0)
        rc = cli_usage_error("convert", "--out-endian applies to --to cacheray, not --to %s",
                             target);
    if (rc < 0)
        rc = cli_open(&c, path);
    if (rc == EXIT_OK && c.in)
        rc = cli_write_output(&c, output, write_target, NULL);
    cli_close(&c);
    return rc;
}
