/* Cacheray's command, its options in the common commands, and its help on
 * what they do with Cacheray traces. */
#include "cacheray/cmd/cmd.h"

const tk_command *const tk_cacheray_commands[] = {&tk_cacheray_cmd_cachesim, NULL};

#define SELECTING "info dump convert report cachesim"

const tk_option tk_cacheray_command_options[] = {
    {.name = "endian", .value = "ORDER", .choices = "little big auto",
     .commands = "info dump validate convert report cachesim",
     .help = "byte order: little, big or auto (default)"},
    {.name = "out-endian", .value = "ORDER", .choices = "little big", .commands = "convert",
     .targets = "cacheray", .help = "byte order written: little or big (default: the input's)"},
    {.name = "thread", .value = "LIST", .parse = tk_opt_select, .commands = SELECTING,
     .help = "only these threads' records: ids and FIRST-LAST ranges (1,5-9)"},
    {.name = "range", .value = "FROM:TO", .parse = tk_opt_select, .commands = SELECTING,
     .help = "only records FROM to TO-1 by index (:TO, FROM: leave an end open; K, M, G "
             "multiply)"},
    {.name = "addr", .value = "LIST", .parse = tk_opt_select, .commands = SELECTING,
     .help = "only accesses touching LO-HI (HI excluded), ADDR+LEN or ADDR (a comma list)"},
    {0}};

const struct tk_format_help tk_cacheray_help[] = {
    {"report", NULL,
     "a one-level cache simulation (cachesim's defaults): accesses, misses by kind, per "
     "type and per thread; of the selection, if there is one"},
    {"convert", "cacheray", "Cacheray binary (with --out-endian to switch byte order)"},
    {"convert", "jsonl", tk_fmt_jsonl_help},
    {NULL, NULL, NULL}};
