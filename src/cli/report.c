/* tracekit report: the main analysis of a trace in one page. */
#include "cli.h"

static const char help[] =
    "usage: tracekit report [OPTIONS] FILE\n"
    "\n"
    "The format's main analysis in one page. XRay: mode, records, threads,\n"
    "functions, time span, records that do not match, and the ten functions\n"
    "taking the most time (count, sum, median, 99th percentile, max).\n"
    "\n"
    "options:\n" CLI_XRAY_MAP_HELP CLI_COMMON_HELP;

static tk_status run(cli *c, tk_sink *s, tk_error *err)
{
    return tk_report(c->fmt, c->in, c->opts, s, err);
}

int cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {CLI_COMMON_LONG_OPTIONS,
        CLI_XRAY_MAP_LONG_OPTIONS, {0}};
    cli c;
    const char *path = NULL;
    if (cli_init(&c, "report") != EXIT_OK)
        return EXIT_TROUBLE;
    int rc = cli_parse(&c, argc, argv, "hm:", longopts, help, NULL, &path);
    return cli_run(&c, rc, path, run);
}
