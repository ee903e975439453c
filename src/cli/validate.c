/* tracekit validate: structural check (exit 1 if malformed) plus warnings. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "selection.h"

enum { OPT_STRICT = OPT_FIRST_COMMAND_OPTION, OPT_MAX_WARNINGS };

/* Warnings listed one by one; the rest are counted per code. */
#define DEFAULT_MAX_WARNINGS 20

static const char help[] =
    "usage: tracekit validate [OPTIONS] FILE\n"
    "\n"
    "Check a whole trace. A structural error (unknown record, truncation,\n"
    "...) stops the check: exit 1 with its location on stderr. Questionable\n"
    "but legal records are warnings: the first 20 are listed one per line,\n"
    "the rest counted per code (one `warning code=CODE omitted=N` line or\n"
    "JSON record per code). The last line is a summary; its warnings=N\n"
    "counts them all. Selections (--thread, --range, --addr, --func) do\n"
    "not apply: the check is of the whole trace.\n"
    "\n"
    "options:\n"
    "  -q, --quiet       print only the summary, not each warning\n"
    "  --max-warnings N  list at most N warnings (default 20; 0: counts only)\n"
    "  --strict          exit 1 when there are warnings\n" CLI_COMMON_HELP;

static int quiet, strict;
static uint64_t max_warnings = DEFAULT_MAX_WARNINGS;

static int parse_count(const char *arg, uint64_t *out)
{
    char *end;
    if (*arg < '0' || *arg > '9')
        return -1;
    unsigned long long v = strtoull(arg, &end, 10);
    if (*end || v == ULLONG_MAX)
        return -1;
    *out = v;
    return 0;
}

static int extra(cli *c, int opt, const char *arg)
{
    (void)c;
    if (opt == 'q') {
        quiet = 1;
    } else if (opt == OPT_STRICT) {
        strict = 1;
    } else if (opt == OPT_MAX_WARNINGS) {
        if (parse_count(arg, &max_warnings) != 0) {
            cli_usage_error("validate", "--max-warnings takes a count, not '%s'", arg);
            return -1;
        }
    } else {
        return 0;
    }
    return 1;
}

/* One record per warning code past the cap: how many were not listed. */
static void omitted(tk_sink *s)
{
    const char *code;
    uint64_t n;
    for (size_t i = 0; tk_sink_dropped(s, i, &code, &n); i++) {
        tk_sink_record_begin(s);
        tk_sink_cstr(s, "severity", "warning", TK_SINK_BARE);
        tk_sink_cstr(s, "code", code, TK_SINK_ENUM);
        tk_sink_u64(s, "omitted", n, 0);
        tk_sink_record_end(s);
    }
}

static tk_status run(cli *c, tk_sink *s, tk_error *err)
{
    uint64_t nwarn = 0;
    if (!quiet)
        tk_sink_limit(s, max_warnings, "code");
    tk_status st = tk_validate(c->fmt, c->in, c->opts, quiet ? NULL : s, &nwarn, err);
    if (!quiet) {
        tk_sink_limit_end(s);
        omitted(s);
    }
    tk_sink_record_begin(s);
    tk_sink_cstr(s, "file", c->path, TK_SINK_BARE);
    tk_sink_cstr(s, "format", tk_format_name(c->fmt), 0);
    tk_sink_bool(s, "valid", st == TK_OK);
    tk_sink_u64(s, "warnings", nwarn, 0);
    if (st != TK_OK) {
        tk_sink_cstr(s, "error", err->message, 0);
        if (err->offset != TK_NO_OFFSET)
            tk_sink_u64(s, "offset", err->offset, TK_SINK_HEX);
        if (err->line) { /* text formats */
            tk_sink_u64(s, "line", err->line, 0);
            tk_sink_u64(s, "col", err->col, 0);
        }
        if (err->record != TK_NO_RECORD)
            tk_sink_u64(s, "record", err->record, 0);
    }
    tk_sink_record_end(s);
    if (st == TK_OK && strict && nwarn)
        return tk_error_set(err, TK_EVIOLATION, TK_NO_OFFSET, TK_NO_RECORD,
                            "%llu warning%s (--strict)", (unsigned long long)nwarn,
                            nwarn == 1 ? "" : "s");
    return st;
}

int cmd_validate(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONG_OPTIONS,
        CLI_SELECT_LONG_OPTIONS,
        {"quiet", no_argument, NULL, 'q'},
        {"strict", no_argument, NULL, OPT_STRICT},
        {"max-warnings", required_argument, NULL, OPT_MAX_WARNINGS},
        {0}};
    cli c;
    const char *path = NULL;
    if (cli_init(&c, "validate") != EXIT_OK)
        return EXIT_TROUBLE;
    int rc = cli_parse(&c, argc, argv, "hq", longopts, help, extra, &path);
    rc = cli_refuse_selection(&c, rc, "validate checks the whole trace");
    return cli_run(&c, rc, path, run);
}
