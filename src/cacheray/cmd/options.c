/* Cacheray's command, its options in the common commands, and its help on
 * what they do with Cacheray traces. */
#include <string.h>

#include <tracekit/cachesim.h>

#include "cacheray/cmd/cmd.h"

const tk_command *const tk_cacheray_commands[] = {&tk_cacheray_cmd_cachesim, NULL};

#define SELECTING "info dump convert report cachesim"

/* convert --to perfetto's -l: checked with the levels before it, as
 * cachesim's (at most TK_CACHESIM_MAX_LEVELS). */
static tk_status parse_level(tk_options *o, const tk_option *opt, const char *value,
                             tk_error *err)
{
    tk_cachesim_config cfg;
    tk_cachesim_config_init(&cfg);
    for (size_t i = 0; i < tk_options_count(o); i++)
        if (strcmp(tk_options_key(o, i), tk_opt_key(opt)) == 0 &&
            tk_cachesim_config_add_level(&cfg, tk_options_value(o, i), err) != TK_OK)
            return err->status;
    if (tk_cachesim_config_add_level(&cfg, value, err) != TK_OK)
        return err->status;
    return tk_options_add(o, tk_opt_key(opt), value, err);
}

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
    {.name = "window", .value = "N", .commands = "convert", .targets = "perfetto",
     .help = "--to perfetto: records per counter window (default 10000; K, M multiply)"},
    {.name = "cachesim", .commands = "convert", .targets = "perfetto",
     .help = "--to perfetto: simulate the caches (cachesim's default hierarchy, or "
             "--level/--config) and add each level's misses and miss rate per window"},
    {.name = "level", .letter = 'l', .value = "NAME:SIZE:WAYS:LINE[:POLICY]",
     .parse = parse_level, .flags = TK_OPTION_REPEAT, .commands = "convert",
     .targets = "perfetto",
     .help = "--to perfetto: a simulated level, as cachesim's -l (repeat, L1 first; "
             "implies --cachesim)"},
    {.name = "config", .value = "FILE", .commands = "convert", .targets = "perfetto",
     .help = "--to perfetto: simulated levels from a JSON file, as cachesim's --config "
             "(implies --cachesim)"},
    {0}};

const struct tk_format_help tk_cacheray_help[] = {
    {"report", NULL,
     "a one-level cache simulation (cachesim's defaults): accesses, misses by kind, per "
     "type and per thread; of the selection, if there is one"},
    {"convert", "cacheray", "Cacheray binary (with --out-endian to switch byte order)"},
    {"convert", "jsonl", tk_fmt_jsonl_help},
    {"convert", "perfetto",
     "Perfetto's protobuf trace (ui.perfetto.dev): time = record index (1 ns a record); "
     "each RTTA region a slice from its rtta_add to its rtta_remove (or the end) on a lane "
     "of its type's track under \"regions\"; each thread's reads and writes per --window "
     "records; with --cachesim (or -l, --config) each level's misses and miss rate per window"},
    {NULL, NULL, NULL}};
