/* tracekit cachesim: simulate a cache hierarchy over a Cacheray trace
 * (tk_cachesim_*) and print the level, type, thread, false-sharing and
 * reuse statistics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/cachesim.h>

#include "cacheray/cmd/cmd.h"

/* The levels of the --level options in `o`, then `spec` (NULL: none). */
static tk_status add_levels(tk_cachesim_config *cfg, const tk_options *o, const char *spec,
                            tk_error *err)
{
    for (size_t i = 0; i < tk_options_count(o); i++)
        if (strcmp(tk_options_key(o, i), "level") == 0 &&
            tk_cachesim_config_add_level(cfg, tk_options_value(o, i), err) != TK_OK)
            return err->status;
    return spec ? tk_cachesim_config_add_level(cfg, spec, err) : TK_OK;
}

/* -l: checked with the levels before it (at most TK_CACHESIM_MAX_LEVELS). */
static tk_status parse_level(tk_options *o, const tk_option *opt, const char *value,
                             tk_error *err)
{
    tk_cachesim_config cfg;
    tk_cachesim_config_init(&cfg);
    if (add_levels(&cfg, o, value, err) != TK_OK)
        return err->status;
    return tk_options_add(o, tk_opt_key(opt), value, err);
}

/* --seed, --top: decimal, or 0x hex. */
static tk_status parse_number(tk_options *o, const tk_option *opt, const char *value,
                              tk_error *err)
{
    char *end;
    if (*value < '0' || *value > '9' || (strtoull(value, &end, 0), *end))
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--%s takes a number, not '%s'", opt->name, value);
    return tk_options_set(o, tk_opt_key(opt), value, err);
}

/* --warmup: a count as tk_options_get_u64 reads one (4K). */
static tk_status parse_warmup(tk_options *o, const tk_option *opt, const char *value,
                              tk_error *err)
{
    tk_options *one = tk_options_new(err);
    uint64_t v;
    tk_status st = one ? tk_options_set(one, "n", value, err) : err->status;
    if (st == TK_OK && tk_options_get_u64(one, "n", 0, &v, err) != TK_OK)
        st = tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                          "--warmup takes a number of records, not '%s'", value);
    tk_options_free(one);
    return st == TK_OK ? tk_options_set(o, tk_opt_key(opt), value, err) : st;
}

static uint64_t number(const tk_command_ctx *c, const char *key, uint64_t dflt)
{
    const char *v = tk_options_get(c->opts, key);
    return v ? strtoull(v, NULL, 0) : dflt; /* checked when parsed */
}

/* The hierarchy from --config, --level or the default, with the global
 * write options applied. Returns -1 to go on, or the exit status. */
static int build_config(tk_command_ctx *c, tk_cachesim_config *cfg)
{
    tk_error err;
    tk_error_clear(&err);
    const char *config = tk_options_get(c->opts, "config");
    int levels = tk_options_get(c->opts, "level") != NULL;
    tk_cachesim_config_init(cfg);
    if (config && levels)
        return tk_cmd_usage(c, "--config and --level do not mix");
    if (config && tk_cachesim_config_load(cfg, config, &err) != TK_OK)
        return c->host->report(c, config, &err);
    if (levels && add_levels(cfg, c->opts, NULL, &err) != TK_OK)
        return tk_cmd_usage(c, "%s", err.message); /* checked when parsed */
    if (!config && !levels)
        tk_cachesim_config_default(cfg);
    for (size_t k = 0; k < cfg->nlevels; k++) {
        tk_cachesim_level *l = &cfg->levels[k];
        l->write_back &= !tk_cmd_flag(c, "write-through");
        l->write_allocate &= !tk_cmd_flag(c, "no-write-allocate");
        l->inclusive |= tk_cmd_flag(c, "inclusive");
    }
    cfg->seed = number(c, "seed", cfg->seed);
    cfg->debug_info = tk_options_get(c->opts, "debug-info");
    cfg->flags |= tk_cmd_flag(c, "reuse") ? TK_CACHESIM_REUSE : 0;
    cfg->flags |= tk_cmd_flag(c, "no-3c") ? TK_CACHESIM_NO_3C : 0;
    return -1;
}

static tk_endian endian_option(const tk_command_ctx *c)
{
    const char *e = tk_options_get(c->opts, "endian");
    return !e ? TK_ENDIAN_AUTO : !strcmp(e, "little") ? TK_ENDIAN_LITTLE
           : !strcmp(e, "big")                         ? TK_ENDIAN_BIG
                                                       : TK_ENDIAN_AUTO;
}

