/* The simulator's results as one document: JSON with nested arrays, or
 * human text where counts per level become columns named after the
 * levels. Also `tracekit report` for Cacheray: the default hierarchy (or
 * -l, --config; -g for per-field tables) with the per-type table first. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cacheray/cacheray_int.h"
#include "cacheray/sim/sim_int.h"
#include "core/topk.h"

typedef struct out {
    tk_sink *s;
    const tk_cachesim *sim;
    int json;
    /* text: "<level>_misses", made once (a row per thread: millions) */
    char miss_key[TK_CACHESIM_MAX_LEVELS][TK_CACHESIM_NAME_MAX + 8];
} out;

static double rate(uint64_t part, uint64_t whole)
{
    return whole ? round((double)part / (double)whole * 1e6) / 1e6 : 0.0;
}

/* Misses per level: a JSON array, or one text column per level. */
static void misses(out *o, const tk_cachesim_counts *c)
{
    if (o->json) {
        tk_sink_array_begin(o->s, "misses");
        for (size_t k = 0; k < o->sim->nlevels; k++)
            tk_sink_u64(o->s, NULL, c->misses[k], 0);
        tk_sink_array_end(o->s);
        return;
    }
    for (size_t k = 0; k < o->sim->nlevels; k++)
        tk_sink_u64(o->s, o->miss_key[k], c->misses[k], 0);
}

static void counts(out *o, const tk_cachesim_counts *c, int bytes)
{
    tk_sink_u64(o->s, "accesses", c->reads + c->writes, 0);
    tk_sink_u64(o->s, "reads", c->reads, 0);
    tk_sink_u64(o->s, "writes", c->writes, 0);
    if (bytes)
        tk_sink_u64(o->s, "bytes", c->bytes, 0);
    misses(o, c);
}

static void level_config(out *o, const tk_cachesim_level *l)
{
    uint64_t lines = l->size / l->line, ways = l->ways ? l->ways : lines;
    tk_sink_u64(o->s, "size", l->size, 0);
    tk_sink_u64(o->s, "line_size", l->line, 0);
    tk_sink_u64(o->s, "ways", ways, 0);
    tk_sink_u64(o->s, "sets", lines / ways, 0);
    tk_sink_cstr(o->s, "policy", tk_cachesim_policy_name(l->policy), TK_SINK_ENUM);
    tk_sink_bool(o->s, "write_back", l->write_back);
    tk_sink_bool(o->s, "write_allocate", l->write_allocate);
    tk_sink_bool(o->s, "inclusive", l->inclusive);
}

static void levels(out *o)
{
    const tk_cachesim *sim = o->sim;
    int classified = !(sim->cfg.flags & TK_CACHESIM_NO_3C);
    if (!o->json) { /* the geometry apart: one table would be too wide */
        tk_sink_array_begin(o->s, "hierarchy");
        for (size_t k = 0; k < sim->nlevels; k++) {
            tk_sink_object_begin(o->s, NULL);
            tk_sink_cstr(o->s, "level", sim->cfg.levels[k].name, 0);
            level_config(o, &sim->cfg.levels[k]);
            tk_sink_object_end(o->s);
        }
        tk_sink_array_end(o->s);
    }
    tk_sink_array_begin(o->s, "levels");
    for (size_t k = 0; k < sim->nlevels; k++) {
        const tk_cachesim_level_stats *st = &sim->lv[k].st;
        tk_sink_object_begin(o->s, NULL);
        tk_sink_cstr(o->s, o->json ? "name" : "level", sim->cfg.levels[k].name, 0);
        if (o->json)
            level_config(o, &sim->cfg.levels[k]);
        tk_sink_u64(o->s, "reads", st->reads, 0);
        tk_sink_u64(o->s, "writes", st->writes, 0);
        tk_sink_u64(o->s, "read_misses", st->read_misses, 0);
        tk_sink_u64(o->s, "write_misses", st->write_misses, 0);
        tk_sink_f64_flags(o->s, "miss_rate",
                          rate(st->read_misses + st->write_misses, st->reads + st->writes),
                          TK_SINK_PERCENT);
        const char *keys[] = {"compulsory", "capacity", "conflict"};
        uint64_t v[] = {st->compulsory, st->capacity, st->conflict};
        for (int i = 0; i < 3; i++) {
            if (classified)
                tk_sink_u64(o->s, keys[i], v[i], 0);
            else
                tk_sink_null(o->s, keys[i]);
        }
        tk_sink_u64(o->s, "writebacks", st->writebacks, 0);
        tk_sink_u64(o->s, "invalidations", st->invalidations, 0);
        tk_sink_object_end(o->s);
    }
    tk_sink_array_end(o->s);
}

