/* `tracekit mrc`'s document (--json) and its text: the curves at their
 * points with the configured levels marked, and the miniature caches. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cacheray/mrc/output.h"

static void rate(tk_sink *s, const char *key, double v)
{
    if (isnan(v))
        tk_sink_null(s, key);
    else
        tk_sink_f64(s, key, v);
}

static void json_points(const mrc_out *o, tk_sink *s, size_t i, tk_mrc_method method)
{
    uint64_t lines[MRC_MAX_POINTS], line = o->cfg->line_sizes[i];
    size_t n = mrc_points(o, i, 1, lines);
    tk_sink_array_begin(s, "points");
    for (size_t j = 0; j < n; j++) {
        tk_sink_object_begin(s, NULL);
        tk_sink_u64(s, "size", lines[j] * line, 0);
        tk_sink_u64(s, "lines", lines[j], 0);
        rate(s, "miss_rate", tk_mrc_miss_rate(o->m, i, method, lines[j]));
        if (method == TK_MRC_EXACT)
            tk_sink_u64(s, "line_misses", tk_mrc_misses(o->m, i, lines[j]), 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
}

static void json_curve(const mrc_out *o, tk_sink *s, size_t i, tk_mrc_method method)
{
    tk_mrc_curve c;
    if (!tk_mrc_get_curve(o->m, i, method, &c))
        return;
    tk_sink_object_begin(s, NULL);
    tk_sink_u64(s, "line_size", c.line_size, 0);
    tk_sink_cstr(s, "method", method == TK_MRC_EXACT ? "exact" : "shards", TK_SINK_ENUM);
    tk_sink_f64(s, "sample_rate", c.sample_rate);
    if (method == TK_MRC_SHARDS && o->cfg->max_samples)
        tk_sink_u64(s, "max_samples", o->cfg->max_samples, 0);
    else
        tk_sink_null(s, "max_samples");
    tk_sink_u64(s, "line_accesses", c.line_accesses, 0);
    tk_sink_u64(s, "samples", c.samples, 0);
    tk_sink_u64(s, "peak_samples", c.peak_samples, 0);
    tk_sink_u64(s, "lines", c.lines, 0);
    tk_sink_u64(s, "footprint", c.lines * c.line_size, 0);
    rate(s, "mae", method == TK_MRC_SHARDS ? mrc_mae(o, i) : NAN);
    json_points(o, s, i, method);
    tk_sink_object_end(s);
}

static void json_minis(const mrc_out *o, tk_sink *s)
{
    if (!tk_mrc_minis(o->m)) {
        tk_sink_null(s, "miniature");
        return;
    }
    tk_sink_object_begin(s, "miniature");
    tk_sink_u64(s, "ways", o->cfg->ways, 0);
    tk_sink_cstr(s, "policy", tk_cachesim_policy_name(o->cfg->policy), TK_SINK_ENUM);
    tk_sink_u64(s, "line_size", o->cfg->line_sizes[0], 0);
    tk_sink_f64(s, "sample_rate", o->cfg->mini_rate);
    tk_sink_array_begin(s, "points");
    for (size_t k = 0; k < tk_mrc_minis(o->m); k++) {
        tk_mrc_mini c;
        tk_mrc_get_mini(o->m, k, &c);
        tk_sink_object_begin(s, NULL);
        tk_sink_u64(s, "size", c.size, 0);
        tk_sink_u64(s, "sets", c.sets, 0);
        tk_sink_u64(s, "sampled_sets", c.sampled_sets, 0);
        tk_sink_f64(s, "sample_rate", c.sample_rate);
        tk_sink_u64(s, "line_accesses", c.line_accesses, 0);
        tk_sink_u64(s, "line_misses", c.line_misses, 0);
        rate(s, "miss_rate", c.miss_rate);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_object_end(s);
}

tk_status mrc_write_json(const mrc_out *o, tk_sink *s, tk_error *err)
{
    (void)err; /* write errors are the sink's (tk_sink_finish) */
    tk_mrc_totals t;
    tk_mrc_get_totals(o->m, &t);
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "file", o->file ? o->file : "", 0);
    tk_sink_cstr(s, "format", "cacheray", 0);
    tk_sink_u64(s, "records", t.records, 0);
    tk_sink_u64(s, "accesses", t.accesses, 0);
    tk_sink_u64(s, "zero_size", t.zero_size, 0);
    tk_sink_array_begin(s, "levels");
    for (size_t k = 0; k < o->nlevels; k++) {
        const tk_cachesim_level *l = &o->levels[k];
        tk_sink_object_begin(s, NULL);
        tk_sink_cstr(s, "name", l->name, 0);
        tk_sink_u64(s, "size", l->size, 0);
        tk_sink_u64(s, "line_size", l->line, 0);
        tk_sink_u64(s, "ways", l->ways, 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_array_begin(s, "curves");
    for (size_t i = 0; i < o->cfg->nline_sizes; i++) {
        json_curve(o, s, i, TK_MRC_EXACT);
        json_curve(o, s, i, TK_MRC_SHARDS);
    }
    tk_sink_array_end(s);
    json_minis(o, s);
    tk_sink_object_end(s);
    return TK_OK;
}

/* ---- text */

static const char *level_at(const mrc_out *o, uint64_t bytes)
{
    for (size_t k = 0; k < o->nlevels; k++)
        if (o->levels[k].size == bytes)
            return o->levels[k].name;
    return "";
}

static void text_value(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, "  %9s", "-");
    else
        fprintf(f, "  %9.4f", v);
}

