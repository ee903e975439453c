/* What a format supplies to the registry (libpcap-style probe table). */
#ifndef TK_CORE_FORMAT_OPS_H
#define TK_CORE_FORMAT_OPS_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/command.h>
#include <tracekit/format.h>

/* Bytes handed to probes: enough for every format's signature. */
#define TK_PROBE_BYTES 4096

/* The lowest score that names a format: below it (or when the first
 * TK_PROBE_BYTES are all zero) the input is "not a recognized trace".
 * Scores in use (docs/architecture.md has them all): 60-100 a magic number
 * or header that checks out; 80 casemate's first record; 50 a plausible
 * header cut short (the format's reader then reports the truncation); 20
 * Cacheray records that decode and look real; 15 an XRay header with
 * nonzero padding; 10 a casemate log with only a '!' line. */
#define TK_PROBE_MIN_SCORE 10

struct tk_format {
    const char *name;
    const char *description;
    /* Confidence 0 (not mine) .. 100 (certain) from the first `n` bytes;
     * `whole` says these are all the bytes there are. A file that starts
     * like the format but is too short to hold its header must still score
     * at least TK_PROBE_MIN_SCORE, so its reader names the truncation. */
    int (*probe)(const uint8_t *head, size_t n, int whole);
    tk_status (*info)(tk_input *, const tk_options *, tk_sink *, tk_error *);
    tk_status (*dump)(tk_input *, const tk_options *, tk_sink *, tk_error *);
    tk_status (*validate)(tk_input *, const tk_options *, tk_sink *,
                          uint64_t *nwarnings, tk_error *);
    tk_status (*convert)(tk_input *, const tk_options *, const char *target,
                         FILE *, tk_error *);
    tk_status (*report)(tk_input *, const tk_options *, tk_sink *, tk_error *);
    /* report --html: the report as one self-contained page on the FILE
     * (src/export/html/html.h); NULL: "no HTML report yet". */
    tk_status (*report_html)(tk_input *, const tk_options *, FILE *, tk_error *);
    /* Targets written as a directory (the shared Parquet tables): `source`
     * is the input's path, `dir` the output directory. */
    tk_status (*convert_dir)(tk_input *, const tk_options *, const char *target,
                             const char *source, const char *dir, tk_error *);
    const char *const *targets;     /* NULL-terminated, directory ones too */
    const char *const *dir_targets; /* those convert_dir writes */
    const char *const *options; /* keys it reads beyond skip, limit, strict */
    /* What the command line shows and runs (include/tracekit/command.h):
     * its own commands (NULL-terminated), the options it reads in
     * commands (each tk_option says in which), and its help on common
     * commands and targets. */
    const tk_command *const *commands;
    const tk_option *command_options;
    const struct tk_format_help *help; /* ends with a NULL command */
};

/* One paragraph of a format's help: on `command` ("report") or, with a
 * `target`, on a conversion target (tk_format_help). */
struct tk_format_help {
    const char *command, *target, *text;
};

/* The option keys of the directory targets (src/export/parquet/tables.h),
 * which every format with convert_dir reads. */
#define TK_DIR_TARGET_OPTION_KEYS "rows-per-file", "trace-id", "compression", "row-group-rows"

/* Every format's help on convert --to jsonl. */
extern const char tk_fmt_jsonl_help[];

/* convert --to jsonl's sink: JSON Lines as dump --json writes them, with
 * the option "json-hex" as --json-hex (docs/json.md). NULL with `err`
 * filled when out of memory. */
tk_sink *tk_fmt_jsonl_sink(FILE *out, const tk_options *o, tk_error *err);

/* Each format defines one of these in src/<format>/format.c. */
extern const struct tk_format tk_fmt_cacheray;
extern const struct tk_format tk_fmt_xray;
extern const struct tk_format tk_fmt_casemate;
extern const struct tk_format tk_fmt_ucir;
extern const struct tk_format tk_fmt_usercorn;

#endif
