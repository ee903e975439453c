/* Feeding the engine: one access at a time (mrc_access), a record, the
 * reader over a selection, and the fast path that decodes access records
 * straight from the input's window. SHARDS-only curves cost a hash and a
 * compare per line: the filter runs before anything else. */
#include <stdlib.h>

#include "cacheray/mrc/engine.h"
#include "core/bytes.h"
#include "cacheray/cacheray_int.h"
#include "core/cursor.h"

static void curve_line(tk_mrc *m, mrc_curve *v, uint64_t line, uint32_t hash)
{
    v->line_accesses++;
    if (v->exact) {
        uint64_t d = UINT64_MAX;
        int cold = mrc_stack_access(&v->stack, line, &d);
        if (cold < 0 || mrc_exact_add(&v->hist, cold ? UINT64_MAX : d) != 0)
            m->oom = 1;
    }
    if (v->shards && hash < v->sh.threshold && mrc_shards_access(&v->sh, line, hash) != 0)
        m->oom = 1;
}

static void mini_line(tk_mrc *m, uint64_t line)
{
    for (size_t k = 0; k < m->nminis; k++)
        mrc_mini_access(&m->mini[k], line);
}

void mrc_access(tk_mrc *m, uint64_t addr, unsigned size)
{
    m->tot.accesses++;
    if (!size) {
        m->tot.zero_size++;
        return;
    }
    uint64_t last = addr + (size - 1u);
    if (last < addr)
        last = UINT64_MAX;
    for (size_t i = 0; i < m->ncurves; i++) {
        mrc_curve *v = &m->curve[i];
        for (uint64_t line = addr >> v->shift;; line++) {
            uint32_t hash = mrc_hash32(line);
            curve_line(m, v, line, hash);
            if (i == 0 && m->nminis)
                mini_line(m, line);
            if (line == last >> v->shift)
                break;
        }
    }
}

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

tk_status tk_mrc_feed(tk_mrc *m, const tk_cacheray_record *rec, tk_error *err)
{
    m->tot.records++;
    if (rec->type <= TK_CACHERAY_WRITE)
        mrc_access(m, rec->addr, rec->size);
    return m->oom ? oom(err) : TK_OK;
}

/* Every record the reader gives (it applies the selection). */
static tk_status run_reader(tk_mrc *m, tk_input *in, tk_endian e, const tk_selection *sel,
                            tk_error *err)
{
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, e, err);
    if (!r)
        return err->status;
    tk_status st = sel ? tk_cacheray_reader_select(r, sel, TK_CACHERAY_SELECT_STOP, err) : TK_OK;
    tk_cacheray_record rec;
    int rc = 0;
    while (st == TK_OK && (rc = tk_cacheray_next(r, &rec, err)) > 0)
        st = tk_mrc_feed(m, &rec, err);
    tk_cacheray_reader_free(r);
    return st != TK_OK ? st : rc < 0 ? err->status : TK_OK;
}

/* One SHARDS curve and nothing else: the filter inline, the stack only
 * for the lines that pass it. An access within one line (nearly all)
 * costs a hash and a compare; sampled lines, zero sizes and accesses
 * over several lines take the general loop. Returns the records taken
 * from p. */