static int simulate(tk_command_ctx *c, tk_cachesim *sim)
{
    tk_error err;
    tk_error_clear(&err);
    uint64_t warmup = 0;
    tk_options_get_u64(c->opts, "warmup", 0, &warmup, NULL); /* checked when parsed */
    tk_selection *sel = tk_selection_new(c->opts, &err);     /* checked when parsed */
    tk_status st = sel ? tk_cachesim_run_selected(sim, c->in, endian_option(c), sel, warmup,
                                                  &err)
                       : err.status;
    tk_selection_free(sel);
    if (st != TK_OK)
        return c->host->report(c, c->path, &err);
    tk_sink *s = c->host->sink(c);
    if (!s)
        return TK_EXIT_TROUBLE;
    st = tk_cachesim_write(sim, s, c->path, (size_t)number(c, "top", 20), 0, &err);
    int rc = c->host->finish(c, s);
    tk_sink_free(s);
    return st != TK_OK ? c->host->report(c, c->path, &err) : rc;
}

static int run(tk_command_ctx *c)
{
    tk_cachesim_config cfg;
    int rc = build_config(c, &cfg);
    if (rc >= 0)
        return rc;
    tk_error err;
    tk_error_clear(&err);
    /* the layout loader's messages name the file already */
    tk_cachesim *sim = tk_cachesim_new(&cfg, &err);
    if (!sim)
        return err.status == TK_EUSAGE && !cfg.debug_info ? tk_cmd_usage(c, "%s", err.message)
                                                          : c->host->report(c, NULL, &err);
    rc = c->host->open(c);
    if (rc == TK_EXIT_OK)
        rc = simulate(c, sim);
    tk_cachesim_free(sim);
    return rc;
}

static const tk_option options[] = {
    {.name = "level", .letter = 'l', .value = "NAME:SIZE:WAYS:LINE[:POLICY]",
     .parse = parse_level, .flags = TK_OPTION_REPEAT,
     .help = "add a level (repeat, L1 first): e.g. L1:32K:8:64:lru; WAYS 'full' = fully "
             "associative; POLICY lru, fifo, plru (power-of-two ways) or random"},
    {.name = "config", .letter = 'c', .value = "FILE",
     .help = "levels from a JSON file: {\"levels\": [{\"name\", \"size\", \"ways\", "
             "\"line\", \"policy\", \"write_back\", \"write_allocate\", \"inclusive\"}], "
             "\"seed\"}, or the original simulator's {\"caches\": [...]}"},
    {.name = "write-through", .help = "every level writes through (default write-back)"},
    {.name = "no-write-allocate", .help = "write misses do not fetch the line"},
    {.name = "inclusive", .help = "evictions invalidate the copies in the levels above"},
    {.name = "seed", .value = "N", .parse = parse_number,
     .help = "seed of the random replacement policy (default 1)"},
    {.name = "debug-info", .letter = 'g', .value = "BIN",
     .help = "struct layouts for per-field statistics: an ELF file with DWARF, or a "
             "dwarf2json .json file"},
    {.name = "reuse", .help = "reuse-distance histogram (LRU stack distances in L1 lines)"},
    {.name = "no-3c",
     .help = "do not classify misses (compulsory, capacity and conflict print as '-' / "
             "null)"},
    {.name = "top", .value = "N", .parse = parse_number,
     .help = "false-sharing lines to list, and in text the threads with the most accesses "
             "(default 20, 0 = all; --json lists every thread)"},
    {.name = "warmup", .value = "N", .parse = parse_warmup,
     .help = "the first N records selected only warm the caches up: simulated, not counted "
             "(--range FROM-N:TO --warmup N warms a window up)"},
    {.name = "json", .flags = TK_OPTION_SHARED,
     .help = "one JSON object: levels, types, threads, false_sharing, reuse"},
    {.name = "format", .value = "NAME", .flags = TK_OPTION_SHARED,
     .help = "read the input as NAME (cacheray) without detecting"},
    {0}};

const tk_command tk_cacheray_cmd_cachesim = {
    .name = "cachesim",
    .summary = "Cacheray: cache simulation per level, type, field and thread",
    .synopsis = "[OPTIONS] FILE",
    .help = "Simulate a cache hierarchy over a Cacheray trace. Every access touches\n"
            "each line it overlaps; each level counts reads, writes, misses (split\n"
            "into compulsory, capacity and conflict) and writebacks, and sees the\n"
            "misses and writebacks of the level above. Also: accesses and misses per\n"
            "RTTA type (per field with --debug-info), per thread, cache lines falsely\n"
            "shared between threads, and reuse distances.\n"
            "Default hierarchy: L1 32K 8-way, L2 1M 16-way, 64-byte lines, LRU,\n"
            "write-back, write-allocate, non-inclusive.\n"
            "\n"
            "A selection (--thread, --range, --addr) leaves the annotations alone:\n"
            "each access keeps the type it has in the trace.\n",
    .needs = "; cachesim needs Cacheray",
    .options = options,
    .run = run,
};
