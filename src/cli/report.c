/* tracekit report: the main analysis of a trace in one page. */
#include "cli.h"

static tk_status report(cli *c, tk_sink *s, tk_error *err)
{
    return tk_report(c->ctx.format, c->ctx.in, c->ctx.opts, s, err);
}

static int run(tk_command_ctx *x) { return cli_run(x->host_data, report); }

const tk_command cli_cmd_report = {
    .name = "report",
    .summary = "the format's main analysis: facts and top findings",
    .synopsis = "[OPTIONS] FILE",
    .help = "The format's main analysis in one page; what it holds for each format\n"
            "is below.\n",
    .run = run,
};
