/* `tracekit mrc --svg`: one self-contained SVG (no script, no external
 * font or style): miss rate (0..1) against cache size on a log2 axis, a
 * polyline per curve (SHARDS dashed), the miniature caches as dots, the
 * configured levels as labelled vertical lines. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cacheray/mrc/output.h"

#define W 800
#define H 480
#define L 70
#define R 20
#define T 40
#define B 60

static const char *const colour[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                     "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

typedef struct axis {
    double lo, hi; /* log2 of the sizes in bytes */
} axis;

static double px(const axis *a, double bytes)
{
    double v = a->hi > a->lo ? (log2(bytes) - a->lo) / (a->hi - a->lo) : 0.5;
    return L + v * (W - L - R);
}

static double py(double rate) { return T + (1.0 - rate) * (H - T - B); }

static void frame(FILE *f, const axis *a)
{
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
               "stroke=\"#444\"/>\n", L, T, W - L - R, H - T - B);
    for (int k = 0; k <= 10; k += 2) {
        double y = py(k / 10.0);
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n",
                L, y, W - R, y, L - 6, y + 4, k / 10.0);
    }
    int step = (int)ceil((a->hi - a->lo) / 16.0);
    for (int e = (int)ceil(a->lo); e <= (int)floor(a->hi); e += step ? step : 1) {
        char buf[32];
        double x = px(a, ldexp(1.0, e));
        mrc_size_text((uint64_t)1 << e, buf, sizeof buf);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\"/>\n"
                   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                x, H - B, x, H - B + 5, x, H - B + 20, buf);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">cache size (bytes, log2 "
               "scale)</text>\n", (L + W - R) / 2, H - 15);
    fprintf(f, "<text transform=\"translate(18 %d) rotate(-90)\" text-anchor=\"middle\">"
               "miss rate</text>\n", (T + H - B) / 2);
}

static void curve(FILE *f, const mrc_out *o, const axis *a, size_t i, tk_mrc_method m,
                  int *legend)
{
    tk_mrc_curve c;
    if (!tk_mrc_get_curve(o->m, i, m, &c))
        return;
    uint64_t lines[MRC_MAX_POINTS];
    size_t n = mrc_points(o, i, 1, lines);
    const char *col = colour[(2 * i + (size_t)m) % 8];
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", col,
            m == TK_MRC_SHARDS ? " stroke-dasharray=\"6 3\"" : "");
    for (size_t j = 0; j < n; j++) {
        double v = tk_mrc_miss_rate(o->m, i, m, lines[j]);
        if (!isnan(v))
            fprintf(f, "%s%.1f,%.1f", j ? " " : "", px(a, (double)(lines[j] * c.line_size)),
                    py(v));
    }
    fprintf(f, "\"/>\n");
    int y = T + 16 + 16 * (*legend)++;
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>"
               "<text x=\"%d\" y=\"%d\">%s, %u-byte lines</text>\n",
            W - R - 250, y - 4, W - R - 222, y - 4, col,
            m == TK_MRC_SHARDS ? " stroke-dasharray=\"6 3\"" : "", W - R - 216, y,
            m == TK_MRC_EXACT ? "exact LRU" : "SHARDS", c.line_size);
}

static void minis(FILE *f, const mrc_out *o, const axis *a, int *legend)
{
    size_t n = tk_mrc_minis(o->m);
    for (size_t k = 0; k < n; k++) {
        tk_mrc_mini c;
        tk_mrc_get_mini(o->m, k, &c);
        if (!isnan(c.miss_rate))
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#000\"/>\n",
                    px(a, (double)c.size), py(c.miss_rate));
    }
    if (n) {
        int y = T + 16 + 16 * (*legend)++;
        fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"#000\"/><text x=\"%d\" y=\"%d\">"
                   "miniature %u-way %s</text>\n", W - R - 236, y - 4, W - R - 216, y,
                o->cfg->ways, tk_cachesim_policy_name(o->cfg->policy));
    }
}

/* Text content: level names are the user's. */
static void text(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        default: fputc(*s, f);
        }
}

tk_status mrc_write_svg(const mrc_out *o, FILE *f, tk_error *err)
{
    axis a = {INFINITY, -INFINITY};
    for (size_t i = 0; i < o->cfg->nline_sizes; i++) {
        uint64_t lines[MRC_MAX_POINTS];
        size_t n = mrc_points(o, i, 1, lines);
        a.lo = fmin(a.lo, log2((double)(lines[0] * o->cfg->line_sizes[i])));
        a.hi = fmax(a.hi, log2((double)(lines[n - 1] * o->cfg->line_sizes[i])));
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
               "<title>Miss-ratio curve</title>\n"
               "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n"
               "<text x=\"%d\" y=\"24\" font-size=\"15\">Miss-ratio curve (fully associative "
               "LRU)</text>\n", W, H, W, H, W, H, L);
    frame(f, &a);
    for (size_t k = 0; k < o->nlevels; k++) {
        double x = px(&a, (double)o->levels[k].size);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\" "
                   "stroke-dasharray=\"3 3\"/><text x=\"%.1f\" y=\"%d\" fill=\"#444\">",
                x, T, x, H - B, x + 3, T + 12);
        text(f, o->levels[k].name);
        fputs("</text>\n", f);
    }
    int legend = 0;
    for (size_t i = 0; i < o->cfg->nline_sizes; i++) {
        curve(f, o, &a, i, TK_MRC_EXACT, &legend);
        curve(f, o, &a, i, TK_MRC_SHARDS, &legend);
    }
    minis(f, o, &a, &legend);
    fprintf(f, "</svg>\n");
    if (fflush(f) != 0 || ferror(f))
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "write failed: %s",
                            strerror(errno));
    return TK_OK;
}
