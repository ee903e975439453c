/* Access patterns with miss counts known by hand: sequential sweeps,
 * row- and column-wise and blocked walks of a matrix, conflict ping-pong
 * in a direct-mapped cache, accesses crossing lines, 3C classes, the write
 * policies and inclusive back-invalidation step by step, and the original
 * simulator's duplicate-line bug (notes 6.1). */
#include "simtest.h"

static tk_cachesim *one_level(const char *spec, unsigned flags)
{
    const char *specs[] = {spec, NULL};
    tk_cachesim_config c = st_config(specs, 1, 1, 0, flags);
    return st_new(&c);
}

/* 8-byte reads through N lines of a 64-line cache (4 KiB, 4-way): one
 * compulsory miss per line, then hits; twice the capacity thrashes LRU. */
static void sequential_sweep(void **state)
{
    (void)state;
    tk_cachesim *s = one_level("L1:4K:4:64", 0);
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t a = 0; a < 64 * 64; a += 8)
            st_read(s, 0x10000 + a, 8);
    st_expect_level(s, 0, (st_level){.reads = 1024, .read_misses = 64, .compulsory = 64});
    tk_cachesim_free(s);

    s = one_level("L1:4K:4:64", 0);
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t a = 0; a < 128 * 64; a += 8)
            st_read(s, 0x10000 + a, 8);
    /* LRU evicts each line before the sweep comes back: the second pass
     * misses every line, and so would a fully associative cache */
    st_expect_level(s, 0, (st_level){.reads = 2048, .read_misses = 256, .compulsory = 128,
                                     .capacity = 128});
    tk_cachesim_free(s);
}

/* int a[64][64] (16 KiB, rows of 256 bytes = 4 lines) in a 4 KiB 4-way
 * cache of 16 sets. */
static void matrix_walks(void **state)
{
    (void)state;
    const uint64_t base = 0x200000;
    /* row-wise: 256 lines, each missed once */
    tk_cachesim *s = one_level("L1:4K:4:64", 0);
    for (uint64_t i = 0; i < 64; i++)
        for (uint64_t j = 0; j < 64; j++)
            st_read(s, base + i * 256 + j * 4, 4);
    st_expect_level(s, 0, (st_level){.reads = 4096, .read_misses = 256, .compulsory = 256});
    tk_cachesim_free(s);
    /* column-wise: a column's 64 lines fall in 4 of the 16 sets (16 lines
     * for 4 ways each), so every access misses; a fully associative cache
     * of 64 lines would keep them: all but the compulsory misses are
     * conflicts */
    s = one_level("L1:4K:4:64", 0);
    for (uint64_t j = 0; j < 64; j++)
        for (uint64_t i = 0; i < 64; i++)
            st_read(s, base + i * 256 + j * 4, 4);
    st_expect_level(s, 0, (st_level){.reads = 4096, .read_misses = 4096, .compulsory = 256,
                                     .conflict = 3840});
    tk_cachesim_free(s);
    /* blocked: 4 rows at a time, column by column: a block's 16 lines use
     * each set once, so only the compulsory misses remain */
    s = one_level("L1:4K:4:64", 0);
    for (uint64_t i0 = 0; i0 < 64; i0 += 4)
        for (uint64_t j = 0; j < 64; j++)
            for (uint64_t i = i0; i < i0 + 4; i++)
                st_read(s, base + i * 256 + j * 4, 4);
    st_expect_level(s, 0, (st_level){.reads = 4096, .read_misses = 256, .compulsory = 256});
    tk_cachesim_free(s);
}

/* Two lines 1 KiB apart in a 1 KiB direct-mapped cache evict each other. */
static void conflict_ping_pong(void **state)
{
    (void)state;
    tk_cachesim *s = one_level("L1:1K:1:64", 0);
    for (int i = 0; i < 10; i++) {
        st_read(s, 0x8000, 8);
        st_read(s, 0x8000 + 1024, 8);
    }
    st_expect_level(s, 0, (st_level){.reads = 20, .read_misses = 20, .compulsory = 2,
                                     .conflict = 18});
    tk_cachesim_free(s);
    /* 2-way: both stay */
    s = one_level("L1:1K:2:64", 0);
    for (int i = 0; i < 10; i++) {
        st_read(s, 0x8000, 8);
        st_read(s, 0x8000 + 1024, 8);
    }
    st_expect_level(s, 0, (st_level){.reads = 20, .read_misses = 2, .compulsory = 2});
    tk_cachesim_free(s);
}

/* The original's JUnit cases (64 KiB, 64 B, direct-mapped): an access
 * straddling two lines touches both. */
