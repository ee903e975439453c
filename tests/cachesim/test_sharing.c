/* False sharing against a plain model written here: per line, a list of
 * writers with the bytes (64 chunks) and writes of each, the writes and
 * alternations of the line; a line is reported when two or more threads
 * wrote it and no two wrote a common chunk. The simulator keeps compact
 * states instead (one writer in 16 bytes, records for shared lines, dead
 * lines once two writers overlap, records for threads past the tags'
 * range): the same report must come out, fed record by record and through
 * tk_cachesim_run. Traces: random writes of 2-5 threads to a few lines
 * (lines shared early, late, or dead), lines written a long time by one
 * thread before a second comes, line-crossing writes, and more threads
 * than the compact tags hold. */
#include <stdlib.h>
#include <string.h>

#include "cacheray/sim/sim_int.h" /* the false-sharing window */
#include "simtest.h"

enum { LINES = 64, BASE = 0x40000 };

typedef struct ref_writer {
    uint64_t thread, mask, writes;
} ref_writer;

typedef struct ref_line {
    ref_writer *w;
    size_t n;
    uint64_t writes, alternations, last;
} ref_line;

typedef struct model {
    ref_line *l;
    size_t nlines;
} model;

static void ref_write(model *m, uint64_t addr, unsigned size, uint64_t thread)
{
    uint64_t last = addr + size - 1;
    for (uint64_t line = addr >> 6; line <= last >> 6; line++) {
        ref_line *L = &m->l[line - (BASE >> 6)];
        unsigned lo = line == addr >> 6 ? addr & 63 : 0, hi = line == last >> 6 ? last & 63 : 63;
        uint64_t mask = (hi == 63 ? ~0ULL : (1ULL << (hi + 1)) - 1) & ~((1ULL << lo) - 1);
        size_t i = 0;
        while (i < L->n && L->w[i].thread != thread)
            i++;
        if (i == L->n) {
            L->w = realloc(L->w, (L->n + 1) * sizeof *L->w);
            assert_non_null(L->w);
            L->w[L->n++] = (ref_writer){thread, 0, 0};
        }
        if (L->writes && L->last != thread)
            L->alternations++;
        L->last = thread;
        L->writes++;
        L->w[i].mask |= mask;
        L->w[i].writes++;
    }
}

static int reported(const ref_line *L)
{
    uint64_t seen = 0;
    if (L->n < 2)
        return 0;
    for (size_t i = 0; i < L->n; i++) {
        if (seen & L->w[i].mask)
            return 0;
        seen |= L->w[i].mask;
    }
    return 1;
}

static int by_first(const void *a, const void *b)
{
    uint64_t x = ((const ref_writer *)a)->mask, y = ((const ref_writer *)b)->mask;
    return (x & -x) < (y & -y) ? -1 : (x & -x) > (y & -y);
}

/* The simulator's report against the model's, line by line. */
static void expect_report(tk_cachesim *s, model *m, const char *what)
{
    uint64_t shared = 0, nrep = 0;
    for (size_t i = 0; i < m->nlines; i++) {
        shared += m->l[i].n >= 2;
        nrep += reported(&m->l[i]);
    }
    size_t n;
    uint64_t got_shared;
    tk_error err;
    assert_int_equal(tk_cachesim_false_sharing_count(s, &n, &got_shared, &err), TK_OK);
    if (got_shared != shared || n != nrep)
        fail_msg("%s: %zu lines reported of %llu shared, model %llu of %llu", what, n,
                 (unsigned long long)got_shared, (unsigned long long)nrep,
                 (unsigned long long)shared);
    uint64_t prev_alt = UINT64_MAX, prev_line = 0;
    for (size_t i = 0; i < n; i++) {
        tk_cachesim_false_sharing fs;
        tk_cachesim_get_false_sharing(s, i, &fs);
        assert_true(fs.alternations < prev_alt || (fs.alternations == prev_alt && fs.line > prev_line));
        prev_alt = fs.alternations;
        prev_line = fs.line;
        ref_line *L = &m->l[(fs.line - BASE) >> 6];
        if (!reported(L) || fs.writes != L->writes || fs.alternations != L->alternations ||
            fs.nthreads != L->n)
            fail_msg("%s: line 0x%llx: %llu writes %llu alternations %zu threads, model "
                     "%llu %llu %zu", what, (unsigned long long)fs.line,
                     (unsigned long long)fs.writes, (unsigned long long)fs.alternations,
                     fs.nthreads, (unsigned long long)L->writes,
                     (unsigned long long)L->alternations, L->n);
        qsort(L->w, L->n, sizeof *L->w, by_first);
        for (size_t j = 0; j < L->n; j++) {
            const tk_cachesim_sharer *w = &fs.threads[j];
            uint64_t first = fs.line + (unsigned)__builtin_ctzll(L->w[j].mask);
            uint64_t last = fs.line + 63 - (unsigned)__builtin_clzll(L->w[j].mask);
            if (w->thread != L->w[j].thread || w->writes != L->w[j].writes ||
                w->first != first || w->last != last)
                fail_msg("%s: line 0x%llx sharer %zu differs", what,
                         (unsigned long long)fs.line, j);
            assert_string_equal(w->type, "struct.cells"); /* one region over all */
            assert_int_equal(w->offset, (first - BASE) % 24);
        }
    }
}