__attribute__((always_inline)) static inline size_t shards_only(tk_mrc *m, const uint8_t *p, size_t n, int big)
{
    mrc_curve *v = &m->curve[0];
    const unsigned shift = v->shift;
    const uint64_t lmask = ((uint64_t)1 << shift) - 1;
    uint64_t threshold = v->sh.threshold, more = 0, zero = 0;
    const uint8_t *start = p, *stop = p + n * TK_CACHERAY_ACCESS_SIZE;
    for (; p < stop && (p[0] & 0x3E) == 0; p += TK_CACHERAY_ACCESS_SIZE) {
        uint64_t addr = tk_ld64(p + 1, big);
        unsigned size = p[9];
        uint64_t line = addr >> shift;
        if (__builtin_expect(size != 0 && (addr & lmask) + size - 1 <= lmask, 1)) {
            uint32_t hash = mrc_hash32(line);
            if (__builtin_expect(hash >= threshold, 1))
                continue;
            if (mrc_shards_access(&v->sh, line, hash) != 0)
                m->oom = 1;
            threshold = v->sh.threshold; /* fixed size lowers it */
            continue;
        }
        if (!size) {
            zero++;
            continue;
        }
        uint64_t last = addr + (size - 1u);
        uint64_t end = last < addr ? UINT64_MAX >> shift : last >> shift;
        more += end - line; /* the lines past the first */
        for (;; line++) {
            uint32_t hash = mrc_hash32(line);
            if (hash < threshold) {
                if (mrc_shards_access(&v->sh, line, hash) != 0)
                    m->oom = 1;
                threshold = v->sh.threshold;
            }
            if (line == end)
                break;
        }
    }
    size_t k = (size_t)(p - start) / TK_CACHERAY_ACCESS_SIZE;
    v->line_accesses += k - zero + more;
    m->tot.accesses += k;
    m->tot.zero_size += zero;
    return k;
}

/* The access records at c->p while whole ones are there. */
__attribute__((always_inline)) static inline void run_accesses(tk_mrc *m, tk_cursor *c, int big)
{
    const uint8_t *p = c->p;
    size_t n = (size_t)(c->end - p) / TK_CACHERAY_ACCESS_SIZE, k = 0;
    if (m->ncurves == 1 && !m->curve[0].exact && !m->nminis) {
        k = shards_only(m, p, n, big);
        p += k * TK_CACHERAY_ACCESS_SIZE;
    } else {
        for (; k < n && (p[0] & 0x3E) == 0; k++, p += TK_CACHERAY_ACCESS_SIZE)
            mrc_access(m, tk_ld64(p + 1, big), p[9]);
    }
    m->tot.records += k;
    c->p = p;
}

/* One copy per byte order, so that neither tests it per record. */
static void run_accesses_big(tk_mrc *m, tk_cursor *c) { run_accesses(m, c, 1); }
static void run_accesses_little(tk_mrc *m, tk_cursor *c) { run_accesses(m, c, 0); }

static tk_status feed_mrc(void *m, const tk_cacheray_record *rec, tk_error *err)
{
    return tk_mrc_feed(m, rec, err);
}

tk_status tk_mrc_run(tk_mrc *m, tk_input *in, tk_endian endian, const tk_selection *sel,
                     tk_error *err)
{
    if (sel && !tk_selection_empty(sel))
        return run_reader(m, in, endian, sel, err);
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, endian, err); /* the byte order */
    if (!r)
        return err->status;
    tk_endian e = tk_cacheray_reader_endian(r);
    tk_cacheray_reader_free(r);
    tk_cursor c;
    if (tk_cursor_init(&c, in, TK_CACHERAY_RTTA_ADD_FIXED, err) < 0)
        return err->status;
    for (;;) {
        if (e == TK_ENDIAN_BIG)
            run_accesses_big(m, &c);
        else
            run_accesses_little(m, &c);
        if (m->oom)
            return oom(err);
        if (tk_cursor_avail(&c) < TK_CACHERAY_RTTA_ADD_FIXED) { /* see a whole record */
            int64_t n = tk_cursor_refill(&c, TK_CACHERAY_RTTA_ADD_FIXED, err);
            if (n < 0)
                return err->status;
            if (n == 0)
                return TK_OK;
            if (n >= TK_CACHERAY_ACCESS_SIZE && (c.p[0] & 0x3E) == 0)
                continue;
        }
        tk_status st = tk_cacheray_slow_record(&c, e, m->tot.records, feed_mrc, m, err);
        if (st != TK_OK)
            return st;
    }
}
