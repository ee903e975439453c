/* diff's output: the text table, --json, --folded (docs/formats/xray.md,
 * "diff"), and the --fail-if thresholds. */
#include "xray/cmd/diff_print.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const stat_names[] = {"count", "sum", "self", "med", "p90", "p99"};
#define NSTATS (sizeof stat_names / sizeof stat_names[0])

static int parse_one(const char *s, size_t len, tk_diff_threshold *t)
{
    for (size_t i = 0; i < NSTATS; i++) {
        size_t k = strlen(stat_names[i]);
        if (len <= k + 2 || strncmp(s, stat_names[i], k) != 0 || s[k] != '>')
            continue;
        const char *v = s + k + 1, *end = s + len;
        if (*v == '+')
            v++;
        if (end[-1] != '%' || v >= end - 1 || !strchr("0123456789.", *v))
            return -1;
        char num[64];
        size_t nl = (size_t)(end - 1 - v);
        if (nl >= sizeof num)
            return -1;
        memcpy(num, v, nl);
        num[nl] = 0;
        char *stop;
        double p = strtod(num, &stop);
        if (*stop || !isfinite(p))
            return -1;
        t->stat = (tk_diff_stat)i;
        t->percent = p;
        return 0;
    }
    return -1;
}

int tk_diff_thresholds_parse(const char *s, tk_diff_threshold *t, size_t cap, size_t *n)
{
    *n = 0;
    for (;;) {
        size_t len = strcspn(s, ",");
        while (len && s[0] == ' ') {
            s++;
            len--;
        }
        while (len && s[len - 1] == ' ')
            len--;
        if (*n == cap || parse_one(s, len, &t[*n]) != 0)
            return -1;
        ++*n;
        s += strcspn(s, ",");
        if (!*s)
            return 0;
        s++;
    }
}

static uint64_t stat_of(const tk_xray_diff_stats *s, tk_diff_stat k)
{
    switch (k) {
    case TK_DIFF_COUNT: return s->count;
    case TK_DIFF_SUM: return s->sum;
    case TK_DIFF_SELF: return s->self;
    case TK_DIFF_MED: return s->med;
    case TK_DIFF_P90: return s->p90;
    default: return s->p99;
    }
}

/* Relative change of B over A in percent (+inf from 0). */
static double rel(uint64_t a, uint64_t b)
{
    if (a == 0)
        return b ? INFINITY : 0;
    return ((double)b - (double)a) / (double)a * 100;
}

int tk_diff_row_fails(const tk_diff_result *r, const tk_xray_diff_row *x)
{
    if (x->verdict != TK_XRAY_DIFF_SLOWER)
        return 0;
    for (size_t i = 0; i < r->nthr; i++)
        if (rel(stat_of(&x->a, r->thr[i].stat), stat_of(&x->b, r->thr[i].stat)) >
            r->thr[i].percent)
            return 1;
    return 0;
}

size_t tk_diff_failing(const tk_diff_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nfuncs; i++)
        n += (size_t)tk_diff_row_fails(r, &r->funcs[i]);
    return n;
}

static const char *verdict_name(tk_xray_diff_verdict v)
{
    switch (v) {
    case TK_XRAY_DIFF_SLOWER: return "slower";
    case TK_XRAY_DIFF_FASTER: return "faster";
    case TK_XRAY_DIFF_ONLY_A: return "only_a";
    case TK_XRAY_DIFF_ONLY_B: return "only_b";
    default: return "same";
    }
}

/* ---------------------------------------------------------------- text */

