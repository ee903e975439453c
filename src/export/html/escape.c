/* Escaping and numbers: the text people read and the exact values the
 * tests read (data-v, the JSON text --json prints). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "core/numfmt.h"
#include "export/html/html_int.h"

void tk_html_fail(tk_html *h, tk_status st)
{
    if (h->status == TK_OK)
        h->status = st;
}

void tk_html_put(tk_html *h, const char *s, size_t n)
{
    if (h->mute || h->status != TK_OK)
        return;
    h->bytes += n;
    if (n && fwrite(s, 1, n, h->out) != n)
        tk_html_fail(h, TK_EIO);
}

void tk_html_printf(tk_html *h, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        tk_html_put(h, small, (size_t)n);
        return;
    }
    sb_reset(&h->tmp);
    va_start(ap, fmt);
    if (sb_reserve(&h->tmp, (size_t)n) == 0) {
        vsnprintf(h->tmp.p, (size_t)n + 1, fmt, ap);
        tk_html_put(h, h->tmp.p, (size_t)n);
    } else {
        tk_html_fail(h, TK_ENOMEM);
    }
    va_end(ap);
}

void tk_html_escape(tk_strbuf *b, const char *s, size_t n)
{
    if (!s)
        return;
    if (n == SIZE_MAX)
        n = strlen(s);
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        if (c < 0x80) {
            switch (c) {
            case '&': sb_puts(b, "&amp;"); break;
            case '<': sb_puts(b, "&lt;"); break;
            case '>': sb_puts(b, "&gt;"); break;
            case '"': sb_puts(b, "&quot;"); break;
            case '\'': sb_puts(b, "&#39;"); break;
            default: /* controls but tab and newlines read as U+FFFD */
                if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
                    sb_puts(b, "\xEF\xBF\xBD");
                else
                    sb_putc(b, (char)c);
            }
            i++;
            continue;
        }
        size_t k = tk_utf8_len(p + i, n - i);
        if (k == 0) {
            sb_puts(b, "\xEF\xBF\xBD");
            i++;
        } else {
            sb_putn(b, s + i, k);
            i += k;
        }
    }
}

void tk_html_text(tk_html *h, const char *s, size_t n)
{
    if (h->mute || !s)
        return;
    sb_reset(&h->tmp);
    tk_html_escape(&h->tmp, s, n);
    if (h->tmp.oom)
        tk_html_fail(h, TK_ENOMEM);
    else
        tk_html_put(h, h->tmp.p ? h->tmp.p : "", h->tmp.len);
}

double tk_html_value_num(const tk_html_value *v)
{
    switch (v->kind) {
    case TK_HTML_U64: return (double)v->u;
    case TK_HTML_I64: return (double)v->i;
    case TK_HTML_F64: return v->f;
    default: return 0;
    }
}

void tk_html_value_json(tk_strbuf *b, const tk_html_value *v)
{
    switch (v->kind) {
    case TK_HTML_U64: sb_u64(b, v->u); break;
    case TK_HTML_I64: sb_i64(b, v->i); break;
    case TK_HTML_F64: sb_f64(b, v->f); break; /* null when not finite, as --json */
    case TK_HTML_STR:
        sb_json_str(b, v->s ? v->s : "", v->s ? (v->len == SIZE_MAX ? strlen(v->s) : v->len) : 0);
        break;
    case TK_HTML_JSON: sb_puts(b, v->s ? v->s : "null"); break;
    default: sb_puts(b, "null");
    }
}

static void bytes_text(tk_strbuf *b, double x)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (fabs(x) >= 1024 && u < 5) {
        x /= 1024;
        u++;
    }
    if (u == 0)
        sb_printf(b, "%.0f B", x);
    else
        sb_printf(b, "%.1f %s", x, units[u]);
}

void tk_html_num_text(tk_strbuf *b, double x, tk_html_unit unit)
{
    switch (unit) {
    case TK_HTML_SECONDS: tk_num_duration(b, x, tk_num_duration_unit(fabs(x))); break;
    case TK_HTML_BYTES: bytes_text(b, x); break;
    case TK_HTML_RATIO: tk_num_percent(b, x); break;
    case TK_HTML_HEX: sb_hex(b, x < 0 ? 0 : (uint64_t)x); break;
    default: tk_num_plain(b, x);
    }
}

void tk_html_value_text(tk_strbuf *b, const tk_html_value *v, tk_html_unit unit, double scale)
{
    int scaled = scale != 0 && scale != 1;
    if (v->kind == TK_HTML_NULL) {
        sb_puts(b, "\xE2\x80\x93"); /* – */
    } else if (v->kind == TK_HTML_STR || v->kind == TK_HTML_JSON) {
        tk_html_escape(b, v->s, v->len);
    } else if (unit == TK_HTML_HEX && v->kind == TK_HTML_U64) {
        sb_hex(b, v->u);
    } else if (unit == TK_HTML_PLAIN && !scaled && v->kind == TK_HTML_U64) {
        sb_u64(b, v->u);
    } else if (unit == TK_HTML_PLAIN && !scaled && v->kind == TK_HTML_I64) {
        sb_i64(b, v->i);
    } else {
        double x = tk_html_value_num(v);
        tk_html_num_text(b, scaled ? x / scale : x, unit);
    }
}

void tk_html_data_attrs(tk_html *h, const char *key, const tk_html_value *v)
{
    if (h->mute)
        return;
    tk_strbuf json = {0};
    tk_html_value_json(&json, v);
    sb_reset(&h->tmp);
    if (key) {
        sb_puts(&h->tmp, " data-key=\"");
        tk_html_escape(&h->tmp, key, SIZE_MAX);
        sb_putc(&h->tmp, '"');
    }
    sb_puts(&h->tmp, " data-v=\"");
    tk_html_escape(&h->tmp, json.p ? json.p : "null", SIZE_MAX);
    sb_putc(&h->tmp, '"');
    if (json.oom || h->tmp.oom)
        tk_html_fail(h, TK_ENOMEM);
    else
        tk_html_put(h, h->tmp.p, h->tmp.len);
    sb_free(&json);
}

const char *tk_html_new_id(tk_html *h, char buf[16])
{
    snprintf(buf, 16, "tk%u", ++h->ids);
    return buf;
}