static void fields(out *o, const tk_cachesim_type *t)
{
    tk_sink_array_begin(o->s, "fields");
    for (size_t f = 0; f < t->nfields; f++) {
        const tk_cachesim_field *F = &t->fields[f];
        tk_sink_object_begin(o->s, NULL);
        tk_sink_cstr(o->s, o->json ? "name" : "field", F->name, 0);
        tk_sink_u64(o->s, "offset", F->offset, 0);
        tk_sink_u64(o->s, "size", F->size, 0);
        counts(o, &F->c, 1);
        tk_sink_object_end(o->s);
    }
    tk_sink_array_end(o->s);
}

/* Types by accesses, most first ("(untyped)" among them). */
static size_t *type_order(const tk_cachesim *sim)
{
    size_t n = sim->types.n, *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx)
        return NULL;
    for (size_t i = 0; i < n; i++) { /* insertion sort: stable, few types */
        uint64_t a = sim->types.v[i].pub.c.reads + sim->types.v[i].pub.c.writes;
        size_t j = i;
        while (j > 0) {
            const tk_cachesim_counts *c = &sim->types.v[idx[j - 1]].pub.c;
            if (c->reads + c->writes >= a)
                break;
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    return idx;
}

static void type_row(out *o, const tk_cachesim_type *t)
{
    tk_sink_cstr(o->s, o->json ? "name" : "type", t->name, 0);
    counts(o, &t->c, 1);
    tk_sink_u64(o->s, "regions", t->regions, 0);
    tk_sink_u64(o->s, "live", t->live, 0);
    tk_sink_u64(o->s, "peak_live", t->peak_live, 0);
}

static int types(out *o)
{
    const tk_cachesim *sim = o->sim;
    size_t *idx = type_order(sim);
    if (!idx)
        return -1;
    tk_sink_array_begin(o->s, "types");
    for (size_t i = 0; i < sim->types.n; i++) {
        const tk_cachesim_type *t = &sim->types.v[idx[i]].pub;
        if (idx[i] == 0 && t->c.reads + t->c.writes == 0)
            continue; /* no untyped accesses: no row */
        tk_sink_object_begin(o->s, NULL);
        type_row(o, t);
        if (o->json) {
            if (t->layout) {
                tk_sink_cstr(o->s, "layout", t->layout, 0);
                tk_sink_u64(o->s, "layout_size", t->layout_size, 0);
                tk_sink_u64(o->s, "unmatched", t->unmatched, 0);
                tk_sink_u64(o->s, "padding", t->padding, 0);
                fields(o, t);
            } else {
                tk_sink_null(o->s, "layout");
            }
        }
        tk_sink_object_end(o->s);
    }
    tk_sink_array_end(o->s);
    /* text: a field table per struct type, after the type table */
    for (size_t i = 0; !o->json && i < sim->types.n; i++) {
        const tk_cachesim_type *t = &sim->types.v[idx[i]].pub;
        if (!t->layout)
            continue;
        char key[512];
        snprintf(key, sizeof key, "%s (%s, %llu bytes)", t->name, t->layout,
                 (unsigned long long)t->layout_size);
        tk_sink_object_begin(o->s, key);
        tk_sink_u64(o->s, "unmatched", t->unmatched, 0);
        tk_sink_u64(o->s, "padding", t->padding, 0);
        fields(o, t);
        tk_sink_object_end(o->s);
    }
    free(idx);
    return 0;
}

/* 1 when thread a comes before thread b in the capped text table: more
 * accesses, or as many and seen earlier. */
static int busier(const void *ctx, size_t a, size_t b)
{
    const cs_threads *t = ctx;
    const tk_cachesim_counts *x = cs_threads_at(t, a), *y = cs_threads_at(t, b);
    uint64_t p = x->reads + x->writes, q = y->reads + y->writes;
    return p != q ? p > q : a < b;
}

static void thread_row(out *o, size_t i)
{
    tk_sink_object_begin(o->s, NULL);
    tk_sink_u64(o->s, "thread", cs_threads_id(&o->sim->threads, i), 0);
    counts(o, cs_threads_at(&o->sim->threads, i), 1);
    tk_sink_object_end(o->s);
}

/* Every thread in order of first access; in text, past `top` threads
 * (0: no limit), the `top` busiest and how many there are. */
static int threads(out *o, size_t top)
{
    const cs_threads *t = &o->sim->threads;
    size_t n = cs_threads_n(t);
    if (o->json || !top || n <= top) {
        tk_sink_array_begin(o->s, "threads");
        for (size_t i = 0; i < n; i++)
            thread_row(o, i);
        tk_sink_array_end(o->s);
        return 0;
    }
    size_t listed;
    size_t *idx = tk_topk(n, top, busier, t, &listed); /* a million threads made a million
                                                        * rows, held for the column widths */
    int bad = idx == NULL;
    char count[96];
    snprintf(count, sizeof count, "%zu (%zu listed, most accesses first)", n, top);
    tk_sink_cstr(o->s, "thread_count", count, TK_SINK_BARE);
    tk_sink_array_begin(o->s, "threads");
    for (size_t i = 0; idx && i < listed; i++)
        thread_row(o, idx[i]);
    tk_sink_array_end(o->s);
    free(idx);
    return bad;
}

static void sharer(out *o, const tk_cachesim_sharer *w, uint64_t line)
{
    tk_sink_u64(o->s, "thread", w->thread, 0);
    if (o->json) {
        tk_sink_u64(o->s, "first_addr", w->first, TK_SINK_ADDR);
        tk_sink_u64(o->s, "last_addr", w->last, TK_SINK_ADDR);
    } else { /* bytes of the line */
        char range[48];
        snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)(w->first - line),
                 (unsigned long long)(w->last - line));
        tk_sink_cstr(o->s, "bytes", range, 0);
    }
    tk_sink_u64(o->s, "writes", w->writes, 0);
    if (w->type)
        tk_sink_cstr(o->s, "type_name", w->type, 0);
    else
        tk_sink_null(o->s, "type_name");
    tk_sink_u64(o->s, "offset", w->offset, 0);
    if (w->field)
        tk_sink_cstr(o->s, "field", w->field, 0);
    else
        tk_sink_null(o->s, "field");
}

