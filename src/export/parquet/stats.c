/* Bounds (min, max) in each column's sort order (parquet.thrift,
 * ColumnOrder: signed or unsigned integers by the logical type, doubles
 * by value without NaN, byte arrays unsigned byte-wise), and their
 * written form: PLAIN bytes, byte arrays cut to TK_PQ_STAT_BYTES (still
 * bounds: see cut_bytes). */
#include <math.h>
#include <stdlib.h>

#include "core/bytes.h"
#include "export/parquet/pq_int.h"

void tk_pq_mm_reset(pq_minmax *m)
{
    m->has = 0;
    m->bmin.len = m->bmax.len = 0;
    m->bmin.oom = m->bmax.oom = 0;
}

void tk_pq_mm_free(pq_minmax *m)
{
    tk_pq_buf_free(&m->bmin);
    tk_pq_buf_free(&m->bmax);
}

static int bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int r = n ? memcmp(a, b, n) : 0;
    return r ? r : (an > bn) - (an < bn);
}

static int set_buf(tk_pq_buf *b, const void *p, size_t n)
{
    b->len = 0;
    tk_pq_buf_put(b, p, n);
    return b->oom ? -1 : 0;
}

int tk_pq_mm_bytes(pq_minmax *m, const void *p, size_t n)
{
    if (!m->has) {
        m->has = 1;
        return set_buf(&m->bmin, p, n) | set_buf(&m->bmax, p, n);
    }
    if (bytes_cmp(p, n, m->bmin.p, m->bmin.len) < 0 && set_buf(&m->bmin, p, n) != 0)
        return -1;
    if (bytes_cmp(p, n, m->bmax.p, m->bmax.len) > 0 && set_buf(&m->bmax, p, n) != 0)
        return -1;
    return 0;
}

