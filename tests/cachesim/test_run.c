/* tk_cachesim_run (accesses decoded straight from the input's window)
 * against tk_cacheray_next + tk_cachesim_feed: identical results in both
 * byte orders, across the reader's 4 MiB windows, through a pipe, and
 * identical errors (status, offset, record index, message) on malformed
 * traces. */
#include <string.h>
#include <unistd.h>

#include "simtest.h"

/* The configuration in use: 0 takes the first level's 4-way fast path
 * with reuse distances, 1 its 8-way one with 3C off, 2 the general path,
 * 3 the fast path of an only level, 4 the fast path above a write-through
 * level of long lines and a small inclusive one, whose evictions on the
 * first level's writebacks can drop the line just filled there (the rest
 * of its run then misses again), 5 the same without the inclusive level
 * and with a last level that does not allocate on writes: the levels below
 * the first take each batch level by level (stream.c), forwarded writes
 * among their requests. */
enum { CONFIGS = 6 };
static int which;

static tk_cachesim_config config(void)
{
    static const char *const specs[CONFIGS][4] = {
        {"L1:1K:4:64", "L2:4K:full:64:plru", NULL},
        {"L1:2K:8:64", "L2:8K:16:64", NULL},
        {"L1:2K:8:64:fifo", "L2:8K:16:64", NULL},
        {"L1:1K:16:64", NULL},
        {"L1:512:8:64", "L2:2K:4:128:plru", "L3:128:4:32:random", NULL},
        {"L1:512:8:64", "L2:2K:4:128:plru", "L3:1K:4:32:lru", NULL},
    };
    static const unsigned flags[CONFIGS] = {TK_CACHESIM_REUSE, TK_CACHESIM_NO_3C, 0, 0, 0, 0};
    tk_cachesim_config c = st_config(specs[which], 1, 1, 0, flags[which]);
    if (which >= 4) {
        c.levels[1].write_back = 0;
        c.levels[2].inclusive = which == 4;
        c.levels[2].write_allocate = which == 4;
    }
    return c;
}

/* Accesses (some flagged, some 0 bytes, some crossing lines, some to a
 * falsely shared line) by 3 threads with RTTA records among them; names of every length up to `maxname`. */
static void random_trace(tu_buf *b, uint64_t seed, size_t records, size_t maxname)
{
    static char name[1 << 16];
    memset(name, 'n', sizeof name);
    memcpy(name, "struct.", 7);
    uint64_t rng = seed, live[8] = {0}, last = 0x10000;
    for (size_t i = 0; i < records; i++) {
        uint64_t r = tu_rand(&rng);
        if (r % 97 == 0) {
            int k = (int)((r >> 8) % 8);
            if (live[k])
                tu_remove(b, live[k], 1);
            live[k] = 0x10000 + (uint64_t)k * 0x1000 + (r >> 16) % 64;
            tu_add(b, live[k], 1, 8 + (r >> 24) % 24, 1 + (r >> 32) % 100, name,
                   (uint32_t)(7 + (r >> 40) % (maxname - 6)));
        } else {
            uint8_t tag = (r >> 8 & 1) | (r % 13 == 0 ? TK_CACHERAY_ATOMIC : 0) |
                          (r % 17 == 0 ? TK_CACHERAY_UNALIGNED : 0);
            if (r % 11 == 0) /* per-thread counters sharing a line */
                tu_access(b, tag | 1, 0x1A000 + 8 * ((r >> 50) % 3), 4, (r >> 50) % 3);
            else { /* half of them near the last: runs in one line */
                last = r >> 45 & 1 ? last + (r >> 46) % 12 : 0x10000 + (r >> 12) % 0x9000;
                tu_access(b, tag, last, (uint8_t)(r >> 40) % 20, (r >> 50) % 3);
            }
        }
    }
}

static tk_cachesim *run_input(tk_input *in, tk_status *st, tk_error *err)
{
    tk_cachesim_config c = config();
    tk_cachesim *s = st_new(&c);
    *st = tk_cachesim_run(s, in, TK_ENDIAN_AUTO, err);
    return s;
}

