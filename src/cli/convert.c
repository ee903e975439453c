/* tracekit convert: rewrite a trace in another form, atomically. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The trace as the target, into -o's file or standard output. */
static tk_status write_target(tk_command_ctx *x, FILE *f, tk_sink *json, void *target,
                              tk_error *err)
{
    (void)json;
    return tk_convert(x->format, x->in, x->opts, target, f, err);
}

/* An option given for a target it does not apply to (the formats' say:
 * tk_option.targets). Returns `rc`, or the usage error. */
static int target_options(cli *c, int rc, const char *target)
{
    for (size_t i = 0; i < c->table.n && rc < 0; i++) {
        const tk_option *o = c->table.opts[i].o;
        if (o->targets && tk_options_get(c->ctx.opts, o->key ? o->key : o->name) &&
            !cli_in_choices(o->targets, target))
            rc = cli_usage_error(c->cmd->name, "--%s applies to --to %s, not --to %s",
                                 o->name, o->targets, target);
    }
    return rc;
}

/* What does not go with the target; -1 when all does. */
static int check(cli *c, const char *target)
{
    if (!target)
        return cli_usage_error(c->cmd->name, "--to TARGET is required");
    /* --json-hex shapes --to jsonl's numbers; --json alone means nothing */
    if (c->ctx.json_hex && strcmp(target, "jsonl") != 0)
        return cli_usage_error(c->cmd->name, "--json-hex applies to --to jsonl, not --to %s",
                               target);
    if (c->ctx.json_hex)
        return cli_set(c, "json-hex", "1") == EXIT_OK ? target_options(c, -1, target)
                                                      : EXIT_TROUBLE;
    if (c->ctx.json)
        return cli_usage_error(c->cmd->name, "--json does not apply: the output is --to's "
                                             "target (--to jsonl writes JSON Lines)");
    return target_options(c, -1, target);
}

/* A target written as a directory of files (--to parquet: a table each). */
static int write_dir(cli *c, const char *target, const char *dir)
{
    if (!dir || strcmp(dir, "-") == 0)
        return cli_usage_error(c->cmd->name, "--to %s writes a directory: -o DIR", target);
    tk_error err;
    tk_error_clear(&err);
    tk_status st = tk_convert_dir(c->ctx.format, c->ctx.in, c->ctx.opts, target, c->ctx.file,
                                  dir, &err);
    if (st == TK_OK)
        return EXIT_OK;
    /* a write failure names its file (err.file); the trace's, the trace */
    return cli_report(st == TK_EUSAGE ? c->cmd->name : c->ctx.path, &err);
}

static int run(tk_command_ctx *x)
{
    cli *c = x->host_data;
    const char *target = tk_options_get(c->args, "to");
    const char *output = tk_options_get(c->args, "output");
    int rc = check(c, target);
    if (rc < 0)
        rc = cli_open(c);
    if (rc != EXIT_OK)
        return rc;
    if (tk_format_target_is_dir(c->ctx.format, target))
        return write_dir(c, target, output);
    return cli_write_output(c, output ? output : "-", write_target, (void *)target);
}

static const tk_option options[] = {
    {.name = "to", .value = "TARGET", .flags = TK_OPTION_LOCAL,
     .help = "output form (required)"},
    {.name = "output", .letter = 'o', .value = "OUT", .flags = TK_OPTION_LOCAL,
     .help = "output file (default: standard output); a directory for --to parquet"},
    {.name = "trace-id", .value = "ID", .targets = "parquet",
     .help = "the trace_id column's value (default: FILE's base name) so many traces' tables "
             "read as one dataset; left out when DIR is named trace_id=ID (a Hive partition)"},
    {.name = "rows-per-file", .value = "N", .targets = "parquet",
     .help = "split each table into DIR/TABLE/part-NNNNN.parquet of N rows (default: one "
             "DIR/TABLE.parquet)"},
    {.name = "compression", .value = "CODEC", .choices = "zstd snappy none",
     .targets = "parquet", .help = "zstd (default), snappy or none"},
    {.name = "row-group-rows", .value = "N", .targets = "parquet",
     .help = "rows per row group (default 1M): smaller groups let engines skip more"},
    {0}};

const tk_command cli_cmd_convert = {
    .name = "convert",
    .summary = "write the trace in another format or byte order",
    .synopsis = "[OPTIONS] --to TARGET -o OUT FILE",
    .help = "Write the trace as TARGET to OUT ('-' for standard output). The file is\n"
            "written under a temporary name and renamed, so a failure never leaves a\n"
            "partial OUT behind.\n",
    .options = options,
    .run = run,
};
