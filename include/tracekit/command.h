/* tracekit — commands and their options, as tables the formats own.
 *
 * Besides the commands every format answers (<tracekit/format.h>: info,
 * dump, validate, convert, report), a format may own commands of its own
 * (XRay's account, casemate's bbm, ...): each is a tk_command with its
 * options, found through the registry below. A format also declares the
 * options it reads in the common commands (Cacheray's --endian, XRay's
 * --instr-map). A program such as the tracekit command line builds its
 * argument parser and its help from these tables, parses the arguments
 * into a tk_options (keys as the options say), and runs a command with a
 * tk_command_ctx: the input, standard output and the reporting of
 * problems are the program's (tk_command_host), so that commands print
 * what the program's own commands print.
 *
 * The tables are static (never freed) and the functions below are safe to
 * call from any thread; a command runs with its ctx on one thread at a
 * time. Errors follow <tracekit/tracekit.h>. */
#ifndef TRACEKIT_COMMAND_H
#define TRACEKIT_COMMAND_H

#include <stdio.h>
#include <tracekit/error.h>
#include <tracekit/format.h>
#include <tracekit/input.h>
#include <tracekit/sink.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* ---- options */

typedef struct tk_option tk_option;

/* An option's own parser: check `value` and store what it means in `o`
 * (usually under opt->key). TK_OK, or TK_EUSAGE with a message naming the
 * option ("--top takes a number, not 'x'"), or TK_ENOMEM. */
typedef tk_status (*tk_option_fn)(tk_options *o, const tk_option *opt, const char *value,
                                  tk_error *err);

/* tk_option.flags */
enum {
    /* Each use adds a value (tk_options_add) instead of replacing it. */
    TK_OPTION_REPEAT = 1u << 0,
    /* Another spelling of the option before it in the table (the same
     * letter, key and parsing); help names it with that one. */
    TK_OPTION_ALIAS = 1u << 1,
    /* Taken but not listed in help (its text says why: validate takes the
     * selection options only to refuse them). */
    TK_OPTION_HIDDEN = 1u << 2,
    /* One of the program's own options (--format, --json, --json-hex) with
     * this command's help; with `choices`, the values listed are this
     * option's (stored under `key`) and any other is the program's
     * (account's --format: text or csv, else the input's format). */
    TK_OPTION_SHARED = 1u << 3,
    /* The command's own argument, kept from the options the format reads
     * (convert's --to, -o). */
    TK_OPTION_LOCAL = 1u << 4
};

/* One option: --name, -letter, with or without a value. Unless it has its
 * own `parse`, a flag stores `set` ("1" when NULL) and an option with a
 * value stores the value, under `key` (`name` when NULL), after checking
 * it is among `choices` when there are some. */
struct tk_option {
    const char *name;     /* long name, without "--"; NULL ends a table */
    char letter;          /* short option, 0 for none */
    const char *value;    /* the value's name in help ("N"); NULL: a flag */
    const char *help;     /* one paragraph, wrapped by whoever prints it */
    const char *key;      /* the tk_options key; NULL: name */
    const char *set;      /* what a flag stores; NULL: "1" */
    const char *choices;  /* values accepted, blank-separated; NULL: any */
    tk_option_fn parse;   /* NULL: the rules above */
    unsigned flags;       /* TK_OPTION_* */
    /* In a format's table (tk_format_command_options): the commands it is
     * an option of, blank-separated ("info dump convert report"). */
    const char *commands;
    /* For convert: the targets it applies to, blank-separated; NULL: all. */
    const char *targets;
};

/* Whether `opt` is an option of the command called `command` (it is
 * listed in opt->commands). Cannot fail. */
int tk_option_applies(const tk_option *opt, const char *command);

/* ---- commands */

typedef struct tk_command tk_command;
typedef struct tk_command_ctx tk_command_ctx;
typedef struct tk_command_host tk_command_host;

/* Exit statuses a command's run returns (those of the tracekit command). */
enum {
    TK_EXIT_OK = 0,      /* done */
    TK_EXIT_FAILED = 1,  /* malformed trace, or a check found a problem */
    TK_EXIT_TROUBLE = 2  /* usage, I/O, memory */
};

