/* XRay's HTML report: each thread's busy time over the trace (windows),
 * and how many threads were busy at once. Calls are matched as account
 * matches them. */
#include <stdlib.h>

#include "xray/html_int.h"

/* Lanes of the followed threads: a span per window with its busy share. */
static void lanes(tk_html *h, tk_xh *x, double t0)
{
    size_t n = 0;
    tk_html_lane *l = calloc(x->followed ? x->followed : 1, sizeof *l);
    tk_html_event *ev = calloc((x->followed ? x->followed : 1) * TK_XH_WINDOWS, sizeof *ev);
    char (*names)[24] = calloc(x->followed ? x->followed : 1, sizeof *names);
    double unit = x->freq ? (double)x->freq : 1;
    if (!l || !ev || !names) {
        free(l);
        free(ev);
        free(names);
        tk_html_para(h, "The timeline could not be drawn (out of memory).");
        return;
    }
    for (size_t i = 0; i < x->followed; i++) {
        const tk_xh_lane *t = &x->lanes[i];
        snprintf(names[n], sizeof names[n], "thread %u", t->tid);
        tk_html_event *e = &ev[n * TK_XH_WINDOWS];
        size_t k = 0;
        for (int w = 0; w < TK_XH_WINDOWS; w++) {
            if (t->win[w] <= 0)
                continue;
            double a = (double)(x->origin + (uint64_t)w * x->width) - t0;
            e[k++] = (tk_html_event){a / unit, (a + (double)x->width) / unit,
                                     t->win[w] / (double)x->width, TK_HTML_INFO, NULL};
        }
        l[n] = (tk_html_lane){names[n], e, k};
        n++;
    }
    tk_html_chart c = {.id = "timeline", .title = "Busy time per thread over the trace",
                       .caption = "Each thread's windows, darker the busier (share of the "
                                  "window inside an instrumented call).",
                       .x_label = x->freq ? "since the first record"
                                          : "ticks since the first record",
                       .x_unit = x->freq ? TK_HTML_SECONDS : TK_HTML_PLAIN, .y_label = "thread"};
    double end = (double)(x->origin + (uint64_t)TK_XH_WINDOWS * x->width) - t0;
    tk_html_timeline(h, &c, ((double)x->origin - t0) / unit, end / unit, l, n);
    free(l);
    free(ev);
    free(names);
}

/* Threads busy at once: the sum of busy shares per window. */
static void concurrency(tk_html *h, tk_xh *x, double t0)
{
    tk_html_value xs[TK_XH_WINDOWS], ys[TK_XH_WINDOWS];
    double unit = x->freq ? (double)x->freq : 1;
    for (int w = 0; w < TK_XH_WINDOWS; w++) {
        double sum = 0;
        for (size_t i = 0; i < x->followed; i++) /* the others' shares are 0 */
            sum += x->lanes[i].win[w];
        xs[w] = tk_html_f64(((double)(x->origin + (uint64_t)w * x->width) - t0) / unit);
        ys[w] = tk_html_f64(sum / (double)x->width);
    }
    tk_html_series s = {"busy threads", NULL, ys};
    tk_html_chart c = {.id = "concurrency", .title = "Threads busy at once",
                       .caption = "The sum of the threads' busy shares per window.",
                       .x_label = x->freq ? "since the first record"
                                          : "ticks since the first record",
                       .x_unit = x->freq ? TK_HTML_SECONDS : TK_HTML_PLAIN,
                       .y_label = "threads"};
    tk_html_lines(h, &c, xs, TK_XH_WINDOWS, &s, 1);
}

void tk_xh_timeline(tk_html *h, tk_xh *x)
{
    if (!x->windows_set) {
        tk_html_para(h, "No call was made: no busy time.");
        return;
    }
    double t0 = x->tmin <= x->origin ? (double)x->tmin : (double)x->origin;
    lanes(h, x, t0);
    concurrency(h, x, t0);
    if (x->followed < x->calling)
        tk_html_paraf(h, "The first %zu threads seen are drawn (of %zu).", x->followed,
                      x->calling);
}
