/* The icicle (flame graph, roots on top) of a call tree: the biggest
 * frames kept (a cap, and a fraction of the whole), the rest of each
 * parent's callees merged into one "other" frame; zoom and search are the
 * script's. Frames are laid out here as fractions of the whole, so the
 * script only rescales. */
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "export/html/html_int.h"

typedef struct frame {
    uint32_t parent, first, last, next; /* children in insertion order */
    char *name;
    uint64_t total, self, count;
    /* layout of a kept frame */
    int kept;
    uint32_t depth;
    double x, w;
    uint64_t other;                     /* dropped callees' total */
} frame;

struct tk_html_flame {
    frame *f; /* f[0]: the root (the whole) */
    uint32_t n, cap;
    int oom;
};

tk_html_flame *tk_html_flame_new(tk_error *err)
{
    tk_html_flame *t = calloc(1, sizeof *t);
    if (t && (t->f = calloc(64, sizeof *t->f))) {
        t->cap = 64;
        t->n = 1;
        return t;
    }
    free(t);
    tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return NULL;
}

void tk_html_flame_free(tk_html_flame *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->n; i++)
        free(t->f[i].name);
    free(t->f);
    free(t);
}

uint32_t tk_html_flame_add(tk_html_flame *t, uint32_t parent, const char *name, uint64_t total,
                           uint64_t self, uint64_t count)
{
    if (t->oom || parent >= t->n || t->n == UINT32_MAX)
        return 0;
    if (t->n == t->cap) {
        frame *g = realloc(t->f, (size_t)t->cap * 2 * sizeof *g);
        if (!g) {
            t->oom = 1;
            return 0;
        }
        t->f = g;
        t->cap *= 2;
    }
    frame *x = &t->f[t->n];
    memset(x, 0, sizeof *x);
    if (!(x->name = strdup(name ? name : ""))) {
        t->oom = 1;
        return 0;
    }
    x->parent = parent;
    x->total = total;
    x->self = self;
    x->count = count;
    frame *p = &t->f[parent];
    if (p->last)
        t->f[p->last].next = t->n;
    else
        p->first = t->n;
    p->last = t->n;
    return t->n++;
}

static int by_total(const void *a, const void *b, void *ctx)
{
    const frame *f = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    uint64_t ti = f[i].total, tj = f[j].total;
    return ti != tj ? (ti < tj ? 1 : -1) : (i > j) - (i < j);
}

/* Keep the biggest frames whose parents are kept; lay them out. Returns
 * the kept frames by total (order[0..*nkept)), or NULL when out of memory. */
static uint32_t *select_frames(const tk_html_flame *t, const tk_html_flame_spec *s,
                               size_t *nkept)
{
    frame *f = t->f;
    f[0].total = 0;
    for (uint32_t c = f[0].first; c; c = f[c].next)
        f[0].total += f[c].total;
    uint32_t *order = malloc((t->n ? t->n : 1) * sizeof *order);
    if (!order)
        return NULL;
    for (uint32_t i = 1; i < t->n; i++)
        order[i - 1] = i;
    qsort_r(order, t->n - 1, sizeof *order, by_total, f);
    double frac = s->min_fraction > 0 ? s->min_fraction : 0.001;
    size_t max = s->max_frames ? s->max_frames : TK_HTML_MAX_FRAMES, k = 0;
    for (uint32_t i = 0; i < t->n; i++)
        f[i].kept = i == 0;
    for (size_t i = 0; i + 1 < t->n && k < max; i++) {
        frame *x = &f[order[i]];
        if ((double)x->total >= frac * (double)f[0].total && x->total > 0 && f[x->parent].kept) {
            x->kept = 1;
            order[k++] = order[i];
        }
    }
    *nkept = k;
    return order;
}

/* x and width of each kept frame, as fractions of the whole (pre-order:
 * parents come before their children in the array). */
static void layout(tk_html_flame *t)
{
    frame *f = t->f;
    double whole = f[0].total ? (double)f[0].total : 1;
    f[0].x = 0;
    f[0].w = 1;
    f[0].depth = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        if (!f[i].kept)
            continue;
        double at = f[i].x;
        f[i].other = 0;
        for (uint32_t c = f[i].first; c; c = f[c].next) {
            if (!f[c].kept) {
                f[i].other += f[c].total;
                continue;
            }
            f[c].x = at;
            f[c].w = (double)f[c].total / whole;
            f[c].depth = f[i].depth + 1;
            at += f[c].w;
        }
    }
}

