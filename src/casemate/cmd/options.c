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
    /* bbm's checker options, for the violations of --to perfetto and parquet */
    {.name = "racy", .commands = "convert", .targets = "perfetto parquet",
     .help = "violations: no lock, ownership or write-authorisation checks (bbm -R)"},
    {.name = "ignore-uninit", .commands = "convert", .targets = "perfetto parquet",
     .help = "violations: skip writes to uninitialised memory and unlocks of locks "
             "nobody holds (bbm -I)"},
    {.name = "no-sysreg-defaults", .commands = "convert", .targets = "perfetto parquet",
     .help = "violations: threads start without casemate-check's default system "
             "registers (bbm -S)"},
    {.name = "promote-tlbi-by-id", .commands = "convert", .targets = "perfetto parquet",
     .help = "violations: TLBIs by VMID act as TLBI ALL (bbm --promote-tlbi-by-id)"},
    {.name = "hw-af", .commands = "convert", .targets = "perfetto parquet",
     .help = "violations: hardware Access-flag management on everywhere, so AF = 0 "
             "descriptors may be in TLBs (bbm --hw-af)"},
    {0}};

const struct tk_format_help tk_casemate_help[] = {
    {"report", NULL,
     "records by kind, threads, and the break-before-make verdict (bbm with "
     "casemate-check's defaults; as_expected compares it with the log's own '!' line), "
     "of the whole log"},
    {"convert", "casemate", "casemate log, canonical keyword form"},
    {"convert", "casemate-compact", "casemate log, positional form (casemate-check -c)"},
    {"convert", "jsonl", tk_fmt_jsonl_help},
    {"convert", "perfetto",
     "Perfetto trace (ui.perfetto.dev): a track per thread, every record an instant with its "
     "operands as annotations, a lock held from lock to unlock a slice, and a 'violations' "
     "track with bbm's verdict (with bbm's --racy, --ignore-uninit, --no-sysreg-defaults, "
     "--promote-tlbi-by-id, --hw-af); time is the record index, 1 ns per record"},
    {"convert", "parquet",
     "tables events, violations in DIR (docs/formats/casemate.md, \"Parquet tables\"): "
     "events holds the selected records, a column per dump --json field (null where the kind "
     "has none); violations bbm's verdict over the whole log (its code, message, record, line, "
     "id, thread, related ids and entries; not_checked where the model gives up), with bbm's "
     "--racy, --ignore-uninit, --no-sysreg-defaults, --promote-tlbi-by-id, --hw-af"},
    {NULL, NULL, NULL}};
