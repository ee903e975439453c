/* Numbers for people: fixed notation, duration units, percentages. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/numfmt.h"

static const double unit_scale[] = {1e-9, 1e-6, 1e-3, 1.0};
static const char *const unit_symbol[] = {"ns", "\xC2\xB5s", "ms", "s"};

int tk_num_duration_unit(double max_abs)
{
    if (!isfinite(max_abs) || max_abs == 0.0)
        return TK_UNIT_S;
    max_abs = fabs(max_abs);
    /* Decide on the rounded value: 0.9999996 ms prints as 1.000 ms, not as
     * 1000.000 µs. */
    for (int u = TK_UNIT_S; u > TK_UNIT_NS; u--)
        if (round(max_abs / unit_scale[u] * 1000.0) >= 1000.0)
            return u;
    return TK_UNIT_NS;
}

void tk_num_fixed(tk_strbuf *b, double v, int decimals)
{
    if (isnan(v)) {
        sb_puts(b, "nan");
        return;
    }
    if (isinf(v)) {
        sb_puts(b, v < 0 ? "-inf" : "inf");
        return;
    }
    size_t start = b->len;
    sb_printf(b, "%.*f", decimals, v);
    if (b->oom || b->len == start || b->p[start] != '-')
        return;
    for (size_t i = start + 1; i < b->len; i++)
        if (b->p[i] != '0' && b->p[i] != '.')
            return;
    /* "-0.000": the sign of something that printed as zero says nothing */
    memmove(b->p + start, b->p + start + 1, b->len - start);
    b->len--;
}

void tk_num_duration(tk_strbuf *b, double seconds, int unit)
{
    if (unit < TK_UNIT_NS || unit > TK_UNIT_S)
        unit = TK_UNIT_S;
    tk_num_fixed(b, seconds / unit_scale[unit], TK_DURATION_DECIMALS);
    if (isfinite(seconds))
        sb_puts(b, unit_symbol[unit]);
}

void tk_num_percent(tk_strbuf *b, double ratio)
{
    tk_num_fixed(b, ratio * 100.0, TK_PERCENT_DECIMALS);
    if (isfinite(ratio))
        sb_putc(b, '%');
}

void tk_num_plain(tk_strbuf *b, double v)
{
    int decimals = 0;
    if (isfinite(v) && v != 0.0) {
        double e = floor(log10(fabs(v)));
        decimals = e >= 5 ? 0 : e <= -4 ? 9 : 5 - (int)e;
    }
    size_t start = b->len;
    tk_num_fixed(b, v, decimals);
    if (b->oom || !isfinite(v) || !memchr(b->p + start, '.', b->len - start))
        return;
    while (b->p[b->len - 1] == '0')
        b->len--;
    if (b->p[b->len - 1] == '.')
        b->len--;
    b->p[b->len] = '\0';
}

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* The decimal digits of v, written backwards so they end at `end`; returns
 * where they start. Two digits per step (tables of a million rows). */
static char *digits_backwards(char *end, uint64_t v)
{
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--end = digit_pairs[d + 1];
        *--end = digit_pairs[d];
    }
    if (v >= 10) {
        *--end = digit_pairs[v * 2 + 1];
        *--end = digit_pairs[v * 2];
    } else {
        *--end = (char)('0' + v);
    }
    return end;
}

/* Digits of v right-aligned in a field of `width` spaces; v's digits only
 * when they are wider. */
size_t tk_num_printf_u(char *dst, uint64_t v, int width)
{
    char tmp[20];
    char *p = digits_backwards(tmp + sizeof tmp, v);
    size_t n = (size_t)(tmp + sizeof tmp - p);
    size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
    memset(dst, ' ', pad);
    memcpy(dst + pad, p, n);
    dst[pad + n] = '\0';
    return pad + n;
}

static const double pow10_table[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

/* v * 10^decimals rounded to nearest (ties to even, as printf rounds the
 * exact binary value) when that is sure from the double product: its error
 * is at most half an ulp, so only products within that of a .5 are unsure. */
static int scaled_round(double v, int decimals, uint64_t *out)
{
    if (!(v >= 0.0) || signbit(v) || decimals < 0 || decimals > 9)
        return 0;
    double x = v * pow10_table[decimals];
    if (!(x < 4503599627370496.0)) /* 2^52: the fraction must be representable */
        return 0;
    double whole = floor(x), frac = x - whole;
    double slack = x * 0x1p-52 + 0x1p-1074;
    if (fabs(frac - 0.5) <= slack)
        return 0;
    *out = (uint64_t)whole + (frac > 0.5);
    return 1;
}

static size_t by_printf(char *dst, size_t cap, double v, int width, int decimals)
{
    int len = snprintf(dst, cap, "%*.*f", width, decimals, v);
    return len < 0 ? 0 : (size_t)len;
}

/* n / 10^d with a constant divisor per case (a multiply, not a divide). */
static uint64_t div_pow10(uint64_t n, int d)
{
    switch (d) {
    case 1: return n / 10u;
    case 2: return n / 100u;
    case 3: return n / 1000u;
    case 4: return n / 10000u;
    case 5: return n / 100000u;
    case 6: return n / 1000000u;
    case 7: return n / 10000000u;
    case 8: return n / 100000000u;
    case 9: return n / 1000000000u;
    default: return n;
    }
}

size_t tk_num_printf_f(char *dst, size_t cap, double v, int width, int decimals)
{
    uint64_t n;
    char buf[56]; /* the digits end at buf + 48: 8-byte copies may read past */
    if (width < 0 || !scaled_round(v, decimals, &n)) /* '-' flag: printf's */
        return by_printf(dst, cap, v, width, decimals);
    uint64_t whole = div_pow10(n, decimals);
    char *end = buf + 48, *p = end;
    if (decimals > 0) {
        uint64_t f = n - whole * (uint64_t)pow10_table[decimals];
        memcpy(end - 8, "00000000", 8); /* the fraction's leading zeros */
        memcpy(end - 16, "00000000", 8);
        digits_backwards(end, f); /* f < 10^decimals, decimals <= 9 */
        p = end - decimals;
        *--p = '.';
    }
    p = digits_backwards(p, whole);
    size_t len = (size_t)(end - p);
    size_t pad = width > 0 && (size_t)width > len ? (size_t)width - len : 0;
    if (pad + len >= cap)
        return by_printf(dst, cap, v, width, decimals);
    if (pad + len + 8 <= cap) { /* 8 bytes a store, no library call: rows of tables */
        for (size_t i = 0; i < pad; i += 8)
            memcpy(dst + i, "        ", 8);
        for (size_t i = 0; i < len; i += 8)
            memcpy(dst + pad + i, p + i, 8);
    } else {
        memset(dst, ' ', pad);
        memcpy(dst + pad, p, len);
    }
    dst[pad + len] = '\0';
    return pad + len;
}
