/* tracekit info: a summary of one trace. */
#include "cli.h"

static tk_status info(cli *c, tk_sink *s, tk_error *err)
{
    return tk_info(c->ctx.format, c->ctx.in, c->ctx.opts, s, err);
}

static int run(tk_command_ctx *x) { return cli_run(x->host_data, info); }

const tk_command cli_cmd_info = {
    .name = "info",
    .summary = "summarize a trace: format, sizes, record counts",
    .synopsis = "[OPTIONS] FILE",
    .help = "Summarize a trace: detected format, byte order, size, record counts by\n"
            "type, threads, address range and type annotations.\n"
            "\n"
            "With a selection (the options of each format below), the summary is of\n"
            "the records selected.\n",
    .run = run,
};
