/* tracekit — the self-contained HTML report page (`report --html`), shared
 * by every format: src/<format>/html.c maps a trace to these calls, the
 * encoder knows no format.
 *
 * A page is written in one pass to a FILE, top to bottom, with no
 * look-back: the caller's analyses are done (or streamed) first, then the
 * page is described as a sequence of blocks. Everything the page needs is
 * inline (CSS, JavaScript, SVG); it makes no network request and works
 * from file:// and when printed.
 *
 *   tk_html *h = tk_html_begin(out, "XRay report", "trace.xray", err);
 *   tk_html_section(h, "functions", "Functions", "Where the time goes.");
 *   tk_html_table_begin(h, &spec);      // columns declared once
 *   for (...) tk_html_table_row(h, cells);
 *   tk_html_table_end(h);
 *   tk_html_section_end(h);
 *   return tk_html_end(h, err);         // writes the script, frees h
 *
 * Errors. Block calls return nothing (or a "shown" flag): the first
 * failure (TK_ENOMEM, or TK_EIO when the FILE fails) is kept and every
 * later call does nothing; tk_html_end reports it. tk_html_status peeks.
 *
 * Size. A page stays under TK_HTML_MAX_BYTES whatever the trace: each
 * block has its own cap (table rows, flame frames, tree nodes, cards,
 * chart points), and past TK_HTML_SOFT_BYTES of output every further row,
 * frame, node or card is dropped and counted ("N more not shown"). Callers
 * pass aggregates, never raw records.
 *
 * Text. Every string given is escaped for HTML; invalid UTF-8 becomes
 * U+FFFD (as --json does). Strings are copied or written at once: none
 * needs to outlive the call, except a table spec (until tk_html_table_end).
 *
 * Numbers and the tests. A number shown carries its exact value in
 * `data-v` (JSON text: integers in full, doubles in the shortest form that
 * reads back, as --json prints them, null for TK_HTML_NULL) and, when a
 * `key` is given, `data-key` naming the JSON member it equals. A block
 * with a `src` says which JSON document it comes from (`data-src`, e.g.
 * "account", or "graph.edges" for a member of one): tests/html/check.mjs
 * matches each row to that document's element with the same key columns
 * (TK_HTML_COL_KEY) and compares every data-key cell with it. Display
 * text may round (durations in ns/µs/ms/s, percentages); data-v never
 * does.
 *
 * Threads: a page is used by one thread at a time; distinct pages are
 * independent. */
#ifndef TK_EXPORT_HTML_H
#define TK_EXPORT_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tracekit/error.h>

/* The bound on a page, and the output past which blocks drop their items. */
#define TK_HTML_MAX_BYTES (5u * 1000u * 1000u)
#define TK_HTML_SOFT_BYTES (4u * 1000u * 1000u)
/* Default caps: rows per table, frames per flame graph, nodes per tree,
 * cards per page, bars per bar chart. */
#define TK_HTML_MAX_ROWS 500
#define TK_HTML_MAX_FRAMES 3000
#define TK_HTML_MAX_NODES 3000
#define TK_HTML_MAX_CARDS 100
#define TK_HTML_MAX_BARS 40

typedef struct tk_html tk_html;

/* ---- values: what a cell, a fact or a chart point holds */

typedef enum tk_html_kind {
    TK_HTML_NULL, /* no value (JSON null; shown as "–") */
    TK_HTML_U64,
    TK_HTML_I64,
    TK_HTML_F64,
    TK_HTML_STR,  /* s[0..len) (len SIZE_MAX: up to the NUL) */
    TK_HTML_JSON  /* s: JSON text (an array: a call path), data-v as is */
} tk_html_kind;

typedef struct tk_html_value {
    tk_html_kind kind;
    uint64_t u;
    int64_t i;
    double f;
    const char *s;
    size_t len;
} tk_html_value;

