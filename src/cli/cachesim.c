/* tracekit cachesim: simulate a cache hierarchy over a Cacheray trace
 * (tk_cachesim_*) and print the level, type, thread, false-sharing and
 * reuse statistics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/cachesim.h>

#include "cli.h"
#include "selection.h"

static const char help[] =
    "usage: tracekit cachesim [OPTIONS] FILE\n"
    "\n"
    "Simulate a cache hierarchy over a Cacheray trace. Every access touches\n"
    "each line it overlaps; each level counts reads, writes, misses (split\n"
    "into compulsory, capacity and conflict) and writebacks, and sees the\n"
    "misses and writebacks of the level above. Also: accesses and misses per\n"
    "RTTA type (per field with --debug-info), per thread, cache lines falsely\n"
    "shared between threads, and reuse distances.\n"
    "Default hierarchy: L1 32K 8-way, L2 1M 16-way, 64-byte lines, LRU,\n"
    "write-back, write-allocate, non-inclusive.\n"
    "\n"
    "options:\n"
    "  -l, --level NAME:SIZE:WAYS:LINE[:POLICY]\n"
    "                        add a level (repeat, L1 first): e.g. L1:32K:8:64:lru;\n"
    "                        WAYS 'full' = fully associative; POLICY lru, fifo,\n"
    "                        plru (power-of-two ways) or random\n"
    "  -c, --config FILE     levels from a JSON file: {\"levels\": [{\"name\",\n"
    "                        \"size\", \"ways\", \"line\", \"policy\", \"write_back\",\n"
    "                        \"write_allocate\", \"inclusive\"}], \"seed\"}, or the\n"
    "                        original simulator's {\"caches\": [...]}\n"
    "  --write-through       every level writes through (default write-back)\n"
    "  --no-write-allocate   write misses do not fetch the line\n"
    "  --inclusive           evictions invalidate the copies in the levels above\n"
    "  --seed N              seed of the random replacement policy (default 1)\n"
    "  -g, --debug-info BIN  struct layouts for per-field statistics: an ELF file\n"
    "                        with DWARF, or a dwarf2json .json file\n"
    "  --reuse               reuse-distance histogram (LRU stack distances in\n"
    "                        L1 lines)\n"
    "  --no-3c               do not classify misses (compulsory, capacity and\n"
    "                        conflict print as '-' / null)\n"
    "  --top N               false-sharing lines to list (default 20, 0 = all)\n"
    "  --thread LIST         only these threads' records: ids and FIRST-LAST\n"
    "                        ranges (1,5-9)\n"
    "  --range FROM:TO       only records FROM to TO-1 by index (:TO, FROM:\n"
    "                        leave an end open; K, M, G multiply)\n"
    "  --addr LIST           only accesses touching LO-HI (HI excluded),\n"
    "                        ADDR+LEN or ADDR (a comma list)\n"
    "                        (annotations are applied whatever the selection:\n"
    "                        each access keeps the type it has in the trace)\n"
    "  --warmup N            the first N records selected only warm the caches\n"
    "                        up: simulated, not counted (--range FROM-N:TO\n"
    "                        --warmup N warms a window up)\n"
    "  --json                one JSON object: levels, types, threads,\n"
    "                        false_sharing, reuse\n"
    "  --json-hex            --json with addresses and integers past 2^53 as\n"
    "                        \"0x...\" strings (jq 1.6, JavaScript)\n"
    "  --endian ORDER        byte order: little, big or auto (default)\n"
    "  --format NAME         read the input as NAME (cacheray) without detecting\n"
    "  --progress WHEN       progress line on stderr: auto (on a terminal,\n"
    "                        after a second), always or never\n"
    "  -h, --help            show this help\n";

enum {
    OPT_WRITE_THROUGH = OPT_FIRST_COMMAND_OPTION,
    OPT_NO_WRITE_ALLOCATE,
    OPT_INCLUSIVE,
    OPT_SEED,
    OPT_REUSE,
    OPT_NO_3C,
    OPT_TOP,
    OPT_WARMUP
};

static struct {
    tk_cachesim_config cfg;
    const char *config;
    int have_levels, write_through, no_allocate, inclusive, have_seed;
    uint64_t seed, top, warmup;
} S;

static int parse_count(cli *c, const char *opt, const char *arg, uint64_t *out)
{
    char *end;
    if (*arg < '0' || *arg > '9') {
        cli_usage_error(c->command, "%s takes a number, not '%s'", opt, arg);
        return -1;
    }
    *out = strtoull(arg, &end, 0);
    if (*end) {
        cli_usage_error(c->command, "%s takes a number, not '%s'", opt, arg);
        return -1;
    }
    return 0;
}

static int extra(cli *c, int opt, const char *arg)
{
    tk_error err;
    switch (opt) {
    case 'l':
        if (tk_cachesim_config_add_level(&S.cfg, arg, &err) != TK_OK) {
            cli_usage_error(c->command, "%s", err.message);
            return -1;
        }
        S.have_levels = 1;
        return 1;
    case 'c': S.config = arg; return 1;
    case 'g': S.cfg.debug_info = arg; return 1;
    case OPT_WRITE_THROUGH: S.write_through = 1; return 1;
    case OPT_NO_WRITE_ALLOCATE: S.no_allocate = 1; return 1;
    case OPT_INCLUSIVE: S.inclusive = 1; return 1;
    case OPT_REUSE: S.cfg.flags |= TK_CACHESIM_REUSE; return 1;
    case OPT_NO_3C: S.cfg.flags |= TK_CACHESIM_NO_3C; return 1;
    case OPT_SEED:
        S.have_seed = 1;
        return parse_count(c, "--seed", arg, &S.seed) == 0 ? 1 : -1;
    case OPT_TOP: return parse_count(c, "--top", arg, &S.top) == 0 ? 1 : -1;
    case OPT_WARMUP:
        if (cli_parse_count(arg, &S.warmup) != 0) {
            cli_usage_error(c->command, "--warmup takes a number of records, not '%s'", arg);
            return -1;
        }
        return 1;
    }
    return 0;
}

/* The hierarchy from --config, --level or the default, with the global
 * write options applied. Returns an exit status. */
