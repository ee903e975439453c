/* Where the curves are shown, and SHARDS' error against exact. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cacheray/mrc/output.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t footprint(const tk_mrc *m, size_t i)
{
    tk_mrc_curve c;
    if (!tk_mrc_get_curve(m, i, TK_MRC_EXACT, &c))
        tk_mrc_get_curve(m, i, TK_MRC_SHARDS, &c);
    return c.lines;
}

size_t mrc_points(const mrc_out *o, size_t i, int fine, uint64_t *lines)
{
    uint64_t line = o->cfg->line_sizes[i], top = footprint(o->m, i);
    for (size_t k = 0; k < o->nlevels; k++)
        if (o->levels[k].size / line > top)
            top = o->levels[k].size / line;
    size_t n = 0;
    for (uint64_t v = 1; v <= (fine ? 8 : 1); v++)
        lines[n++] = v;
    /* to a doubling past the top: the HTML report's curve has those */
    while ((lines[n - 1] < top || (lines[n - 1] & (lines[n - 1] - 1))) &&
           n < MRC_MAX_POINTS - TK_CACHESIM_MAX_LEVELS) {
        uint64_t last = lines[n - 1];
        unsigned e = 63 - (unsigned)__builtin_clzll(last);
        lines[n++] = fine ? last + ((uint64_t)1 << e) / 4 : last * 2;
    }
    for (size_t k = 0; k < o->nlevels; k++) {
        uint64_t v = o->levels[k].size / line;
        int seen = 0;
        for (size_t j = 0; j < n; j++)
            seen |= lines[j] == v;
        if (!seen && v && n < MRC_MAX_POINTS)
            lines[n++] = v;
    }
    qsort(lines, n, sizeof *lines, cmp_u64);
    return n;
}

double mrc_mae(const mrc_out *o, size_t i)
{
    tk_mrc_curve c;
    if (!tk_mrc_get_curve(o->m, i, TK_MRC_EXACT, &c) ||
        !tk_mrc_get_curve(o->m, i, TK_MRC_SHARDS, &c))
        return NAN;
    uint64_t top = footprint(o->m, i), lines[MRC_MAX_POINTS];
    size_t n = mrc_points(o, i, 1, lines);
    double sum = 0;
    size_t k = 0;
    for (size_t j = 0; j < n && (j == 0 || lines[j - 1] < top); j++) {
        double s = tk_mrc_miss_rate(o->m, i, TK_MRC_SHARDS, lines[j]);
        if (isnan(s)) /* below SHARDS' resolution */
            continue;
        sum += fabs(s - tk_mrc_miss_rate(o->m, i, TK_MRC_EXACT, lines[j]));
        k++;
    }
    return k ? sum / (double)k : NAN;
}

void mrc_size_text(uint64_t bytes, char *buf, size_t n)
{
    if (bytes >= 1024 && bytes % 1024) { /* not round: 3 digits */
        static const char big[] = "KMGTPE";
        double v = (double)bytes / 1024;
        int u = 0;
        while (v >= 1024 && u < 5) {
            v /= 1024;
            u++;
        }
        snprintf(buf, n, "%.3g%c", v, big[u]);
        return;
    }
    static const char unit[] = "KMGTPE";
    int u = -1;
    while (bytes && bytes % 1024 == 0 && u < 5) {
        bytes /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, n, "%llu", (unsigned long long)bytes);
    else
        snprintf(buf, n, "%llu%c", (unsigned long long)bytes, unit[u]);
}
