/* The page: head and styles, sections, paragraphs, facts, verdicts and
 * cards, and the script at the end. */
#include <stdarg.h>
#include <stdlib.h>

#include "export/html/html_int.h"

tk_html *tk_html_begin(FILE *out, const char *title, const char *subtitle, tk_error *err)
{
    tk_html *h = calloc(1, sizeof *h);
    if (!h) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    h->out = out;
    tk_html_puts(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    "<meta name=\"color-scheme\" content=\"light dark\">\n"
                    "<meta name=\"generator\" content=\"tracekit\">\n"
                    /* no favicon request, even from file:// */
                    "<link rel=\"icon\" href=\"data:,\">\n<title>");
    tk_html_text(h, title, SIZE_MAX);
    if (subtitle) {
        tk_html_puts(h, " \xE2\x80\x94 ");
        tk_html_text(h, subtitle, SIZE_MAX);
    }
    tk_html_puts(h, "</title>\n<style>");
    tk_html_puts(h, tk_html_css);
    tk_html_puts(h, "</style>\n</head>\n<body>\n<header class=\"tk-head\"><h1>");
    tk_html_text(h, title, SIZE_MAX);
    tk_html_puts(h, "</h1>");
    if (subtitle) {
        tk_html_puts(h, "<p class=\"tk-sub\">");
        tk_html_text(h, subtitle, SIZE_MAX);
        tk_html_puts(h, "</p>");
    }
    tk_html_puts(h, "<nav id=\"tk-toc\" aria-label=\"Contents\"></nav></header>\n<main>\n");
    return h;
}

void tk_html_free(tk_html *h)
{
    if (!h)
        return;
    free(h->other);
    sb_free(&h->tmp);
    free(h);
}

tk_status tk_html_status(const tk_html *h) { return h->status; }

uint64_t tk_html_bytes(const tk_html *h) { return h->bytes; }

tk_status tk_html_end(tk_html *h, tk_error *err)
{
    h->mute = 0;
    if (h->table)
        tk_html_table_end(h);
    while (h->depth > 0)
        tk_html_section_end(h);
    if (h->cards_dropped)
        tk_html_paraf(h, "%u more cards not shown (a page shows at most %u).",
                      h->cards_dropped, (unsigned)TK_HTML_MAX_CARDS);
    tk_html_puts(h, "</main>\n<footer class=\"tk-foot\">Written by tracekit; this page needs "
                    "no network and reads the same printed.</footer>\n<script>");
    tk_html_puts(h, tk_html_js);
    tk_html_puts(h, "</script>\n</body>\n</html>\n");
    if (h->status == TK_OK && (fflush(h->out) != 0 || ferror(h->out)))
        h->status = TK_EIO;
    tk_status st = h->status;
    tk_html_free(h);
    if (st == TK_ENOMEM)
        return tk_error_set(err, st, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    if (st != TK_OK)
        return tk_error_set(err, st, TK_NO_OFFSET, TK_NO_RECORD, "writing the page failed");
    return TK_OK;
}

void tk_html_section(tk_html *h, const char *id, const char *title, const char *intro)
{
    tk_html_puts(h, h->depth ? "<section class=\"tk-sub-section\""
                             : "<section class=\"tk-section\"");
    if (id) {
        tk_html_puts(h, " id=\"");
        tk_html_text(h, id, SIZE_MAX);
        tk_html_puts(h, "\"");
    }
    tk_html_puts(h, h->depth ? "><h3>" : "><h2>");
    tk_html_text(h, title, SIZE_MAX);
    tk_html_puts(h, h->depth ? "</h3>\n" : "</h2>\n");
    h->depth++;
    if (intro)
        tk_html_para(h, intro);
}

void tk_html_section_end(tk_html *h)
{
    if (h->depth == 0)
        return;
    h->depth--;
    tk_html_puts(h, "</section>\n");
}

void tk_html_para(tk_html *h, const char *text)
{
    tk_html_puts(h, "<p>");
    tk_html_text(h, text, SIZE_MAX);
    tk_html_puts(h, "</p>\n");
}

void tk_html_paraf(tk_html *h, const char *fmt, ...)
{
    tk_strbuf b = {0};
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n >= 0 && sb_reserve(&b, (size_t)n) == 0) {
        va_start(ap, fmt);
        vsnprintf(b.p, (size_t)n + 1, fmt, ap);
        va_end(ap);
        b.len = (size_t)n;
        tk_html_para(h, b.p);
    } else if (n >= 0) {
        tk_html_fail(h, TK_ENOMEM);
    }
    sb_free(&b);
}

