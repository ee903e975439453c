/* Line charts over numeric x (windows, cache sizes), with markers. */
#include <math.h>

#include "export/html/html_int.h"

enum { W = 720, H = 300, PLOT_X = 70, PLOT_W = 620, TOP = 24, PLOT_H = 220 };

static double scaled(const tk_html_value *v, double scale)
{
    double x = tk_html_value_num(v);
    return scale != 0 && scale != 1 ? x / scale : x;
}

/* The axes' ranges from the points (and markers). */
static void ranges(const tk_html_chart *c, const tk_html_value *x, size_t n,
                   const tk_html_series *s, size_t ns, tk_html_axis *ax, tk_html_axis *ay)
{
    *ax = (tk_html_axis){INFINITY, -INFINITY, c->log_x, c->x_unit};
    *ay = (tk_html_axis){0, -INFINITY, 0, c->y_unit};
    for (size_t i = 0; i < n; i++) {
        double v = scaled(&x[i], c->x_scale);
        if (c->log_x && !(v > 0))
            continue;
        ax->lo = v < ax->lo ? v : ax->lo;
        ax->hi = v > ax->hi ? v : ax->hi;
        for (size_t k = 0; k < ns; k++) {
            double y = scaled(&s[k].v[i], c->y_scale);
            if (isfinite(y))
                ay->hi = y > ay->hi ? y : ay->hi;
        }
    }
    for (size_t i = 0; i < c->nmarks; i++) {
        double v = scaled(&c->marks[i], c->x_scale);
        if (!c->log_x || v > 0) {
            ax->lo = v < ax->lo ? v : ax->lo;
            ax->hi = v > ax->hi ? v : ax->hi;
        }
    }
    if (!isfinite(ax->lo))
        *ax = (tk_html_axis){c->log_x ? 1 : 0, c->log_x ? 10 : 1, c->log_x, c->x_unit};
    if (!(ax->hi > ax->lo))
        ax->hi = ax->lo + (c->log_x ? ax->lo : 1);
    if (c->y_unit == TK_HTML_RATIO && ay->hi <= 1)
        ay->hi = ay->hi > 0 ? fmin(1, ay->hi * 1.1) : 1;
    if (!(ay->hi > 0))
        ay->hi = 1;
}

static void marks(tk_html *h, const tk_html_chart *c, const tk_html_axis *ax)
{
    for (size_t i = 0; i < c->nmarks; i++) {
        double v = scaled(&c->marks[i], c->x_scale);
        double x = PLOT_X + tk_html_axis_pos(ax, v, PLOT_W);
        tk_html_printf(h, "<g class=\"tk-mark\"><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
                          "y2=\"%d\"/><text x=\"%.1f\" y=\"%d\">",
                       x, TOP, x, TOP + PLOT_H, x + 3, TOP + 12 + 12 * (int)(i % 3));
        tk_html_text(h, c->mark_labels ? c->mark_labels[i] : "", SIZE_MAX);
        tk_html_puts(h, "</text></g>");
    }
}

void tk_html_lines(tk_html *h, const tk_html_chart *c, const tk_html_value *x, size_t n,
                   const tk_html_series *s, size_t ns)
{
    tk_html_axis ax, ay;
    ranges(c, x, n, s, ns, &ax, &ay);
    tk_html_figure_begin(h, c, W, H);
    tk_html_axis_y(h, &ay, PLOT_X, TOP, PLOT_H, PLOT_W, c->y_label);
    tk_html_axis_x(h, &ax, PLOT_X, TOP + PLOT_H, PLOT_W, c->x_label);
    marks(h, c, &ax);
    for (size_t k = 0; k < ns; k++) {
        tk_html_printf(h, "<polyline class=\"tk-line tk-c%zu\" points=\"", k % TK_HTML_COLORS);
        for (size_t i = 0; i < n; i++) {
            double xv = scaled(&x[i], c->x_scale), yv = scaled(&s[k].v[i], c->y_scale);
            if ((c->log_x && !(xv > 0)) || !isfinite(yv) || s[k].v[i].kind == TK_HTML_NULL)
                continue;
            tk_html_printf(h, "%.1f,%.1f ", PLOT_X + tk_html_axis_pos(&ax, xv, PLOT_W),
                           TOP + PLOT_H - tk_html_axis_pos(&ay, yv, PLOT_H));
        }
        tk_html_puts(h, "\"><title>");
        tk_html_text(h, s[k].name, SIZE_MAX);
        tk_html_puts(h, "</title></polyline>");
    }
    tk_html_figure_end(h);
    tk_html_legend(h, s, ns);
    tk_html_chart_table(h, c, x, n, s, ns);
}
