/* Horizontal bar charts: a row per x, series stacked or side by side. */
#include "export/html/html_int.h"

enum { W = 720, LABEL_W = 190, PLOT_X = 200, PLOT_W = 500, ROW_H = 20, TOP = 24, BOTTOM = 40 };

static double scaled(const tk_html_value *v, double scale)
{
    double x = tk_html_value_num(v);
    return scale != 0 && scale != 1 ? x / scale : x;
}

/* The largest bar (or stack) among the first `n` rows. */
static double largest(const tk_html_chart *c, size_t n, const tk_html_series *s, size_t ns)
{
    double max = 0;
    for (size_t i = 0; i < n; i++) {
        double sum = 0;
        for (size_t k = 0; k < ns; k++) {
            double v = scaled(&s[k].v[i], c->y_scale);
            v = v > 0 ? v : 0;
            sum = c->stacked ? sum + v : (v > sum ? v : sum);
        }
        max = sum > max ? sum : max;
    }
    return max;
}

static void row_label(tk_html *h, const tk_html_chart *c, const tk_html_value *x, double y)
{
    tk_html_printf(h, "<text class=\"tk-bar-label\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
                   LABEL_W, y + ROW_H / 2 + 4);
    sb_reset(&h->tmp);
    tk_html_value_text(&h->tmp, x, c->x_unit, c->x_scale);
    /* long names are cut for the drawing (the table has them whole) */
    size_t len = h->tmp.len, cut = len;
    if (len > 28) {
        cut = 26;
        while (cut > 0 && ((unsigned char)h->tmp.p[cut] & 0xC0) == 0x80)
            cut--;
    }
    tk_html_put(h, h->tmp.p ? h->tmp.p : "", cut);
    if (cut < len)
        tk_html_puts(h, "\xE2\x80\xA6");
    tk_html_puts(h, "</text>");
}

static void bar(tk_html *h, const tk_html_chart *c, const tk_html_series *s, size_t k,
                const tk_html_value *x, size_t i, double x0, double y, double w, double hgt)
{
    tk_html_printf(h, "<rect class=\"tk-c%zu\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                      "height=\"%.1f\"><title>",
                   k % TK_HTML_COLORS, x0, y, w, hgt);
    sb_reset(&h->tmp);
    tk_html_value_text(&h->tmp, x, c->x_unit, c->x_scale);
    sb_puts(&h->tmp, ", ");
    tk_html_escape(&h->tmp, s[k].name, SIZE_MAX);
    sb_puts(&h->tmp, ": ");
    tk_html_value_text(&h->tmp, &s[k].v[i], c->y_unit, c->y_scale);
    tk_html_put(h, h->tmp.p ? h->tmp.p : "", h->tmp.len);
    tk_html_puts(h, "</title></rect>");
}

void tk_html_bars(tk_html *h, const tk_html_chart *c, const tk_html_value *x, size_t n,
                  const tk_html_series *s, size_t ns)
{
    size_t shown = n < TK_HTML_MAX_BARS ? n : TK_HTML_MAX_BARS;
    int hgt = TOP + (int)shown * ROW_H + BOTTOM;
    tk_html_axis a = {0, largest(c, shown, s, ns), 0, c->y_unit};
    if (!(a.hi > 0))
        a.hi = 1;
    tk_html_figure_begin(h, c, W, hgt);
    for (size_t i = 0; i < shown; i++) {
        double y = TOP + (double)i * ROW_H;
        row_label(h, c, &x[i], y);
        double at = PLOT_X;
        for (size_t k = 0; k < ns; k++) {
            double v = scaled(&s[k].v[i], c->y_scale), w = tk_html_axis_pos(&a, v, PLOT_W);
            if (c->stacked) {
                bar(h, c, s, k, &x[i], i, at, y + 2, w, ROW_H - 4);
                at += w;
            } else {
                double bh = (double)(ROW_H - 4) / (double)ns;
                bar(h, c, s, k, &x[i], i, PLOT_X, y + 2 + bh * (double)k, w, bh);
            }
        }
    }
    tk_html_axis_x(h, &a, PLOT_X, TOP + (double)shown * ROW_H, PLOT_W, c->y_label);
    tk_html_figure_end(h);
    tk_html_legend(h, s, ns);
    if (shown < n)
        tk_html_paraf(h, "The first %zu of %zu rows drawn; the table has the rest.", shown, n);
    tk_html_chart_table(h, c, x, n, s, ns);
}
