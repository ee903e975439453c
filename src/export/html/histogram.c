/* Histograms: a bar per bin, of equal width (log-spaced bins read
 * naturally), and the bins' table. */
#include "export/html/html_int.h"

enum { W = 720, H = 260, PLOT_X = 70, PLOT_W = 620, TOP = 24, PLOT_H = 180 };

/* A bin's range for people: "lo – hi". */
static void range_text(tk_html *h, const tk_html_chart *c, const tk_html_bin *b)
{
    sb_reset(&h->tmp);
    tk_html_value_text(&h->tmp, &b->lo, c->x_unit, c->x_scale);
    sb_puts(&h->tmp, " \xE2\x80\x93 ");
    tk_html_value_text(&h->tmp, &b->hi, c->x_unit, c->x_scale);
    tk_html_put(h, h->tmp.p ? h->tmp.p : "", h->tmp.len);
}

static void draw(tk_html *h, const tk_html_chart *c, const tk_html_bin *bins, size_t n)
{
    uint64_t max = 5; /* whole ticks on the count axis */
    for (size_t i = 0; i < n; i++)
        max = bins[i].count > max ? bins[i].count : max;
    tk_html_axis ay = {0, (double)max, 0, TK_HTML_PLAIN};
    tk_html_axis_y(h, &ay, PLOT_X, TOP, PLOT_H, PLOT_W, c->y_label ? c->y_label : "count");
    double w = n ? (double)PLOT_W / (double)n : PLOT_W;
    for (size_t i = 0; i < n; i++) {
        double bh = tk_html_axis_pos(&ay, (double)bins[i].count, PLOT_H);
        tk_html_printf(h, "<rect class=\"tk-c0\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                          "height=\"%.1f\"><title>",
                       PLOT_X + w * (double)i + 1, TOP + PLOT_H - bh, w > 3 ? w - 2 : w, bh);
        range_text(h, c, &bins[i]);
        tk_html_printf(h, ": %llu</title></rect>", (unsigned long long)bins[i].count);
    }
    /* a label under every few bins: the bin's low end */
    size_t every = n > 12 ? (n + 11) / 12 : 1;
    tk_html_puts(h, "<g class=\"tk-axis\">");
    for (size_t i = 0; i < n; i += every) {
        tk_html_printf(h, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
                       PLOT_X + w * (double)i + w / 2, TOP + PLOT_H + 16);
        sb_reset(&h->tmp);
        tk_html_value_text(&h->tmp, &bins[i].lo, c->x_unit, c->x_scale);
        tk_html_put(h, h->tmp.p ? h->tmp.p : "", h->tmp.len);
        tk_html_puts(h, "</text>");
    }
    if (c->x_label) {
        tk_html_printf(h, "<text class=\"tk-axis-label\" x=\"%d\" y=\"%d\" "
                          "text-anchor=\"middle\">",
                       PLOT_X + PLOT_W / 2, TOP + PLOT_H + 34);
        tk_html_text(h, c->x_label, SIZE_MAX);
        tk_html_puts(h, "</text>");
    }
    tk_html_puts(h, "</g>");
}

void tk_html_histogram(tk_html *h, const tk_html_chart *c, const tk_html_bin *bins, size_t n)
{
    tk_html_figure_begin(h, c, W, H);
    draw(h, c, bins, n);
    tk_html_figure_end(h);
    /* the table: from, to (x's unit), count */
    tk_html_column cols[3] = {{.label = "from", .unit = c->x_unit, .scale = c->x_scale},
                              {.label = "to", .unit = c->x_unit, .scale = c->x_scale},
                              {.label = c->y_label ? c->y_label : "count",
                               .unit = TK_HTML_PLAIN, .flags = TK_HTML_COL_SUM}};
    tk_html_table_spec spec = {.cols = cols, .ncols = 3};
    tk_html_puts(h, "<details class=\"tk-equiv\"><summary>The numbers</summary>");
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < n; i++) {
        tk_html_value row[3] = {bins[i].lo, bins[i].hi, tk_html_u64(bins[i].count)};
        tk_html_table_row(h, row);
    }
    tk_html_table_end(h);
    tk_html_puts(h, "</details></figure>\n");
}