static tk_cachesim *run_memory(const tu_buf *b, tk_status *st, tk_error *err)
{
    tk_input *in = tk_input_from_memory(b->p ? (const void *)b->p : "", b->len, "mem", err);
    assert_non_null(in);
    tk_cachesim *s = run_input(in, st, err);
    tk_input_close(in);
    return s;
}

/* Feed what tk_cacheray_next reads; returns its last result. */
static tk_cachesim *run_feed(const tu_buf *b, int *rc, tk_error *err)
{
    tk_cachesim_config c = config();
    tk_cachesim *s = st_new(&c);
    tk_input *in = tk_input_from_memory(b->p, b->len, "mem", err);
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, TK_ENDIAN_AUTO, err);
    tk_cacheray_record rec;
    while ((*rc = tk_cacheray_next(r, &rec, err)) > 0)
        assert_int_equal(tk_cachesim_feed(s, &rec, err), TK_OK);
    tk_cacheray_reader_free(r);
    tk_input_close(in);
    return s;
}

static void expect_same(tk_cachesim *a, tk_cachesim *b)
{
    tk_cachesim_totals ta, tb;
    tk_cachesim_get_totals(a, &ta);
    tk_cachesim_get_totals(b, &tb);
    assert_memory_equal(&ta, &tb, sizeof ta);
    for (size_t k = 0; k < tk_cachesim_levels(a); k++) {
        tk_cachesim_level_stats la, lb;
        tk_cachesim_get_level(a, k, &la);
        tk_cachesim_get_level(b, k, &lb);
        st_expect_stats("run vs feed", &la, &lb);
    }
    assert_int_equal(tk_cachesim_types(a), tk_cachesim_types(b));
    for (size_t i = 0; i < tk_cachesim_types(a); i++) {
        tk_cachesim_type x, y;
        tk_cachesim_get_type(a, i, &x);
        tk_cachesim_get_type(b, i, &y);
        assert_string_equal(x.name, y.name);
        assert_memory_equal(&x.c, &y.c, sizeof x.c);
        assert_int_equal(x.live, y.live);
        assert_int_equal(x.regions, y.regions);
    }
    assert_int_equal(tk_cachesim_threads(a), tk_cachesim_threads(b));
    for (size_t i = 0; i < tk_cachesim_threads(a); i++) {
        tk_cachesim_thread x, y;
        tk_cachesim_get_thread(a, i, &x);
        tk_cachesim_get_thread(b, i, &y);
        assert_memory_equal(&x, &y, sizeof x);
    }
    uint64_t sa, sb;
    size_t nfs, nfs_b;
    tk_error err;
    assert_int_equal(tk_cachesim_false_sharing_count(a, &nfs, &sa, &err), TK_OK);
    assert_int_equal(tk_cachesim_false_sharing_count(b, &nfs_b, &sb, &err), TK_OK);
    assert_int_equal(nfs, nfs_b);
    assert_int_equal(sa, sb);
    for (size_t i = 0; i < nfs; i++) {
        tk_cachesim_false_sharing x, y;
        tk_cachesim_get_false_sharing(a, i, &x);
        tk_cachesim_get_false_sharing(b, i, &y);
        assert_int_equal(x.line, y.line);
        assert_int_equal(x.writes, y.writes);
        assert_int_equal(x.alternations, y.alternations);
        assert_int_equal(x.nthreads, y.nthreads);
        for (size_t t = 0; t < x.nthreads; t++) {
            assert_int_equal(x.threads[t].thread, y.threads[t].thread);
            assert_int_equal(x.threads[t].first, y.threads[t].first);
            assert_int_equal(x.threads[t].last, y.threads[t].last);
            assert_int_equal(x.threads[t].writes, y.threads[t].writes);
            assert_int_equal(x.threads[t].offset, y.threads[t].offset);
        }
    }
    tk_cachesim_reuse ra, rb;
    tk_cachesim_get_reuse(a, &ra);
    tk_cachesim_get_reuse(b, &rb);
    assert_memory_equal(&ra, &rb, sizeof ra);
}

