/* Selections: --thread, --range, --addr and --func parsed once, for every
 * format's reader to apply. */
#include <stdlib.h>
#include <string.h>

#include "core/select.h"

static tk_status usage(tk_error *err, const char *fmt, const char *key, const char *what)
{
    return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD, fmt, key, what);
}

/* ---- numbers */

/* Decimal digits, or hex after 0x, at *p: the value, *p moved past them.
 * -1 when there are none or the value overflows. */
static int read_u64(const char **p, uint64_t *v)
{
    const char *s = *p;
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    unsigned base = hex ? 16 : 10;
    uint64_t x = 0;
    s += hex ? 2 : 0;
    const char *start = s;
    for (;; s++) {
        unsigned d = *s >= '0' && *s <= '9' ? (unsigned)(*s - '0')
                     : hex && *s >= 'a' && *s <= 'f' ? (unsigned)(*s - 'a' + 10)
                     : hex && *s >= 'A' && *s <= 'F' ? (unsigned)(*s - 'A' + 10)
                                                     : 99;
        if (d >= base)
            break;
        if (x > (UINT64_MAX - d) / base)
            return -1;
        x = x * base + d;
    }
    if (s == start)
        return -1;
    *p = s;
    *v = x;
    return 0;
}

/* A count at *p: a number and an optional K/M/G (2^10, 2^20, 2^30), as
 * --skip takes. */
static int read_count(const char **p, uint64_t *v, unsigned *kind)
{
    if (read_u64(p, v) != 0)
        return -1;
    const char *s = *p;
    unsigned shift = *s == 'k' || *s == 'K' ? 10 : *s == 'm' || *s == 'M' ? 20
                     : *s == 'g' || *s == 'G' ? 30 : 0;
    *kind = TK_SEL_PLAIN;
    if (!shift || s[1] == 's') /* "10ms" is a time, not 10M and an 's' */
        return 0;
    if (*v >> (64 - shift))
        return -1;
    *v <<= shift;
    *kind = TK_SEL_SCALED;
    *p = s + 1;
    return 0;
}

/* A time at *p: decimal digits, an optional fraction and a unit (ns, us,
 * µs, ms, s), exactly in ns; fractions of a ns are refused. */
static int read_time(const char **p, uint64_t *ns)
{
    static const struct {
        const char *name;
        uint64_t scale;
    } units[] = {{"ns", 1},       {"us", 1000},    {"\xC2\xB5s", 1000},
                 {"\xCE\xBCs", 1000}, {"ms", 1000000}, {"s", 1000000000}};
    const char *s = *p, *frac = NULL;
    uint64_t whole = 0;
    if (*s < '0' || *s > '9' || (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ||
        read_u64(&s, &whole) != 0)
        return -1;
    if (*s == '.') {
        frac = ++s;
        while (*s >= '0' && *s <= '9')
            s++;
        if (s == frac)
            return -1;
    }
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        size_t len = strlen(units[u].name);
        if (strncmp(s, units[u].name, len) != 0)
            continue;
        uint64_t f = 0, scale = units[u].scale;
        for (const char *d = frac; d && *d >= '0' && *d <= '9'; d++) {
            if (scale == 1 && *d != '0')
                return -1; /* finer than a nanosecond */
            scale /= scale > 1 ? 10 : 1;
            f += (uint64_t)(*d - '0') * scale;
        }
        if (whole > (UINT64_MAX - f) / units[u].scale)
            return -1;
        *ns = whole * units[u].scale + f;
        *p = s + len;
        return 0;
    }
    return -1;
}

/* One --range bound (the whole of [s, end)). */
static int read_bound(const char *s, const char *end, uint64_t *v, unsigned *kind)
{
    const char *p = s;
    if (read_count(&p, v, kind) == 0 && p == end)
        return 0;
    p = s;
    *kind = TK_SEL_TIME;
    return read_time(&p, v) == 0 && p == end ? 0 : -1;
}

/* ---- --range FROM:TO */