/* The false-sharing table; 1 when out of memory (tk_cachesim_write says). */
static int false_sharing(out *o, tk_cachesim *sim, size_t top)
{
    uint64_t shared;
    size_t n;
    tk_error err;
    int bad = cs_false_sharing_top(sim, top, &n, &shared, &err) != TK_OK;
    tk_sink_u64(o->s, "lines_written_by_several_threads", shared, 0);
    tk_sink_u64(o->s, "false_sharing_lines", n, 0);
    if (top && n > top)
        n = top;
    tk_sink_array_begin(o->s, "false_sharing");
    for (size_t i = 0; i < n; i++) {
        tk_cachesim_false_sharing fs;
        tk_cachesim_get_false_sharing(sim, i, &fs);
        if (o->json) {
            tk_sink_object_begin(o->s, NULL);
            tk_sink_u64(o->s, "line_addr", fs.line, TK_SINK_ADDR);
            tk_sink_u64(o->s, "writes", fs.writes, 0);
            tk_sink_u64(o->s, "alternations", fs.alternations, 0);
            tk_sink_array_begin(o->s, "threads");
            for (size_t j = 0; j < fs.nthreads; j++) {
                tk_sink_object_begin(o->s, NULL);
                sharer(o, &fs.threads[j], fs.line);
                tk_sink_object_end(o->s);
            }
            tk_sink_array_end(o->s);
            tk_sink_object_end(o->s);
            continue;
        }
        for (size_t j = 0; j < fs.nthreads; j++) { /* text: a row per thread */
            tk_sink_object_begin(o->s, NULL);
            tk_sink_u64(o->s, "line_addr", fs.line, TK_SINK_ADDR);
            tk_sink_u64(o->s, "alternations", fs.alternations, 0);
            sharer(o, &fs.threads[j], fs.line);
            tk_sink_object_end(o->s);
        }
    }
    tk_sink_array_end(o->s);
    return bad;
}

