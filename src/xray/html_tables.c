/* XRay's HTML report: the account table and latency histograms of the top
 * functions, with the numbers of account --json (the edges: html_edges.c). */
#include <stdlib.h>

#include "xray/html_int.h"

/* Histograms for this many functions. */
#define TOP_HISTOGRAMS 6

void tk_xh_account(tk_html *h, tk_xh *x)
{
    tk_html_unit u = x->freq ? TK_HTML_SECONDS : TK_HTML_PLAIN;
    tk_html_column cols[10] = {
        {.label = "id", .key = "func_id", .flags = TK_HTML_COL_KEY},
        {.label = "function", .key = "function", .flags = TK_HTML_COL_MONO},
        {.label = "count", .key = "count", .flags = TK_HTML_COL_HEAT | TK_HTML_COL_SUM},
        {.label = "min", .key = "min_s", .unit = u},
        {.label = "median", .key = "med_s", .unit = u},
        {.label = "90%", .key = "p90_s", .unit = u},
        {.label = "99%", .key = "p99_s", .unit = u},
        {.label = "max", .key = "max_s", .unit = u},
        {.label = "sum", .key = "sum_s", .unit = u, .flags = TK_HTML_COL_HEAT | TK_HTML_COL_SUM,
         .help = "total time in the function's calls, callees included"},
        {.label = "location", .flags = TK_HTML_COL_MONO}};
    tk_html_table_spec spec = {.id = "account", .src = "account", .cols = cols, .ncols = 10,
                               .caption = "Every function's calls and latencies (as account "
                                          "--json; click a header to sort)"};
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < x->nrows; i++) {
        const tk_xray_account_row *r = &x->rows[i];
        const char *nm = tk_xray_map_name(x->map, r->func_id);
        tk_html_value row[10] = {
            tk_html_i64(r->func_id), tk_html_str(nm), tk_html_u64(r->count),
            tk_xh_seconds(x, (double)r->min), tk_xh_seconds(x, (double)r->med),
            tk_xh_seconds(x, (double)r->p90), tk_xh_seconds(x, (double)r->p99),
            tk_xh_seconds(x, (double)r->max), tk_xh_seconds(x, (double)r->sum),
            x->map ? tk_html_str(tk_xray_map_location(x->map, r->func_id)) : tk_html_null()};
        tk_html_table_row(h, row);
    }
    tk_html_table_end(h);
}

/* One function's histogram: its nonempty span of log2 bins. */
static void histogram(tk_html *h, tk_xh *x, const tk_xray_account_row *r)
{
    const tk_xh_hist *hs = tk_map_find_u64(&x->hist, (uint32_t)r->func_id);
    char title[300];
    snprintf(title, sizeof title, "%s", tk_xray_map_name(x->map, r->func_id));
    if (!hs)
        return;
    uint64_t one[TK_XH_BINS] = {0};
    const uint64_t *bins = hs->bins;
    if (!bins) { /* one call */
        one[hs->first] = 1;
        bins = one;
    }
    int lo = 0, hi = TK_XH_BINS - 1;
    while (lo < hi && !bins[lo])
        lo++;
    while (hi > lo && !bins[hi])
        hi--;
    tk_html_bin b[TK_XH_BINS];
    size_t n = 0;
    for (int k = lo; k <= hi; k++, n++) {
        uint64_t from = k ? (uint64_t)1 << (k - 1) : 0, to = k < 64 ? (uint64_t)1 << k : 0;
        b[n].lo = x->freq ? tk_html_f64((double)from / (double)x->freq) : tk_html_u64(from);
        b[n].hi = k == 64 ? tk_html_null()
                  : x->freq ? tk_html_f64((double)to / (double)x->freq) : tk_html_u64(to);
        b[n].count = bins[k];
    }
    tk_html_chart c = {.title = title,
                       .caption = "calls by duration (bins double in width)",
                       .x_label = x->freq ? "duration" : "duration (ticks)",
                       .x_unit = x->freq ? TK_HTML_SECONDS : TK_HTML_PLAIN,
                       .y_label = "calls"};
    tk_html_histogram(h, &c, b, n);
    /* the calls counted equal account's count (the same matching) */
    tk_html_field f[2] = {{"function id", "func_id", TK_HTML_PLAIN, 0, tk_html_i64(r->func_id)},
                          {"calls", "count", TK_HTML_PLAIN, 0, tk_html_u64(r->count)}};
    tk_html_facts(h, "account", "func_id", f, 2);
}

void tk_xh_histograms(tk_html *h, tk_xh *x)
{
    if (x->nrows == 0) {
        tk_html_para(h, "No call returned: no latencies.");
        return;
    }
    for (size_t i = 0; i < x->nrows && i < TOP_HISTOGRAMS; i++)
        histogram(h, x, &x->rows[i]);
    if (x->hist.n >= TK_XH_HIST_FUNCS)
        tk_html_paraf(h, "Histograms were kept for the first %d functions seen.",
                      TK_XH_HIST_FUNCS);
}