static tk_status parse_range(tk_selection *s, const char *v, tk_error *err)
{
    static const char bad[] = "--%s: '%s' is not FROM:TO, :TO or FROM: (counts like 1000, "
                              "0x3e8 or 4K; times like 10ms or 2.5s)";
    const char *colon = strchr(v, ':'), *end = v + strlen(v);
    unsigned k1 = 0, k2 = 0;
    s->from = 0;
    s->to = UINT64_MAX;
    if (!colon || strchr(colon + 1, ':') || (colon == v && !colon[1]) ||
        (colon > v && read_bound(v, colon, &s->from, &k1) != 0) ||
        (colon[1] && read_bound(colon + 1, end, &s->to, &k2) != 0))
        return usage(err, bad, "range", v);
    if (s->from >= s->to)
        return usage(err, "--%s: '%s' is empty (FROM must be below TO: the window is "
                          "[FROM, TO))", "range", v);
    s->has_range = 1;
    s->range_kinds = k1 | k2;
    return TK_OK;
}

/* ---- lists of spans */

static int cmp_span(const void *a, const void *b)
{
    const tk_span *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sort and merge overlapping or adjacent spans. */
static size_t normalize(tk_span *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_span);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && (v[i].lo <= v[k - 1].hi || v[i].lo - 1 == v[k - 1].hi)) {
            if (v[i].hi > v[k - 1].hi)
                v[k - 1].hi = v[i].hi;
        } else {
            v[k++] = v[i];
        }
    }
    return k;
}

/* One item of a --thread list: ID or FIRST-LAST. */
static int thread_item(const char *p, const char *end, tk_span *out)
{
    if (read_u64(&p, &out->lo) != 0)
        return -1;
    out->hi = out->lo;
    if (p < end && *p == '-') {
        p++;
        if (read_u64(&p, &out->hi) != 0 || out->hi < out->lo)
            return -1;
    }
    return p == end ? 0 : -1;
}

/* One item of an --addr list: LO-HI (HI excluded), ADDR+LEN or ADDR. */
static int addr_item(const char *p, const char *end, tk_span *out)
{
    uint64_t lo, n;
    unsigned kind;
    if (read_u64(&p, &lo) != 0)
        return -1;
    out->lo = out->hi = lo;
    if (p < end && *p == '-') {
        p++;
        if (read_u64(&p, &n) != 0 || n <= lo)
            return -1;
        out->hi = n - 1;
    } else if (p < end && *p == '+') {
        p++;
        if (read_count(&p, &n, &kind) != 0 || n == 0 || n - 1 > UINT64_MAX - lo)
            return -1;
        out->hi = lo + (n - 1);
    }
    return p == end ? 0 : -1;
}

static tk_status parse_list(const char *key, const char *v, tk_span **out, size_t *nout,
                            tk_error *err)
{
    int addr = strcmp(key, "addr") == 0;
    size_t n = 1;
    for (const char *c = v; *c; c++)
        n += *c == ',';
    tk_span *spans = malloc(n * sizeof *spans);
    if (!spans)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    const char *p = v;
    for (size_t i = 0; i < n; i++) {
        const char *end = strchr(p, ',');
        end = end ? end : p + strlen(p);
        if (addr ? addr_item(p, end, &spans[i]) : thread_item(p, end, &spans[i])) {
            free(spans);
            return usage(err, addr ? "--%s: '%s' is not a list of LO-HI (HI excluded), "
                                     "ADDR+LEN or ADDR (decimal or 0x hex)"
                                   : "--%s: '%s' is not a list of ids and FIRST-LAST "
                                     "ranges (like 1,5-9)",
                         key, v);
        }
        p = end + 1;
    }
    *out = spans;
    *nout = normalize(spans, n);
    return TK_OK;
}

/* ---- the selection */

static tk_status parse_one(tk_selection *s, const char *key, const char *v, tk_error *err)
{
    if (strcmp(key, "range") == 0) {
        if (parse_range(s, v, err) != TK_OK)
            return err->status;
        s->range_text = strdup(v);
        return s->range_text ? TK_OK
                             : tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                                            "out of memory");
    }
    if (strcmp(key, "func") == 0) {
        if (!*v)
            return usage(err, "--%s: '%s' names no function (give an id or a name)", key, v);
        s->func = strdup(v);
        return s->func ? TK_OK
                       : tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                                      "out of memory");
    }
    if (strcmp(key, "addr") == 0)
        return parse_list(key, v, &s->addrs, &s->naddrs, err);
    return parse_list(key, v, &s->threads, &s->nthreads, err);
}