static tk_cachesim_config l1(void)
{
    static const char *const specs[] = {"L1:1K:4:64", "L2:4K:8:64", NULL};
    return st_config(specs, 1, 1, 0, 0);
}

/* Whether the false-sharing states of s are found through a window over
 * at least `groups` groups (sim_int.h: dense footprints), or (groups 0)
 * through the table alone. */
static void expect_window(const tk_cachesim *s, size_t groups, const char *what)
{
    if (groups ? s->fs.win_n < groups : s->fs.win_n != 0)
        fail_msg("%s: a window over %zu groups, expected %s%zu", what, s->fs.win_n,
                 groups ? "at least " : "", groups);
}

/* Run the trace in b both ways and compare both with the model; with
 * `window` >= 0, the window's size as expect_window's. */
static void check_window(tu_buf *b, model *m, const char *what, long window)
{
    tk_cachesim_config c = l1();
    tk_error err;
    tk_cachesim *fed = st_new(&c), *run = st_new(&c);
    tk_input *in = tk_input_from_memory(b->p, b->len, "mem", &err);
    assert_non_null(in);
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, TK_ENDIAN_AUTO, &err);
    tk_cacheray_record rec;
    while (tk_cacheray_next(r, &rec, &err) > 0)
        assert_int_equal(tk_cachesim_feed(fed, &rec, &err), TK_OK);
    tk_cacheray_reader_free(r);
    tk_input_close(in);
    in = tk_input_from_memory(b->p, b->len, "mem", &err);
    assert_int_equal(tk_cachesim_run(run, in, TK_ENDIAN_AUTO, &err), TK_OK);
    tk_input_close(in);
    expect_report(fed, m, what);
    expect_report(run, m, what);
    if (window >= 0) {
        expect_window(fed, (size_t)window, what);
        expect_window(run, (size_t)window, what);
    }
    tk_cachesim_free(fed);
    tk_cachesim_free(run);
}

static void check(tu_buf *b, model *m, const char *what) { check_window(b, m, what, -1); }

static void model_init(model *m, tu_buf *b, size_t nlines)
{
    m->nlines = nlines;
    m->l = calloc(nlines, sizeof *m->l);
    assert_non_null(m->l);
    memset(b, 0, sizeof *b);
    tu_add(b, BASE, 1, 24, (uint32_t)(nlines * 64 / 24 + 1), "struct.cells", 12);
}

static void model_free(model *m, tu_buf *b)
{
    for (size_t i = 0; i < m->nlines; i++)
        free(m->l[i].w);
    free(m->l);
    tu_buf_free(b);
}

static void write_both(tu_buf *b, model *m, uint64_t addr, unsigned size, uint64_t thread)
{
    tu_access(b, 1, addr, (uint8_t)size, thread);
    ref_write(m, addr, size, thread);
}

/* Random writes (and reads, which count for nothing here) of 2-5
 * threads to a few lines: most lines end dead, some shared and disjoint;
 * a thread writes a run of one line now and then. */
static void random_writes(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        uint64_t rng = seed;
        unsigned threads = 2 + (unsigned)(seed % 4);
        size_t nlines = 4 + (size_t)(seed % 5) * 8;
        model m;
        tu_buf b;
        model_init(&m, &b, nlines);
        for (int i = 0; i < 3000; i++) {
            uint64_t r = tu_rand(&rng), thread = 10 + (r >> 8) % threads;
            uint64_t line = (r >> 16) % (nlines - 1);
            unsigned size = 1u << ((r >> 24) % 4);
            uint64_t addr = BASE + line * 64 + ((r >> 32) % 64 & ~(uint64_t)(size - 1));
            if ((r >> 40) % 50 == 0)
                addr = BASE + line * 64 + 60; /* crossing into the next line */
            if ((r >> 46) % 4 == 0)
                tu_access(&b, 0, addr, (uint8_t)size, thread);
            else
                write_both(&b, &m, addr, size, thread);
        }
        char what[64];
        snprintf(what, sizeof what, "random writes, seed %llu", (unsigned long long)seed);
        check(&b, &m, what);
        model_free(&m, &b);
    }
}

/* A line written many times by one thread before a second comes, on
 * other bytes (shared, reported) or the same (dead at once); and lines
 * that stay disjoint through many alternations, then die. */
