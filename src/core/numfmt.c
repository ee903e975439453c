/* Numbers for people: fixed notation, duration units, percentages. */
#include <math.h>
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
