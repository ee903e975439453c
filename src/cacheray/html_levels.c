/* Cacheray's HTML report: each level's counters (report --json's
 * `levels`), its hits and misses by kind as stacked bars, and the miss
 * rate and misses per window of records. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "cacheray/html_int.h"

/* report --json's rate: rounded to 6 decimals. */
static double rate(uint64_t part, uint64_t whole)
{
    return whole ? round((double)part / (double)whole * 1e6) / 1e6 : 0.0;
}

size_t tk_crh_miss_columns(const tk_crh *c, tk_html_column *cols, size_t at,
                           char (*names)[TK_CACHESIM_NAME_MAX + 8])
{
    for (size_t k = 0; k < c->nlevels; k++) {
        snprintf(names[k], TK_CACHESIM_NAME_MAX + 8, "%s misses", tk_crh_level_name(c, k));
        cols[at++] = (tk_html_column){.label = names[k],
                                      .flags = TK_HTML_COL_HEAT | TK_HTML_COL_SUM,
                                      .help = "accesses with a line access (or a fetch it "
                                              "caused) that missed at this level"};
    }
    return at;
}

static void level_table(tk_html *h, tk_crh *c)
{
    tk_html_column cols[] = {
        {.label = "level", .key = "name", .flags = TK_HTML_COL_KEY},
        {.label = "size", .key = "size", .unit = TK_HTML_BYTES},
        {.label = "line", .key = "line_size", .unit = TK_HTML_BYTES},
        {.label = "ways", .key = "ways"},
        {.label = "sets", .key = "sets"},
        {.label = "policy", .key = "policy"},
        {.label = "reads", .key = "reads", .help = "line reads seen by the level"},
        {.label = "writes", .key = "writes", .help = "line writes seen by the level"},
        {.label = "read misses", .key = "read_misses", .flags = TK_HTML_COL_HEAT},
        {.label = "write misses", .key = "write_misses", .flags = TK_HTML_COL_HEAT},
        {.label = "miss rate", .key = "miss_rate", .unit = TK_HTML_RATIO,
         .flags = TK_HTML_COL_HEAT},
        {.label = "compulsory", .key = "compulsory", .help = "first access to the line"},
        {.label = "capacity", .key = "capacity",
         .help = "would miss in a fully associative LRU cache of the same size too"},
        {.label = "conflict", .key = "conflict",
         .help = "would hit in a fully associative LRU cache of the same size"},
        {.label = "writebacks", .key = "writebacks"},
        {.label = "invalidations", .key = "invalidations"}};
    tk_html_table_spec spec = {.id = "level-table", .src = "report.levels", .cols = cols,
                               .ncols = sizeof cols / sizeof cols[0],
                               .caption = "Each level's line accesses and misses (as report "
                                          "--json's levels)"};
    tk_html_table_begin(h, &spec);
    for (size_t k = 0; k < c->nlevels; k++) {
        const tk_cachesim_level *l = tk_cachesim_level_config(c->sim, k);
        tk_cachesim_level_stats st;
        tk_cachesim_get_level(c->sim, k, &st);
        uint64_t lines = l->size / l->line, ways = l->ways ? l->ways : lines;
        tk_html_value row[] = {
            tk_html_str(l->name), tk_html_u64(l->size), tk_html_u64(l->line),
            tk_html_u64(ways), tk_html_u64(lines / ways),
            tk_html_str(tk_cachesim_policy_name(l->policy)), tk_html_u64(st.reads),
            tk_html_u64(st.writes), tk_html_u64(st.read_misses), tk_html_u64(st.write_misses),
            tk_html_f64(rate(st.read_misses + st.write_misses, st.reads + st.writes)),
            tk_html_u64(st.compulsory), tk_html_u64(st.capacity), tk_html_u64(st.conflict),
            tk_html_u64(st.writebacks), tk_html_u64(st.invalidations)};
        tk_html_table_row(h, row);
    }
    tk_html_table_end(h);
}

