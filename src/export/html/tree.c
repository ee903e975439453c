/* Collapsible trees (details/summary): casemate's page tables. Nodes past
 * the cap are dropped with their children and counted. */
#include "export/html/html_int.h"

void tk_html_tree_begin(tk_html *h, const char *id, const char *src, const char *keys)
{
    h->nodes = h->nodes_dropped = 0;
    tk_html_puts(h, "<div class=\"tk-tree\"");
    if (id) {
        tk_html_puts(h, " id=\"");
        tk_html_text(h, id, SIZE_MAX);
        tk_html_puts(h, "\"");
    }
    tk_html_src_attrs(h, src, keys);
    tk_html_puts(h, "><ul>\n");
}

/* Whether a node fits; counts it either way. */
static int admit(tk_html *h)
{
    if (h->mute)
        return 0;
    if (h->nodes >= TK_HTML_MAX_NODES || !tk_html_room(h)) {
        h->nodes_dropped++;
        return 0;
    }
    h->nodes++;
    return 1;
}

static void label(tk_html *h, const char *text, const tk_html_field *f, size_t n)
{
    tk_html_puts(h, "<span class=\"tk-node-label\">");
    tk_html_text(h, text, SIZE_MAX);
    tk_html_puts(h, "</span>");
    tk_html_fields_inline(h, f, n);
}

int tk_html_tree_node_begin(tk_html *h, const char *text, const tk_html_field *f, size_t n,
                            int open)
{
    if (!admit(h)) {
        h->mute++;
        return 0;
    }
    tk_html_puts(h, open ? "<li><details open><summary class=\"tk-rec\">"
                         : "<li><details><summary class=\"tk-rec\">");
    label(h, text, f, n);
    tk_html_puts(h, "</summary><ul>\n");
    return 1;
}

void tk_html_tree_node_end(tk_html *h)
{
    if (h->mute) {
        h->mute--;
        return;
    }
    tk_html_puts(h, "</ul></details></li>\n");
}

void tk_html_tree_leaf(tk_html *h, const char *text, const tk_html_field *f, size_t n)
{
    if (!admit(h))
        return;
    tk_html_puts(h, "<li class=\"tk-leaf\"><span class=\"tk-rec\">");
    label(h, text, f, n);
    tk_html_puts(h, "</span></li>\n");
}

void tk_html_tree_end(tk_html *h)
{
    tk_html_puts(h, "</ul>");
    if (h->nodes_dropped)
        tk_html_printf(h, "<p>%u more nodes not shown (a tree shows at most %u).</p>",
                       h->nodes_dropped, (unsigned)TK_HTML_MAX_NODES);
    tk_html_puts(h, "</div>\n");
}
