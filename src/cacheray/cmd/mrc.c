/* tracekit mrc: miss-ratio curves of a Cacheray trace (tk_mrc_*): exact
 * LRU, SHARDS, and miniature simulation of a real geometry; a table,
 * --json, and --svg FILE. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/cacheray_mrc.h>
#include <tracekit/output.h>

#include "cacheray/cacheray_int.h"
#include "cacheray/cmd/cmd.h"
#include "cacheray/mrc/output.h"

static tk_status bad(tk_error *err, const tk_option *opt, const char *what, const char *value)
{
    return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD, "--%s takes %s, not '%s'",
                        opt->name, what, value);
}

/* A count as tk_options_get_u64 reads one ("8K"), within [lo, hi]. */
static int count_of(const char *value, uint64_t lo, uint64_t hi, uint64_t *v)
{
    tk_options *one = tk_options_new(NULL);
    int ok = one && tk_options_set(one, "n", value, NULL) == TK_OK &&
             tk_options_get_u64(one, "n", 0, v, NULL) == TK_OK && *v >= lo && *v <= hi;
    tk_options_free(one);
    return ok;
}

/* --line-size (repeat), --max-samples, --ways, --seed */
static tk_status parse_count(tk_options *o, const tk_option *opt, const char *value,
                             tk_error *err)
{
    uint64_t v;
    if (strcmp(opt->name, "line-size") == 0) {
        if (!count_of(value, 4, 1u << 20, &v) || (v & (v - 1)))
            return bad(err, opt, "a power of two from 4 to 1M", value);
        return tk_options_add(o, tk_opt_key(opt), value, err);
    }
    uint64_t hi = strcmp(opt->name, "ways") == 0 ? 64 : UINT64_MAX;
    uint64_t lo = strcmp(opt->name, "seed") == 0 ? 0 : 1;
    if (!count_of(value, lo, hi, &v))
        return bad(err, opt, hi == 64 ? "a number from 1 to 64" : "a number like 8K", value);
    return tk_options_set(o, tk_opt_key(opt), value, err);
}

static tk_status parse_rate(tk_options *o, const tk_option *opt, const char *value,
                            tk_error *err)
{
    char *end;
    double r = strtod(value, &end);
    if (end == value || *end || !(r > 0 && r <= 1))
        return bad(err, opt, "a rate in (0, 1] like 0.01", value);
    return tk_options_set(o, tk_opt_key(opt), value, err);
}

/* --sizes: a comma list of sizes (K, M, G), at most TK_MRC_MAX_SIZES. */
static int sizes_of(const char *list, uint64_t *out, size_t *n)
{
    *n = 0;
    for (const char *p = list;; p++) {
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
        end += shift != 0;
        if (*p < '0' || *p > '9' || v == 0 || v > (UINT64_MAX >> shift) ||
            (*end && *end != ',') || *n == TK_MRC_MAX_SIZES)
            return 0;
        out[(*n)++] = (uint64_t)v << shift;
        if (!*end)
            return 1;
        p = end;
    }
}

static tk_status parse_sizes(tk_options *o, const tk_option *opt, const char *value,
                             tk_error *err)
{
    uint64_t s[TK_MRC_MAX_SIZES];
    size_t n;
    if (!sizes_of(value, s, &n))
        return bad(err, opt, "up to 64 sizes like 32K,64K,1M", value);
    return tk_options_set(o, tk_opt_key(opt), value, err);
}

/* -l: checked with the levels before it, as cachesim's. */
static tk_status parse_level(tk_options *o, const tk_option *opt, const char *value,
                             tk_error *err)
{
    tk_cachesim_config cfg;
    tk_cachesim_config_init(&cfg);
    for (size_t i = 0; i < tk_options_count(o); i++)
        if (strcmp(tk_options_key(o, i), "level") == 0 &&
            tk_cachesim_config_add_level(&cfg, tk_options_value(o, i), err) != TK_OK)
            return err->status;
    if (tk_cachesim_config_add_level(&cfg, value, err) != TK_OK)
        return err->status;
    return tk_options_add(o, tk_opt_key(opt), value, err);
}

static uint64_t number(const tk_command_ctx *c, const char *key, uint64_t dflt)
{
    uint64_t v = dflt;
    tk_options_get_u64(c->opts, key, dflt, &v, NULL); /* checked when parsed */
    return v;
}

static int policy_of(const char *name, tk_cachesim_policy *p)
{
    static const char *const names[] = {"lru", "fifo", "plru", "random"};
    for (int k = 0; k < 4; k++)
        if (strcmp(name, names[k]) == 0) {
            *p = (tk_cachesim_policy)k;
            return 1;
        }
    return 0;
}

/* The miniature caches: --ways, --policy, --sizes (default: 8 sizes
 * doubling from the first level's), at --sample's rate (default 0.01). */