/* A warm colour from the name, the same for a function everywhere. */
static void colour(tk_html *h, const char *name)
{
    uint64_t x = tk_hash_bytes(name, strlen(name));
    tk_html_printf(h, "background:hsl(%u,%u%%,%u%%)", (unsigned)(8 + x % 40),
                   (unsigned)(65 + (x >> 8) % 20), (unsigned)(58 + (x >> 16) % 14));
}

/* Bytes of a name a frame shows: at most 300, whole characters (the
 * frames' table has the name whole). */
static size_t cut(const char *name)
{
    size_t n = strlen(name);
    if (n <= 300)
        return n;
    n = 300;
    while (n > 0 && ((unsigned char)name[n] & 0xC0) == 0x80)
        n--;
    return n;
}

static void frame_div(tk_html *h, const tk_html_flame_spec *s, uint32_t i, const frame *x,
                      uint32_t parent, const char *name, uint64_t total, double whole,
                      const char *cls)
{
    tk_html_printf(h, "<div class=\"tk-fr%s\" data-i=\"%u\" data-p=\"%u\" data-d=\"%u\" "
                      "data-x=\"%.9g\" data-w=\"%.9g\" style=\"left:%.4f%%;width:%.4f%%;"
                      "top:%upx;",
                   cls, i, parent, x->depth, x->x, x->w, x->x * 100,
                   x->w * 100, x->depth * 18);
    colour(h, name);
    size_t len = cut(name);
    tk_html_puts(h, "\" title=\"");
    sb_reset(&h->tmp);
    tk_html_escape(&h->tmp, name, len);
    tk_html_value v = tk_html_u64(total);
    sb_puts(&h->tmp, "&#10;total: ");
    tk_html_value_text(&h->tmp, &v, s->unit, s->scale);
    sb_printf(&h->tmp, " (%.2f%%)", whole > 0 ? 100.0 * (double)total / whole : 0);
    if (i && x->total == total) {
        v = tk_html_u64(x->self);
        sb_puts(&h->tmp, "&#10;self: ");
        tk_html_value_text(&h->tmp, &v, s->unit, s->scale);
        sb_printf(&h->tmp, "&#10;calls: %llu", (unsigned long long)x->count);
    }
    tk_html_put(h, h->tmp.p ? h->tmp.p : "", h->tmp.len);
    tk_html_puts(h, "\">");
    tk_html_text(h, name, len);
    tk_html_puts(h, "</div>");
}

/* The frames: the whole on top, kept frames, one "other" per parent. */
static void frames(tk_html *h, const tk_html_flame *t, const tk_html_flame_spec *s)
{
    const frame *f = t->f;
    double whole = (double)f[0].total;
    uint32_t deepest = 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (f[i].kept && f[i].depth + (f[i].other ? 1 : 0) > deepest)
            deepest = f[i].depth + (f[i].other ? 1 : 0);
    tk_html_printf(h, "<div class=\"tk-flame\" style=\"height:%upx\">", (deepest + 1) * 18);
    for (uint32_t i = 0; i < t->n && tk_html_room(h); i++) {
        if (!f[i].kept)
            continue;
        frame_div(h, s, i, &f[i], f[i].parent, i ? f[i].name : "all", f[i].total, whole,
                  i ? "" : " tk-fr-root");
        if (f[i].other) {
            double used = 0;
            for (uint32_t c = f[i].first; c; c = f[c].next)
                used += f[c].kept ? f[c].w : 0;
            frame o = {.depth = f[i].depth + 1, .x = f[i].x + used,
                       .w = whole > 0 ? (double)f[i].other / whole : 0, .total = f[i].other};
            /* an id past every frame's: o's own, for the script's tree */
            frame_div(h, s, t->n + i, &o, i, "other", f[i].other, whole, " tk-fr-other");
        }
    }
    tk_html_puts(h, "</div>\n");
}

/* A frame's path from the root as a JSON array (empty when longer than
 * a row should be: deep recursion; the row is then not compared). */
