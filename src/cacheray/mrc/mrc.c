/* tk_mrc: the configuration, the handle and the results
 * (include/tracekit/cacheray_mrc.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cacheray/mrc/engine.h"

#define MAX_SETS ((uint64_t)1 << 26) /* a miniature's table of sets: 256 MiB */

void tk_mrc_config_init(tk_mrc_config *c)
{
    memset(c, 0, sizeof *c);
    c->nline_sizes = 1;
    c->line_sizes[0] = 64;
    c->exact = 1;
    c->policy = TK_CACHESIM_LRU;
    c->mini_rate = 0.01;
    c->seed = 1;
}

static tk_status usage(tk_error *err, const char *msg, unsigned long long v)
{
    return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD, msg, v);
}

static tk_status bad(tk_error *err, const char *msg)
{
    return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD, "%s", msg);
}

static tk_status check_minis(const tk_mrc_config *c, tk_error *err)
{
    if (c->ways == 0)
        return TK_OK;
    if (c->ways > 64)
        return usage(err, "ways: at most 64, not %llu", c->ways);
    if (c->policy == TK_CACHESIM_PLRU && (c->ways & (c->ways - 1)))
        return usage(err, "plru needs a power-of-two number of ways, not %llu", c->ways);
    if (c->policy > TK_CACHESIM_RANDOM)
        return usage(err, "unknown policy %llu", c->policy);
    if (!(c->mini_rate > 0 && c->mini_rate <= 1))
        return bad(err, "the miniatures' sampling rate must be in (0, 1]");
    if (c->nsizes == 0 || c->nsizes > TK_MRC_MAX_SIZES)
        return usage(err, "from 1 to 64 cache sizes, not %llu", c->nsizes);
    uint64_t unit = (uint64_t)c->line_sizes[0] * c->ways;
    for (size_t i = 0; i < c->nsizes; i++)
        if (c->sizes[i] / unit > MAX_SETS)
            return usage(err, "a miniature's cache has at most 64M sets, not %llu",
                         c->sizes[i] / unit);
        else if (c->sizes[i] == 0 || c->sizes[i] % unit)
            return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                                "cache size %llu is not a multiple of line size * ways (%llu)",
                                (unsigned long long)c->sizes[i], (unsigned long long)unit);
    return TK_OK;
}

tk_status tk_mrc_config_check(const tk_mrc_config *c, tk_error *err)
{
    if (c->nline_sizes == 0 || c->nline_sizes > TK_MRC_MAX_LINE_SIZES)
        return usage(err, "from 1 to 8 line sizes, not %llu", c->nline_sizes);
    for (size_t i = 0; i < c->nline_sizes; i++) {
        uint32_t l = c->line_sizes[i];
        if (l < 4 || l > (1u << 20) || (l & (l - 1)))
            return usage(err, "line size: a power of two from 4 to 1M, not %llu", l);
    }
    if (!(c->sample_rate >= 0 && c->sample_rate <= 1))
        return bad(err, "sampling rate: in (0, 1]");
    if (!c->exact && c->sample_rate == 0 && c->max_samples == 0 && c->ways == 0)
        return bad(err, "nothing to compute: no exact curve, SHARDS or miniature");
    return check_minis(c, err);
}

static int init_curve(tk_mrc *m, mrc_curve *v, uint32_t line)
{
    const tk_mrc_config *c = &m->cfg;
    v->shift = (unsigned)__builtin_ctz(line);
    v->exact = c->exact;
    v->shards = c->sample_rate > 0 || c->max_samples > 0;
    if (v->exact && mrc_stack_init(&v->stack) != 0)
        return -1;
    double rate = c->sample_rate > 0 ? c->sample_rate : 1.0;
    return v->shards ? mrc_shards_init(&v->sh, rate, c->max_samples) : 0;
}