static const char *const keys[] = {"thread", "range", "addr", "func"};

tk_selection *tk_selection_new(const tk_options *o, tk_error *err)
{
    tk_selection *s = calloc(1, sizeof *s);
    if (!s) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const char *v = tk_options_get(o, keys[k]);
        if (v && parse_one(s, keys[k], v, err) != TK_OK) {
            tk_selection_free(s);
            return NULL;
        }
    }
    return s;
}

static int dup_spans(tk_span **to, const tk_span *from, size_t n)
{
    *to = NULL;
    if (!n)
        return 0;
    if (!(*to = malloc(n * sizeof **to)))
        return -1;
    memcpy(*to, from, n * sizeof **to);
    return 0;
}

tk_selection *tk_sel_dup(const tk_selection *s, tk_error *err)
{
    tk_selection *d = calloc(1, sizeof *d);
    if (d) {
        *d = *s;
        d->func = d->range_text = NULL;
        d->threads = d->addrs = NULL;
    }
    if (!d || dup_spans(&d->threads, s->threads, s->nthreads) != 0 ||
        dup_spans(&d->addrs, s->addrs, s->naddrs) != 0 ||
        (s->func && !(d->func = strdup(s->func))) ||
        (s->range_text && !(d->range_text = strdup(s->range_text)))) {
        tk_selection_free(d);
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    return d;
}

void tk_selection_free(tk_selection *s)
{
    if (!s)
        return;
    free(s->threads);
    free(s->addrs);
    free(s->func);
    free(s->range_text);
    free(s);
}

int tk_selection_empty(const tk_selection *s)
{
    return !s || (!s->nthreads && !s->naddrs && !s->has_range && !s->func);
}

const char *tk_selection_option(const tk_selection *s)
{
    if (!s)
        return NULL;
    return s->nthreads ? "--thread" : s->has_range ? "--range" : s->naddrs ? "--addr"
           : s->func   ? "--func" : NULL;
}

const char *tk_sel_option_given(const tk_options *o)
{
    static const char *const names[] = {"--thread", "--range", "--addr", "--func"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (tk_options_get(o, keys[k]))
            return names[k];
    return NULL;
}

tk_status tk_selection_check(const char *key, const char *value, tk_error *err)
{
    tk_selection s;
    memset(&s, 0, sizeof s);
    tk_status st = tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                                "--%s is not a selection option", key);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (strcmp(key, keys[k]) == 0)
            st = parse_one(&s, keys[k], value, err);
    free(s.threads);
    free(s.addrs);
    free(s.func);
    free(s.range_text);
    return st;
}

tk_status tk_sel_check_counts(const tk_selection *s, const char *format, const char *unit,
                              tk_error *err)
{
    if (!s->has_range || !(s->range_kinds & TK_SEL_TIME))
        return TK_OK;
    return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                        "--range '%s': %s ranges are %s, not times", s->range_text, format, unit);
}

tk_status tk_sel_refuse(const tk_selection *s, const char *what, const char *why,
                        tk_error *err)
{
    const char *opt = tk_selection_option(s);
    if (!opt)
        return TK_OK;
    return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD, "%s takes no %s: %s",
                        what, opt, why);
}

/* ---- matching */

/* The first span whose end is at or after v (n when none). */
static size_t first_ending_after(const tk_span *s, size_t n, uint64_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].hi < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int tk_spans_hit(const tk_span *s, size_t n, uint64_t v)
{
    size_t i = first_ending_after(s, n, v);
    return i < n && s[i].lo <= v;
}

int tk_spans_overlap(const tk_span *s, size_t n, uint64_t lo, uint64_t hi)
{
    size_t i = first_ending_after(s, n, lo);
    return i < n && s[i].lo <= hi;
}
