/* The page writer's state and the helpers every block uses (escaping,
 * numbers, the byte budget). */
#ifndef TK_EXPORT_HTML_INT_H
#define TK_EXPORT_HTML_INT_H

#include "export/html/html.h"

#include "core/strbuf.h"

struct tk_html {
    FILE *out;
    tk_status status;   /* first failure */
    uint64_t bytes;     /* written (or that would have been, when muted) */
    unsigned mute;      /* > 0: inside a dropped card or tree node */
    int depth;          /* open sections */
    unsigned cards, cards_dropped;
    unsigned ids;       /* for generated element ids */
    /* the open table */
    const tk_html_table_spec *table;
    size_t rows, dropped;
    double *other;      /* sums of SUM columns over dropped rows */
    /* the open tree */
    unsigned nodes, nodes_dropped, tree_mute;
    tk_strbuf tmp;      /* scratch for formatting */
};

/* Raw bytes (no escaping), unless muted; counts bytes and keeps a write
 * failure. */
void tk_html_put(tk_html *h, const char *s, size_t n);
static inline void tk_html_puts(tk_html *h, const char *s) { tk_html_put(h, s, strlen(s)); }
void tk_html_printf(tk_html *h, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Text escaped for element content and attribute values (& < > " '),
 * invalid UTF-8 as U+FFFD; n SIZE_MAX: up to the NUL. */
void tk_html_text(tk_html *h, const char *s, size_t n);
void tk_html_escape(tk_strbuf *b, const char *s, size_t n);
/* Keep a failure (the first one wins). */
void tk_html_fail(tk_html *h, tk_status st);
/* Whether another item fits under the soft size (and nothing failed). */
static inline int tk_html_room(const tk_html *h)
{
    return h->status == TK_OK && h->bytes < TK_HTML_SOFT_BYTES;
}

/* The value's exact JSON text (data-v), into b (escaped for an attribute
 * by the caller). */
void tk_html_value_json(tk_strbuf *b, const tk_html_value *v);
/* The value for people, in `unit` after dividing by `scale`. */
void tk_html_value_text(tk_strbuf *b, const tk_html_value *v, tk_html_unit unit, double scale);
/* A number (already scaled) for people, as an axis label. */
void tk_html_num_text(tk_strbuf *b, double x, tk_html_unit unit);
/* ` data-key="KEY" data-v="JSON"` (no data-key without a key). */
void tk_html_data_attrs(tk_html *h, const char *key, const tk_html_value *v);
/* Fields as an inline list (tree nodes); data-src/data-keys attributes. */
void tk_html_fields_inline(tk_html *h, const tk_html_field *f, size_t n);
void tk_html_src_attrs(tk_html *h, const char *src, const char *keys);
/* A fresh element id "tkN" into buf[16]. */
const char *tk_html_new_id(tk_html *h, char buf[16]);

/* The palette's series colours (CSS custom properties --c0..--c7). */
#define TK_HTML_COLORS 8

/* ---- svg.c: what the charts share */
typedef struct tk_html_axis {
    double lo, hi;
    int log;
    tk_html_unit unit;
} tk_html_axis;
/* Position of v on [0, len] along the axis. */
double tk_html_axis_pos(const tk_html_axis *a, double v, double len);
/* Open <figure> with title and the <svg> of w x h; close them. */
void tk_html_figure_begin(tk_html *h, const tk_html_chart *c, int w, int hgt);
void tk_html_figure_end(tk_html *h);
/* Ticks and labels of an x axis at y (chart from x0 to x0+len), and a y
 * axis at x0 from y0 (top) to y0+len, its grid lines `width` long. */
void tk_html_axis_x(tk_html *h, const tk_html_axis *a, double x0, double y, double len,
                    const char *label);
void tk_html_axis_y(tk_html *h, const tk_html_axis *a, double x0, double y0, double len,
                    double width, const char *label);
/* The legend of `ns` series. */
void tk_html_legend(tk_html *h, const tk_html_series *s, size_t ns);
/* The chart's table equivalent: x then each series. */
void tk_html_chart_table(tk_html *h, const tk_html_chart *c, const tk_html_value *x, size_t n,
                         const tk_html_series *s, size_t ns);

/* ---- the assets (css.c, js.c) */
extern const char tk_html_css[];
extern const char tk_html_js[];

#endif
