/* What the SVG charts share: the figure around them, axes with ticks,
 * legends, and the table equivalent each chart is followed by. */
#include <math.h>
#include <stdlib.h>

#include "core/numfmt.h"
#include "export/html/html_int.h"

double tk_html_axis_pos(const tk_html_axis *a, double v, double len)
{
    double lo = a->lo, hi = a->hi;
    if (a->log) {
        lo = log(lo > 0 ? lo : 1e-300);
        hi = log(hi > 0 ? hi : 1e-300);
        v = log(v > 0 ? v : (a->lo > 0 ? a->lo : 1e-300));
    }
    if (!(hi > lo))
        return 0;
    double p = (v - lo) / (hi - lo) * len;
    return p < 0 ? 0 : p > len ? len : p;
}

void tk_html_figure_begin(tk_html *h, const tk_html_chart *c, int w, int hgt)
{
    tk_html_puts(h, "<figure class=\"tk-figure tk-chart\"");
    if (c->id) {
        tk_html_puts(h, " id=\"");
        tk_html_text(h, c->id, SIZE_MAX);
        tk_html_puts(h, "\"");
    }
    tk_html_puts(h, "><figcaption>");
    if (c->title) {
        tk_html_puts(h, "<b>");
        tk_html_text(h, c->title, SIZE_MAX);
        tk_html_puts(h, "</b> ");
    }
    tk_html_text(h, c->caption, SIZE_MAX);
    tk_html_printf(h, "</figcaption><svg class=\"tk-svg\" viewBox=\"0 0 %d %d\" role=\"img\" "
                      "aria-label=\"",
                   w, hgt);
    tk_html_text(h, c->title ? c->title : "chart", SIZE_MAX);
    tk_html_puts(h, "\">");
}

void tk_html_figure_end(tk_html *h) { tk_html_puts(h, "</svg>"); }

/* About five round tick values in [lo, hi] (powers of 2 or 10 on a log
 * axis) into t[8]; returns how many. */