static void reuse(out *o)
{
    tk_cachesim_reuse r;
    if (!tk_cachesim_get_reuse(o->sim, &r)) {
        if (o->json)
            tk_sink_null(o->s, "reuse");
        return;
    }
    tk_sink_object_begin(o->s, "reuse");
    tk_sink_u64(o->s, "cold", r.cold, 0);
    tk_sink_array_begin(o->s, "histogram");
    for (size_t k = 0; k < r.nbuckets; k++) {
        uint64_t lo = k ? 1ULL << (k - 1) : 0, hi = k ? (1ULL << k) - 1 : 0;
        tk_sink_object_begin(o->s, NULL);
        tk_sink_u64(o->s, "min", lo, 0);
        tk_sink_u64(o->s, "max", hi, 0);
        tk_sink_u64(o->s, "count", r.bucket[k], 0);
        tk_sink_object_end(o->s);
    }
    tk_sink_array_end(o->s);
    tk_sink_object_end(o->s);
}

tk_status tk_cachesim_write(tk_cachesim *s, tk_sink *sink, const char *file, size_t top,
                            unsigned flags, tk_error *err)
{
    out o = {sink, s, tk_sink_get_style(sink) == TK_SINK_JSON, {{0}}};
    for (size_t k = 0; k < s->nlevels; k++)
        snprintf(o.miss_key[k], sizeof o.miss_key[k], "%s_misses", s->cfg.levels[k].name);
    tk_cachesim_totals tot;
    tk_cachesim_get_totals(s, &tot);
    const tk_cachesim_totals *t = &tot;
    int types_first = (flags & TK_CACHESIM_TYPES_FIRST) != 0, bad = 0;
    tk_sink_object_begin(sink, NULL);
    if (file)
        tk_sink_cstr(sink, "file", file, 0);
    tk_sink_cstr(sink, "format", "cacheray", 0);
    tk_sink_u64(sink, "records", t->records, 0);
    tk_sink_u64(sink, "accesses", t->accesses, 0);
    tk_sink_u64(sink, "reads", t->reads, 0);
    tk_sink_u64(sink, "writes", t->writes, 0);
    tk_sink_u64(sink, "bytes", t->bytes, 0);
    tk_sink_u64(sink, "zero_size", t->zero_size, 0);
    tk_sink_u64(sink, "rtta_add", t->rtta_add, 0);
    tk_sink_u64(sink, "rtta_remove", t->rtta_remove, 0);
    if (types_first)
        bad |= types(&o);
    levels(&o);
    if (!types_first)
        bad |= types(&o);
    bad |= threads(&o, top);
    bad |= false_sharing(&o, s, top);
    reuse(&o);
    tk_sink_object_end(sink);
    if (bad || cs_oom(s))
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return TK_OK;
}

/* Lines of the false-sharing table in `tracekit report`. */
#define REPORT_TOP 20

tk_status tk_cacheray_report_config(const tk_options *o, tk_cachesim_config *cfg,
                                   tk_error *err)
{
    const char *config = tk_options_get(o, "config");
    int levels = tk_options_get(o, "level") != NULL;
    tk_cachesim_config_init(cfg);
    if (config && levels)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--config and --level do not mix");
    if (config && tk_cachesim_config_load(cfg, config, err) != TK_OK) {
        tk_error_set_file(err, config); /* the message is about it, not the trace */
        return err->status;
    }
    for (size_t i = 0; i < tk_options_count(o); i++)
        if (strcmp(tk_options_key(o, i), "level") == 0 &&
            tk_cachesim_config_add_level(cfg, tk_options_value(o, i), err) != TK_OK)
            return err->status;
    if (!config && !levels)
        tk_cachesim_config_default(cfg);
    cfg->debug_info = tk_options_get(o, "debug-info");
    return TK_OK;
}

tk_status tk_cacheray_sim_report(tk_input *in, const tk_options *o, tk_sink *out_sink,
                           tk_error *err)
{
    tk_cachesim_config cfg;
    if (tk_cacheray_report_config(o, &cfg, err) != TK_OK)
        return err->status;
    tk_cacheray_reader *probe = tk_cacheray_open(in, o, 0, err); /* honours --endian */
    if (!probe)
        return err->status;
    tk_endian e = tk_cacheray_reader_endian(probe);
    tk_cacheray_reader_free(probe);
    tk_cachesim *s = tk_cachesim_new(&cfg, err);
    if (!s)
        return err->status;
    tk_status st = tk_cacheray_sim_run(s, in, e, o, err); /* with the selection */
    if (st == TK_OK)
        st = tk_cachesim_write(s, out_sink, tk_input_name(in), REPORT_TOP,
                               TK_CACHESIM_TYPES_FIRST, err);
    tk_cachesim_free(s);
    return st;
}