static void text_curve(const mrc_out *o, FILE *f, size_t i)
{
    tk_mrc_curve e, sh;
    int has_e = tk_mrc_get_curve(o->m, i, TK_MRC_EXACT, &e);
    int has_s = tk_mrc_get_curve(o->m, i, TK_MRC_SHARDS, &sh);
    const tk_mrc_curve *c = has_e ? &e : &sh;
    char buf[32];
    mrc_size_text(c->lines * c->line_size, buf, sizeof buf);
    fprintf(f, "\n%u-byte lines: %llu line accesses, %s%llu lines (%s) touched\n", c->line_size,
            (unsigned long long)c->line_accesses, has_e ? "" : "about ",
            (unsigned long long)c->lines, buf);
    if (has_s)
        fprintf(f, "SHARDS: rate %.6g%s, %llu line accesses sampled, at most %llu lines held\n",
                sh.sample_rate, o->cfg->max_samples ? " (fixed size, final)" : "",
                (unsigned long long)sh.samples, (unsigned long long)sh.peak_samples);
    fprintf(f, "  %8s  %12s", "size", "lines");
    if (has_e)
        fprintf(f, "  %9s", "exact");
    if (has_s)
        fprintf(f, "  %9s", "shards");
    fprintf(f, "  level\n");
    uint64_t lines[MRC_MAX_POINTS];
    size_t n = mrc_points(o, i, 0, lines);
    for (size_t j = 0; j < n; j++) {
        mrc_size_text(lines[j] * c->line_size, buf, sizeof buf);
        fprintf(f, "  %8s  %12llu", buf, (unsigned long long)lines[j]);
        if (has_e)
            text_value(f, tk_mrc_miss_rate(o->m, i, TK_MRC_EXACT, lines[j]));
        if (has_s)
            text_value(f, tk_mrc_miss_rate(o->m, i, TK_MRC_SHARDS, lines[j]));
        fprintf(f, "  %s\n", level_at(o, lines[j] * c->line_size));
    }
    if (has_e && has_s)
        fprintf(f, "SHARDS mean absolute error against exact: %.4f\n", mrc_mae(o, i));
}

static void text_minis(const mrc_out *o, FILE *f)
{
    fprintf(f, "\nminiature simulation: %u-way %s, %u-byte lines, rate %.6g\n", o->cfg->ways,
            tk_cachesim_policy_name(o->cfg->policy), o->cfg->line_sizes[0], o->cfg->mini_rate);
    fprintf(f, "  %8s  %10s  %12s  %14s  %9s  level\n", "size", "sets", "sampled sets",
            "line accesses", "miss rate");
    for (size_t k = 0; k < tk_mrc_minis(o->m); k++) {
        tk_mrc_mini c;
        char buf[32];
        tk_mrc_get_mini(o->m, k, &c);
        mrc_size_text(c.size, buf, sizeof buf);
        fprintf(f, "  %8s  %10llu  %12llu  %14llu", buf, (unsigned long long)c.sets,
                (unsigned long long)c.sampled_sets, (unsigned long long)c.line_accesses);
        text_value(f, c.miss_rate);
        fprintf(f, "  %s\n", level_at(o, c.size));
    }
}

void mrc_write_text(const mrc_out *o, FILE *f)
{
    tk_mrc_totals t;
    tk_mrc_get_totals(o->m, &t);
    fprintf(f, "file: %s\nrecords: %llu\naccesses: %llu\n", o->file ? o->file : "",
            (unsigned long long)t.records, (unsigned long long)t.accesses);
    fprintf(f, "miss rate of a fully associative LRU cache against its size "
               "(cold misses included)\n");
    for (size_t i = 0; i < o->cfg->nline_sizes; i++)
        text_curve(o, f, i);
    if (tk_mrc_minis(o->m))
        text_minis(o, f);
}
