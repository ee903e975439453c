/* tracekit dump: every record, one per line. */
#include "cli.h"

/* --skip, --limit: checked here so that `--limit FILE` says so, not
 * "missing FILE". */
static tk_status count(tk_options *o, const tk_option *opt, const char *value, tk_error *err)
{
    uint64_t v;
    if (cli_parse_count(value, &v) != 0)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--%s takes a number, not '%s'", opt->name, value);
    return tk_options_set(o, opt->name, value, err);
}

static tk_status dump(cli *c, tk_sink *s, tk_error *err)
{
    return tk_dump(c->ctx.format, c->ctx.in, c->ctx.opts, s, err);
}

static int run(tk_command_ctx *x) { return cli_run(x->host_data, dump); }

static const tk_option options[] = {
    {.name = "skip", .value = "N", .parse = count,
     .help = "start after the first N records (of those selected)"},
    {.name = "limit", .value = "N", .parse = count, .help = "print at most N records"},
    {0}};

const tk_command cli_cmd_dump = {
    .name = "dump",
    .summary = "print the records, one per line (--json: JSON Lines)",
    .synopsis = "[OPTIONS] FILE",
    .help = "Print the records of a trace, one per line; with --json, JSON Lines\n"
            "with one object per record.\n",
    .options = options,
    .run = run,
};
