/* Option handling, input opening and error reporting for every command. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "selection.h"
#include "spelling.h"

int cli_exit_status(tk_status st)
{
    switch (st) {
    case TK_OK: return EXIT_OK;
    case TK_EMALFORMED:
    case TK_EVIOLATION: return EXIT_BAD_TRACE;
    default: return EXIT_TROUBLE;
    }
}

int cli_report(const char *file, const tk_error *err)
{
    char line[1024];
    fprintf(stderr, "tracekit: %s\n", tk_error_format(err, file, line, sizeof line));
    return cli_exit_status(err->status);
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
    return cli_usage_error(c->command, "%s and %s exclude each other", a, b);
}

int cli_init(cli *c, const char *command)
{
    memset(c, 0, sizeof *c);
    c->command = command;
    tk_error err;
    c->opts = tk_options_new(&err);
    return c->opts ? EXIT_OK : cli_report(NULL, &err);
}

int cli_set(cli *c, const char *key, const char *value)
{
    tk_error err;
    if (tk_options_set(c->opts, key, value, &err) != TK_OK)
        return cli_report(NULL, &err);
    return EXIT_OK;
}

int cli_common_option(cli *c, int opt, const char *arg)
{
    switch (opt) {
    case OPT_FORMAT:
        if (!tk_format_find(arg)) {
            cli_usage_error(c->command, "unknown format '%s'", arg);
            return -1;
        }
        c->format_name = arg;
        return 1;
    case OPT_JSON:
        c->json = 1;
        return 1;
    case OPT_JSON_HEX:
        c->json = c->json_hex = 1;
        return 1;
    case 'm':
        return cli_set(c, "instr-map", arg) == EXIT_OK ? 1 : -1;
    case OPT_NO_DEMANGLE:
        return cli_set(c, "demangle", "0") == EXIT_OK ? 1 : -1;
    case OPT_DEMANGLE:
        return cli_set(c, "demangle", "1") == EXIT_OK ? 1 : -1;
    case OPT_THREADS:
        return cli_set(c, "threads", arg) == EXIT_OK ? 1 : -1;
    case OPT_PROGRESS:
        if ((c->progress = cli_progress_mode(arg)) < 0) {
            cli_usage_error(c->command, "--progress takes auto, always or never, not '%s'", arg);
            return -1;
        }
        return 1;
    case OPT_MAX_FRAME:
        return cli_set(c, "max-frame", arg) == EXIT_OK ? 1 : -1;
    case OPT_ENDIAN:
        if (strcmp(arg, "little") && strcmp(arg, "big") && strcmp(arg, "auto")) {
            cli_usage_error(c->command, "--endian takes little, big or auto, not '%s'", arg);
            return -1;
        }
        return cli_set(c, "endian", arg) == EXIT_OK ? 1 : -1;
    default:
        return cli_select_option(c, opt, arg); /* --thread, --range, ... */
    }
}

int cli_open(cli *c, const char *path)
{
    tk_error err;
    tk_error_clear(&err);
    c->path = strcmp(path, "-") == 0 ? "<stdin>" : path;
    c->in = tk_input_open(path, &err);
    if (!c->in)
        return cli_report(c->path, &err);
    cli_progress_start(c->progress, c->command, c->path, c->in);
    if (c->format_name) {
        c->fmt = tk_format_find(c->format_name);
    } else {
        c->fmt = tk_format_probe(c->in, &err);
        if (!c->fmt)
            return cli_report(c->path, &err);
    }
    /* an option this format does not read is refused, never ignored */
    if (tk_format_check_options(c->fmt, c->opts, &err) != TK_OK)
        return cli_report(c->path, &err);
    return EXIT_OK;
}

void cli_close(cli *c)
{
    cli_progress_stop();
    tk_input_close(c->in);
    tk_options_free(c->opts);
    free(c->args);
    c->in = NULL;
    c->opts = NULL;
    c->args = NULL;
}

/* Did getopt_long fail on the long option `arg` (--keep-going=1, --sort
 * without a value), whose letter it then leaves in optopt? */
static int long_failed(const char *arg, const struct option *longopts, int letter)
{
    if (strncmp(arg, "--", 2) != 0)
        return 0;
    size_t n = strcspn(arg + 2, "=");
    for (const struct option *o = longopts; o->name; o++)
        if (o->val == letter && strncmp(o->name, arg + 2, n) == 0)
            return 1;
    return 0;
}

/* `CMD --list-options` (not in the help): the command's option table, one
 * option a line, for the test that keeps help, man page and README true. */
static int list_options(const char *shortopts, const struct option *longopts)
{
    for (const char *p = shortopts; *p; p++)
        if (*p != ':')
            printf("-%c\n", *p);
    for (const struct option *o = longopts; o->name; o++) {
        const char *letter = o->val > 0 && o->val < 0x100 && o->val != ':'
                                 ? strchr(shortopts, o->val) : NULL;
        if (letter) /* the same option: either spelling documents it */
            printf("--%s -%c\n", o->name, o->val);
        else
            printf("--%s\n", o->name);
    }
    return EXIT_OK;
}

