/* The miss-ratio-curve engine (include/tracekit/cacheray_mrc.h): exact
 * curves against a brute-force LRU stack and against cachesim's fully
 * associative caches, SHARDS at R = 1 equal to exact and within its error
 * target at R = 0.01, the fixed-size sample's bound, and miniature caches
 * equal to cachesim's at R = 1 and close at lower rates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/cacheray_mrc.h>
#include <tracekit/cachesim.h>

#include "gen.h"
#include "testutil.h"

static tk_mrc *new_mrc(const tk_mrc_config *c)
{
    tk_error err;
    tk_mrc *m = tk_mrc_new(c, &err);
    if (!m)
        fail_msg("tk_mrc_new: %s", err.message);
    return m;
}

static void feed(tk_mrc *m, const tk_cacheray_record *rec)
{
    tk_error err;
    if (tk_mrc_feed(m, rec, &err) != TK_OK)
        fail_msg("tk_mrc_feed: %s", err.message);
}

/* ---- a brute-force LRU stack: an array, most recent first */
typedef struct brute {
    uint64_t *stack, *dist; /* dist[d]: accesses at distance d */
    size_t n, cap;
    uint64_t cold, total;
} brute;

static void brute_access(brute *b, uint64_t line)
{
    size_t i = 0;
    while (i < b->n && b->stack[i] != line)
        i++;
    b->total++;
    if (i == b->n) {
        b->cold++;
        assert_true(b->n < b->cap);
        b->n++;
    } else {
        b->dist[i]++;
    }
    memmove(b->stack + 1, b->stack, i * sizeof *b->stack);
    b->stack[0] = line;
}

static uint64_t brute_misses(const brute *b, uint64_t lines)
{
    uint64_t m = b->cold;
    for (size_t d = lines; d < b->cap; d++)
        m += b->dist[d];
    return m;
}

static void brute_record(brute *b, const tk_cacheray_record *rec, unsigned shift)
{
    if (rec->type > TK_CACHERAY_WRITE || rec->size == 0)
        return;
    for (uint64_t l = rec->addr >> shift; l <= (rec->addr + rec->size - 1) >> shift; l++)
        brute_access(b, l);
}

/* Every size from 1 line to past the footprint, two line sizes, five
 * seeds: the same misses; SHARDS at rate 1 the same rates. */
static void exact_against_brute_force(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        tk_mrc_config c;
        tk_mrc_config_init(&c);
        c.nline_sizes = 2;
        c.line_sizes[0] = 64;
        c.line_sizes[1] = 16;
        c.sample_rate = 1.0;
        tk_mrc *m = new_mrc(&c);
        brute b[2];
        for (int i = 0; i < 2; i++)
            b[i] = (brute){calloc(4096, 8), calloc(4096, 8), 0, 4096, 0, 0};
        mg_state g;
        mg_init(&g, seed, 200 + 100 * seed);
        for (int k = 0; k < 4000; k++) {
            tk_cacheray_record rec;
            mg_next(&g, &rec);
            feed(m, &rec);
            brute_record(&b[0], &rec, 6);
            brute_record(&b[1], &rec, 4);
        }
        for (size_t i = 0; i < 2; i++) {
            tk_mrc_curve cv;
            assert_int_equal(tk_mrc_get_curve(m, i, TK_MRC_EXACT, &cv), 1);
            assert_int_equal(cv.line_accesses, b[i].total);
            assert_int_equal(cv.lines, b[i].n);
            for (uint64_t lines = 1; lines <= b[i].n + 2; lines++) {
                uint64_t want = brute_misses(&b[i], lines);
                assert_int_equal(tk_mrc_misses(m, i, lines), want);
                double exact = tk_mrc_miss_rate(m, i, TK_MRC_EXACT, lines);
                assert_true(exact == (double)want / (double)b[i].total);
                if (lines < 512) /* SHARDS' bins are exact up to 511 lines */
                    assert_true(tk_mrc_miss_rate(m, i, TK_MRC_SHARDS, lines) == exact);
            }
            free(b[i].stack);
            free(b[i].dist);
        }
        tk_mrc_free(m);
    }
}

/* A fully associative LRU level of C lines misses as the curve says,
 * cold misses included (write-allocate: writes fetch as reads do). */
