/* Shared plumbing of the tracekit subcommands (public API only). */
#ifndef TK_CLI_H
#define TK_CLI_H

#include <getopt.h>
#include <tracekit/tracekit.h>

/* Exit statuses. */
enum { EXIT_OK = 0, EXIT_BAD_TRACE = 1, EXIT_TROUBLE = 2 };

/* Options every trace-reading command accepts. */
enum {
    OPT_FORMAT = 0x100,
    OPT_JSON,
    OPT_JSON_HEX,
    OPT_ENDIAN,
    OPT_HELP,
    OPT_NO_DEMANGLE,
    OPT_DEMANGLE,
    OPT_THREADS,
    OPT_MAX_FRAME,
    OPT_PROGRESS,
    OPT_THREAD, /* selections (selection.c) */
    OPT_RANGE,
    OPT_ADDR,
    OPT_FUNC,
    OPT_FIRST_COMMAND_OPTION /* commands number their own from here */
};

/* --progress auto|always|never (progress.h); every command reading a trace. */
#define CLI_PROGRESS_LONG_OPTION {"progress", required_argument, NULL, OPT_PROGRESS}

/* What every trace-reading command takes; a command for one format adds
 * that format's options below (and no other's: an option never does
 * nothing). */
#define CLI_BASE_LONG_OPTIONS                                                \
    {"format", required_argument, NULL, OPT_FORMAT},                         \
    {"json", no_argument, NULL, OPT_JSON},                                   \
    {"json-hex", no_argument, NULL, OPT_JSON_HEX},                           \
    CLI_PROGRESS_LONG_OPTION,                                                \
    {"help", no_argument, NULL, 'h'}
#define CLI_CACHERAY_LONG_OPTIONS {"endian", required_argument, NULL, OPT_ENDIAN}
#define CLI_UCIR_LONG_OPTIONS                                                \
    {"threads", required_argument, NULL, OPT_THREADS},                       \
    {"max-frame", required_argument, NULL, OPT_MAX_FRAME}
/* The commands every format answers (info, dump, validate, ...). */
#define CLI_COMMON_LONG_OPTIONS                                              \
    CLI_BASE_LONG_OPTIONS, CLI_CACHERAY_LONG_OPTIONS, CLI_UCIR_LONG_OPTIONS

/* Names for XRay function ids (account, stack, convert, report). */
#define CLI_XRAY_MAP_LONG_OPTIONS                                            \
    {"instr-map", required_argument, NULL, 'm'},                            \
    {"instr_map", required_argument, NULL, 'm'},                            \
    {"no-demangle", no_argument, NULL, OPT_NO_DEMANGLE},                    \
    {"demangle", no_argument, NULL, OPT_DEMANGLE}

#define CLI_XRAY_MAP_HELP                                                    \
    "  -m, --instr-map BIN   XRay: binary (or YAML map) with the xray_instr_map\n" \
    "                        section, to name functions (also --instr_map)\n" \
    "  --no-demangle         XRay: keep C++ names mangled (--demangle: the\n" \
    "                        default, LLVM's spelling)\n"

/* --json-hex, in the common options' columns (docs/json.md). */
#define CLI_JSON_HEX_HELP                                                    \
    "  --json-hex        --json with addresses and integers past 2^53 as\n"  \
    "                    \"0x...\" strings (jq 1.6, JavaScript)\n"

#define CLI_COMMON_HELP                                                      \
    "  --format NAME     read the input as NAME instead of detecting it\n"   \
    "  --endian ORDER    cacheray byte order: little, big or auto (default)\n" \
    "  --threads N       ucir: frame decoding threads (default: all cores)\n" \
    "  --max-frame SIZE  ucir: largest inflated frame accepted (default 256M)\n" \
    "  --json            machine-readable JSON output\n"                     \
    CLI_JSON_HEX_HELP                                                        \
    "  --progress WHEN   progress line on stderr: auto (on a terminal, after\n" \
    "                    a second), always or never\n"                       \
    "  -h, --help        show this help\n"

