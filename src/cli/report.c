/* tracekit report: the main analysis of a trace in one page. */
#include "cli.h"
#include "selection.h"

static const char help[] =
    "usage: tracekit report [OPTIONS] FILE\n"
    "\n"
    "The format's main analysis in one page:\n"
    "  XRay      mode, records, threads, functions, time span, records that do\n"
    "            not match or are in their thread's past, and the ten functions\n"
    "            taking the most time (count, sum, median, 99th percentile, max)\n"
    "  Cacheray  a one-level cache simulation (cachesim's defaults): accesses,\n"
    "            misses by kind, per type and per thread\n"
    "  casemate  records by kind, threads, and the break-before-make verdict\n"
    "            (bbm with casemate-check's defaults; as_expected compares it\n"
    "            with the log's own '!' line)\n"
    "  UCIR      a replay's summary: architecture, instruction counts, code\n"
    "            addresses, operations, syscalls, final maps and registers\n"
    "\n"
    "XRay and Cacheray reports take a selection (casemate's verdict and UCIR's\n"
    "replay are of the whole trace).\n"
    "\n"
    "options:\n" CLI_SELECT_HELP CLI_XRAY_MAP_HELP CLI_COMMON_HELP;

static tk_status run(cli *c, tk_sink *s, tk_error *err)
{
    return tk_report(c->fmt, c->in, c->opts, s, err);
}

int cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {CLI_COMMON_LONG_OPTIONS,
        CLI_SELECT_LONG_OPTIONS, CLI_XRAY_MAP_LONG_OPTIONS, {0}};
    cli c;
    const char *path = NULL;
    if (cli_init(&c, "report") != EXIT_OK)
        return EXIT_TROUBLE;
    int rc = cli_parse(&c, argc, argv, "hm:", longopts, help, NULL, &path);
    return cli_run(&c, rc, path, run);
}
