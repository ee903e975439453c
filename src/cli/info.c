/* tracekit info: a summary of one trace. */
#include "cli.h"
#include "selection.h"

static const char help[] =
    "usage: tracekit info [OPTIONS] FILE\n"
    "\n"
    "Summarize a trace: detected format, byte order, size, record counts by\n"
    "type, threads, address range and type annotations.\n"
    "\n"
    "With a selection, the summary is of the records selected.\n"
    "\n"
    "options:\n" CLI_SELECT_HELP_IDS CLI_COMMON_HELP;

static tk_status run(cli *c, tk_sink *s, tk_error *err)
{
    return tk_info(c->fmt, c->in, c->opts, s, err);
}

int cmd_info(int argc, char **argv)
{
    static const struct option longopts[] = {CLI_COMMON_LONG_OPTIONS,
                                               CLI_SELECT_LONG_OPTIONS, {0}};
    cli c;
    const char *path = NULL;
    if (cli_init(&c, "info") != EXIT_OK)
        return EXIT_TROUBLE;
    int rc = cli_parse(&c, argc, argv, "h", longopts, help, NULL, &path);
    return cli_run(&c, rc, path, run);
}