static void page_i64(pq_minmax *m, const int64_t *v, size_t n)
{
    int64_t lo = v[0], hi = v[0];
    for (size_t i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    m->min.i = lo;
    m->max.i = hi;
}

static void page_u64(pq_minmax *m, const uint64_t *v, size_t n)
{
    uint64_t lo = v[0], hi = v[0];
    for (size_t i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    m->min.u = lo;
    m->max.u = hi;
}

static void page_i32(pq_minmax *m, const int32_t *v, size_t n, int is_signed)
{
    if (is_signed) {
        int32_t lo = v[0], hi = v[0];
        for (size_t i = 1; i < n; i++) {
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
        }
        m->min.i = lo;
        m->max.i = hi;
        return;
    }
    uint32_t lo = (uint32_t)v[0], hi = (uint32_t)v[0];
    for (size_t i = 1; i < n; i++) {
        lo = (uint32_t)v[i] < lo ? (uint32_t)v[i] : lo;
        hi = (uint32_t)v[i] > hi ? (uint32_t)v[i] : hi;
    }
    m->min.u = lo;
    m->max.u = hi;
}

/* NaN is no bound; a zero min is -0.0 and a zero max +0.0, so that both
 * zeros stay inside (ColumnOrder's rules for doubles). */
static void page_f64(pq_minmax *m, const double *v, size_t n)
{
    double lo = NAN, hi = NAN;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        lo = isnan(lo) || v[i] < lo ? v[i] : lo;
        hi = isnan(hi) || v[i] > hi ? v[i] : hi;
    }
    if (isnan(lo)) {
        m->has = 0;
        return;
    }
    m->min.d = lo == 0 ? -0.0 : lo;
    m->max.d = hi == 0 ? 0.0 : hi;
}

void tk_pq_mm_page_fixed(pq_minmax *m, const pq_col *c)
{
    size_t n = c->page_vals;
    m->has = n > 0;
    if (!n)
        return;
    const void *v = c->vals.p;
    if (c->phys == PQ_BOOLEAN) {
        const uint8_t *b = v;
        m->min.i = 1;
        m->max.i = 0;
        for (size_t i = 0; i < n; i++) {
            m->min.i &= b[i];
            m->max.i |= b[i];
        }
    } else if (c->phys == PQ_INT32) {
        page_i32(m, v, n, c->order == PQ_ORD_SIGNED);
    } else if (c->phys == PQ_INT64) {
        if (c->order == PQ_ORD_SIGNED)
            page_i64(m, v, n);
        else
            page_u64(m, v, n);
    } else {
        page_f64(m, v, n);
    }
}

/* a < b in the column's order (fixed-width values). */
static int less(const pq_col *c, const pq_minmax *a, int amax, const pq_minmax *b, int bmax)
{
    const pq_val *x = amax ? &a->max : &a->min, *y = bmax ? &b->max : &b->min;
    switch (c->order) {
    case PQ_ORD_UNSIGNED: return x->u < y->u;
    case PQ_ORD_DOUBLE: return x->d < y->d;
    default: return x->i < y->i;
    }
}

int tk_pq_mm_merge(pq_minmax *dst, const pq_minmax *src, const pq_col *c)
{
    if (!src->has)
        return 0;
    if (c->phys == PQ_BYTE_ARRAY) {
        if (tk_pq_mm_bytes(dst, src->bmin.p, src->bmin.len) != 0)
            return -1;
        return tk_pq_mm_bytes(dst, src->bmax.p, src->bmax.len);
    }
    if (!dst->has) {
        dst->has = 1;
        dst->min = src->min;
        dst->max = src->max;
        return 0;
    }
    if (less(c, src, 0, dst, 0))
        dst->min = src->min;
    if (less(c, dst, 1, src, 1))
        dst->max = src->max;
    return 0;
}

/* A bound cut to TK_PQ_STAT_BYTES. The min is a prefix; the max a prefix
 * whose last byte is raised (bytes of 0xFF dropped first; for STRING the
 * raised byte is an ASCII one below 0x7F, and the min is cut between
 * characters, so both stay UTF-8). No such byte: no max bound. */
static void cut_bytes(pq_bound *out, const tk_pq_buf *v, int max, int utf8)
{
    size_t n = v->len;
    out->exact = n <= TK_PQ_STAT_BYTES;
    if (n > TK_PQ_STAT_BYTES) {
        n = TK_PQ_STAT_BYTES;
        while (utf8 && n > 0 && (v->p[n] & 0xC0) == 0x80) /* p[n]: within the value */
            n--;
    }
    if (n)
        memcpy(out->b, v->p, n);
    if (max && !out->exact) {
        while (n > 0 && (utf8 ? out->b[n - 1] >= 0x7F : out->b[n - 1] == 0xFF))
            n--;
        if (n == 0)
            return;
        out->b[n - 1]++;
    }
    out->len = (uint8_t)n;
    out->ok = 1;
}

void tk_pq_bound_of(pq_bound *out, const pq_minmax *m, const pq_col *c, int max)
{
    memset(out, 0, sizeof *out);
    if (!m->has)
        return;
    if (c->phys == PQ_BYTE_ARRAY) {
        cut_bytes(out, max ? &m->bmax : &m->bmin, max, c->type == TK_PQ_STRING);
        return;
    }
    const pq_val *v = max ? &m->max : &m->min;
    out->ok = out->exact = 1;
    if (c->phys == PQ_BOOLEAN) {
        out->len = 1;
        out->b[0] = (uint8_t)v->i;
    } else if (c->phys == PQ_INT32) {
        out->len = 4;
        tk_st32(out->b, (uint32_t)v->u, 0);
    } else {
        out->len = 8;
        tk_st64(out->b, v->u, 0);
    }
}

int tk_pq_bound_cmp(const pq_bound *a, const pq_bound *b, const pq_col *c)
{
    if (c->phys == PQ_BYTE_ARRAY)
        return bytes_cmp(a->b, a->len, b->b, b->len);
    if (c->phys == PQ_BOOLEAN)
        return (a->b[0] > b->b[0]) - (a->b[0] < b->b[0]);
    if (c->phys == PQ_INT32) {
        uint32_t x = tk_ld32(a->b, 0), y = tk_ld32(b->b, 0);
        if (c->order == PQ_ORD_SIGNED)
            return ((int32_t)x > (int32_t)y) - ((int32_t)x < (int32_t)y);
        return (x > y) - (x < y);
    }
    uint64_t x = tk_ld64(a->b, 0), y = tk_ld64(b->b, 0);
    if (c->order == PQ_ORD_SIGNED)
        return ((int64_t)x > (int64_t)y) - ((int64_t)x < (int64_t)y);
    if (c->order == PQ_ORD_UNSIGNED)
        return (x > y) - (x < y);
    double dx, dy;
    memcpy(&dx, &x, 8);
    memcpy(&dy, &y, 8);
    return (dx > dy) - (dx < dy);
}