static void shared_late(void **state)
{
    (void)state;
    model m;
    tu_buf b;
    model_init(&m, &b, 8);
    for (int i = 0; i < 5000; i++) {
        write_both(&b, &m, BASE + (uint64_t)(i % 4) * 8, 8, 1);      /* line 0, bytes 0-31 */
        write_both(&b, &m, BASE + 64 + (uint64_t)(i % 8) * 8, 8, 1); /* line 1, all of it */
        write_both(&b, &m, BASE + 128 + 8, 8, 1 + (uint64_t)(i % 2)); /* line 2 */
    }
    write_both(&b, &m, BASE + 40, 4, 2);   /* line 0: a second writer, other bytes */
    write_both(&b, &m, BASE + 64 + 9, 1, 2); /* line 1: a common byte: dead */
    for (int i = 0; i < 1000; i++) {
        write_both(&b, &m, BASE + 192 + (uint64_t)(i % 2) * 32, 8, 3 + (uint64_t)(i % 2));
        write_both(&b, &m, BASE + 256 + (uint64_t)(i % 3) * 16, 16, 5 + (uint64_t)(i % 3));
    }
    write_both(&b, &m, BASE + 192 + 32, 1, 3); /* line 3 dies after 1000 alternations */
    check(&b, &m, "shared late");
    model_free(&m, &b);
}

/* More writing threads than the compact states' tags name (65533): the
 * last ones' lines get records of their own from the first write, and
 * share with each other and with the first threads. */
static void many_threads(void **state)
{
    (void)state;
    enum { THREADS = 65600 };
    model m;
    tu_buf b;
    model_init(&m, &b, THREADS + 8);
    for (uint64_t t = 0; t < THREADS; t++)
        write_both(&b, &m, BASE + t * 64 + t % 64, 1, t);
    for (uint64_t t = THREADS - 8; t < THREADS; t++) { /* late threads on early lines */
        write_both(&b, &m, BASE + (t - (THREADS - 8)) * 64 + 63 - t % 8, 1, t);
        write_both(&b, &m, BASE + t * 64 + (t + 1) % 64, 1, t - 1);
        write_both(&b, &m, BASE + (t - 2) * 64 + (t - 2) % 64, 1, t); /* a common byte */
    }
    for (int i = 0; i < 100; i++) /* one late thread and a new line */
        write_both(&b, &m, BASE + (uint64_t)(THREADS + 1) * 64 + (uint64_t)(i % 2) * 8, 8,
                   THREADS - 1 - (uint64_t)(i % 2));
    check(&b, &m, "many threads");
    model_free(&m, &b);
}

/* A write of 8 bytes by one of `threads` threads from 10 at a random
 * 8-byte offset of line `line`, now and then across into the next line. */
static void random_write(tu_buf *b, model *m, uint64_t *rng, uint64_t line, unsigned threads)
{
    uint64_t r = tu_rand(rng);
    uint64_t off = r % 50 == 0 ? 60 : (r >> 8) % 8 * 8;
    write_both(b, m, BASE + line * 64 + off, 8, 10 + (r >> 16) % threads);
}

/* A dense footprint: its groups move from the table to a window once
 * they fill a sixteenth of the range they span (and the table has 4096),
 * which grows as the footprint does, taking in the groups written far
 * away meanwhile (kept in the table until then). Lines written before
 * and after each move keep their writers. */
static void window(void **state)
{
    (void)state;
    enum { NLINES = 1 << 17 };
    uint64_t rng = 99;
    model m;
    tu_buf b;
    model_init(&m, &b, NLINES);
    for (int i = 0; i < 14000; i++) /* the first quarter: a window over it */
        random_write(&b, &m, &rng, tu_rand_below(&rng, NLINES / 4), 2);
    for (int i = 0; i < 300; i++) /* far away, sparse: the table */
        random_write(&b, &m, &rng, NLINES - 2 - tu_rand_below(&rng, NLINES / 4) / 64 * 64, 3);
    for (int i = 0; i < 40000; i++) /* the middle: the window grows over all */
        random_write(&b, &m, &rng, NLINES / 4 + tu_rand_below(&rng, NLINES / 2), 2);
    for (int i = 0; i < 20000; i++) /* everywhere again */
        random_write(&b, &m, &rng, tu_rand_below(&rng, NLINES - 1), 3);
    check_window(&b, &m, "window", NLINES / 4 * 3 / 4); /* more than the first quarter */
    model_free(&m, &b);
}

/* A sparse footprint (one group in 32 written) stays in the table. */
static void no_window(void **state)
{
    (void)state;
    enum { GROUPS = 6000, NLINES = GROUPS * 128 };
    uint64_t rng = 7;
    model m;
    tu_buf b;
    model_init(&m, &b, NLINES);
    for (int i = 0; i < 3 * GROUPS; i++)
        random_write(&b, &m, &rng, tu_rand_below(&rng, GROUPS) * 128 + 64, 2);
    check_window(&b, &m, "no window", 0);
    model_free(&m, &b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_writes),
        cmocka_unit_test(shared_late),
        cmocka_unit_test(many_threads),
        cmocka_unit_test(window),
        cmocka_unit_test(no_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