static void compare_trace(const tu_buf *b)
{
    for (which = 0; which < CONFIGS; which++) {
        tk_error e1, e2;
        tk_status st;
        int rc;
        tk_cachesim *a = run_memory(b, &st, &e1), *f = run_feed(b, &rc, &e2);
        assert_int_equal(st, TK_OK);
        assert_int_equal(rc, 0);
        expect_same(a, f);
        tk_cachesim_totals t;
        tk_cachesim_get_totals(a, &t);
        assert_true(t.rtta_add > 0 && t.zero_size > 0 && t.writes > 0);
        size_t nfs;
        assert_int_equal(tk_cachesim_false_sharing_count(a, &nfs, NULL, &e1), TK_OK);
        assert_true(nfs > 0);
        tk_cachesim_free(a);
        tk_cachesim_free(f);
    }
    which = 0;
}

static void both_byte_orders(void **state)
{
    (void)state;
    for (int big = 0; big < 2; big++) {
        tu_buf b = {.big = big};
        random_trace(&b, 11 + (uint64_t)big, 30000, 40);
        compare_trace(&b);
        tu_buf_free(&b);
    }
}

/* More than one 4 MiB window, with long names crossing its edges. */
static void across_windows(void **state)
{
    (void)state;
    tu_buf b = {0};
    random_trace(&b, 3, 300000, 3000);
    assert_true(b.len > (5u << 20));
    compare_trace(&b);
    tu_buf_free(&b);
}

static void through_a_pipe(void **state)
{
    (void)state;
    tu_buf b = {0};
    random_trace(&b, 5, 20000, 100);
    int fd;
    pid_t pid = tu_pipe_feed(b.p, b.len, 9, &fd);
    tk_error err;
    tk_input *in = tk_input_from_fd(fd, "pipe", &err);
    tk_status st;
    tk_cachesim *p = run_input(in, &st, &err);
    assert_int_equal(st, TK_OK);
    tk_input_close(in);
    tu_pipe_wait(pid, fd);
    tk_cachesim *m = run_memory(&b, &st, &err);
    expect_same(p, m);
    tk_cachesim_free(p);
    tk_cachesim_free(m);
    tu_buf_free(&b);
}

/* A valid prefix, then something wrong: run fails exactly as the reader. */
static void errors_as_the_reader(void **state)
{
    (void)state;
    for (int c = 0; c < 6; c++) {
        tu_buf b = {0};
        random_trace(&b, 21, 500 + (size_t)c * 1000, 20);
        switch (c) {
        case 0: tu_put8(&b, 0x07); break;                       /* unknown tag */
        case 1: tu_put8(&b, TK_CACHERAY_WRITE); tu_put64(&b, 1); break; /* truncated access */
        case 2: tu_put8(&b, TK_CACHERAY_RTTA_ADD | TK_CACHERAY_ATOMIC); break; /* flags on rtta */
        case 3: tu_add(&b, 0x1000, 0, 8, 1, "struct.X", 8); b.len -= 3; break; /* name cut */
        case 4: tu_put8(&b, TK_CACHERAY_RTTA_REMOVE); tu_put32(&b, 0); break;
        case 5: tu_access(&b, 0, 0x1000, 8, 0); tu_put8(&b, 0x3f); break;
        }
        tk_error e1, e2;
        tk_status st;
        int rc;
        tk_cachesim *a = run_memory(&b, &st, &e1), *f = run_feed(&b, &rc, &e2);
        assert_int_equal(rc, -1);
        assert_int_equal(st, e2.status);
        assert_int_equal(e1.offset, e2.offset);
        assert_int_equal(e1.record, e2.record);
        assert_string_equal(e1.message, e2.message);
        expect_same(a, f); /* everything before the error was simulated */
        tk_cachesim_free(a);
        tk_cachesim_free(f);
        tu_buf_free(&b);
    }
}

static void empty_input(void **state)
{
    (void)state;
    tu_buf b = {0};
    tk_error err;
    tk_status st;
    tk_cachesim *s = run_memory(&b, &st, &err);
    assert_int_equal(st, TK_OK);
    tk_cachesim_totals t;
    tk_cachesim_get_totals(s, &t);
    assert_int_equal(t.records, 0);
    tk_cachesim_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(both_byte_orders),
        cmocka_unit_test(across_windows),
        cmocka_unit_test(through_a_pipe),
        cmocka_unit_test(errors_as_the_reader),
        cmocka_unit_test(empty_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
