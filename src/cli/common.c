/* Opening the input, output and error reporting for every command; the
 * host the commands run with. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"

/* The trace the command reads (cli_open), named by out-of-memory errors
 * that come without a file: running out is about the run on it. */
static const char *trace_path;

void cli_report_trace(const char *path) { trace_path = path; }

int cli_report(const char *file, const tk_error *err)
{
    char line[1024];
    tk_error e = *err;
    if (e.status == TK_ENOMEM && !file && !e.file[0])
        file = trace_path;
    const char *limit = e.status == TK_ENOMEM ? cli_memlimit_reached() : NULL;
    if (limit) { /* say which limit: the machine may have memory to spare */
        size_t n = strlen(e.message);
        snprintf(e.message + n, sizeof e.message - n, ": %s", limit);
    }
    fprintf(stderr, "tracekit: %s\n", tk_error_format(&e, file, line, sizeof line));
    return tk_exit_status(err->status);
}

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tracekit: %s: ", command);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (try 'tracekit %s --help')\n", command);
    va_end(ap);
    return EXIT_TROUBLE;
}

int cli_parse_count(const char *arg, uint64_t *v)
{
    tk_error err;
    tk_options *o = tk_options_new(&err);
    int ok = o && tk_options_set(o, "n", arg, &err) == TK_OK &&
             tk_options_get_u64(o, "n", 0, v, &err) == TK_OK;
    tk_options_free(o);
    return ok ? 0 : -1;
}

int cli_exclusive(cli *c, int rc, int clash, const char *a, const char *b)
{
    if (rc >= 0 || !clash)
        return rc;
    return cli_usage_error(c->cmd->name, "%s and %s exclude each other", a, b);
}

int cli_set(cli *c, const char *key, const char *value)
{
    tk_error err;
    if (tk_options_set(c->ctx.opts, key, value, &err) != TK_OK)
        return cli_report(NULL, &err);
    return EXIT_OK;
}

tk_sink *cli_sink(cli *c)
{
    tk_error err;
    tk_sink *s = tk_sink_new(stdout, c->ctx.json ? TK_SINK_JSON : TK_SINK_TEXT, &err);
    if (!s)
        cli_report(NULL, &err);
    else
        tk_sink_set_json_hex(s, c->ctx.json_hex);
    return s;
}

/* Standard output goes through a stream of ours that notes the errno of
 * its first failed write (stdio forgets it once a failed flush dropped the
 * buffer, and a write error must say why); glibc lets a program set
 * stdout. stdout_reported: the failure was reported (it is, once). */
static int stdout_errno, stdout_reported;

static ssize_t stdout_write(void *cookie, const char *buf, size_t n)
{
    (void)cookie;
    cli_progress_output(buf, n); /* erases the progress line on a shared terminal */
    for (size_t done = 0; done < n;) {
        ssize_t w = write(STDOUT_FILENO, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            if (!stdout_errno)
                stdout_errno = errno;
            return -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

void cli_wrap_stdout(void)
{
    cookie_io_functions_t io = {.write = stdout_write};
    FILE *f = fopencookie(NULL, "w", io);
    if (!f)
        return; /* the plain stream still works, without the reason */
    int tty = isatty(STDOUT_FILENO);
    setvbuf(f, NULL, tty ? _IOLBF : _IOFBF, tty ? BUFSIZ : (size_t)1 << 16);
    stdout = f;
}

int cli_report_stdout(void)
{
    fflush(stdout);
    if (!stdout_reported) {
        tk_error err;
        if (stdout_errno)
            tk_error_set(&err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "write failed: %s",
                         strerror(stdout_errno));
        else
            tk_error_set(&err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "write failed");
        tk_error_set_file(&err, "<stdout>");
        cli_report(NULL, &err);
    }
    stdout_reported = 1;
    return EXIT_TROUBLE;
}

int cli_stdout_check(int rc)
{
    if (ferror(stdout) || fflush(stdout) != 0) {
        int out = cli_report_stdout();
        return rc == EXIT_OK ? out : rc;
    }
    return rc;
}

int cli_finish(cli *c, tk_sink *s)
{
    tk_error err;
    tk_error_clear(&err);
    (void)c;
    if (tk_sink_finish(s, &err) == TK_OK)
        return EXIT_OK;
    return ferror(stdout) ? cli_report_stdout() : cli_report(NULL, &err);
}

/* Commit `out` after the writer returned `st` (err: its error), or drop it
 * when the writer failed. A failed write shows in the stream: committing
 * then reports it, with the system's reason, and removes the file. */
static int output_finish(cli *c, tk_output *out, const char *path, tk_status st,
                         const tk_error *err)
{
    tk_error e;
    tk_error_clear(&e);
    if (st == TK_OK || (st == TK_EIO && ferror(tk_output_file(out)))) {
        if (tk_output_commit(out, &e) == TK_OK)
            return EXIT_OK;
        return strcmp(path, "-") == 0 ? cli_report_stdout() : cli_report(NULL, &e);
    }
    tk_output_abort(out);
    /* the writer's own errors: about the trace, or the command's use */
    return cli_report(err->status == TK_EUSAGE ? c->cmd->name : c->ctx.path, err);
}

int cli_write_output(cli *c, const char *path, tk_command_write_fn fn, void *arg)
{
    tk_error err;
    tk_error_clear(&err);
    tk_output *out = tk_output_open(path, &err);
    if (!out)
        return cli_report(NULL, &err);
    FILE *f = tk_output_file(out);
    tk_sink *json = c->ctx.json ? tk_sink_new(f, TK_SINK_JSON, &err) : NULL;
    if (json)
        tk_sink_set_json_hex(json, c->ctx.json_hex);
    tk_status st;
    if (c->ctx.json && !json) {
        st = err.status;
    } else {
        errno = 0;
        st = fn(&c->ctx, f, json, arg, &err);
        if (st == TK_OK && json)
            st = tk_sink_finish(json, &err);
        else if (st == TK_OK && ferror(f))
            st = TK_EIO;
    }
    int rc = output_finish(c, out, path, st, &err);
    tk_sink_free(json);
    return rc;
}
