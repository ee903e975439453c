/* Running a command: its context, the input it opens, and our side of the
 * host interface (include/tracekit/command.h) that the formats' commands
 * print and open through. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"

/* Is `key` set by an option a format's table gave the command? */
static int format_key(const cli *c, const char *key)
{
    for (size_t i = 0; i < c->table.n; i++) {
        const tk_option *o = c->table.opts[i].o;
        if (c->table.opts[i].fmt && strcmp(o->key ? o->key : o->name, key) == 0)
            return 1;
    }
    return 0;
}

/* The options the format reads: all of a common command's; of a format's
 * command, those its formats declare (--func, --endian), which the format
 * of the trace may lack. */
static tk_status check_options(const cli *c, tk_error *err)
{
    const tk_options *o = c->ctx.opts;
    if (c->common)
        return tk_format_check_options(c->ctx.format, o, err);
    tk_options *sub = tk_options_new(err);
    tk_status st = sub ? TK_OK : err->status;
    for (size_t i = 0; i < tk_options_count(o) && st == TK_OK; i++)
        if (format_key(c, tk_options_key(o, i)))
            st = tk_options_add(sub, tk_options_key(o, i), tk_options_value(o, i), err);
    if (st == TK_OK)
        st = tk_format_check_options(c->ctx.format, sub, err);
    tk_options_free(sub);
    return st;
}

int cli_open(cli *c)
{
    tk_error err;
    tk_error_clear(&err);
    tk_command_ctx *x = &c->ctx;
    x->path = strcmp(x->file, "-") == 0 ? "<stdin>" : x->file;
    x->in = tk_input_open(x->file, &err);
    if (!x->in)
        return cli_report(x->path, &err);
    cli_progress_start(c->progress, c->cmd->name, x->path, x->in);
    if (tk_options_get(x->opts, "allow-truncated"))
        tk_input_set_allow_truncated(x->in, 1); /* every reader of it looks there */
    if (c->format_name) {
        x->format = tk_format_find(c->format_name);
    } else {
        x->format = tk_format_probe(x->in, &err);
        if (!x->format)
            return cli_report(x->path, &err);
    }
    /* an option this format does not read is refused, never ignored */
    if (check_options(c, &err) != TK_OK)
        return cli_report(x->path, &err);
    if (!c->common && !tk_format_has_command(x->format, c->cmd))
        return cli_usage_error(c->cmd->name, "%s is a %s trace%s", x->path,
                               tk_format_name(x->format), c->cmd->needs);
    return EXIT_OK;
}

void cli_close(cli *c)
{
    cli_progress_stop();
    tk_input_close(c->ctx.in);
    tk_options_free(c->ctx.opts);
    tk_options_free(c->args);
    free(c->argv);
    cli_table_free(&c->table);
    c->ctx.in = NULL;
    c->ctx.opts = c->args = NULL;
    c->argv = NULL;
}

int cli_run(cli *c, cli_sink_fn fn)
{
    int rc = cli_open(c);
    if (rc != EXIT_OK)
        return rc;
    tk_sink *s = cli_sink(c);
    if (!s)
        return EXIT_TROUBLE;
    tk_error err;
    tk_error_clear(&err);
    tk_status st = fn(c, s, &err);
    int out = cli_finish(c, s);
    if (st != TK_OK && !(st == TK_EIO && ferror(stdout)))
        rc = cli_report(c->ctx.path, &err); /* else reported by cli_finish */
    else
        rc = st != TK_OK ? EXIT_TROUBLE : out;
    tk_sink_free(s);
    return rc;
}

/* ---- the host */

static cli *us(tk_command_ctx *x) { return x->host_data; }

static int host_open(tk_command_ctx *x) { return cli_open(us(x)); }

static int host_report(tk_command_ctx *x, const char *file, const tk_error *err)
{
    (void)x;
    return cli_report(file, err);
}

static int host_usage(tk_command_ctx *x, const char *message)
{
    return cli_usage_error(x->command->name, "%s", message);
}

static void host_note(tk_command_ctx *x, const char *line)
{
    (void)x;
    fprintf(stderr, "tracekit: %s\n", line);
}

static tk_sink *host_sink(tk_command_ctx *x) { return cli_sink(us(x)); }

static int host_finish(tk_command_ctx *x, tk_sink *s) { return cli_finish(us(x), s); }

static int host_write_output(tk_command_ctx *x, const char *path, tk_command_write_fn fn,
                             void *arg)
{
    return cli_write_output(us(x), path, fn, arg);
}

static int host_out_failed(tk_command_ctx *x)
{
    (void)x;
    return cli_report_stdout();
}

const tk_command_host cli_host = {
    .open = host_open,
    .report = host_report,
    .usage = host_usage,
    .note = host_note,
    .sink = host_sink,
    .finish = host_finish,
    .write_output = host_write_output,
    .out_failed = host_out_failed,
};

/* ---- a command from start to end */

static int init(cli *c, const tk_command *cmd, int common)
{
    memset(c, 0, sizeof *c);
    c->cmd = cmd;
    c->common = common;
    c->ctx.command = cmd;
    c->ctx.out = stdout;
    c->ctx.host = &cli_host;
    c->ctx.host_data = c;
    tk_error err;
    if (!(c->ctx.opts = tk_options_new(&err)) || !(c->args = tk_options_new(&err)))
        return cli_report(NULL, &err);
    return cli_table_build(c);
}

int cli_command_main(const tk_command *cmd, int common, int argc, char **argv)
{
    cli c;
    int rc = init(&c, cmd, common);
    if (rc == EXIT_OK && (rc = cli_parse(&c, argc, argv)) < 0) {
        cli_memlimit_apply();
        cli_report_trace(strcmp(c.ctx.file, "-") == 0 ? "<stdin>" : c.ctx.file);
        rc = cmd->run(&c.ctx);
    }
    tk_truncation t;
    if (c.ctx.in && tk_input_truncation(c.ctx.in, &t))
        fprintf(stderr, "tracekit: warning: %s: %s\n", c.ctx.path, t.message);
    cli_close(&c);
    cli_report_trace(NULL);
    return rc;
}