tk_mrc *tk_mrc_new(const tk_mrc_config *c, tk_error *err)
{
    if (tk_mrc_config_check(c, err) != TK_OK)
        return NULL;
    tk_mrc *m = calloc(1, sizeof *m);
    if (!m)
        goto oom;
    m->cfg = *c;
    for (; m->ncurves < c->nline_sizes; m->ncurves++)
        if (init_curve(m, &m->curve[m->ncurves], c->line_sizes[m->ncurves]) != 0) {
            m->ncurves++; /* freed with the others */
            goto oom;
        }
    for (size_t k = 0; c->ways && k < c->nsizes; k++, m->nminis++) {
        mrc_mini *mc = &m->mini[k];
        if (mrc_mini_init(mc, c->sizes[k], c->line_sizes[0], c->ways, c->policy,
                          c->mini_rate, c->seed) != 0)
            goto oom;
    }
    return m;
oom:
    tk_mrc_free(m);
    tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return NULL;
}

void tk_mrc_free(tk_mrc *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->ncurves; i++) {
        mrc_curve *v = &m->curve[i];
        if (v->exact)
            mrc_stack_free(&v->stack);
        free(v->hist.count);
        if (v->shards)
            mrc_shards_free(&v->sh);
    }
    for (size_t k = 0; k < m->nminis; k++)
        mrc_mini_free(&m->mini[k]);
    free(m);
}

void tk_mrc_get_totals(const tk_mrc *m, tk_mrc_totals *t) { *t = m->tot; }

static const mrc_curve *curve_of(const tk_mrc *m, size_t i, tk_mrc_method method)
{
    if (i >= m->ncurves)
        return NULL;
    const mrc_curve *v = &m->curve[i];
    return (method == TK_MRC_EXACT ? v->exact : method == TK_MRC_SHARDS && v->shards) ? v
                                                                                       : NULL;
}

int tk_mrc_get_curve(const tk_mrc *m, size_t i, tk_mrc_method method, tk_mrc_curve *out)
{
    memset(out, 0, sizeof *out);
    const mrc_curve *v = curve_of(m, i, method);
    if (!v)
        return 0;
    out->line_size = 1u << v->shift;
    out->line_accesses = v->line_accesses;
    if (method == TK_MRC_EXACT) {
        out->lines = mrc_stack_lines(&v->stack);
        out->sample_rate = 1.0;
        out->samples = v->line_accesses;
        out->peak_samples = out->lines;
    } else {
        out->sample_rate = mrc_shards_rate(&v->sh);
        out->lines = (uint64_t)((double)mrc_stack_lines(&v->sh.stack) / out->sample_rate + 0.5);
        out->samples = v->sh.sampled;
        out->peak_samples = v->sh.peak_lines;
    }
    return 1;
}

double tk_mrc_miss_rate(const tk_mrc *m, size_t i, tk_mrc_method method, uint64_t cache_lines)
{
    const mrc_curve *v = curve_of(m, i, method);
    if (!v || v->line_accesses == 0)
        return NAN;
    if (method == TK_MRC_SHARDS)
        return mrc_shards_miss_rate(&v->sh, v->line_accesses, cache_lines);
    return (double)mrc_exact_misses(&v->hist, cache_lines) / (double)v->hist.total;
}

uint64_t tk_mrc_misses(const tk_mrc *m, size_t i, uint64_t cache_lines)
{
    const mrc_curve *v = curve_of(m, i, TK_MRC_EXACT);
    return v ? mrc_exact_misses(&v->hist, cache_lines) : 0;
}

size_t tk_mrc_minis(const tk_mrc *m) { return m->nminis; }

void tk_mrc_get_mini(const tk_mrc *m, size_t k, tk_mrc_mini *out)
{
    memset(out, 0, sizeof *out);
    if (k >= m->nminis)
        return;
    const mrc_mini *c = &m->mini[k];
    double rate = (double)c->msets / (double)c->sets;
    /* SHARDS-adj: the line accesses the sample should have seen */
    double expected = rate < 1 ? (double)m->curve[0].line_accesses * rate : (double)c->accesses;
    double miss_rate = (double)c->misses / expected;
    *out = (tk_mrc_mini){.size = c->size, .sets = c->sets, .sampled_sets = c->msets,
                         .line_accesses = c->accesses, .line_misses = c->misses,
                         .sample_rate = rate,
                         .miss_rate = !c->accesses ? NAN : miss_rate > 1 ? 1 : miss_rate};
}