static int build_config(cli *c)
{
    tk_error err;
    tk_error_clear(&err);
    if (S.config && S.have_levels)
        return cli_usage_error(c->command, "--config and --level do not mix");
    if (S.config && tk_cachesim_config_load(&S.cfg, S.config, &err) != TK_OK)
        return cli_report(S.config, &err);
    if (!S.config && !S.have_levels)
        tk_cachesim_config_default(&S.cfg);
    for (size_t k = 0; k < S.cfg.nlevels; k++) {
        tk_cachesim_level *l = &S.cfg.levels[k];
        l->write_back &= !S.write_through;
        l->write_allocate &= !S.no_allocate;
        l->inclusive |= S.inclusive;
    }
    if (S.have_seed)
        S.cfg.seed = S.seed;
    return EXIT_OK;
}

static tk_endian endian_option(const cli *c)
{
    const char *e = tk_options_get(c->opts, "endian");
    return !e ? TK_ENDIAN_AUTO : !strcmp(e, "little") ? TK_ENDIAN_LITTLE
           : !strcmp(e, "big")                         ? TK_ENDIAN_BIG
                                                       : TK_ENDIAN_AUTO;
}

static int simulate(cli *c, tk_cachesim *sim)
{
    tk_error err;
    tk_error_clear(&err);
    tk_selection *sel = tk_selection_new(c->opts, &err); /* checked when parsed */
    tk_status st = sel ? tk_cachesim_run_selected(sim, c->in, endian_option(c), sel, S.warmup,
                                                  &err)
                       : err.status;
    tk_selection_free(sel);
    if (st != TK_OK)
        return cli_report(c->path, &err);
    tk_sink *s = cli_sink(c);
    if (!s)
        return EXIT_TROUBLE;
    st = tk_cachesim_write(sim, s, c->path, (size_t)S.top, 0, &err);
    int rc = cli_finish(c, s);
    tk_sink_free(s);
    return st != TK_OK ? cli_report(c->path, &err) : rc;
}

int cmd_cachesim(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_BASE_LONG_OPTIONS, CLI_CACHERAY_LONG_OPTIONS,
        {"level", required_argument, NULL, 'l'},
        {"config", required_argument, NULL, 'c'},
        {"debug-info", required_argument, NULL, 'g'},
        {"write-through", no_argument, NULL, OPT_WRITE_THROUGH},
        {"no-write-allocate", no_argument, NULL, OPT_NO_WRITE_ALLOCATE},
        {"inclusive", no_argument, NULL, OPT_INCLUSIVE},
        {"seed", required_argument, NULL, OPT_SEED},
        {"reuse", no_argument, NULL, OPT_REUSE},
        {"no-3c", no_argument, NULL, OPT_NO_3C},
        {"top", required_argument, NULL, OPT_TOP},
        CLI_THREAD_LONG_OPTION, CLI_RANGE_LONG_OPTION, CLI_ADDR_LONG_OPTION,
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {0}};
    cli c;
    const char *path = NULL;
    memset(&S, 0, sizeof S);
    tk_cachesim_config_init(&S.cfg);
    S.top = 20;
    if (cli_init(&c, "cachesim") != EXIT_OK)
        return EXIT_TROUBLE;
    int rc = cli_parse(&c, argc, argv, "hl:c:g:", longopts, help, extra, &path);
    if (rc < 0)
        rc = build_config(&c);
    tk_cachesim *sim = NULL;
    if (rc == EXIT_OK && path) {
        tk_error err;
        tk_error_clear(&err);
        /* the layout loader's messages name the file already */
        if (!(sim = tk_cachesim_new(&S.cfg, &err)))
            rc = err.status == TK_EUSAGE && !S.cfg.debug_info
                     ? cli_usage_error(c.command, "%s", err.message)
                     : cli_report(NULL, &err);
    }
    if (sim)
        rc = cli_open(&c, path);
    if (sim && rc == EXIT_OK) {
        if (strcmp(tk_format_name(c.fmt), "cacheray") != 0)
            rc = cli_usage_error(c.command, "%s is a %s trace; cachesim needs Cacheray",
                                 c.path, tk_format_name(c.fmt));
        else
            rc = simulate(&c, sim);
    }
    tk_cachesim_free(sim);
    cli_close(&c);
    return rc;
}
