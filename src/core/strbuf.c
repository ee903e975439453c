/* Growable byte string. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

void sb_free(tk_strbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

void sb_reset(tk_strbuf *b) { b->len = 0; }

int tk_buf_grow(void **p, size_t *cap, size_t need)
{
    size_t n = *cap ? *cap : 256;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return -1;
        n *= 2;
    }
    void *q = realloc(*p, n);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

int tk_array_grow_zeroed(void **p, size_t *n, size_t index, size_t size, size_t first)
{
    size_t want = *n ? *n : first;
    while (want <= index) {
        if (want > SIZE_MAX / 2 / size)
            return -1;
        want *= 2;
    }
    if (want == *n)
        return 0;
    unsigned char *q = realloc(*p, want * size);
    if (!q)
        return -1;
    memset(q + *n * size, 0, (want - *n) * size);
    *p = q;
    *n = want;
    return 0;
}

int sb_grow(tk_strbuf *b, size_t extra)
{
    if (b->oom)
        return -1;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    void *p = b->p;
    if (extra > SIZE_MAX - b->len - 1 || tk_buf_grow(&p, &b->cap, b->len + extra + 1) != 0) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    return 0;
}

void sb_pad(tk_strbuf *b, char c, size_t n)
{
    if (sb_reserve(b, n) != 0)
        return;
    memset(b->p + b->len, c, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void sb_u64(tk_strbuf *b, uint64_t v)
{
    static const char pairs[201] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    char tmp[24];
    size_t i = sizeof tmp;
    while (v >= 100) { /* two digits per division: this runs per number */
        unsigned d = (unsigned)(v % 100);
        v /= 100;
        tmp[--i] = pairs[2 * d + 1];
        tmp[--i] = pairs[2 * d];
    }
    if (v >= 10) {
        tmp[--i] = pairs[2 * v + 1];
        tmp[--i] = pairs[2 * v];
    } else {
        tmp[--i] = (char)('0' + v);
    }
    sb_putn(b, tmp + i, sizeof tmp - i);
}

void sb_i64(tk_strbuf *b, int64_t v)
{
    if (v < 0) {
        sb_putc(b, '-');
        sb_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        sb_u64(b, (uint64_t)v);
    }
}

void sb_hex(tk_strbuf *b, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    char tmp[18];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = digits[v & 15];
        v >>= 4;
    } while (v);
    tmp[--i] = 'x';
    tmp[--i] = '0';
    sb_putn(b, tmp + i, sizeof tmp - i);
}

void sb_f64(tk_strbuf *b, double v)
{
    char tmp[40];
    if (!isfinite(v)) {
        sb_puts(b, "null");
        return;
    }
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    sb_puts(b, tmp);
}

void sb_printf(tk_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n > 0 && sb_reserve(b, (size_t)n) == 0) {
        vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
size_t tk_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; min = 0x10000; }
    else return 0;
    if (n < len)
        return 0;
    unsigned cp = c & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

void sb_json_str(tk_strbuf *b, const char *str, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    if (sb_reserve(b, n + 2) != 0)
        return;
    sb_putc(b, '"');
    size_t i = 0;
    while (i < n) {
        size_t run = i; /* copy plain ASCII runs at once */
        while (run < n && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' &&
               s[run] != '\\')
            run++;
        if (run > i) {
            sb_putn(b, str + i, run - i);
            i = run;
            continue;
        }
        unsigned c = s[i];
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            sb_putn(b, esc, 2);
            i++;
        } else if (c < 0x20) {
            switch (c) {
            case '\n': sb_puts(b, "\\n"); break;
            case '\r': sb_puts(b, "\\r"); break;
            case '\t': sb_puts(b, "\\t"); break;
            case '\b': sb_puts(b, "\\b"); break;
            case '\f': sb_puts(b, "\\f"); break;
            default: {
                char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
                sb_putn(b, esc, 6);
            }
            }
            i++;
        } else {
            size_t len = tk_utf8_len(s + i, n - i);
            if (len == 0) {
                sb_puts(b, "\\ufffd");
                i++;
            } else {
                sb_putn(b, str + i, len);
                i += len;
            }
        }
    }
    sb_putc(b, '"');
}

void sb_text_str(tk_strbuf *b, const char *str, size_t n, int quote_if_needed)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    int quote = 0;
    if (quote_if_needed) {
        quote = n == 0;
        for (size_t i = 0; i < n && !quote; i++)
            quote = s[i] == ' ' || s[i] == '=' || s[i] == '"';
    }
    if (quote)
        sb_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned c = s[i];
        size_t len;
        if (c >= 0x20 && c < 0x7F && !(quote && (c == '"' || c == '\\'))) {
            sb_putc(b, (char)c);
        } else if (c >= 0x80 && (len = tk_utf8_len(s + i, n - i)) > 0) {
            sb_putn(b, str + i, len); /* valid UTF-8 stays readable */
            i += len - 1;
        } else if (quote && (c == '"' || c == '\\')) {
            char esc[2] = {'\\', (char)c};
            sb_putn(b, esc, 2);
        } else {
            char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
            sb_putn(b, esc, 4);
        }
    }
    if (quote)
        sb_putc(b, '"');
}

char *sb_strdup(const tk_strbuf *b)
{
    char *p = malloc(b->len + 1);
    if (p) {
        if (b->len)
            memcpy(p, b->p, b->len);
        p[b->len] = '\0';
    }
    return p;
}
