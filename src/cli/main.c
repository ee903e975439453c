/* tracekit: read, validate, write, convert and analyze execution traces. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Ours, which every format answers; the formats' own come from the
 * registry (tk_command_at). */
static const tk_command *const common[] = {&cli_cmd_info, &cli_cmd_dump, &cli_cmd_validate,
                                           &cli_cmd_convert, &cli_cmd_report};
#define NCOMMON (sizeof common / sizeof common[0])

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tracekit COMMAND [OPTIONS] FILE\n"
            "\n"
            "Read, validate, convert and analyze low-level execution traces.\n"
            "FILE may be '-' for standard input; the format is detected.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < NCOMMON; i++)
        fprintf(out, "  %-10s %s\n", common[i]->name, common[i]->summary);
    for (size_t i = 0; i < tk_command_count(); i++)
        fprintf(out, "  %-10s %s\n", tk_command_at(i)->name, tk_command_at(i)->summary);
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

/* Run the command `name` with argv[0] its name; an unknown one is a usage
 * error. */
static int run_command(const char *name, int argc, char **argv)
{
    for (size_t i = 0; i < NCOMMON; i++)
        if (strcmp(name, common[i]->name) == 0)
            return cli_command_main(common[i], 1, argc, argv);
    const tk_command *cmd = tk_command_find(name);
    if (cmd)
        return cli_command_main(cmd, 0, argc, argv);
    fprintf(stderr, "tracekit: unknown command '%s' (try 'tracekit --help')\n", name);
    return EXIT_TROUBLE;
}

/* `tracekit help [COMMAND]`: the general help, or the command's. */
static int help(int argc, char **argv)
{
    if (argc < 3) {
        usage(stdout);
        return EXIT_OK;
    }
    char *args[] = {argv[2], "--help", NULL};
    return run_command(argv[2], 2, args);
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
    return run_command(name, argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    cli_wrap_stdout();
    return cli_stdout_check(run(argc, argv));
}