static void exact_against_cachesim(void **state)
{
    (void)state;
    const uint64_t sizes[] = {1, 3, 16, 100, 512, 2000};
    tk_mrc_config c;
    tk_mrc_config_init(&c);
    tk_mrc *m = new_mrc(&c);
    tk_cachesim *sim[6];
    tk_error err;
    for (int i = 0; i < 6; i++) {
        tk_cachesim_config sc;
        char spec[64];
        tk_cachesim_config_init(&sc);
        snprintf(spec, sizeof spec, "L1:%llu:full:64", (unsigned long long)sizes[i] * 64);
        assert_int_equal(tk_cachesim_config_add_level(&sc, spec, &err), TK_OK);
        sc.flags = TK_CACHESIM_NO_3C;
        assert_non_null(sim[i] = tk_cachesim_new(&sc, &err));
    }
    mg_state g;
    mg_init(&g, 7, 4000);
    for (int k = 0; k < 30000; k++) {
        tk_cacheray_record rec;
        mg_next(&g, &rec);
        feed(m, &rec);
        for (int i = 0; i < 6; i++)
            assert_int_equal(tk_cachesim_feed(sim[i], &rec, &err), TK_OK);
    }
    for (int i = 0; i < 6; i++) {
        tk_cachesim_level_stats st;
        tk_cachesim_get_level(sim[i], 0, &st);
        tk_mrc_curve cv;
        tk_mrc_get_curve(m, 0, TK_MRC_EXACT, &cv);
        assert_int_equal(cv.line_accesses, st.reads + st.writes);
        assert_int_equal(tk_mrc_misses(m, 0, sizes[i]), st.read_misses + st.write_misses);
        tk_cachesim_free(sim[i]);
    }
    tk_mrc_free(m);
}

/* Sizes k * 2^j (k = 4..7) from `from` lines to the footprint. */
static double mae(const tk_mrc *m, uint64_t from, uint64_t footprint)
{
    double sum = 0;
    int n = 0;
    for (uint64_t base = 1; base < footprint; base *= 2)
        for (uint64_t k = 4; k < 8; k++) {
            uint64_t lines = base * k / 4;
            if (lines < from || lines > footprint || (base < 4 && k > 4))
                continue;
            double s = tk_mrc_miss_rate(m, 0, TK_MRC_SHARDS, lines);
            assert_false(isnan(s));
            sum += fabs(s - tk_mrc_miss_rate(m, 0, TK_MRC_EXACT, lines));
            n++;
        }
    return sum / n;
}

/* 1M accesses over 64K lines: fixed rate 0.01 within 0.01 of exact (the
 * target), fixed size 2K samples holds at most 2K lines. */
static void shards_accuracy(void **state)
{
    (void)state;
    tk_mrc_config c;
    tk_mrc_config_init(&c);
    c.sample_rate = 0.01;
    tk_mrc *fixed_rate = new_mrc(&c);
    c.sample_rate = 0;
    c.max_samples = 2048;
    tk_mrc *fixed_size = new_mrc(&c);
    mg_state g;
    mg_init(&g, 42, 1 << 16);
    for (int k = 0; k < 1000000; k++) {
        tk_cacheray_record rec;
        mg_next(&g, &rec);
        feed(fixed_rate, &rec);
        feed(fixed_size, &rec);
    }
    tk_mrc_curve e, s;
    tk_mrc_get_curve(fixed_rate, 0, TK_MRC_EXACT, &e);
    double err = mae(fixed_rate, 400, e.lines);
    print_message("fixed rate 0.01: MAE %.5f\n", err);
    assert_true(err <= 0.01);
    assert_true(isnan(tk_mrc_miss_rate(fixed_rate, 0, TK_MRC_SHARDS, 399))); /* below 4/R */

    tk_mrc_get_curve(fixed_size, 0, TK_MRC_SHARDS, &s);
    print_message("fixed size 2K: rate %.5f, peak %llu, MAE %.5f\n", s.sample_rate,
                  (unsigned long long)s.peak_samples,
                  mae(fixed_size, (uint64_t)ceil(4 / s.sample_rate), e.lines));
    assert_true(s.peak_samples <= 2048 && s.peak_samples > 1500);
    assert_true(s.sample_rate < 2048.0 / (double)e.lines * 1.5);
    assert_true(mae(fixed_size, (uint64_t)ceil(4 / s.sample_rate), e.lines) <= 0.01);
    tk_mrc_free(fixed_rate);
    tk_mrc_free(fixed_size);
}