static int mini_config(tk_command_ctx *c, const tk_cachesim_config *lv, tk_mrc_config *m)
{
    const char *ways = tk_options_get(c->opts, "ways");
    if (!ways) {
        for (const char *const *k = (const char *const[]){"policy", "sizes", "seed", NULL}; *k;
             k++)
            if (tk_options_get(c->opts, *k))
                return tk_cmd_usage(c, "--%s needs --ways (a miniature simulation)", *k);
        return -1;
    }
    m->ways = (uint32_t)number(c, "ways", 8);
    const char *policy = tk_options_get(c->opts, "policy");
    if (policy)
        policy_of(policy, &m->policy); /* a choice: checked when parsed */
    m->seed = number(c, "seed", 1);
    const char *sample = tk_options_get(c->opts, "sample");
    m->mini_rate = sample ? strtod(sample, NULL) : 0.01;
    const char *sizes = tk_options_get(c->opts, "sizes");
    if (sizes) {
        sizes_of(sizes, m->sizes, &m->nsizes);
    } else {
        uint64_t first = lv->nlevels ? lv->levels[0].size : 32768;
        for (m->nsizes = 0; m->nsizes < 8; m->nsizes++)
            m->sizes[m->nsizes] = first << m->nsizes;
    }
    return -1;
}

/* The engine's configuration from the options. Returns -1 to go on, or
 * the exit status. */
static int build(tk_command_ctx *c, const tk_cachesim_config *lv, tk_mrc_config *m)
{
    tk_mrc_config_init(m);
    size_t n = 0;
    for (size_t i = 0; i < tk_options_count(c->opts); i++)
        if (strcmp(tk_options_key(c->opts, i), "line-size") == 0) {
            if (n == TK_MRC_MAX_LINE_SIZES)
                return tk_cmd_usage(c, "--line-size: at most %d", TK_MRC_MAX_LINE_SIZES);
            uint64_t v;
            count_of(tk_options_value(c->opts, i), 4, 1u << 20, &v); /* checked when parsed */
            m->line_sizes[n++] = (uint32_t)v;
        }
    m->nline_sizes = n ? n : 1;
    const char *sample = tk_options_get(c->opts, "sample");
    m->sample_rate = sample ? strtod(sample, NULL) : 0;
    m->max_samples = number(c, "max-samples", 0);
    int shards = sample || m->max_samples;
    m->exact = !shards || tk_cmd_flag(c, "exact");
    if (tk_cmd_flag(c, "exact") && !shards)
        return tk_cmd_usage(c, "--exact adds the exact curve to SHARDS' (--sample or "
                               "--max-samples)");
    int rc = mini_config(c, lv, m);
    if (rc >= 0)
        return rc;
    tk_error err;
    tk_error_clear(&err);
    return tk_mrc_config_check(m, &err) == TK_OK ? -1 : tk_cmd_usage(c, "%s", err.message);
}

static tk_status write_json(tk_command_ctx *c, const mrc_out *o, int *rc)
{
    tk_sink *s = c->host->sink(c);
    if (!s) {
        *rc = TK_EXIT_TROUBLE;
        return TK_OK;
    }
    tk_error err;
    tk_error_clear(&err);
    mrc_write_json(o, s, &err);
    *rc = c->host->finish(c, s);
    tk_sink_free(s);
    return TK_OK;
}

static int write_svg(tk_command_ctx *c, const mrc_out *o, const char *path)
{
    tk_error err;
    tk_error_clear(&err);
    /* written whole or not at all, like every output file (tk_output); a
     * failed write shows in the stream, and committing reports its reason */
    tk_output *out = tk_output_open(path, &err);
    if (!out)
        return c->host->report(c, path, &err);
    if (mrc_write_svg(o, tk_output_file(out), &err) != TK_OK && !ferror(tk_output_file(out))) {
        tk_output_abort(out);
        return c->host->report(c, path, &err);
    }
    return tk_output_commit(out, &err) == TK_OK ? TK_EXIT_OK : c->host->report(c, path, &err);
}

static int output(tk_command_ctx *c, const tk_mrc *m, const tk_mrc_config *mc,
                  const tk_cachesim_config *lv)
{
    mrc_out o = {.m = m, .file = c->path, .cfg = mc, .nlevels = lv->nlevels,
                 .levels = lv->levels};
    int rc = TK_EXIT_OK;
    const char *svg = tk_options_get(c->opts, "svg");
    if (svg && (rc = write_svg(c, &o, svg)) != TK_EXIT_OK)
        return rc;
    if (c->json) {
        write_json(c, &o, &rc);
        return rc;
    }
    mrc_write_text(&o, c->out);
    return fflush(c->out) != 0 || ferror(c->out) ? c->host->out_failed(c) : TK_EXIT_OK;
}

