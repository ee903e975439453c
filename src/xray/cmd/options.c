/* XRay's commands, its options in the common ones and in its own, and its
 * help on what the common commands do with XRay traces. */
#include <string.h>

#include "xray/cmd/cmd.h"

const tk_command *const tk_xray_commands[] = {&tk_xray_cmd_account, &tk_xray_cmd_stack,
                                              &tk_xray_cmd_graph, &tk_xray_cmd_graph_diff,
                                              &tk_xray_cmd_extract, &tk_xray_cmd_diff, NULL};

/* convert -f: llvm-xray's -output-format names, stored as the --to they
 * mean. */
static tk_status output_format(tk_options *o, const tk_option *opt, const char *value,
                               tk_error *err)
{
    static const char *const llvm[][2] = {
        {"yaml", "yaml"}, {"trace_event", "chrome"}, {"raw", "xray-basic"}};
    (void)opt;
    for (size_t i = 0; i < sizeof llvm / sizeof llvm[0]; i++)
        if (strcmp(value, llvm[i][0]) == 0)
            return tk_options_set(o, "to", llvm[i][1], err);
    return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                        "--output-format takes yaml, trace_event or raw, not '%s'", value);
}

#define NAMED "convert report account stack graph"
#define MAPPED "dump diff " NAMED
#define SELECTING "info dump convert report account stack graph"

const tk_option tk_xray_command_options[] = {
    {.name = "instr-map", .letter = 'm', .value = "BIN", .commands = MAPPED,
     .help = "binary (or YAML map) with the xray_instr_map section, to name functions "
             "(dump: a function member, after #id in raw FDR lines)"},
    {.name = "instr_map", .flags = TK_OPTION_ALIAS},
    {.name = "no-demangle", .key = "demangle", .set = "0", .commands = MAPPED,
     .help = "keep C++ names mangled (--demangle: the default, LLVM's spelling)"},
    {.name = "demangle", .set = "1", .flags = TK_OPTION_HIDDEN, .commands = MAPPED},
    {.name = "thread", .value = "LIST", .parse = tk_opt_select, .commands = SELECTING,
     .help = "only these threads: tids and FIRST-LAST ranges (1,5-9)"},
    {.name = "range", .value = "FROM:TO", .parse = tk_opt_select, .commands = SELECTING,
     .help = "only the calls that start in [FROM, TO), whole: time since the trace's "
             "first TSC (10ms, 2.5s; plain: ns); :TO, FROM: leave an end open"},
    {.name = "func", .value = "ID", .parse = tk_opt_select, .commands = "info dump",
     .help = "only the calls of function ID (account -m BIN lists the ids), with all "
             "they call"},
    {.name = "func", .value = "NAME|ID", .parse = tk_opt_select, .commands = NAMED,
     .help = "only the calls of that function, with all they call (a NAME needs -m)"},
    {.name = "records", .value = "raw|logical", .commands = "dump",
     .help = "FDR: raw records as llvm-xray fdr-dump prints them (default), or expanded "
             "calls with absolute TSCs (the default with a selection, which keeps those)"},
    {.name = "output-format", .letter = 'f', .value = "yaml|trace_event|raw",
     .parse = output_format, .commands = "convert",
     .help = "llvm-xray's names for --to yaml, chrome, xray-basic"},
    {.name = "no-sort", .key = "sort", .set = "0", .commands = "convert",
     .help = "yaml: records in file order (-s, --sort: sorted by TSC, the default)"},
    {.name = "sort", .letter = 's', .flags = TK_OPTION_HIDDEN, .commands = "convert"},
    {.name = "symbolize", .letter = 'y', .commands = "convert",
     .help = "llvm-xray's: -m names the functions anyway; without -m, yaml names them "
             "#<id> as llvm-xray does"},
    {.name = "memory-limit", .value = "SIZE", .parse = tk_opt_size, .commands = "convert",
     .help = "yaml: memory for sorting (default 64M; K, M, G suffixes); beyond it sorted "
             "runs go to a temporary file in $TMPDIR"},
    {.name = "deduce-sibling-calls", .letter = 'd', .commands = "convert",
     .targets = "perfetto parquet",
     .help = "--to perfetto, parquet: an exit that matches a deeper call closes the calls "
             "above it too (for missing tail exits), as account -d counts them"},
    {0}};

const struct tk_format_help tk_xray_help[] = {
    {"report", NULL,
     "mode, records, threads, functions, time span, records that do not match or are in "
     "their thread's past, and the ten functions taking the most time (count, sum, "
     "median, 99th percentile, max); of the selection, if there is one. --html: the "
     "call tree as a flame graph (zoom, search), busy time per thread, the account table, "
     "latency histograms of the top functions and the call graph's hottest edges"},
    {"convert", NULL,
     "llvm-xray's spellings work too: -output-format=yaml, -output=OUT, -instr_map=BIN, "
     "-symbolize, -sort=false, -demangle=false, ..."},
    {"convert", "xray-basic", "XRay basic mode v3 (events are dropped)"},
    {"convert", "xray-fdr", "XRay FDR v5"},
    {"convert", "jsonl", tk_fmt_jsonl_help},
    {"convert", "chrome", "Chrome Trace Event JSON (Perfetto, chrome://tracing)"},
    {"convert", "perfetto",
     "Perfetto's native trace (ui.perfetto.dev; smaller and faster to load than chrome): "
     "a process track per pid, a thread track per thread, a slice per call named by -m "
     "(else #<id>), matched as account matches them (-d as account -d; exits that match "
     "no open call and records in their thread's past are skipped; calls open at the end "
     "close at their thread's last record), logged arguments as arg0, arg1, ..., custom "
     "and typed events as instants with their payload in hex; time in ns from the TSC "
     "and the header's cycle frequency"},
    {"convert", "parquet",
     "tables calls, records, events in DIR (docs/formats/xray.md, \"Parquet tables\"): a call "
     "row when the call ends (end order), matched as account matches them (-d as account -d; "
     "exits that match no open call and records in their thread's past make no call; calls "
     "open at the end close at their thread's last time, unfinished = true), named by -m "
     "(else #<id>), with call_id = its entry record's index and parent_call_id; records as "
     "dump --json shows the logical records; custom and typed events with time_ns; "
     "times in ns from the TSC and the header's cycle frequency (1 GHz when unknown)"},
    {"convert", "folded", "folded stacks with self time (flamegraph.pl, speedscope)"},
    {"convert", "yaml",
     "llvm-xray's YAML trace, sorted by TSC like llvm-xray convert in bounded memory "
     "(--memory-limit, default 64M; sorted runs go to a temporary file in $TMPDIR); "
     "--no-sort: file order"},
    {NULL, NULL, NULL}};
