/* Cacheray's HTML report: the reuse-distance histogram (cachesim --reuse
 * --json's `reuse`) and the miss-ratio curve it implies. LRU has the
 * inclusion property (Mattson): a fully associative LRU cache of C lines
 * misses on the first access to a line and on every access whose stack
 * distance is C or more, so one histogram gives every size's miss rate.
 * Its buckets double, [2^(k-1), 2^k), so the curve is exact at C = 2^j. */
#include <inttypes.h>
#include <stdlib.h>

#include "cacheray/html_int.h"

/* Sizes on the curve: 2^0 .. 2^MAX_EXP lines. */
#define MAX_EXP 62

typedef struct curve {
    tk_cachesim_reuse r;
    uint64_t total; /* line accesses: cold + every bucket */
    uint64_t line;  /* L1's line size: distances count its lines */
} curve;

/* Misses of a fully associative LRU cache of 2^j lines. */
static uint64_t misses_at(const curve *v, unsigned j)
{
    uint64_t m = v->r.cold;
    for (size_t k = (size_t)j + 1; k < v->r.nbuckets; k++)
        m += v->r.bucket[k];
    return m;
}

static void histogram(tk_html *h, const curve *v)
{
    tk_html_bin b[TK_CACHESIM_REUSE_BUCKETS];
    for (size_t k = 0; k < v->r.nbuckets; k++) {
        uint64_t lo = k ? 1ULL << (k - 1) : 0, hi = k ? 1ULL << k : 1;
        b[k] = (tk_html_bin){tk_html_u64(lo), tk_html_u64(hi), v->r.bucket[k]};
    }
    tk_html_chart c = {.id = "reuse-histogram", .title = "Reuse distances",
                       .caption = "Line accesses by LRU stack distance: the distinct lines "
                                  "touched since the line's last access (bins double).",
                       .x_label = "distinct lines in between", .y_label = "line accesses"};
    tk_html_histogram(h, &c, b, v->r.nbuckets);
}

/* The histogram's buckets with the miss rate of the cache they fill. */
static void bucket_table(tk_html *h, const curve *v)
{
    tk_html_column cols[] = {
        {.label = "distance from", .key = "min", .flags = TK_HTML_COL_KEY},
        {.label = "to", .key = "max", .flags = TK_HTML_COL_KEY},
        {.label = "line accesses", .key = "count", .flags = TK_HTML_COL_HEAT | TK_HTML_COL_SUM},
        {.label = "share", .unit = TK_HTML_RATIO, .help = "of every line access"},
        {.label = "LRU cache holding them", .unit = TK_HTML_BYTES,
         .help = "a fully associative LRU cache of (to + 1) lines: these accesses hit"},
        {.label = "its miss rate", .unit = TK_HTML_RATIO}};
    tk_html_table_spec spec = {.id = "reuse-table", .src = "cachesim.reuse.histogram",
                               .cols = cols, .ncols = sizeof cols / sizeof cols[0],
                               .caption = "Reuse distances (as cachesim --reuse --json's "
                                          "reuse.histogram)"};
    tk_html_table_begin(h, &spec);
    for (size_t k = 0; k < v->r.nbuckets; k++) {
        uint64_t lo = k ? 1ULL << (k - 1) : 0, hi = k ? (1ULL << k) - 1 : 0;
        tk_html_value row[] = {
            tk_html_u64(lo), tk_html_u64(hi), tk_html_u64(v->r.bucket[k]),
            tk_html_f64((double)v->r.bucket[k] / (double)v->total),
            tk_html_f64((double)(hi + 1) * (double)v->line),
            tk_html_f64((double)misses_at(v, (unsigned)k) / (double)v->total)};
        tk_html_table_row(h, row);
    }
    tk_html_table_end(h);
}

/* The curve from 1 line to past the largest level, the levels marked. */
static void mrc(tk_html *h, tk_crh *c, const curve *v)
{
    unsigned top = v->r.nbuckets ? (unsigned)v->r.nbuckets - 1 : 0;
    tk_html_value marks[TK_CACHESIM_MAX_LEVELS], x[MAX_EXP + 1], y[MAX_EXP + 1];
    const char *labels[TK_CACHESIM_MAX_LEVELS];
    for (size_t k = 0; k < c->nlevels; k++) {
        const tk_cachesim_level *l = tk_cachesim_level_config(c->sim, k);
        marks[k] = tk_html_u64(l->size);
        labels[k] = l->name;
        while (top < MAX_EXP && ((uint64_t)1 << top) < l->size / v->line)
            top++;
    }
    for (unsigned j = 0; j <= top; j++) {
        x[j] = tk_html_f64((double)((uint64_t)1 << j) * (double)v->line);
        y[j] = tk_html_f64((double)misses_at(v, j) / (double)v->total);
    }
    tk_html_series s = {"fully associative LRU", NULL, y};
    char caption[200];
    snprintf(caption, sizeof caption,
             "Miss rate against cache size for a fully associative LRU cache of %" PRIu64
             "-byte lines, from the reuse distances; the configured levels are marked.",
             v->line);
    tk_html_chart ch = {.id = "mrc", .title = "Miss-ratio curve", .caption = caption,
                        .x_label = "cache size", .x_unit = TK_HTML_BYTES,
                        .y_label = "miss rate", .y_unit = TK_HTML_RATIO, .log_x = 1,
                        .marks = marks, .mark_labels = labels, .nmarks = c->nlevels};
    tk_html_lines(h, &ch, x, top + 1, &s, 1);
}

void tk_crh_reuse(tk_html *h, tk_crh *c)
{
    if (c->nlevels == 0)
        return;
    curve v = {.line = tk_cachesim_level_config(c->sim, 0)->line};
    tk_cachesim_get_reuse(c->sim, &v.r);
    v.total = v.r.cold;
    for (size_t k = 0; k < v.r.nbuckets; k++)
        v.total += v.r.bucket[k];
    tk_html_field f[] = {
        {"first accesses to a line (cold)", "cold", TK_HTML_PLAIN, 0, tk_html_u64(v.r.cold)},
        {"line accesses", NULL, TK_HTML_PLAIN, 0, tk_html_u64(v.total)},
        {"line size (L1's)", NULL, TK_HTML_BYTES, 0, tk_html_u64(v.line)}};
    tk_html_facts(h, "cachesim.reuse", NULL, f, sizeof f / sizeof f[0]);
    if (v.total == 0) {
        tk_html_para(h, "No line was accessed: no reuse distances.");
        return;
    }
    histogram(h, &v);
    bucket_table(h, &v);
    mrc(h, c, &v);
}
