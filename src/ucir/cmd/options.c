/* UCIR's command, its options in the common commands, and its help on what
 * they do with Usercorn traces (both flavours share them). */
#include "ucir/cmd/cmd.h"

const tk_command *const tk_ucir_commands[] = {&tk_ucir_cmd_replay, NULL};

#define DECODING "info dump validate convert report replay"
/* The report is a replay of the whole trace: it takes no selection. */
#define SELECTING "info dump convert"

const tk_option tk_ucir_command_options[] = {
    {.name = "threads", .value = "N", .commands = DECODING,
     .help = "frame decoding threads (default: all cores)"},
    {.name = "max-frame", .value = "SIZE", .commands = DECODING,
     .help = "largest inflated frame accepted (default 256M)"},
    {.name = "records", .value = "instructions|raw", .commands = "dump",
     .help = "a per-instruction listing with disassembly and each instruction's effects "
             "(default; --skip/--limit count instructions), or the records as they are"},
    {.name = "range", .value = "FROM:TO", .parse = tk_opt_select, .commands = SELECTING,
     .help = "only instructions FROM to TO-1 (:TO, FROM: leave an end open; K, M, G "
             "multiply)"},
    {.name = "addr", .value = "LIST", .parse = tk_opt_select, .commands = SELECTING,
     .help = "only the memory ops touching LO-HI (HI excluded), ADDR+LEN or ADDR (a comma "
             "list)"},
    {.name = "window", .value = "N", .commands = "convert", .targets = "perfetto",
     .help = "--to perfetto: instructions per counter window (default 10000; K, M "
             "multiply)"},
    {0}};

const struct tk_format_help tk_ucir_help[] = {
    {"report", NULL,
     "a replay's summary: architecture, instruction counts, code addresses, operations, "
     "syscalls, final maps and registers, of the whole trace. --html: the syscall "
     "timeline, the memory map's changes, the hottest code addresses with their "
     "disassembly, and instructions and bytes written per mapped region"},
    {"convert", "ucir",
     "Usercorn replay trace, 2016 spec (frames and keyframes kept, recompressed)"},
    {"convert", "jsonl", tk_fmt_jsonl_help},
    {"convert", "tenet",
     "Tenet's text trace (one line per instruction: changed registers, memory reads and "
     "writes)"},
    {"convert", "drcov", "DynamoRIO drcov coverage (Lighthouse, bncov)"},
    {"convert", "perfetto",
     "Perfetto's native trace (ui.perfetto.dev), time = instruction index at 1 ns each: "
     "syscalls as slices (Linux names on x86, x86_64 and arm64; arguments and return value "
     "as annotations), maps, unmaps and protection changes as instants on \"memory map\", "
     "counters of instructions per mapped region and bytes written per --window "
     "instructions"},
    {"convert", "parquet",
     "tables instructions, memory, registers, syscalls, maps in DIR "
     "(docs/formats/ucir.md, \"Parquet tables\"): a row per instruction (insn, record, pc, "
     "size, code bytes) and per memory op, register change, syscall (Linux name, "
     "arg0..arg5, more_args, ret) and map/unmap/protect (.uc: desc, file), each with its "
     "insn as the replay counts them (the setup's null; later keyframes left out, as the "
     "replay skips them); the whole trace: --range and --addr are refused, select with SQL"},
    {NULL, NULL, NULL}};