static void run_minis(const char *policy_name, tk_cachesim_policy policy, double rate,
                      uint64_t lines, int records, double tolerance)
{
    const uint64_t sizes[] = {4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288};
    tk_mrc_config c;
    tk_mrc_config_init(&c);
    c.exact = 0;
    c.ways = 8;
    c.policy = policy;
    c.mini_rate = rate;
    c.nsizes = 8;
    memcpy(c.sizes, sizes, sizeof sizes);
    tk_mrc *m = new_mrc(&c);
    tk_cachesim *sim[8];
    tk_error err;
    for (int i = 0; i < 8; i++) {
        tk_cachesim_config sc;
        char spec[64];
        tk_cachesim_config_init(&sc);
        snprintf(spec, sizeof spec, "L1:%llu:8:64:%s", (unsigned long long)sizes[i],
                 policy_name);
        assert_int_equal(tk_cachesim_config_add_level(&sc, spec, &err), TK_OK);
        sc.flags = TK_CACHESIM_NO_3C;
        assert_non_null(sim[i] = tk_cachesim_new(&sc, &err));
    }
    mg_state g;
    mg_init(&g, 3, lines);
    for (int k = 0; k < records; k++) {
        tk_cacheray_record rec;
        mg_next(&g, &rec);
        feed(m, &rec);
        for (int i = 0; i < 8; i++)
            assert_int_equal(tk_cachesim_feed(sim[i], &rec, &err), TK_OK);
    }
    for (int i = 0; i < 8; i++) {
        tk_cachesim_level_stats st;
        tk_mrc_mini mc;
        tk_cachesim_get_level(sim[i], 0, &st);
        tk_mrc_get_mini(m, (size_t)i, &mc);
        double want = (double)(st.read_misses + st.write_misses) / (double)(st.reads + st.writes);
        print_message("%s %s R=%g: %.4f vs cachesim %.4f\n", policy_name,
                      tk_cachesim_policy_name(policy), rate, mc.miss_rate, want);
        if (tolerance == 0) {
            assert_int_equal(mc.line_accesses, st.reads + st.writes);
            assert_int_equal(mc.line_misses, st.read_misses + st.write_misses);
        } else {
            assert_true(fabs(mc.miss_rate - want) <= tolerance);
        }
        tk_cachesim_free(sim[i]);
    }
    tk_mrc_free(m);
}

/* At rate 1 a miniature is the real cache: cachesim's counts exactly. */
static void minis_equal_at_rate_one(void **state)
{
    (void)state;
    run_minis("lru", TK_CACHESIM_LRU, 1.0, 16384, 40000, 0);
    run_minis("fifo", TK_CACHESIM_FIFO, 1.0, 16384, 40000, 0);
    run_minis("plru", TK_CACHESIM_PLRU, 1.0, 16384, 40000, 0);
}

/* Sampled: within 0.02 of cachesim at every size (the target). */
static void minis_sampled(void **state)
{
    (void)state;
    run_minis("lru", TK_CACHESIM_LRU, 0.05, 1 << 14, 300000, 0.02);
    run_minis("random", TK_CACHESIM_RANDOM, 0.05, 1 << 14, 300000, 0.02);
}

static void bad_configs(void **state)
{
    (void)state;
    tk_mrc_config c;
    tk_error err;
    tk_mrc_config_init(&c);
    c.line_sizes[0] = 48;
    assert_null(tk_mrc_new(&c, &err));
    assert_int_equal(err.status, TK_EUSAGE);
    tk_mrc_config_init(&c);
    c.sample_rate = 1.5;
    assert_null(tk_mrc_new(&c, &err));
    assert_int_equal(err.status, TK_EUSAGE);
    tk_mrc_config_init(&c);
    c.ways = 6;
    c.policy = TK_CACHESIM_PLRU;
    c.nsizes = 1;
    c.sizes[0] = 6 * 64 * 4;
    assert_null(tk_mrc_new(&c, &err));
    assert_int_equal(err.status, TK_EUSAGE);
    c.policy = TK_CACHESIM_LRU;
    c.sizes[0] = 1000;
    assert_null(tk_mrc_new(&c, &err));
    assert_int_equal(err.status, TK_EUSAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_against_brute_force), cmocka_unit_test(exact_against_cachesim),
        cmocka_unit_test(shards_accuracy),           cmocka_unit_test(minis_equal_at_rate_one),
        cmocka_unit_test(minis_sampled),             cmocka_unit_test(bad_configs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
