/* casemate's command, its options in the common commands, and its help on
 * what they do with casemate logs. */
#include "casemate/cmd/cmd.h"

const tk_command *const tk_casemate_commands[] = {&tk_casemate_cmd_bbm, NULL};

/* The report's verdict is of the whole log: it takes no selection. */
#define SELECTING "info dump convert"

const tk_option tk_casemate_command_options[] = {
    {.name = "thread", .value = "LIST", .parse = tk_opt_select, .commands = SELECTING,
     .help = "only these threads' records: tids and FIRST-LAST ranges (1,5-9)"},
    {.name = "range", .value = "FROM:TO", .parse = tk_opt_select, .commands = SELECTING,
     .help = "only the events with ids in [FROM, TO) (:TO, FROM: leave an end open)"},
    {.name = "addr", .value = "LIST", .parse = tk_opt_select, .commands = SELECTING,
     .help = "only the records naming a location in LO-HI (HI excluded), ADDR+LEN or ADDR "
             "(a comma list)"},
    {0}};

const struct tk_format_help tk_casemate_help[] = {
    {"report", NULL,
     "records by kind, threads, and the break-before-make verdict (bbm with "
     "casemate-check's defaults; as_expected compares it with the log's own '!' line), "
     "of the whole log"},
    {"convert", "casemate", "casemate log, canonical keyword form"},
    {"convert", "casemate-compact", "casemate log, positional form (casemate-check -c)"},
    {"convert", "jsonl", tk_fmt_jsonl_help},
    {NULL, NULL, NULL}};
