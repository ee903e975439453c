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

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_TROUBLE;
    }
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("tracekit %s\n", tk_version());
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "tracekit: unknown command '%s' (try 'tracekit --help')\n", name);
    return EXIT_TROUBLE;
}
