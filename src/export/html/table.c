/* Sortable tables: the header from the columns, rows as they come (the
 * first max_rows), the rest counted and summed into an "other" row. The
 * script sorts on a header click by each cell's data-v. */
#include <stdlib.h>

#include "export/html/html_int.h"

static size_t cap_of(const tk_html_table_spec *s)
{
    return s->max_rows ? s->max_rows : TK_HTML_MAX_ROWS;
}

static void header(tk_html *h, const tk_html_table_spec *s)
{
    tk_html_puts(h, "<thead><tr>");
    for (size_t i = 0; i < s->ncols; i++) {
        const tk_html_column *c = &s->cols[i];
        tk_html_puts(h, "<th scope=\"col\" tabindex=\"0\"");
        if (c->help) {
            tk_html_puts(h, " title=\"");
            tk_html_text(h, c->help, SIZE_MAX);
            tk_html_puts(h, "\"");
        }
        tk_html_puts(h, ">");
        tk_html_text(h, c->label, SIZE_MAX);
        tk_html_puts(h, "</th>");
    }
    tk_html_puts(h, "</tr></thead>\n<tbody>\n");
}

void tk_html_table_begin(tk_html *h, const tk_html_table_spec *s)
{
    if (h->table)
        tk_html_table_end(h);
    h->table = s;
    h->rows = h->dropped = 0;
    free(h->other);
    h->other = calloc(s->ncols ? s->ncols : 1, sizeof *h->other);
    if (!h->other)
        tk_html_fail(h, TK_ENOMEM);
    tk_html_puts(h, "<figure class=\"tk-figure tk-table-wrap\">");
    if (s->caption) {
        tk_html_puts(h, "<figcaption>");
        tk_html_text(h, s->caption, SIZE_MAX);
        tk_html_puts(h, "</figcaption>");
    }
    tk_html_puts(h, "<div class=\"tk-scroll\"><table class=\"tk-table\"");
    if (s->id) {
        tk_html_puts(h, " id=\"");
        tk_html_text(h, s->id, SIZE_MAX);
        tk_html_puts(h, "\"");
    }
    tk_strbuf keys = {0};
    for (size_t i = 0; i < s->ncols; i++)
        if ((s->cols[i].flags & TK_HTML_COL_KEY) && s->cols[i].key) {
            if (keys.len)
                sb_putc(&keys, ' ');
            sb_puts(&keys, s->cols[i].key);
        }
    tk_html_src_attrs(h, s->src, keys.len ? keys.p : NULL);
    sb_free(&keys);
    if (s->agg)
        tk_html_printf(h, " data-agg=\"%s\"", s->agg);
    if (s->filter)
        tk_html_printf(h, " data-filter=\"%s\"", s->filter);
    tk_html_puts(h, ">\n");
    header(h, s);
}

/* One cell: numbers right-aligned with their exact value. */
static void cell(tk_html *h, const tk_html_column *c, const tk_html_value *v)
{
    int text = v->kind == TK_HTML_STR || v->kind == TK_HTML_JSON;
    const char *cls = text ? "" : " class=\"tk-num\"";
    if (c->flags & TK_HTML_COL_HEAT)
        cls = " class=\"tk-num tk-heat\"";
    else if (c->flags & TK_HTML_COL_MONO)
        cls = text ? " class=\"tk-mono\"" : " class=\"tk-num tk-mono\"";
    tk_html_puts(h, "<td");
    tk_html_puts(h, cls);
    tk_html_data_attrs(h, c->key, v);
    tk_html_puts(h, ">");
    sb_reset(&h->tmp);
    tk_html_value_text(&h->tmp, v, c->unit, c->scale);
    if (h->tmp.oom)
        tk_html_fail(h, TK_ENOMEM);
    tk_html_put(h, h->tmp.p ? h->tmp.p : "", h->tmp.len);
    tk_html_puts(h, "</td>");
}

int tk_html_table_row(tk_html *h, const tk_html_value *cells)
{
    const tk_html_table_spec *s = h->table;
    if (!s)
        return 0;
    if (h->rows >= cap_of(s) || !tk_html_room(h)) {
        h->dropped++;
        for (size_t i = 0; h->other && i < s->ncols; i++)
            if (s->cols[i].flags & TK_HTML_COL_SUM)
                h->other[i] += tk_html_value_num(&cells[i]);
        return 0;
    }
    h->rows++;
    tk_html_puts(h, "<tr>");
    for (size_t i = 0; i < s->ncols; i++)
        cell(h, &s->cols[i], &cells[i]);
    tk_html_puts(h, "</tr>\n");
    return 1;
}

/* The dropped rows: their sums (SUM columns) and how many. */
static void other_rows(tk_html *h, const tk_html_table_spec *s)
{
    int sums = 0;
    for (size_t i = 0; i < s->ncols; i++)
        sums |= (s->cols[i].flags & TK_HTML_COL_SUM) != 0;
    tk_html_puts(h, "<tfoot>");
    if (sums) {
        tk_html_puts(h, "<tr class=\"tk-other\">");
        for (size_t i = 0; i < s->ncols; i++) {
            tk_html_puts(h, "<td class=\"tk-num\">");
            if (i == 0) {
                tk_html_printf(h, "other (%zu rows)", h->dropped);
            } else if (s->cols[i].flags & TK_HTML_COL_SUM) {
                tk_html_value v = tk_html_f64(h->other[i]);
                sb_reset(&h->tmp);
                tk_html_value_text(&h->tmp, &v, s->cols[i].unit, s->cols[i].scale);
                tk_html_put(h, h->tmp.p ? h->tmp.p : "", h->tmp.len);
            }
            tk_html_puts(h, "</td>");
        }
        tk_html_puts(h, "</tr>");
    }
    tk_html_printf(h, "<tr class=\"tk-more\"><td colspan=\"%zu\">%zu more rows not shown "
                      "(this table shows %zu; the command's --json has every row)</td></tr>",
                   s->ncols, h->dropped, h->rows);
    tk_html_puts(h, "</tfoot>\n");
}

void tk_html_table_end(tk_html *h)
{
    const tk_html_table_spec *s = h->table;
    if (!s)
        return;
    tk_html_puts(h, "</tbody>\n");
    if (h->dropped)
        other_rows(h, s);
    tk_html_puts(h, "</table></div></figure>\n");
    h->table = NULL;
    free(h->other);
    h->other = NULL;
}