/* Hits, then misses by kind, stacked per level. */
static void split_bars(tk_html *h, tk_crh *c)
{
    tk_html_value x[TK_CACHESIM_MAX_LEVELS], v[4][TK_CACHESIM_MAX_LEVELS];
    for (size_t k = 0; k < c->nlevels; k++) {
        tk_cachesim_level_stats st;
        tk_cachesim_get_level(c->sim, k, &st);
        x[k] = tk_html_str(tk_crh_level_name(c, k));
        v[0][k] = tk_html_u64(st.reads + st.writes - st.read_misses - st.write_misses);
        v[1][k] = tk_html_u64(st.compulsory);
        v[2][k] = tk_html_u64(st.capacity);
        v[3][k] = tk_html_u64(st.conflict);
    }
    tk_html_series s[4] = {{"hits", NULL, v[0]},
                           {"compulsory misses", "compulsory", v[1]},
                           {"capacity misses", "capacity", v[2]},
                           {"conflict misses", "conflict", v[3]}};
    tk_html_chart ch = {.id = "level-split", .title = "Line accesses per level",
                        .caption = "Hits, and misses split into compulsory (first touch), "
                                   "capacity and conflict ones.",
                        .src = "report.levels", .x_label = "level", .x_key = "name",
                        .y_label = "line accesses", .stacked = 1};
    tk_html_bars(h, &ch, x, c->nlevels, s, 4);
}

void tk_crh_levels(tk_html *h, tk_crh *c)
{
    level_table(h, c);
    split_bars(h, c);
}

/* One chart over the windows: each level's miss rate, or its misses. */
static void window_chart(tk_html *h, tk_crh *c, size_t n, int misses)
{
    tk_html_value *x = calloc(n, sizeof *x);
    tk_html_value *v = calloc(n * c->nlevels + 1, sizeof *v);
    char (*names)[TK_CACHESIM_NAME_MAX + 16] = calloc(c->nlevels + 1, sizeof *names);
    tk_html_series s[TK_CACHESIM_MAX_LEVELS];
    if (!x || !v || !names) {
        free(x);
        free(v);
        free(names);
        tk_html_para(h, "The chart could not be drawn (out of memory).");
        return;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = tk_html_u64(c->origin + (uint64_t)i * c->width);
    for (size_t k = 0; k < c->nlevels; k++) {
        snprintf(names[k], sizeof names[k], "%s %s", tk_crh_level_name(c, k),
                 misses ? "misses" : "miss rate");
        for (size_t i = 0; i < n; i++) {
            const tk_crh_window *w = &c->win[i];
            v[k * n + i] = misses       ? tk_html_u64(w->miss[k])
                           : w->acc[k] ? tk_html_f64((double)w->miss[k] / (double)w->acc[k])
                                       : tk_html_null();
        }
        s[k] = (tk_html_series){names[k], NULL, &v[k * n]};
    }
    char caption[200];
    snprintf(caption, sizeof caption,
             "Windows of %" PRIu64 " records from record %" PRIu64
             " (the last ends at record %" PRIu64 "); %s",
             c->width, c->origin, c->last,
             misses ? "each level's misses in the window (they add up to the level's misses)"
                    : "misses per line access at each level (blank: no access reached it)");
    tk_html_chart ch = {.id = misses ? "window-misses" : "window-rate",
                        .title = misses ? "Misses per window" : "Miss rate per window",
                        .caption = caption, .x_label = "first record of the window",
                        .y_label = misses ? "misses" : "miss rate",
                        .y_unit = misses ? TK_HTML_PLAIN : TK_HTML_RATIO};
    tk_html_lines(h, &ch, x, n, s, c->nlevels);
    free(x);
    free(v);
    free(names);
}

void tk_crh_windows(tk_html *h, tk_crh *c)
{
    if (!c->started) {
        tk_html_para(h, "No record was selected: no windows.");
        return;
    }
    size_t n = c->cur + 1;
    window_chart(h, c, n, 0);
    window_chart(h, c, n, 1);
}