static void path_json(tk_strbuf *b, const tk_html_flame *t, uint32_t i)
{
    uint32_t chain[256];
    size_t n = 0;
    for (uint32_t x = i; x && n < 256; x = t->f[x].parent)
        chain[n++] = x;
    sb_reset(b);
    if (n == 256)
        return;
    sb_putc(b, '[');
    for (size_t k = n; k-- > 0;) {
        sb_json_str(b, t->f[chain[k]].name, strlen(t->f[chain[k]].name));
        if (k)
            sb_putc(b, ',');
    }
    sb_putc(b, ']');
}

static void frames_table(tk_html *h, const tk_html_flame *t, const tk_html_flame_spec *s,
                         const uint32_t *order, size_t n)
{
    tk_html_column cols[5] = {
        {.label = "path", .key = s->path_key, .flags = TK_HTML_COL_KEY | TK_HTML_COL_MONO},
        {.label = "function"},
        {.label = "total", .key = s->total_key, .unit = s->unit, .scale = s->scale,
         .flags = TK_HTML_COL_HEAT},
        {.label = "self", .key = s->self_key, .unit = s->unit, .scale = s->scale,
         .flags = TK_HTML_COL_HEAT},
        {.label = "calls", .key = s->count_key}};
    tk_html_table_spec spec = {.src = s->src, .cols = cols, .ncols = 5};
    tk_strbuf path = {0};
    tk_html_puts(h, "<details class=\"tk-equiv\"><summary>The frames' numbers</summary>");
    tk_html_table_begin(h, &spec);
    for (size_t k = 0; k < n && tk_html_room(h); k++) {
        const frame *x = &t->f[order[k]];
        path_json(&path, t, order[k]);
        if (path.oom)
            tk_html_fail(h, TK_ENOMEM);
        tk_html_value row[5] = {path.len ? tk_html_json(path.p) : tk_html_null(),
                                tk_html_str(x->name), tk_html_u64(x->total),
                                tk_html_u64(x->self), tk_html_u64(x->count)};
        tk_html_table_row(h, row);
    }
    sb_free(&path);
    tk_html_table_end(h);
    tk_html_puts(h, "</details>");
}

static void tools(tk_html *h)
{
    tk_html_puts(h, "<div class=\"tk-flame-tools\"><input type=\"search\" "
                    "class=\"tk-flame-search\" placeholder=\"Search functions\" "
                    "aria-label=\"Search functions\"><button type=\"button\" "
                    "class=\"tk-flame-reset\">Zoom out</button><span class=\"tk-flame-status\" "
                    "role=\"status\"></span></div>");
}

void tk_html_flame_write(tk_html *h, const tk_html_flame *t, const tk_html_flame_spec *s)
{
    if (t->oom) {
        tk_html_fail(h, TK_ENOMEM);
        return;
    }
    size_t n = 0;
    uint32_t *order = select_frames(t, s, &n);
    if (!order) {
        tk_html_fail(h, TK_ENOMEM);
        return;
    }
    layout((tk_html_flame *)t);
    tk_html_puts(h, "<figure class=\"tk-figure tk-flame-wrap\"");
    if (s->id) {
        tk_html_puts(h, " id=\"");
        tk_html_text(h, s->id, SIZE_MAX);
        tk_html_puts(h, "\"");
    }
    tk_html_puts(h, "><figcaption>");
    if (s->title) {
        tk_html_puts(h, "<b>");
        tk_html_text(h, s->title, SIZE_MAX);
        tk_html_puts(h, "</b> ");
    }
    tk_html_text(h, s->caption, SIZE_MAX);
    tk_html_puts(h, "</figcaption>");
    tools(h);
    frames(h, t, s);
    if (n + 1 < t->n)
        tk_html_paraf(h, "%zu of %u frames shown: callees under %.1f%% of the whole, or past "
                         "the %zu biggest, are merged into \"other\".",
                      n, t->n - 1, 100 * (s->min_fraction > 0 ? s->min_fraction : 0.001),
                      s->max_frames ? s->max_frames : (size_t)TK_HTML_MAX_FRAMES);
    frames_table(h, t, s, order, n);
    tk_html_puts(h, "</figure>\n");
    free(order);
}
