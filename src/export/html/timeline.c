/* Timelines: a lane per thread (or CPU, region) with spans and instants
 * over one time axis; the table lists the events (capped). */
#include "export/html/html_int.h"

enum { W = 720, LABEL_W = 120, PLOT_X = 130, PLOT_W = 570, TOP = 10, LANE_H = 18, BOTTOM = 40 };
/* events drawn per timeline (each is one SVG element) */
#define MAX_EVENTS 8000

static void event(tk_html *h, const tk_html_axis *a, const tk_html_event *e, double y)
{
    double x0 = PLOT_X + tk_html_axis_pos(a, e->x0, PLOT_W);
    double x1 = PLOT_X + tk_html_axis_pos(a, e->x1, PLOT_W);
    static const char *const tone[] = {"tk-c0", "tk-okc", "tk-warnc", "tk-badc"};
    const char *cls = tone[e->tone <= TK_HTML_BAD ? e->tone : 0];
    if (e->x1 > e->x0) {
        double lv = e->level < 0 ? 0 : e->level > 1 ? 1 : e->level;
        tk_html_printf(h, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" "
                          "height=\"%d\" fill-opacity=\"%.2f\">",
                       cls, x0, y + 2, x1 - x0 > 0.3 ? x1 - x0 : 0.3, LANE_H - 4,
                       0.12 + 0.88 * lv);
    } else {
        tk_html_printf(h, "<rect class=\"%s tk-instant\" x=\"%.1f\" y=\"%.1f\" width=\"2\" "
                          "height=\"%d\">",
                       cls, x0 - 1, y, LANE_H);
    }
    if (e->label) {
        tk_html_puts(h, "<title>");
        tk_html_text(h, e->label, SIZE_MAX);
        tk_html_puts(h, "</title>");
    }
    tk_html_puts(h, "</rect>");
}

static void table(tk_html *h, const tk_html_chart *c, const tk_html_lane *lanes, size_t nl)
{
    tk_html_column cols[5] = {
        {.label = c->y_label ? c->y_label : "lane"},
        {.label = "from", .unit = c->x_unit, .scale = c->x_scale},
        {.label = "to", .unit = c->x_unit, .scale = c->x_scale},
        {.label = "level", .unit = TK_HTML_RATIO},
        {.label = "event"}};
    tk_html_table_spec spec = {.src = c->src, .cols = cols, .ncols = 5};
    tk_html_puts(h, "<details class=\"tk-equiv\"><summary>The numbers</summary>");
    tk_html_table_begin(h, &spec);
    for (size_t l = 0; l < nl; l++)
        for (size_t i = 0; i < lanes[l].n; i++) {
            const tk_html_event *e = &lanes[l].ev[i];
            tk_html_value row[5] = {tk_html_str(lanes[l].label), tk_html_f64(e->x0),
                                    tk_html_f64(e->x1), tk_html_f64(e->level),
                                    e->label ? tk_html_str(e->label) : tk_html_null()};
            tk_html_table_row(h, row);
        }
    tk_html_table_end(h);
    tk_html_puts(h, "</details></figure>\n");
}

void tk_html_timeline(tk_html *h, const tk_html_chart *c, double x_min, double x_max,
                      const tk_html_lane *lanes, size_t nlanes)
{
    size_t shown = nlanes < TK_HTML_MAX_BARS ? nlanes : TK_HTML_MAX_BARS, drawn = 0;
    tk_html_axis a = {x_min, x_max > x_min ? x_max : x_min + 1, 0, c->x_unit};
    tk_html_figure_begin(h, c, W, TOP + (int)shown * LANE_H + BOTTOM);
    for (size_t l = 0; l < shown; l++) {
        double y = TOP + (double)l * LANE_H;
        tk_html_printf(h, "<text class=\"tk-bar-label\" x=\"%d\" y=\"%.1f\" "
                          "text-anchor=\"end\">",
                       LABEL_W, y + LANE_H / 2 + 4);
        tk_html_text(h, lanes[l].label, SIZE_MAX);
        tk_html_printf(h, "</text><rect class=\"tk-lane\" x=\"%d\" y=\"%.1f\" width=\"%d\" "
                          "height=\"%d\"/>",
                       PLOT_X, y, PLOT_W, LANE_H);
        for (size_t i = 0; i < lanes[l].n && drawn < MAX_EVENTS && tk_html_room(h); i++, drawn++)
            event(h, &a, &lanes[l].ev[i], y);
    }
    tk_html_axis_x(h, &a, PLOT_X, TOP + (double)shown * LANE_H, PLOT_W, c->x_label);
    tk_html_figure_end(h);
    if (shown < nlanes)
        tk_html_paraf(h, "The first %zu of %zu lanes drawn.", shown, nlanes);
    table(h, c, lanes, nlanes);
}
