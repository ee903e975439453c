/* Shared plumbing of the tracekit command line (public API only). The
 * commands are tables (include/tracekit/command.h): the common ones here
 * (info.c, dump.c, ...), every format answers; the formats' own from the
 * registry. One driver parses any command's arguments from its table,
 * prints its help and runs it with a context whose host is ours. */
#ifndef TK_CLI_H
#define TK_CLI_H

#include <getopt.h>
#include <tracekit/tracekit.h>

/* Exit statuses. */
enum { EXIT_OK = TK_EXIT_OK, EXIT_BAD_TRACE = TK_EXIT_FAILED, EXIT_TROUBLE = TK_EXIT_TROUBLE };

/* The common commands (every format answers them), in --help's order. */
extern const tk_command cli_cmd_info, cli_cmd_dump, cli_cmd_validate, cli_cmd_convert,
    cli_cmd_report;

/* An option of the command being run: the descriptor that parses it, and
 * who declared it. */
typedef struct cli_opt {
    const tk_option *o;
    const tk_format *fmt; /* a format's option (NULL: the command's, ours) */
    int program;          /* one of ours (--format, --json, ...) */
} cli_opt;

/* Every option a command takes, for getopt_long (options.c). */
typedef struct cli_table {
    cli_opt *opts;
    size_t n;
    struct option *longopts; /* one per name, aliases included */
    size_t nlong;
    char shortopts[128];
} cli_table;

typedef struct cli {
    tk_command_ctx ctx;      /* what the command sees; host_data is us */
    const tk_command *cmd;
    int common;              /* one of ours: the format checks its options */
    const char *format_name; /* --format */
    int progress;            /* --progress: CLI_PROGRESS_AUTO, ... */
    tk_options *args;        /* a common command's own arguments (LOCAL) */
    char **argv;             /* the respelled arguments (values point here) */
    cli_table table;
} cli;

/* Run command `cmd` (`common`: one of ours) with argv[0] its name.
 * Returns the exit status. */
int cli_command_main(const tk_command *cmd, int common, int argc, char **argv);

/* ---- options.c: the table, parsing, --list-options */

/* Build c's table: the command's options, the formats' options of it, and
 * ours. Returns an exit status (0 = ok). */
int cli_table_build(cli *c);
void cli_table_free(cli_table *t);
/* Parse the arguments into c->ctx (options, FILE). Returns -1 to go on,
 * or an exit status to stop with (after --help, or a usage error). */
int cli_parse(cli *c, int argc, char **argv);
/* Whether `value` is one of the blank-separated `choices`. */
int cli_in_choices(const char *choices, const char *value);

/* ---- memlimit.c: --max-memory (RLIMIT_DATA) */

/* A size (K, M, G, T suffixes; an optional B or iB), or 0/none for no
 * limit, into *bytes: 0, or -1 when it does not read as one. */
int cli_memlimit_parse(const char *arg, uint64_t *bytes);
/* --max-memory ARG given: 0, or -1 (a usage error to report). */
int cli_memlimit_option(const char *arg);
/* Before the command runs: set the limit (--max-memory's, or the default,
 * 3/4 of physical memory; none in a sanitized build). */
void cli_memlimit_apply(void);
/* "--max-memory 64M reached" while a limit is in force, else NULL: what
 * an out-of-memory error adds. */
const char *cli_memlimit_reached(void);

/* ---- help.c */

/* The command's help, from its table and the formats' help texts. */
void cli_help(const cli *c, FILE *out);

/* ---- common.c: opening, output and errors (also the host's callbacks) */

/* The host the commands run with (common.c). */
extern const tk_command_host cli_host;

/* Open c->ctx.file and pick its format; a common command's options are
 * checked against the format, a format's command against its owner.
 * Returns an exit status (0 = ok). */
int cli_open(cli *c);
void cli_close(cli *c);

/* Route standard output through a stream that keeps the reason of a failed
 * write (call first thing in main). */
void cli_wrap_stdout(void);
/* Standard output failed: print "tracekit: <stdout>: write failed: REASON"
 * (once per run) and return EXIT_TROUBLE. */
int cli_report_stdout(void);
/* After a command (or help) wrote to standard output: flush it, and report
 * a failure unless reported already. Returns `rc`, or EXIT_TROUBLE. */
int cli_stdout_check(int rc);

/* Print "tracekit: FILE: offset ... : message" and return the exit status
 * for err->status. Out of memory names the trace being read when neither
 * `file` nor err->file says which, and the --max-memory limit reached. */
int cli_report(const char *file, const tk_error *err);
/* The trace being read, for cli_report (NULL: none). */
void cli_report_trace(const char *path);
/* Print "tracekit: COMMAND: message (try ...)" and return EXIT_TROUBLE. */
int cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* `rc` when set already (>= 0) or there is no `clash`, else the usage
 * error "A and B exclude each other". */
int cli_exclusive(cli *c, int rc, int clash, const char *a, const char *b);
/* A count as the library reads one (decimal, 0x hex, K/M/G suffix): 0 and
 * *v set, or -1. */
int cli_parse_count(const char *arg, uint64_t *v);
/* Set an option, reporting allocation failure. */
int cli_set(cli *c, const char *key, const char *value);

/* A sink for this command's style on stdout (NULL: message printed). */
tk_sink *cli_sink(cli *c);
/* Finish the sink and report a write failure. Returns an exit status. */
int cli_finish(cli *c, tk_sink *s);
/* The body of most common commands: open, run `fn` with a stdout sink,
 * flush what it wrote (also after an error), report any error. Returns
 * the exit status. */
typedef tk_status (*cli_sink_fn)(cli *c, tk_sink *s, tk_error *err);
int cli_run(cli *c, cli_sink_fn fn);
/* Run `fn` into `path` (-o OUT, '-' for standard output), written whole or
 * not at all; a write failure is reported with the system's reason.
 * Returns the exit status. */
int cli_write_output(cli *c, const char *path, tk_command_write_fn fn, void *arg);

#endif
