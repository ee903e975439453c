/* tracekit extract: a binary's XRay instrumentation map as llvm-xray
 * extract prints it (YAML, one sled a line), or as JSON lines. FILE is
 * the binary (or a YAML map), not a trace. */
#include <string.h>

#include <tracekit/xray_map.h>

#include "xray/cmd/cmd.h"

typedef struct extract_args {
    tk_xray_map *map;
    int symbolize;
} extract_args;

/* One JSON line per sled: the YAML's fields, the name when symbolizing. */
static void put_json(tk_sink *s, const extract_args *a)
{
    for (size_t i = 0; i < tk_xray_map_count(a->map); i++) {
        const tk_xray_sled *sl = tk_xray_map_sled(a->map, i);
        int32_t id = sl->id;
        tk_xray_map_function_id(a->map, sl->function, &id);
        tk_sink_record_begin(s);
        tk_sink_i64(s, "id", id);
        tk_sink_u64(s, "address", sl->address, TK_SINK_ADDR);
        tk_sink_u64(s, "function_address", sl->function, TK_SINK_ADDR);
        tk_sink_cstr(s, "kind", tk_xray_sled_kind_name(sl->kind), 0);
        tk_sink_bool(s, "always_instrument", sl->always_instrument);
        if (a->symbolize)
            tk_sink_cstr(s, "function", tk_xray_map_name(a->map, id), 0);
        tk_sink_u64(s, "version", sl->version, 0);
        tk_sink_record_end(s);
    }
}

static tk_status write_map(tk_command_ctx *c, FILE *f, tk_sink *json, void *arg,
                           tk_error *err)
{
    const extract_args *a = arg;
    (void)c;
    if (!json)
        return tk_xray_map_write_yaml(a->map, f, a->symbolize, err);
    put_json(json, a);
    return TK_OK;
}

static int run(tk_command_ctx *c)
{
    extract_args a = {NULL, tk_cmd_flag(c, "symbolize")};
    const char *output = tk_options_get(c->opts, "output");
    const char *d = tk_options_get(c->opts, "demangle");
    tk_error err;
    tk_error_clear(&err);
    if (strcmp(c->file, "-") == 0)
        return c->host->usage(c, "extract reads a binary by name, not standard input");
    if (!(a.map = tk_xray_map_open(c->file, &err)))
        return c->host->report(c, c->file, &err);
    if (d && strcmp(d, "0") == 0)
        tk_xray_map_set_demangle(a.map, 0);
    int rc = c->host->write_output(c, output ? output : "-", write_map, &a);
    tk_xray_map_free(a.map);
    return rc;
}

static const tk_option options[] = {
    {.name = "symbolize", .letter = 's',
     .help = "name each sled's function (function-name: from the symbol table, "
             "demangled)"},
    {.name = "no-demangle", .key = "demangle", .set = "0",
     .help = "with --symbolize: keep C++ names mangled (--demangle: the default)"},
    {.name = "demangle", .set = "1", .flags = TK_OPTION_HIDDEN},
    {.name = "output", .letter = 'o', .value = "OUT",
     .help = "write to OUT (default: standard output)"},
    {.name = "json", .flags = TK_OPTION_SHARED,
     .help = "one JSON line per sled: id, address, function_address, kind, "
             "always_instrument, function (the name, with --symbolize), version"},
    {.name = "json-hex", .flags = TK_OPTION_SHARED,
     .help = "--json with integers past 2^53 as \"0x...\""},
    {0}};

const tk_command tk_xray_cmd_extract = {
    .name = "extract",
    .summary = "XRay: a binary's instrumentation map (YAML), as llvm-xray extract",
    .synopsis = "[OPTIONS] BIN",
    .help = "The XRay instrumentation map of BIN (an ELF executable, shared object\n"
            "or object with an xray_instr_map section, or a YAML map) as llvm-xray\n"
            "extract prints it: one line per sled with its function id, address,\n"
            "function address, kind and flags. The ids are those the traces of BIN\n"
            "use, so the map names functions for -m of the other commands.\n",
    .notes = "llvm-xray's spellings work too: -symbolize, -output=OUT.\n",
    .needs = "; extract reads a binary",
    .options = options,
    .run = run,
};
