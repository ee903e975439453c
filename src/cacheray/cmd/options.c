/* Cacheray's command, its options in the common commands, and its help on
 * what they do with Cacheray traces. */
#include <string.h>

#include <tracekit/cachesim.h>

#include "cacheray/cmd/cmd.h"

const tk_command *const tk_cacheray_commands[] = {&tk_cacheray_cmd_cachesim, &tk_cacheray_cmd_mrc,
                                                   NULL};

#define SELECTING "info dump convert report cachesim mrc"

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
     .commands = "info dump validate convert report cachesim mrc",
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
    {.name = "max-tracks", .value = "N", .commands = "convert", .targets = "perfetto",
     .help = "--to perfetto: at most N lanes per region type and N threads with counters "
             "of their own (default 1000; 0: no cap); the rest are counted together"},
    {.name = "cachesim", .commands = "convert", .targets = "perfetto",
     .help = "--to perfetto: simulate the caches (cachesim's default hierarchy, or "
             "--level/--config) and add each level's misses and miss rate per window"},
    {.name = "level", .letter = 'l', .value = "NAME:SIZE:WAYS:LINE[:POLICY]",
     .parse = parse_level, .flags = TK_OPTION_REPEAT, .commands = "convert report",
     .targets = "perfetto",
     .help = "a simulated level, as cachesim's -l (repeat, L1 first): the hierarchy report "
             "simulates, or perfetto's counters simulate (the simulation implied)"},
    {.name = "config", .value = "FILE", .commands = "convert report", .targets = "perfetto",
     .help = "simulated levels from a JSON file, as cachesim's config: the hierarchy "
             "report simulates, or perfetto's counters simulate (the simulation implied)"},
    {.name = "debug-info", .letter = 'g', .value = "BIN", .commands = "report",
     .help = "per-field tables from the struct layouts in BIN (ELF with DWARF, or "
             "dwarf2json .json), as cachesim's -g"},
    {0}};

const struct tk_format_help tk_cacheray_help[] = {
    {"report", NULL,
     "a cache simulation (cachesim's default hierarchy, or -l/--config; per field with -g): "
     "accesses, misses by kind, per type and per thread, falsely shared lines; of the "
     "selection, if there is one. --html: per-level hits and misses (compulsory, capacity, "
     "conflict), the miss rate over the trace, per-type and per-field tables with heat "
     "colouring, falsely shared lines, and the reuse-distance histogram with the LRU "
     "miss-ratio curve it implies (the levels marked)"},
    {"convert", "cacheray", "Cacheray binary (with --out-endian to switch byte order)"},
    {"convert", "jsonl", tk_fmt_jsonl_help},
    {"convert", "perfetto",
     "Perfetto's protobuf trace (ui.perfetto.dev): time = record index (1 ns a record); "
     "each RTTA region a slice from its rtta_add to its rtta_remove (or the end) on a lane "
     "of its type's track under \"regions\" (at most --max-tracks lanes a type, the regions "
     "past them counted); each thread's reads and writes per --window records (past "
     "--max-tracks threads, summed as \"other threads\"); with --cachesim (or -l, --config) "
     "each level's misses and miss rate per window"},
    {"convert", "parquet",
     "tables accesses, regions in DIR (docs/formats/cacheray.md, \"Parquet tables\"): an "
     "accesses row per read or write (index, kind, atomic, unaligned, addr, size, thread, and "
     "the live RTTA region's type_name and region_offset, null outside every region); a "
     "regions row per rtta_add when its region ends (type_name, addr, elem_size, elem_count, "
     "bytes, thread, first_index, last_index, ended_by: remove, overlap or trace_end, as the "
     "perfetto slices end); with a selection the RTTA records outside it still type the "
     "accesses, as in cachesim"},
    {NULL, NULL, NULL}};