typedef struct cli {
    const char *command;
    const char *format_name; /* --format */
    int json;
    int json_hex; /* --json-hex (sets json too) */
    int progress; /* --progress: CLI_PROGRESS_AUTO, ... */
    tk_options *opts;
    /* set by cli_open */
    const char *path;
    tk_input *in;
    const tk_format *fmt;
    char **args; /* cli_parse's respelled arguments (optarg points here) */
} cli;

/* Initialise; returns EXIT_TROUBLE on allocation failure. */
int cli_init(cli *c, const char *command);
/* Handle a common option; returns 1 if it was one, 0 if not, -1 on error. */
int cli_common_option(cli *c, int opt, const char *arg);
/* Open the input and pick its format. Returns an exit status (0 = ok). */
int cli_open(cli *c, const char *path);
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
 * for err->status. */
int cli_report(const char *file, const tk_error *err);
/* A size like 64M (K, M, G suffixes, nonzero) for `option`; on a bad value
 * prints the usage error and returns -1. */
int cli_parse_size(const char *command, const char *option, const char *arg, uint64_t *out);

/* Print "tracekit: COMMAND: message" and return EXIT_TROUBLE. */
int cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int cli_exit_status(tk_status st);
/* "A and B exclude each other" (both options named), for the command:
 * returns EXIT_TROUBLE, or `rc` when `clash` is 0 or rc is already set
 * (>= 0). For checks after cli_parse: rc = cli_exclusive(c, rc, x && y,
 * "--x", "--y"). */
int cli_exclusive(cli *c, int rc, int clash, const char *a, const char *b);
/* A count as the library reads one (decimal, 0x hex, K/M/G suffix): 0 and
 * *v set, or -1. */
int cli_parse_count(const char *arg, uint64_t *v);
/* Set an option, reporting allocation failure. */
int cli_set(cli *c, const char *key, const char *value);

/* For the XRay commands: after cli_parse, open `path`, check it is XRay
 * and start a reader. On success *r is set (close with cli_close after
 * freeing it); otherwise c is closed and the exit status returned. */
int cli_open_xray(cli *c, int parse_rc, const char *path, tk_xray_reader **r);

/* The instrumentation map given with -m (NULL without one, or on error
 * with *rc set to the exit status after printing the error). */
tk_xray_map *cli_load_map(cli *c, int *rc);

int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_account(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_stack(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_bbm(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_cachesim(int argc, char **argv);

/* Parse a command's arguments: common options, plus command options handed
 * to `extra` (which returns 1 handled, -1 error). llvm-xray's spellings of
 * the options are accepted too (spelling.h). Exactly one FILE operand is
 * expected and stored in *path. Returns -1 to go on, or an exit status
 * to stop with (after --help, or a usage error). */
typedef int (*cli_extra_fn)(cli *c, int opt, const char *arg);
int cli_parse(cli *c, int argc, char **argv, const char *shortopts,
              const struct option *longopts, const char *help,
              cli_extra_fn extra, const char **path);
/* A sink for this command's style on stdout (NULL: message printed). */
tk_sink *cli_sink(cli *c);
/* Finish the sink and report a write failure. Returns an exit status. */
int cli_finish(cli *c, tk_sink *s);
/* The body of most commands: after cli_parse returned `parse_rc`, open
 * `path`, run `fn` with a stdout sink, flush what it wrote (also after an
 * error), report any error, close. Returns the exit status. */
typedef tk_status (*cli_sink_fn)(cli *c, tk_sink *s, tk_error *err);
int cli_run(cli *c, int parse_rc, const char *path, cli_sink_fn fn);

/* Writes a command's result: with --json into `json` (a sink over `f`),
 * else as text into `f`. Returns TK_EIO when a write failed (errno set),
 * or another status with err filled. */
typedef tk_status (*cli_write_fn)(cli *c, FILE *f, tk_sink *json, void *ctx,
                                  tk_error *err);
/* Run `fn` into `path` (-o OUT, '-' for standard output), written whole or
 * not at all; a write failure is reported with the system's reason.
 * Returns the exit status. */
int cli_write_output(cli *c, const char *path, cli_write_fn fn, void *ctx);

#endif