static inline tk_html_value tk_html_null(void) { return (tk_html_value){.kind = TK_HTML_NULL}; }
static inline tk_html_value tk_html_u64(uint64_t v)
{
    return (tk_html_value){.kind = TK_HTML_U64, .u = v};
}
static inline tk_html_value tk_html_i64(int64_t v)
{
    return (tk_html_value){.kind = TK_HTML_I64, .i = v};
}
static inline tk_html_value tk_html_f64(double v)
{
    return (tk_html_value){.kind = TK_HTML_F64, .f = v};
}
static inline tk_html_value tk_html_str(const char *s)
{
    return (tk_html_value){.kind = TK_HTML_STR, .s = s, .len = SIZE_MAX};
}

static inline tk_html_value tk_html_json(const char *json)
{
    return (tk_html_value){.kind = TK_HTML_JSON, .s = json, .len = SIZE_MAX};
}

/* How a number reads (data-v keeps the exact value). A `scale` beside a
 * unit divides for display only (0 or 1: none): ticks shown as seconds
 * with TK_HTML_SECONDS and scale = the cycle frequency. */
typedef enum tk_html_unit {
    TK_HTML_PLAIN,   /* integers as is; doubles with 6 significant digits */
    TK_HTML_SECONDS, /* 12.345ms, in the unit that fits */
    TK_HTML_BYTES,   /* 1.5 KiB */
    TK_HTML_RATIO,   /* 0.25 reads 25.00% */
    TK_HTML_HEX      /* 0x1f (addresses) */
} tk_html_unit;

/* The value as a double (strings and null: 0), for charts. Cannot fail. */
double tk_html_value_num(const tk_html_value *v);

/* Tones of verdicts, cards and timeline events. */
typedef enum tk_html_tone { TK_HTML_INFO, TK_HTML_OK, TK_HTML_WARN, TK_HTML_BAD } tk_html_tone;

/* ---- the page */

/* Start a page on `out` (borrowed, not closed): doctype, head with the
 * styles, the title and a subtitle (the trace's name; may be NULL). NULL
 * with `err` (TK_ENOMEM) when out of memory. */
tk_html *tk_html_begin(FILE *out, const char *title, const char *subtitle, tk_error *err);
/* Finish: close what is open, write the script, flush, free `h`. TK_OK,
 * or the first failure any call met (TK_ENOMEM, TK_EIO: writing failed). */
tk_status tk_html_end(tk_html *h, tk_error *err);
/* Abandon a page (after the caller's own failure): frees `h`, writes
 * nothing more. NULL is fine. */
void tk_html_free(tk_html *h);
/* The first failure so far (TK_OK when none). Cannot fail. */
tk_status tk_html_status(const tk_html *h);
/* Bytes written so far. Cannot fail. */
uint64_t tk_html_bytes(const tk_html *h);

/* A section: <section id=ID> with a heading and an optional intro
 * paragraph; sections nest one level (a second begin inside one is a
 * subsection, h3). The table of contents lists top-level sections. */