static void crossing_lines(void **state)
{
    (void)state;
    tk_cachesim *s = one_level("L1:64K:1:64", 0);
    st_read(s, 1234, 8);
    st_expect_level(s, 0, (st_level){.reads = 1, .read_misses = 1, .compulsory = 1});
    st_read(s, 1234, 8);
    st_expect_level(s, 0, (st_level){.reads = 2, .read_misses = 1, .compulsory = 1});
    st_read(s, 64 * 1337 - 4, 8); /* lines 1336 and 1337 */
    st_expect_level(s, 0, (st_level){.reads = 4, .read_misses = 3, .compulsory = 3});
    st_read(s, 64 * 1337 - 4, 8);
    st_expect_level(s, 0, (st_level){.reads = 6, .read_misses = 3, .compulsory = 3});
    /* conflict at +64 KiB evicts */
    st_read(s, 1234 + 65536, 8);
    st_read(s, 1234, 8);
    st_expect_level(s, 0, (st_level){.reads = 8, .read_misses = 5, .compulsory = 4,
                                     .conflict = 1});
    /* the type table counts the access once, with a miss */
    tk_cachesim_type t;
    st_type(s, "(untyped)", &t);
    assert_int_equal(t.c.reads, 6);
    assert_int_equal(t.c.misses[0], 4);
    /* a 0-byte access touches no line */
    st_read(s, 0x99999, 0);
    st_expect_level(s, 0, (st_level){.reads = 8, .read_misses = 5, .compulsory = 4,
                                     .conflict = 1});
    tk_cachesim_totals tot;
    tk_cachesim_get_totals(s, &tot);
    assert_int_equal(tot.zero_size, 1);
    assert_int_equal(tot.accesses, 7);
    tk_cachesim_free(s);
}

/* 3C by hand: a 2-line direct-mapped cache (sets 0 and 1), lines
 * 0 2 0 1 3 5 2: 0, 2, 1, 3, 5 are first references; the third access (0)
 * would hit in a 2-line fully associative LRU cache ({0, 2}): conflict;
 * the last (2) would not ({3, 5}): capacity. */
static void three_c_by_hand(void **state)
{
    (void)state;
    tk_cachesim *s = one_level("L1:128:1:64", 0);
    static const uint64_t lines[] = {0, 2, 0, 1, 3, 5, 2};
    for (size_t i = 0; i < 7; i++)
        st_read(s, lines[i] * 64, 4);
    st_expect_level(s, 0, (st_level){.reads = 7, .read_misses = 7, .compulsory = 5,
                                     .capacity = 1, .conflict = 1});
    tk_cachesim_free(s);
}

static tk_cachesim *two_levels(int write_back, int allocate)
{
    static const char *const specs[] = {"L1:128:2:64", "L2:1K:4:64", NULL};
    tk_cachesim_config c = st_config(specs, write_back, allocate, 0, 0);
    c.levels[1].write_back = c.levels[1].write_allocate = 1;
    return st_new(&c);
}

/* Three writes to three lines of a one-set 2-way L1 over an L2. */
static void write_policies(void **state)
{
    (void)state;
    /* write-back, allocate: the third line evicts the first, dirty */
    tk_cachesim *s = two_levels(1, 1);
    for (uint64_t a = 0; a < 3 * 64; a += 64)
        st_write(s, a, 8);
    st_expect_level(s, 0, (st_level){.writes = 3, .write_misses = 3, .compulsory = 3,
                                     .writebacks = 1});
    st_expect_level(s, 1, (st_level){.reads = 3, .writes = 1, .read_misses = 3,
                                     .compulsory = 3});
    tk_cachesim_free(s);
    /* write-through, allocate: fetch, then the write goes down as well */
    s = two_levels(0, 1);
    for (uint64_t a = 0; a < 3 * 64; a += 64)
        st_write(s, a, 8);
    st_write(s, 128, 4); /* a hit writes through too */
    st_expect_level(s, 0, (st_level){.writes = 4, .write_misses = 3, .compulsory = 3});
    st_expect_level(s, 1, (st_level){.reads = 3, .writes = 4, .read_misses = 3,
                                     .compulsory = 3});
    tk_cachesim_free(s);
    /* write-back, no allocate: the write miss goes to L2 (which allocates
     * it), L1 stays empty, so the read after it misses L1 and hits L2; a
     * fully associative cache not allocating on writes would miss it too:
     * capacity */
    s = two_levels(1, 0);
    st_write(s, 0, 8);
    st_read(s, 0, 8);
    st_read(s, 0, 8);
    st_expect_level(s, 0, (st_level){.reads = 2, .writes = 1, .read_misses = 1,
                                     .write_misses = 1, .compulsory = 1, .capacity = 1});
    st_expect_level(s, 1, (st_level){.reads = 1, .writes = 1, .write_misses = 1,
                                     .compulsory = 1});
    tk_cachesim_free(s);
}