/* The exit status for a status: TK_OK 0, TK_EMALFORMED and TK_EVIOLATION
 * 1, the others 2. Cannot fail. */
int tk_exit_status(tk_status st);

struct tk_command {
    const char *name;     /* "account" */
    const char *summary;  /* one line, for a list of commands */
    const char *synopsis; /* after "usage: PROGRAM NAME ": "[OPTIONS] FILE" */
    const char *help;     /* what it does: paragraphs of lines <= 76 chars */
    const char *notes;    /* after the options in help (NULL: none) */
    /* How the message about a trace of another format ends, after "FILE
     * is a FORMAT trace": "; account needs XRay". */
    const char *needs;
    const tk_option *options; /* its own, ending with a NULL name */
    /* Run with the arguments parsed into c; returns the exit status after
     * reporting any problem through c->host. */
    int (*run)(tk_command_ctx *c);
};

/* What -o OUT gets written with (host->write_output): the result into
 * `f`, or with --json into `json` (a sink over `f`). TK_OK, or the
 * failure with `err` filled (TK_EIO with errno set when a write failed). */
typedef tk_status (*tk_command_write_fn)(tk_command_ctx *c, FILE *f, tk_sink *json,
                                         void *arg, tk_error *err);

/* The program running a command. Each call returns the exit status for
 * what it did (0 when all went well) after printing any message. */
struct tk_command_host {
    /* Open c->file ("-": standard input), find its format (detected, or
     * the one the user named) and check that it owns c->command; sets
     * c->path, c->in and c->format. */
    int (*open)(tk_command_ctx *c);
    /* Print `err` as one line, about `file` (NULL: none). */
    int (*report)(tk_command_ctx *c, const char *file, const tk_error *err);
    /* A usage error of the command: `message` with a hint to its help. */
    int (*usage)(tk_command_ctx *c, const char *message);
    /* A warning or note: one line on stderr (no newline in `line`). */
    void (*note)(tk_command_ctx *c, const char *line);
    /* A sink on c->out in the style asked for (--json, --json-hex), freed
     * by the caller after `finish`; NULL after a message. */
    tk_sink *(*sink)(tk_command_ctx *c);
    int (*finish)(tk_command_ctx *c, tk_sink *s);
    /* Run `fn` into `path` ("-": standard output), written whole or not
     * at all, with a JSON sink under --json. */
    int (*write_output)(tk_command_ctx *c, const char *path, tk_command_write_fn fn,
                        void *arg);
    /* Writing c->out failed: report it (once). */
    int (*out_failed)(tk_command_ctx *c);
};

/* A command's run: what the program parsed and what it opened. */
struct tk_command_ctx {
    const tk_command *command;
    const char *file;        /* FILE as given ("-": standard input) */
    tk_options *opts;        /* the options by key (the run may add) */
    int json, json_hex;      /* --json, --json-hex */
    FILE *out;               /* standard output */
    const tk_command_host *host;
    void *host_data;         /* the host's */
    /* set by host->open */
    const char *path;        /* FILE as messages name it ("<stdin>") */
    tk_input *in;
    const tk_format *format;
};

/* ---- the registry's commands (static, safe from any thread) */

/* The commands the formats own, each once (formats share some: UCIR's
 * replay reads both flavours), in the registry's order: their number, and
 * command i (NULL past the end). */
size_t tk_command_count(void);
const tk_command *tk_command_at(size_t i);
/* The command called `name`, NULL if no format owns one (a lookup, not an
 * error). */
const tk_command *tk_command_find(const char *name);
/* Whether format `f` owns (runs) command `c`. Cannot fail. */
int tk_format_has_command(const tk_format *f, const tk_command *c);
/* The options `f` reads in commands (tk_option.commands says which):
 * a table ending with a NULL name, or NULL when it has none. */
const tk_option *tk_format_command_options(const tk_format *f);
/* `f`'s help (one paragraph, static) on what a common command does with
 * its traces ("report") or on a conversion target ("chrome"), as `topic`
 * and `target` say: tk_format_help(f, "report", NULL),
 * tk_format_help(f, "convert", "chrome"). NULL when it has none. */
const char *tk_format_help(const tk_format *f, const char *topic, const char *target);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
