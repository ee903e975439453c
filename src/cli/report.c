/* tracekit report: the main analysis of a trace in one page, as text,
 * JSON or (--html) one self-contained HTML file. */
#include <string.h>

#include "cli.h"

static tk_status report(cli *c, tk_sink *s, tk_error *err)
{
    return tk_report(c->ctx.format, c->ctx.in, c->ctx.opts, s, err);
}

/* -o's file: the HTML page, or the text or JSON report. */
static tk_status write_report(tk_command_ctx *x, FILE *f, tk_sink *json, void *html,
                              tk_error *err)
{
    if (html)
        return tk_report_html(x->format, x->in, x->opts, f, err);
    if (json)
        return tk_report(x->format, x->in, x->opts, json, err);
    tk_sink *s = tk_sink_new(f, TK_SINK_TEXT, err);
    if (!s)
        return err->status;
    tk_status st = tk_report(x->format, x->in, x->opts, s, err);
    tk_error e;
    if (tk_sink_finish(s, &e) != TK_OK && st == TK_OK) {
        *err = e;
        st = e.status;
    }
    tk_sink_free(s);
    return st;
}

static int run(tk_command_ctx *x)
{
    cli *c = x->host_data;
    const char *output = tk_options_get(c->args, "output");
    int html = tk_options_get(c->args, "html") != NULL;
    if (html && (c->ctx.json || c->ctx.json_hex))
        return cli_usage_error(c->cmd->name, "--html and --%s exclude each other",
                               c->ctx.json_hex ? "json-hex" : "json");
    if (!html && !output)
        return cli_run(c, report);
    int rc = cli_open(c);
    if (rc != EXIT_OK)
        return rc;
    return cli_write_output(c, output ? output : "-", write_report, html ? (void *)c : NULL);
}

static const tk_option options[] = {
    {.name = "html", .flags = TK_OPTION_LOCAL,
     .help = "one self-contained HTML page to open in a browser (inline CSS, JavaScript "
             "and SVG; no network; at most 5 MB)"},
    {.name = "output", .letter = 'o', .value = "OUT", .flags = TK_OPTION_LOCAL,
     .help = "write to OUT, whole or not at all (default: standard output)"},
    {0}};

const tk_command cli_cmd_report = {
    .name = "report",
    .summary = "the format's main analysis: facts and top findings",
    .synopsis = "[OPTIONS] [--html] [-o OUT] FILE",
    .help = "The format's main analysis in one page; what it holds for each format\n"
            "is below. --html writes it as a page to open in a browser, with what\n"
            "the format's HTML report adds (docs/formats/).\n",
    .options = options,
    .run = run,
};