/* L1: 4 lines fully associative; L2: 2 lines, inclusive. */
static void inclusive_back_invalidation(void **state)
{
    (void)state;
    static const char *const specs[] = {"L1:256:full:64", "L2:128:2:64", NULL};
    tk_cachesim_config c = st_config(specs, 1, 1, 0, 0);
    c.levels[1].inclusive = 1;
    tk_cachesim *s = st_new(&c);
    st_write(s, 0, 8); /* L1 holds 0 dirty */
    st_read(s, 64, 8);
    /* L2 evicts 0 for 128 and invalidates L1's dirty copy: L1 writes it
     * back (into the eviction), L2 writes the line back to memory */
    st_read(s, 128, 8);
    st_expect_level(s, 0, (st_level){.reads = 2, .writes = 1, .read_misses = 2,
                                     .write_misses = 1, .compulsory = 3, .writebacks = 1,
                                     .invalidations = 1});
    st_expect_level(s, 1, (st_level){.reads = 3, .read_misses = 3, .compulsory = 3,
                                     .writebacks = 1});
    /* 0 again: L1 lost it to the invalidation (a fully associative cache
     * of 4 lines would have it: conflict); L2 evicts 64, clean, from L1 */
    st_read(s, 0, 8);
    st_expect_level(s, 0, (st_level){.reads = 3, .writes = 1, .read_misses = 3,
                                     .write_misses = 1, .compulsory = 3, .conflict = 1,
                                     .writebacks = 1, .invalidations = 2});
    st_expect_level(s, 1, (st_level){.reads = 4, .read_misses = 4, .compulsory = 3,
                                     .capacity = 1, .writebacks = 1});
    /* L1 has 128 and 0 left: 64 misses, 128 hits */
    st_read(s, 128, 8);
    st_read(s, 64, 8);
    tk_cachesim_level_stats st;
    tk_cachesim_get_level(s, 0, &st);
    assert_int_equal(st.read_misses, 4);
    tk_cachesim_free(s);
}

/* Notes 6.1: the original inserts a duplicate line on every write, so on
 * R A, R B, W A, W A, R B in a 2-way set it misses the last read. */
static void writes_do_not_duplicate_lines(void **state)
{
    (void)state;
    tk_cachesim *s = one_level("L1:128:2:64", 0);
    st_read(s, 0, 4);
    st_read(s, 128, 4);
    st_write(s, 0, 4);
    st_write(s, 0, 4);
    st_read(s, 128, 4);
    st_expect_level(s, 0, (st_level){.reads = 3, .writes = 2, .read_misses = 2,
                                     .compulsory = 2});
    tk_cachesim_free(s);
}

/* Policies side by side on one set of 4 ways: lines 0 1 2 3, touch 0,
 * then a fifth line. LRU evicts 1, FIFO evicts 0, PLRU (tree after the
 * touches: victim in the pair of 2-3, then 3) evicts 2... checked by
 * which line misses when all are read again. */
static void victims_by_policy(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        uint64_t evicted;
    } cases[] = {{"L1:256:4:64:lru", 1}, {"L1:256:4:64:fifo", 0}, {"L1:256:4:64:plru", 2}};
    for (size_t i = 0; i < 3; i++) {
        tk_cachesim *s = one_level(cases[i].spec, TK_CACHESIM_NO_3C);
        for (uint64_t l = 0; l < 4; l++)
            st_read(s, l * 64, 4);
        st_read(s, 0, 4);
        st_read(s, 4 * 64, 4);
        tk_cachesim_level_stats before, after;
        tk_cachesim_get_level(s, 0, &before);
        st_read(s, cases[i].evicted * 64, 4);
        tk_cachesim_get_level(s, 0, &after);
        if (after.read_misses != before.read_misses + 1)
            fail_msg("%s: line %llu was not the victim", cases[i].spec,
                     (unsigned long long)cases[i].evicted);
        tk_cachesim_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sequential_sweep),
        cmocka_unit_test(matrix_walks),
        cmocka_unit_test(conflict_ping_pong),
        cmocka_unit_test(crossing_lines),
        cmocka_unit_test(three_c_by_hand),
        cmocka_unit_test(write_policies),
        cmocka_unit_test(inclusive_back_invalidation),
        cmocka_unit_test(writes_do_not_duplicate_lines),
        cmocka_unit_test(victims_by_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
