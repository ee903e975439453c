/* tracekit dump: every record, one per line. */
#include "cli.h"
#include "selection.h"

enum { OPT_LIMIT = OPT_FIRST_COMMAND_OPTION, OPT_SKIP, OPT_RECORDS };

static const char help[] =
    "usage: tracekit dump [OPTIONS] FILE\n"
    "\n"
    "Print the records of a trace, one per line; with --json, JSON Lines\n"
    "with one object per record.\n"
    "\n"
    "options:\n"
    "  --skip N          start after the first N records (of those selected)\n"
    "  --limit N         print at most N records\n"
    "  --records raw|logical\n"
    "                    XRay FDR: raw records as llvm-xray fdr-dump prints\n"
    "                    them (default), or expanded calls with absolute TSCs\n"
    "                    (the default with a selection, which keeps those)\n"
    "  --records instructions|raw\n"
    "                    UCIR: a per-instruction listing with disassembly and\n"
    "                    each instruction's effects (default; --skip/--limit\n"
    "                    count instructions), or the records as they are\n"
    CLI_SELECT_HELP_IDS CLI_COMMON_HELP;

/* A count: checked here so that `--limit FILE` says so, not "missing FILE". */
static int count(cli *c, const char *option, const char *key, const char *arg)
{
    uint64_t v;
    if (cli_parse_count(arg, &v) != 0) {
        cli_usage_error(c->command, "%s takes a number, not '%s'", option, arg);
        return -1;
    }
    return cli_set(c, key, arg) == EXIT_OK ? 1 : -1;
}

static int extra(cli *c, int opt, const char *arg)
{
    if (opt == OPT_LIMIT)
        return count(c, "--limit", "limit", arg);
    if (opt == OPT_SKIP)
        return count(c, "--skip", "skip", arg);
    if (opt == OPT_RECORDS)
        return cli_set(c, "records", arg) == EXIT_OK ? 1 : -1;
    return 0;
}

static tk_status run(cli *c, tk_sink *s, tk_error *err)
{
    return tk_dump(c->fmt, c->in, c->opts, s, err);
}

int cmd_dump(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONG_OPTIONS,
        CLI_SELECT_LONG_OPTIONS,
        {"limit", required_argument, NULL, OPT_LIMIT},
        {"skip", required_argument, NULL, OPT_SKIP},
        {"records", required_argument, NULL, OPT_RECORDS},
        {0}};
    cli c;
    const char *path = NULL;
    if (cli_init(&c, "dump") != EXIT_OK)
        return EXIT_TROUBLE;
    int rc = cli_parse(&c, argc, argv, "h", longopts, help, extra, &path);
    return cli_run(&c, rc, path, run);
}