/* A duration of `u` units: "12.3us", or ticks without a frequency. */
static const char *dur(char *buf, size_t cap, double u, double units, int sign)
{
    const char *pre = sign && u > 0 ? "+" : "";
    if (!units) {
        snprintf(buf, cap, "%s%.0f", pre, u);
        return buf;
    }
    double s = u / units, a = fabs(s);
    if (a == 0)
        snprintf(buf, cap, "%s0", pre);
    else if (a < 1e-6)
        snprintf(buf, cap, "%s%.3gns", pre, s * 1e9);
    else if (a < 1e-3)
        snprintf(buf, cap, "%s%.3gus", pre, s * 1e6);
    else if (a < 1)
        snprintf(buf, cap, "%s%.3gms", pre, s * 1e3);
    else
        snprintf(buf, cap, "%s%.3gs", pre, s);
    return buf;
}

static void label(char *buf, size_t cap, const tk_xray_diff_row *x)
{
    if (x->path)
        snprintf(buf, cap, "%s", x->path);
    else if (x->name)
        snprintf(buf, cap, "%s", x->name);
    else
        snprintf(buf, cap, "#%d", x->func_id[0] >= 0 ? x->func_id[0] : x->func_id[1]);
}

static void text_row(FILE *f, const tk_diff_result *r, const tk_xray_diff_row *x)
{
    char b[12][32], name[4096], pct[32], verdict[48];
    double u = r->units;
    double dself = (double)x->b.self - (double)x->a.self;
    double pc = rel(x->a.self, x->b.self);
    if (!x->a.count || !x->b.count || isinf(pc))
        snprintf(pct, sizeof pct, "-");
    else
        snprintf(pct, sizeof pct, "%+.1f%%", pc);
    if (x->verdict == TK_XRAY_DIFF_ONLY_A || x->verdict == TK_XRAY_DIFF_ONLY_B)
        snprintf(verdict, sizeof verdict, "only in %c", x->verdict == TK_XRAY_DIFF_ONLY_A ? 'A' : 'B');
    else
        snprintf(verdict, sizeof verdict, "%s p=%.2g",
                 x->verdict == TK_XRAY_DIFF_SLOWER   ? "slower"
                 : x->verdict == TK_XRAY_DIFF_FASTER ? "faster"
                                                     : "~",
                 x->p);
    label(name, sizeof name, x);
    fprintf(f, "%9llu %9llu %9s %9s %10s %8s %9s %9s %9s %9s %9s %9s  %-16s %s%s\n",
            (unsigned long long)x->a.count, (unsigned long long)x->b.count,
            dur(b[0], 32, (double)x->a.self, u, 0), dur(b[1], 32, (double)x->b.self, u, 0),
            dur(b[2], 32, dself, u, 1), pct, dur(b[3], 32, (double)x->a.med, u, 0),
            dur(b[4], 32, (double)x->b.med, u, 0), dur(b[5], 32, (double)x->a.p90, u, 0),
            dur(b[6], 32, (double)x->b.p90, u, 0), dur(b[7], 32, (double)x->a.p99, u, 0),
            dur(b[8], 32, (double)x->b.p99, u, 0), verdict, name,
            tk_diff_row_fails(r, x) ? "  [fail-if]" : "");
}

static void text_table(FILE *f, const tk_diff_result *r, const tk_xray_diff_row *x, size_t n,
                       const char *what)
{
    fprintf(f, "%s: %zu\n", what, n);
    fprintf(f, "%9s %9s %9s %9s %10s %8s %9s %9s %9s %9s %9s %9s  %-16s %s\n", "calls A",
            "calls B", "self A", "self B", "Δself", "Δ%", "med A", "med B", "p90 A", "p90 B",
            "p99 A", "p99 B", "verdict", what[0] == 'F' ? "function" : "call path");
    for (size_t i = 0; i < n; i++)
        text_row(f, r, &x[i]);
}

/* --------------------------------------------------------- json, folded */

static void seconds(tk_sink *s, const char *key, double v, double units)
{
    if (units)
        tk_sink_f64_flags(s, key, v / units, TK_SINK_SECONDS);
    else
        tk_sink_null(s, key);
}