int cli_parse(cli *c, int argc, char **argv, const char *shortopts,
              const struct option *longopts, const char *help,
              cli_extra_fn extra, const char **path)
{
    int opt;
    opterr = 0;
    optind = 1;
    if (argc == 2 && strcmp(argv[1], "--list-options") == 0)
        return list_options(shortopts, longopts);
    c->args = argv = cli_spell_llvm(&argc, argv, shortopts, longopts);
    if (!argv) {
        fprintf(stderr, "tracekit: out of memory\n");
        return EXIT_TROUBLE;
    }
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (opt == 'h') {
            fputs(help, stdout);
            return EXIT_OK;
        }
        if (opt == '?' || opt == ':') {
            const char *bad = argv[optind - 1];
            if (optopt && optopt < 0x100 && !long_failed(bad, longopts, optopt))
                return cli_usage_error(c->command, "bad option '-%c' or missing value", optopt);
            return cli_usage_error(c->command, "bad option '%s' or missing value", bad);
        }
        int r = cli_common_option(c, opt, optarg);
        if (r == 0 && extra)
            r = extra(c, opt, optarg);
        if (r < 0)
            return EXIT_TROUBLE;
        if (r == 0)
            return cli_usage_error(c->command, "option '%s' is not for this command",
                                   argv[optind - 1]);
    }
    if (optind >= argc)
        return cli_usage_error(c->command, "missing FILE");
    if (optind + 1 < argc)
        return cli_usage_error(c->command, "unexpected argument '%s'", argv[optind + 1]);
    *path = argv[optind];
    return -1;
}

tk_sink *cli_sink(cli *c)
{
    tk_error err;
    tk_sink *s = tk_sink_new(stdout, c->json ? TK_SINK_JSON : TK_SINK_TEXT, &err);
    if (!s)
        cli_report(NULL, &err);
    else
        tk_sink_set_json_hex(s, c->json_hex);
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

int cli_run(cli *c, int parse_rc, const char *path, cli_sink_fn fn)
{
    int rc = parse_rc < 0 ? cli_open(c, path) : parse_rc;
    if (rc == EXIT_OK && c->in) {
        tk_sink *s = cli_sink(c);
        tk_error err;
        tk_error_clear(&err);
        if (!s) {
            rc = EXIT_TROUBLE;
        } else {
            tk_status st = fn(c, s, &err);
            int out = cli_finish(c, s);
            if (st != TK_OK && !(st == TK_EIO && ferror(stdout)))
                rc = cli_report(c->path, &err); /* else reported by cli_finish */
            else
                rc = st != TK_OK ? EXIT_TROUBLE : out;
        }
        tk_sink_free(s);
    }
    cli_close(c);
    return rc;
}

int cli_open_xray(cli *c, int parse_rc, const char *path, tk_xray_reader **r)
{
    *r = NULL;
    int rc = parse_rc < 0 ? cli_open(c, path) : parse_rc;
    if (rc == EXIT_OK && c->in) {
        tk_error err;
        tk_error_clear(&err);
        if (strcmp(tk_format_name(c->fmt), "xray") != 0)
            rc = cli_usage_error(c->command, "%s is a %s trace; %s needs XRay", c->path,
                                 tk_format_name(c->fmt), c->command);
        else if (!(*r = cli_xray_reader(c, &err))) /* with the selection */
            rc = cli_report(c->path, &err);
    }
    if (!*r)
        cli_close(c);
    return rc;
}

tk_xray_map *cli_load_map(cli *c, int *rc)
{
    const char *path = tk_options_get(c->opts, "instr-map");
    tk_error err;
    tk_error_clear(&err);
    *rc = EXIT_OK;
    if (!path)
        return NULL;
    tk_xray_map *m = tk_xray_map_open(path, &err);
    if (!m) {
        *rc = cli_report(path, &err);
        return NULL;
    }
    const char *d = tk_options_get(c->opts, "demangle");
    if (d && strcmp(d, "0") == 0)
        tk_xray_map_set_demangle(m, 0);
    return m;
}

int cli_parse_size(const char *command, const char *option, const char *arg, uint64_t *out)
{
    char *end;
    unsigned long long v = strtoull(arg, &end, 10);
    int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    if (*arg < '0' || *arg > '9' || (shift && end[1]) || (!shift && *end) || v == 0 ||
        v > (UINT64_MAX >> shift)) {
        cli_usage_error(command, "%s takes a size like 64M, not '%s'", option, arg);
        return -1;
    }
    *out = (uint64_t)v << shift;
    return 0;
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
    return cli_report(err->status == TK_EUSAGE ? c->command : c->path, err);
}

int cli_write_output(cli *c, const char *path, cli_write_fn fn, void *ctx)
{
    tk_error err;
    tk_error_clear(&err);
    tk_output *out = tk_output_open(path, &err);
    if (!out)
        return cli_report(NULL, &err);
    FILE *f = tk_output_file(out);
    tk_sink *json = c->json ? tk_sink_new(f, TK_SINK_JSON, &err) : NULL;
    if (json)
        tk_sink_set_json_hex(json, c->json_hex);
    tk_status st;
    if (c->json && !json) {
        st = err.status;
    } else {
        errno = 0;
        st = fn(c, f, json, ctx, &err);
        if (st == TK_OK && json)
            st = tk_sink_finish(json, &err);
        else if (st == TK_OK && ferror(f))
            st = TK_EIO;
    }
    int rc = output_finish(c, out, path, st, &err);
    tk_sink_free(json);
    return rc;
}