void tk_html_section(tk_html *h, const char *id, const char *title, const char *intro);
void tk_html_section_end(tk_html *h);
/* A paragraph of text (escaped). */
void tk_html_para(tk_html *h, const char *text);
/* A paragraph from printf's format (the result escaped). */
void tk_html_paraf(tk_html *h, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Preformatted monospace text (disassembly, a log excerpt), escaped. */
void tk_html_pre(tk_html *h, const char *text, size_t len);

/* ---- facts: a definition list of labelled values */

typedef struct tk_html_field {
    const char *label;   /* shown */
    const char *key;     /* the JSON member it equals (NULL: none) */
    tk_html_unit unit;
    double scale;
    tk_html_value v;
} tk_html_field;

/* `n` facts as one list. `src`: the JSON document (an object: its members
 * are compared; an array: the element whose `keys` members, blank
 * separated, equal the facts with those keys). Both may be NULL. */
void tk_html_facts(tk_html *h, const char *src, const char *keys, const tk_html_field *f,
                   size_t n);

/* ---- verdicts and cards */

/* A banner stating the outcome first (casemate's bbm verdict). */
void tk_html_verdict(tk_html *h, tk_html_tone tone, const char *text);
/* A card (a violation, a finding) holding any blocks until
 * tk_html_card_end. Returns 1 when shown; 0 past TK_HTML_MAX_CARDS or the
 * soft size: then everything until tk_html_card_end is dropped (counted;
 * the page says how many cards were not shown). */
int tk_html_card_begin(tk_html *h, tk_html_tone tone, const char *title);
void tk_html_card_end(tk_html *h);

/* ---- sortable tables */

enum {
    TK_HTML_COL_KEY = 1u << 0,  /* identifies the row in `src` (check.mjs) */
    TK_HTML_COL_HEAT = 1u << 1, /* background shaded by value / column max */
    TK_HTML_COL_SUM = 1u << 2,  /* summed into the "other" row of dropped rows */
    TK_HTML_COL_MONO = 1u << 3  /* monospace text (addresses, code) */
};

typedef struct tk_html_column {
    const char *label; /* header */
    const char *key;   /* JSON member the cells equal (NULL: not compared) */
    const char *help;  /* header tooltip (NULL: none) */
    tk_html_unit unit;
    double scale;
    unsigned flags;    /* TK_HTML_COL_* */
} tk_html_column;

typedef struct tk_html_table_spec {
    const char *id;      /* element id (NULL: none) */
    const char *caption; /* above the table (NULL: none) */
    const char *src;     /* JSON document the rows come from (NULL: none) */
    const tk_html_column *cols;
    size_t ncols;
    size_t max_rows;     /* rows shown (0: TK_HTML_MAX_ROWS); the rest are
                            counted and, with SUM columns, merged into an
                            "other" row */
    /* "sum": each row's values are sums over every element of `src` whose
     * key members match (`filter` narrows them: "stack:1", elements whose
     * member "stack" is an array of length 1). NULL: one element each. */
    const char *agg, *filter;
} tk_html_table_spec;

/* A table: click a header to sort (numbers by value, text by text; again
 * to reverse). Rows come in the caller's order (show the interesting
 * first: capped tables keep the first max_rows). `spec` and its columns
 * must stay valid until tk_html_table_end. One table at a time. */
void tk_html_table_begin(tk_html *h, const tk_html_table_spec *spec);
/* One row: spec->ncols values. Returns 1 when shown, 0 when dropped. */
int tk_html_table_row(tk_html *h, const tk_html_value *cells);
void tk_html_table_end(tk_html *h);

/* ---- SVG charts, each followed by its table equivalent */

/* One series of a chart: `n` values (n as the chart's call says). */
typedef struct tk_html_series {
    const char *name; /* legend and table header */
    const char *key;  /* the JSON member the table's cells equal (or NULL) */
    const tk_html_value *v;
} tk_html_series;

typedef struct tk_html_chart {
    const char *id, *title, *caption;
    const char *src;           /* as a table's (the equivalent table's rows) */
    const char *agg, *filter;  /* as a table's */
    const char *x_label, *x_key;
    tk_html_unit x_unit;
    double x_scale;
    const char *y_label;
    tk_html_unit y_unit;
    double y_scale;
    int stacked;               /* bars: series stacked, not side by side */
    int log_x;                 /* lines: logarithmic x axis (x > 0) */
    /* lines: vertical markers at these x values, labelled (Cacheray's
     * configured cache sizes on the miss-ratio curve) */
    const tk_html_value *marks;
    const char *const *mark_labels;
    size_t nmarks;
} tk_html_chart;

/* Horizontal bars, one per x (a label or a number; x_key makes it a key
 * column of the table), each series a segment (stacked) or a bar of its
 * own. Up to TK_HTML_MAX_BARS drawn, every row in the table (capped). */
void tk_html_bars(tk_html *h, const tk_html_chart *c, const tk_html_value *x, size_t n,
                  const tk_html_series *s, size_t ns);
/* Lines over numeric x (windows of time or records, cache sizes): a
 * polyline per series. Callers pass windows, not records (at most a few
 * thousand points; the table shows TK_HTML_MAX_ROWS of them). */
void tk_html_lines(tk_html *h, const tk_html_chart *c, const tk_html_value *x, size_t n,
                   const tk_html_series *s, size_t ns);

/* A histogram's bin [lo, hi) and its count. */
typedef struct tk_html_bin {
    tk_html_value lo, hi;
    uint64_t count;
} tk_html_bin;
/* Vertical bars of equal width, one per bin (log-spaced bins read
 * naturally); the table lists lo, hi, count. x_* describe lo and hi. */
void tk_html_histogram(tk_html *h, const tk_html_chart *c, const tk_html_bin *bins, size_t n);

/* Lanes of spans and instants over one time axis (threads' busy time,
 * events with violations marked, syscalls). */
typedef struct tk_html_event {
    double x0, x1;     /* x1 == x0: an instant (a tick) */
    double level;      /* 0..1: opacity of a span (busy fraction) */
    tk_html_tone tone; /* colour */
    const char *label; /* tooltip and table (NULL: none) */
} tk_html_event;
typedef struct tk_html_lane {
    const char *label;
    const tk_html_event *ev;
    size_t n;
} tk_html_lane;
/* The lanes over [x_min, x_max] (x_* of the chart say the unit); the
 * table lists lane, start, end, level, label (capped). */
void tk_html_timeline(tk_html *h, const tk_html_chart *c, double x_min, double x_max,
                      const tk_html_lane *lanes, size_t nlanes);

/* ---- flame graph (icicle) of a call tree */

typedef struct tk_html_flame tk_html_flame;
/* An empty tree; NULL with `err` (TK_ENOMEM). */
tk_html_flame *tk_html_flame_new(tk_error *err);
void tk_html_flame_free(tk_html_flame *f);
/* A frame under `parent` (0: a root; an id returned before): its name
 * (copied), total (itself and callees), self and count. Returns its id
 * (> 0), or 0 when out of memory (kept: tk_html_flame_write reports it to
 * the page). */
uint32_t tk_html_flame_add(tk_html_flame *f, uint32_t parent, const char *name,
                           uint64_t total, uint64_t self, uint64_t count);

typedef struct tk_html_flame_spec {
    const char *id, *title, *caption;
    const char *src;                 /* JSON of the frames' table */
    /* JSON members of a frame: its path (an array of names from the
     * root), total, self and count (NULL: not compared) */
    const char *path_key, *total_key, *self_key, *count_key;
    tk_html_unit unit;               /* total and self */
    double scale;
    double min_fraction;             /* frames below this fraction of the
                                        whole merge into "other" (0: 0.001) */
    size_t max_frames;               /* 0: TK_HTML_MAX_FRAMES */
} tk_html_flame_spec;

/* The icicle (roots on top, width = total; click a frame to zoom into it,
 * the top bar to zoom out; a search box highlights frames whose name
 * contains the text) and a table of the frames shown (path, total, self,
 * count). The biggest frames are kept, up to max_frames; the rest of each
 * parent's callees become one "other" frame. */
void tk_html_flame_write(tk_html *h, const tk_html_flame *f, const tk_html_flame_spec *s);

/* ---- collapsible trees (details/summary) */

/* A tree (casemate's page tables). `src` as a table's: each node's fields
 * with keys are a record compared with it. */
void tk_html_tree_begin(tk_html *h, const char *id, const char *src, const char *keys);
/* A node with children until tk_html_tree_node_end: its label and fields,
 * open or collapsed. Returns 1 when shown; 0 past TK_HTML_MAX_NODES or the
 * soft size (its children are dropped too; node_end still pairs). */
int tk_html_tree_node_begin(tk_html *h, const char *label, const tk_html_field *f, size_t n,
                            int open);
void tk_html_tree_node_end(tk_html *h);
/* A node without children. */
void tk_html_tree_leaf(tk_html *h, const char *label, const tk_html_field *f, size_t n);
void tk_html_tree_end(tk_html *h);

#endif