static void json_stats(tk_sink *s, const char *key, const tk_xray_diff_stats *st, double u)
{
    if (!st->count) {
        tk_sink_null(s, key);
        return;
    }
    tk_sink_object_begin(s, key);
    tk_sink_u64(s, "count", st->count, 0);
    seconds(s, "sum_s", (double)st->sum, u);
    seconds(s, "self_s", (double)st->self, u);
    seconds(s, "min_s", (double)st->min, u);
    seconds(s, "med_s", (double)st->med, u);
    seconds(s, "p90_s", (double)st->p90, u);
    seconds(s, "p99_s", (double)st->p99, u);
    seconds(s, "max_s", (double)st->max, u);
    tk_sink_object_end(s);
}

static void json_id(tk_sink *s, const char *key, int32_t id)
{
    if (id >= 0)
        tk_sink_i64(s, key, id);
    else
        tk_sink_null(s, key);
}

static void json_row(tk_sink *s, const tk_diff_result *r, const tk_xray_diff_row *x)
{
    char name[4096];
    tk_sink_object_begin(s, NULL);
    label(name, sizeof name, x);
    tk_sink_cstr(s, x->path ? "path" : "function", name, 0);
    json_id(s, "func_id_a", x->func_id[0]);
    json_id(s, "func_id_b", x->func_id[1]);
    json_stats(s, "a", &x->a, r->units);
    json_stats(s, "b", &x->b, r->units);
    seconds(s, "delta_self_s", (double)x->b.self - (double)x->a.self, r->units);
    double pc = rel(x->a.self, x->b.self);
    if (x->a.count && x->b.count && !isinf(pc))
        tk_sink_f64(s, "delta_self_pct", pc);
    else
        tk_sink_null(s, "delta_self_pct");
    tk_sink_cstr(s, "verdict", verdict_name(x->verdict), 0);
    tk_sink_f64(s, "p", x->p);
    if (x->a.count && x->b.count) {
        tk_sink_f64(s, "u", x->u);
        tk_sink_f64(s, "z", x->z);
    } else {
        tk_sink_null(s, "u");
        tk_sink_null(s, "z");
    }
    tk_sink_bool(s, "exact", x->exact);
    if (!x->path)
        tk_sink_bool(s, "fail_if", tk_diff_row_fails(r, x));
    tk_sink_object_end(s);
}

static void json_out(tk_sink *s, const tk_diff_result *r)
{
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "file_a", r->path[0], 0);
    tk_sink_cstr(s, "file_b", r->path[1], 0);
    tk_sink_f64(s, "alpha", r->alpha);
    tk_sink_u64(s, "failed", r->failed, 0);
    tk_sink_array_begin(s, "by_function");
    for (size_t i = 0; i < r->nfuncs; i++)
        json_row(s, r, &r->funcs[i]);
    tk_sink_array_end(s);
    if (r->stacks) {
        tk_sink_array_begin(s, "by_path");
        for (size_t i = 0; i < r->npaths; i++)
            json_row(s, r, &r->paths[i]);
        tk_sink_array_end(s);
    }
    tk_sink_object_end(s);
}

void tk_diff_print(FILE *f, tk_sink *json, const tk_diff_result *r)
{
    if (json) {
        json_out(json, r);
        return;
    }
    if (r->folded) {
        for (size_t i = 0; i < r->npaths; i++)
            fprintf(f, "%s %llu %llu\n", r->paths[i].path,
                    (unsigned long long)r->paths[i].a.self,
                    (unsigned long long)r->paths[i].b.self);
        return;
    }
    fprintf(f, "A: %s\nB: %s\nalpha: %g (two-sided Mann-Whitney U on per-call latencies)\n",
            r->path[0], r->path[1], r->alpha);
    text_table(f, r, r->funcs, r->nfuncs, "Functions");
    if (r->stacks) {
        fputc('\n', f);
        text_table(f, r, r->paths, r->npaths, "Call paths");
    }
}
