/* tracekit: read, validate, write, convert and analyze execution traces. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"info", cmd_info, "summarize a trace: format, sizes, record counts"},
    {"dump", cmd_dump, "print the records, one per line (--json: JSON Lines)"},
    {"validate", cmd_validate, "check a trace; exit 1 if it is malformed"},
    {"convert", cmd_convert, "write the trace in another format or byte order"},
    {"report", cmd_report, "the format's main analysis: facts and top findings"},
    {"account", cmd_account, "XRay: per-function call counts and latencies"},
    {"stack", cmd_stack, "XRay: call stacks by time and count, flame graphs"},
    {"graph", cmd_graph, "XRay: function call graph (DOT) with call statistics"},
    {"bbm", cmd_bbm, "casemate: break-before-make and locking check of a log"},
    {"replay", cmd_replay, "UCIR: machine state at any instruction; memory and register history"},
    {"cachesim", cmd_cachesim, "Cacheray: cache simulation per level, type, field and thread"},
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tracekit COMMAND [OPTIONS] FILE\n"
            "\n"
            "Read, validate, convert and analyze low-level execution traces.\n"
            "FILE may be '-' for standard input; the format is detected.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nformats:\n");
    for (size_t i = 0; i < tk_format_count(); i++)
        fprintf(out, "  %-10s %s\n", tk_format_name(tk_format_at(i)),
                tk_format_description(tk_format_at(i)));
    fprintf(out,
            "\n'tracekit COMMAND --help' describes a command's options.\n"
            "exit status: 0 ok, 1 malformed trace or failed check, 2 usage or I/O trouble\n");
}

/* Every format's conversion targets, one a line (each once). */
static int list_targets(void)
{
    for (size_t i = 0; i < tk_format_count(); i++)
        for (const char *const *t = tk_format_targets(tk_format_at(i)); t && *t; t++) {
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++)
                for (const char *const *u = tk_format_targets(tk_format_at(j)); u && *u; u++)
                    seen |= strcmp(*t, *u) == 0;
            if (!seen)
                printf("%s\n", *t);
        }
    return EXIT_OK;
}

static const command *find(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(name, commands[i].name) == 0)
            return &commands[i];
    fprintf(stderr, "tracekit: unknown command '%s' (try 'tracekit --help')\n", name);
    return NULL;
}

/* `tracekit help [COMMAND]`: the general help, or the command's. */
static int help(int argc, char **argv)
{
    if (argc < 3) {
        usage(stdout);
        return EXIT_OK;
    }
    const command *c = find(argv[2]);
    char *args[] = {argv[2], "--help", NULL};
    return c ? c->run(2, args) : EXIT_TROUBLE;
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_TROUBLE;
    }
    const char *name = argv[1];
    if (strcmp(name, "help") == 0)
        return help(argc, argv);
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(name, "-V") == 0 || strcmp(name, "--version") == 0 ||
        strcmp(name, "version") == 0) {
        printf("tracekit %s\n", tk_version());
        return EXIT_OK;
    }
    if (strcmp(name, "--list-targets") == 0) /* for the docs test */
        return list_targets();
    const command *c = find(name);
    return c ? c->run(argc - 1, argv + 1) : EXIT_TROUBLE;
}

int main(int argc, char **argv)
{
    cli_wrap_stdout();
    return cli_stdout_check(run(argc, argv));
}
