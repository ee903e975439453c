/* tracekit validate: structural check (exit 1 if malformed) plus warnings. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Warnings listed one by one; the rest are counted per code. */
#define DEFAULT_MAX_WARNINGS 20

static const char *const selections[] = {"thread", "range", "addr", "func"};

static tk_status max_warnings(tk_options *o, const tk_option *opt, const char *value,
                              tk_error *err)
{
    char *end;
    unsigned long long v = strtoull(value, &end, 10);
    if (*value < '0' || *value > '9' || *end || v == ULLONG_MAX)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--max-warnings takes a count, not '%s'", value);
    return tk_options_set(o, opt->name, value, err);
}

/* A selection: checked, to be refused once the arguments are read. */
static tk_status selection(tk_options *o, const tk_option *opt, const char *value,
                           tk_error *err)
{
    if (tk_selection_check(opt->name, value, err) != TK_OK)
        return err->status == TK_ENOMEM ? TK_ENOMEM : TK_EUSAGE;
    return tk_options_set(o, opt->name, value, err);
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

/* The summary record: the verdict, and where the check stopped. */
static void summary(cli *c, tk_sink *s, tk_status st, uint64_t nwarn, const tk_error *err)
{
    tk_sink_record_begin(s);
    tk_sink_cstr(s, "file", c->ctx.path, TK_SINK_BARE);
    tk_sink_cstr(s, "format", tk_format_name(c->ctx.format), 0);
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
}

static tk_status validate(cli *c, tk_sink *s, tk_error *err)
{
    int quiet = tk_options_get(c->args, "quiet") != NULL;
    int strict = tk_options_get(c->args, "strict") != NULL;
    const char *max = tk_options_get(c->args, "max-warnings");
    uint64_t nwarn = 0;
    if (!quiet)
        tk_sink_limit(s, max ? strtoull(max, NULL, 10) : DEFAULT_MAX_WARNINGS, "code");
    tk_status st = tk_validate(c->ctx.format, c->ctx.in, c->ctx.opts, quiet ? NULL : s,
                               &nwarn, err);
    if (!quiet) {
        tk_sink_limit_end(s);
        omitted(s);
    }
    summary(c, s, st, nwarn, err);
    if (st == TK_OK && strict && nwarn)
        return tk_error_set(err, TK_EVIOLATION, TK_NO_OFFSET, TK_NO_RECORD,
                            "%llu warning%s (--strict)", (unsigned long long)nwarn,
                            nwarn == 1 ? "" : "s");
    if (st == TK_OK && strict && tk_input_truncation(c->ctx.in, NULL))
        return tk_error_set(err, TK_EVIOLATION, TK_NO_OFFSET, TK_NO_RECORD,
                            "truncated tail read with --allow-truncated (--strict)");
    return st;
}

static int run(tk_command_ctx *x)
{
    cli *c = x->host_data;
    for (size_t k = 0; k < sizeof selections / sizeof selections[0]; k++)
        if (tk_options_get(c->args, selections[k]))
            return cli_usage_error(c->cmd->name,
                                   "--%s does not apply: validate checks the whole trace",
                                   selections[k]);
    return cli_run(c, validate);
}

/* The selections are listed so that getopt does not read --thread as
 * --threads, and refused. */
static const tk_option options[] = {
    {.name = "quiet", .letter = 'q', .flags = TK_OPTION_LOCAL,
     .help = "print only the summary, not each warning"},
    {.name = "max-warnings", .value = "N", .parse = max_warnings, .flags = TK_OPTION_LOCAL,
     .help = "list at most N warnings (default 20; 0: counts only)"},
    {.name = "strict", .flags = TK_OPTION_LOCAL,
     .help = "exit 1 when there are warnings (a truncated tail included)"},
    {.name = "thread", .value = "LIST", .parse = selection,
     .flags = TK_OPTION_LOCAL | TK_OPTION_HIDDEN},
    {.name = "range", .value = "FROM:TO", .parse = selection,
     .flags = TK_OPTION_LOCAL | TK_OPTION_HIDDEN},
    {.name = "addr", .value = "LIST", .parse = selection,
     .flags = TK_OPTION_LOCAL | TK_OPTION_HIDDEN},
    {.name = "func", .value = "NAME", .parse = selection,
     .flags = TK_OPTION_LOCAL | TK_OPTION_HIDDEN},
    {0}};

const tk_command cli_cmd_validate = {
    .name = "validate",
    .summary = "check a trace; exit 1 if it is malformed",
    .synopsis = "[OPTIONS] FILE",
    .help = "Check a whole trace. A structural error (unknown record, truncation,\n"
            "...) stops the check: exit 1 with its location on stderr. Questionable\n"
            "but legal records are warnings: the first 20 are listed one per line,\n"
            "the rest counted per code (one `warning code=CODE omitted=N` line or\n"
            "JSON record per code). The last line is a summary; its warnings=N\n"
            "counts them all. Selections (--thread, --range, --addr, --func) do\n"
            "not apply: the check is of the whole trace. With --allow-truncated a\n"
            "trace cut inside its last record (a killed writer) is valid up to its\n"
            "last whole record: exit 0 and one warning naming the cut.\n",
    .options = options,
    .run = run,
};