static int ticks(const tk_html_axis *a, double t[8])
{
    int n = 0;
    if (a->log) {
        double base = a->unit == TK_HTML_BYTES ? 2 : 10;
        double lo = a->lo > 0 ? a->lo : 1, step = base;
        while (log(a->hi / lo) / log(step) > 7)
            step *= base;
        for (double v = pow(base, ceil(log(lo) / log(base))); v <= a->hi * 1.0000001 && n < 8;
             v *= step)
            t[n++] = v;
        return n;
    }
    double range = a->hi - a->lo;
    if (!(range > 0) || !isfinite(range)) {
        t[0] = a->lo;
        return 1;
    }
    /* the smallest round step (1, 2, 5 times a power of ten) of at least
     * a fifth of the range: at most six ticks, the last at or past hi */
    double raw = range / 5, mag = pow(10, floor(log10(raw))), r = raw / mag;
    double step = (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
    for (double v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9 && n < 8; v += step)
        t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

static void tick_label(tk_html *h, double v, tk_html_unit unit)
{
    sb_reset(&h->tmp);
    if (v == 0) { /* "0", not "0.000s" */
        sb_putc(&h->tmp, '0');
    } else if (unit == TK_HTML_SECONDS) { /* short: "200µs", not "200.000µs" */
        static const char *const sym[] = {"ns", "\xC2\xB5s", "ms", "s"};
        static const double per[] = {1e9, 1e6, 1e3, 1};
        int u = tk_num_duration_unit(fabs(v));
        sb_printf(&h->tmp, "%.4g%s", v * per[u], sym[u]);
    } else {
        tk_html_num_text(&h->tmp, v, unit);
    }
    tk_html_put(h, h->tmp.p ? h->tmp.p : "", h->tmp.len);
}

void tk_html_axis_x(tk_html *h, const tk_html_axis *a, double x0, double y, double len,
                    const char *label)
{
    double t[8];
    int n = ticks(a, t);
    tk_html_printf(h, "<g class=\"tk-axis\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                      "y2=\"%.1f\"/>",
                   x0, y, x0 + len, y);
    for (int i = 0; i < n; i++) {
        double x = x0 + tk_html_axis_pos(a, t[i], len);
        tk_html_printf(h, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                       x, y, x, y + 4, x, y + 16);
        tick_label(h, t[i], a->unit);
        tk_html_puts(h, "</text>");
    }
    if (label) {
        tk_html_printf(h, "<text class=\"tk-axis-label\" x=\"%.1f\" y=\"%.1f\" "
                          "text-anchor=\"middle\">",
                       x0 + len / 2, y + 32);
        tk_html_text(h, label, SIZE_MAX);
        tk_html_puts(h, "</text>");
    }
    tk_html_puts(h, "</g>");
}

void tk_html_axis_y(tk_html *h, const tk_html_axis *a, double x0, double y0, double len,
                    double width, const char *label)
{
    double t[8];
    int n = ticks(a, t);
    tk_html_printf(h, "<g class=\"tk-axis\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                      "y2=\"%.1f\"/>",
                   x0, y0, x0, y0 + len);
    for (int i = 0; i < n; i++) {
        double y = y0 + len - tk_html_axis_pos(a, t[i], len);
        tk_html_printf(h, "<line class=\"tk-grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                          "y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
                       x0, y, x0 + width, y, x0 - 4, y + 4);
        tick_label(h, t[i], a->unit);
        tk_html_puts(h, "</text>");
    }
    if (label) {
        tk_html_printf(h, "<text class=\"tk-axis-label\" x=\"%.1f\" y=\"%.1f\">", x0,
                       y0 - 8);
        tk_html_text(h, label, SIZE_MAX);
        tk_html_puts(h, "</text>");
    }
    tk_html_puts(h, "</g>");
}

void tk_html_legend(tk_html *h, const tk_html_series *s, size_t ns)
{
    if (ns < 2)
        return;
    tk_html_puts(h, "<ul class=\"tk-legend\">");
    for (size_t i = 0; i < ns; i++) {
        tk_html_printf(h, "<li><span class=\"tk-swatch tk-c%zu\"></span>", i % TK_HTML_COLORS);
        tk_html_text(h, s[i].name, SIZE_MAX);
        tk_html_puts(h, "</li>");
    }
    tk_html_puts(h, "</ul>");
}

void tk_html_chart_table(tk_html *h, const tk_html_chart *c, const tk_html_value *x, size_t n,
                         const tk_html_series *s, size_t ns)
{
    tk_html_column *cols = calloc(ns + 1, sizeof *cols);
    tk_html_value *row = calloc(ns + 1, sizeof *row);
    if (!cols || !row) {
        free(cols);
        free(row);
        tk_html_fail(h, TK_ENOMEM);
        return;
    }
    cols[0] = (tk_html_column){.label = c->x_label ? c->x_label : "x", .key = c->x_key,
                               .unit = c->x_unit, .scale = c->x_scale,
                               .flags = c->x_key ? TK_HTML_COL_KEY : 0};
    for (size_t k = 0; k < ns; k++)
        cols[k + 1] = (tk_html_column){.label = s[k].name, .key = s[k].key, .unit = c->y_unit,
                                       .scale = c->y_scale, .flags = TK_HTML_COL_SUM};
    tk_html_table_spec spec = {.src = c->src, .cols = cols, .ncols = ns + 1, .agg = c->agg,
                               .filter = c->filter};
    tk_html_puts(h, "<details class=\"tk-equiv\"><summary>The numbers</summary>");
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < n; i++) {
        row[0] = x[i];
        for (size_t k = 0; k < ns; k++)
            row[k + 1] = s[k].v[i];
        tk_html_table_row(h, row);
    }
    tk_html_table_end(h);
    tk_html_puts(h, "</details></figure>\n");
    free(cols);
    free(row);
}