void tk_html_pre(tk_html *h, const char *text, size_t len)
{
    tk_html_puts(h, "<pre class=\"tk-pre\">");
    tk_html_text(h, text, len);
    tk_html_puts(h, "</pre>\n");
}

/* One fact or field: <dt>label</dt><dd data-...>value</dd>. */
static void field(tk_html *h, const tk_html_field *f)
{
    tk_html_puts(h, "<div><dt>");
    tk_html_text(h, f->label, SIZE_MAX);
    tk_html_puts(h, "</dt><dd");
    tk_html_data_attrs(h, f->key, &f->v);
    tk_html_puts(h, ">");
    sb_reset(&h->tmp);
    tk_html_value_text(&h->tmp, &f->v, f->unit, f->scale);
    tk_html_put(h, h->tmp.p ? h->tmp.p : "", h->tmp.len);
    tk_html_puts(h, "</dd></div>");
}

/* data-src and data-keys of a block compared with a JSON document. */
static void src_attrs(tk_html *h, const char *src, const char *keys)
{
    if (src) {
        tk_html_puts(h, " data-src=\"");
        tk_html_text(h, src, SIZE_MAX);
        tk_html_puts(h, "\"");
    }
    if (keys) {
        tk_html_puts(h, " data-keys=\"");
        tk_html_text(h, keys, SIZE_MAX);
        tk_html_puts(h, "\"");
    }
}

void tk_html_facts(tk_html *h, const char *src, const char *keys, const tk_html_field *f,
                   size_t n)
{
    tk_html_puts(h, "<dl class=\"tk-facts\"");
    src_attrs(h, src, keys);
    tk_html_puts(h, ">");
    for (size_t i = 0; i < n; i++)
        field(h, &f[i]);
    tk_html_puts(h, "</dl>\n");
}

static const char *tone_class(tk_html_tone t)
{
    static const char *const names[] = {"tk-info", "tk-ok", "tk-warn", "tk-bad"};
    return names[t <= TK_HTML_BAD ? t : 0];
}

void tk_html_verdict(tk_html *h, tk_html_tone tone, const char *text)
{
    tk_html_printf(h, "<p class=\"tk-verdict %s\" role=\"status\">", tone_class(tone));
    tk_html_text(h, text, SIZE_MAX);
    tk_html_puts(h, "</p>\n");
}

int tk_html_card_begin(tk_html *h, tk_html_tone tone, const char *title)
{
    if (h->mute || h->cards >= TK_HTML_MAX_CARDS || !tk_html_room(h)) {
        h->cards_dropped += h->mute == 0;
        h->mute++;
        return 0;
    }
    h->cards++;
    tk_html_printf(h, "<article class=\"tk-card %s\"><h4>", tone_class(tone));
    tk_html_text(h, title, SIZE_MAX);
    tk_html_puts(h, "</h4>\n");
    return 1;
}

void tk_html_card_end(tk_html *h)
{
    if (h->mute) {
        h->mute--;
        return;
    }
    tk_html_puts(h, "</article>\n");
}

void tk_html_fields_inline(tk_html *h, const tk_html_field *f, size_t n)
{
    if (!n)
        return;
    tk_html_puts(h, "<dl class=\"tk-inline\">");
    for (size_t i = 0; i < n; i++)
        field(h, &f[i]);
    tk_html_puts(h, "</dl>");
}

void tk_html_src_attrs(tk_html *h, const char *src, const char *keys) { src_attrs(h, src, keys); }