static tk_endian endian_option(const tk_command_ctx *c)
{
    const char *e = tk_options_get(c->opts, "endian");
    return !e ? TK_ENDIAN_AUTO : !strcmp(e, "little") ? TK_ENDIAN_LITTLE
           : !strcmp(e, "big")                         ? TK_ENDIAN_BIG
                                                       : TK_ENDIAN_AUTO;
}

static int run(tk_command_ctx *c)
{
    tk_error err;
    tk_error_clear(&err);
    tk_cachesim_config lv;
    if (tk_cacheray_report_config(c->opts, &lv, &err) != TK_OK)
        return err.status == TK_EUSAGE && !err.file[0] ? tk_cmd_usage(c, "%s", err.message)
                                                        : c->host->report(c, NULL, &err);
    tk_mrc_config mc;
    int rc = build(c, &lv, &mc);
    if (rc >= 0)
        return rc;
    tk_mrc *m = tk_mrc_new(&mc, &err);
    if (!m)
        return c->host->report(c, NULL, &err);
    rc = c->host->open(c);
    if (rc == TK_EXIT_OK) {
        tk_selection *sel = tk_selection_new(c->opts, &err); /* checked when parsed */
        tk_status st = sel ? tk_mrc_run(m, c->in, endian_option(c), sel, &err) : err.status;
        tk_selection_free(sel);
        rc = st != TK_OK ? c->host->report(c, c->path, &err) : output(c, m, &mc, &lv);
    }
    tk_mrc_free(m);
    return rc;
}

static const tk_option options[] = {
    {.name = "line-size", .value = "BYTES", .parse = parse_count, .flags = TK_OPTION_REPEAT,
     .help = "line size of the curve (default 64; repeat for a curve per size, at most 8): a "
             "power of two from 4 to 1M"},
    {.name = "sample", .value = "R", .parse = parse_rate,
     .help = "SHARDS at fixed rate R in (0, 1] (0.01 and 0.001 are usual) instead of the "
             "exact curve; with --ways the miniatures' rate (default 0.01)"},
    {.name = "max-samples", .value = "S", .parse = parse_count,
     .help = "SHARDS in fixed size: at most S sampled lines (8K is usual), the rate lowered "
             "as needed from --sample's (default 1); memory does not grow with the footprint"},
    {.name = "exact", .help = "with --sample or --max-samples, the exact curve too and "
                              "SHARDS' mean absolute error against it"},
    {.name = "ways", .value = "W", .parse = parse_count,
     .help = "miniature simulation of W-way set-associative caches (sets scaled by the "
             "sampling rate) at --sizes"},
    {.name = "policy", .value = "POLICY", .choices = "lru fifo plru random",
     .help = "the miniatures' replacement: lru (default), fifo, plru (power-of-two ways) or "
             "random"},
    {.name = "sizes", .value = "LIST", .parse = parse_sizes,
     .help = "the miniatures' cache sizes, e.g. 32K,64K,1M (default: 8 sizes doubling from "
             "the first level's)"},
    {.name = "seed", .value = "N", .parse = parse_count,
     .help = "seed of the random policy (default 1)"},
    {.name = "level", .letter = 'l', .value = "NAME:SIZE:WAYS:LINE[:POLICY]",
     .parse = parse_level, .flags = TK_OPTION_REPEAT,
     .help = "a configured level, as cachesim's -l (repeat, L1 first): marked on the curves "
             "(default: cachesim's L1 32K and L2 1M)"},
    {.name = "config", .letter = 'c', .value = "FILE",
     .help = "configured levels from a JSON file, as cachesim's --config"},
    {.name = "svg", .value = "FILE",
     .help = "also write the curves as an SVG plot (log2 size axis, levels marked) to FILE"},
    {.name = "json", .flags = TK_OPTION_SHARED,
     .help = "one JSON object: levels, curves (points: size, miss_rate), miniature"},
    {.name = "format", .value = "NAME", .flags = TK_OPTION_SHARED,
     .help = "read the input as NAME (cacheray) without detecting"},
    {0}};

const tk_command tk_cacheray_cmd_mrc = {
    .name = "mrc",
    .summary = "Cacheray: miss-ratio curves (exact LRU, SHARDS, miniature simulation)",
    .synopsis = "[OPTIONS] FILE",
    .help = "The miss rate of a fully associative LRU cache against its size, for\n"
            "every size from one line to the footprint, from LRU stack distances in\n"
            "one pass (cold misses included; every line an access overlaps is a line\n"
            "access, as in cachesim). --sample and --max-samples estimate it with\n"
            "SHARDS (spatially hashed sampling of lines) in a fraction of the time\n"
            "and memory; --ways simulates miniature set-associative caches of any\n"
            "policy on the sampled lines for a real geometry's miss rate at --sizes.\n"
            "The configured levels (cachesim's default, or -l/--config) are marked.\n",
    .needs = "; mrc needs Cacheray",
    .options = options,
    .run = run,
};
