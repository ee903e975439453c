/* The selection options (--thread, --range, --addr, --func): their option
 * tables and help, for the commands that take them. Their values are
 * checked when parsed and travel as the options "thread", "range",
 * "addr" and "func"; the formats' readers apply them. */
#ifndef TK_CLI_SELECTION_H
#define TK_CLI_SELECTION_H

#include "cli.h"

#define CLI_THREAD_LONG_OPTION {"thread", required_argument, NULL, OPT_THREAD}
#define CLI_RANGE_LONG_OPTION {"range", required_argument, NULL, OPT_RANGE}
#define CLI_ADDR_LONG_OPTION {"addr", required_argument, NULL, OPT_ADDR}
#define CLI_FUNC_LONG_OPTION {"func", required_argument, NULL, OPT_FUNC}
/* info, dump, convert, report: each format takes the ones it has */
#define CLI_SELECT_LONG_OPTIONS                                              \
    CLI_THREAD_LONG_OPTION, CLI_RANGE_LONG_OPTION, CLI_ADDR_LONG_OPTION,     \
    CLI_FUNC_LONG_OPTION
/* account, stack, graph */
#define CLI_XRAY_SELECT_LONG_OPTIONS                                         \
    CLI_THREAD_LONG_OPTION, CLI_RANGE_LONG_OPTION, CLI_FUNC_LONG_OPTION

/* Help in the common commands' columns; FUNC: how --func names one. */
#define CLI_SELECT_HELP_WITH(FUNC)                                           \
    "  --thread LIST     only these threads: ids and FIRST-LAST ranges (1,5-9)\n" \
    "  --range FROM:TO   only the window [FROM, TO) (:TO, FROM: open ends) in\n" \
    "                    Cacheray record indexes, casemate event ids, UCIR\n" \
    "                    instructions, XRay time since the first TSC (10ms,\n" \
    "                    2.5s; plain: ns), where calls starting in it count\n" \
    "                    whole\n"                                              \
    "  --addr LIST       only the Cacheray accesses, casemate locations or\n" \
    "                    UCIR memory ops in LO-HI (HI excluded), ADDR+LEN or\n" \
    "                    ADDR (a comma list)\n"                               \
    FUNC
#define CLI_SELECT_HELP                                                      \
    CLI_SELECT_HELP_WITH(                                                    \
        "  --func NAME|ID    XRay: the calls of that function, with all they\n" \
        "                    call (a NAME needs -m)\n")
/* dump and info read no instrumentation map */
#define CLI_SELECT_HELP_IDS                                                  \
    CLI_SELECT_HELP_WITH(                                                    \
        "  --func ID         XRay: the calls of function ID (account -m BIN\n" \
        "                    lists the ids), with all they call\n")

/* account, stack and graph, in their columns */
#define CLI_XRAY_SELECT_HELP                                                 \
    "  --thread LIST         only these threads: tids and FIRST-LAST ranges\n" \
    "                        (1,5-9)\n"                                       \
    "  --range FROM:TO       only the calls that start in [FROM, TO), whole:\n" \
    "                        time since the trace's first TSC (10ms, 2.5s;\n"  \
    "                        plain: ns); :TO, FROM: leave an end open\n"       \
    "  --func NAME|ID        only the calls of that function, with all they\n" \
    "                        call (a NAME needs -m)\n"

/* Handle a selection option: 1 (value checked and set), -1 (usage error
 * printed), 0 (not one). */
int cli_select_option(cli *c, int opt, const char *arg);

/* For commands that take no selection (validate, replay): after
 * cli_parse returned `rc`, a usage error naming the first selection
 * option given ("--thread does not apply: WHY"), else `rc`. They list the
 * options so that getopt does not read --thread as --threads. */
int cli_refuse_selection(cli *c, int rc, const char *why);

/* An XRay reader on c->in with the selection of c->opts (a --func name
 * looked up in -m's map). NULL with err set. */
tk_xray_reader *cli_xray_reader(cli *c, tk_error *err);

#endif
