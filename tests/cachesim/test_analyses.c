/* The analyses on hand-built traces: per-type counts and region lifetimes
 * (RTTA_REMOVE, overlaps), per-field counts with a real struct layout
 * (argv[1]: fixture_structs built with DWARF), false sharing between
 * threads, reuse distances (by hand, and against a naive LRU stack on a
 * trace long enough to compact the Fenwick tree), per-thread counts. */
#include <stdlib.h>
#include <string.h>

#include "simtest.h"

static const char *fixture;

static tk_cachesim *l1(unsigned flags)
{
    static const char *const specs[] = {"L1:4K:4:64", NULL};
    tk_cachesim_config c = st_config(specs, 1, 1, 0, flags);
    c.debug_info = fixture;
    return st_new(&c);
}

static void expect_counts(const char *what, const tk_cachesim_counts *c, uint64_t reads,
                          uint64_t writes, uint64_t bytes, uint64_t misses)
{
    if (c->reads != reads || c->writes != writes || c->bytes != bytes ||
        c->misses[0] != misses)
        fail_msg("%s: reads %llu writes %llu bytes %llu misses %llu, expected %llu %llu "
                 "%llu %llu",
                 what, (unsigned long long)c->reads, (unsigned long long)c->writes,
                 (unsigned long long)c->bytes, (unsigned long long)c->misses[0],
                 (unsigned long long)reads, (unsigned long long)writes,
                 (unsigned long long)bytes, (unsigned long long)misses);
}

static void types_and_lifetimes(void **state)
{
    (void)state;
    tk_cachesim *s = l1(0);
    st_add(s, 0x1010, 24, 2, "struct.A"); /* [0x1010, 0x1040) */
    st_add(s, 0x2000, 4, 4, "i32");       /* [0x2000, 0x2010) */
    st_read(s, 0x1010, 8);                /* A, misses line 0x1000 */
    st_write(s, 0x1038, 8);               /* A's second element, hits */
    st_read(s, 0x2004, 4);                /* i32, misses */
    st_read(s, 0x3000, 4);                /* untyped, misses */
    st_remove(s, 0x1010);                 /* A ends */
    st_read(s, 0x1010, 4);                /* untyped now, hits */
    st_add(s, 0x2008, 8, 1, "struct.B");  /* overlaps i32: ends it */
    st_read(s, 0x2000, 4);                /* untyped */
    st_read(s, 0x200c, 4);                /* B */
    st_add(s, 0x4000, 8, 1, "struct.B");
    st_remove(s, 0x4000);
    st_remove(s, 0x9999);                 /* no such region: ignored */
    tk_cachesim_type t;
    st_type(s, "struct.A", &t);
    expect_counts("struct.A", &t.c, 1, 1, 16, 1);
    assert_int_equal(t.regions, 1);
    assert_int_equal(t.live, 0);
    assert_int_equal(t.peak_live, 1);
    assert_null(t.layout);
    st_type(s, "i32", &t);
    expect_counts("i32", &t.c, 1, 0, 4, 1);
    assert_int_equal(t.live, 0);
    st_type(s, "struct.B", &t);
    expect_counts("struct.B", &t.c, 1, 0, 4, 0);
    assert_int_equal(t.regions, 2);
    assert_int_equal(t.live, 1);
    assert_int_equal(t.peak_live, 2);
    st_type(s, "(untyped)", &t);
    expect_counts("(untyped)", &t.c, 3, 0, 12, 1);
    tk_cachesim_free(s);
}

/* Per-type counts against a naive list of live regions, on a trace of
 * regions from 8 bytes to 6 MiB (more pages than the simulator's slots
 * of cached intervals: a slot's interval is a whole region or gap) that
 * come, overlap and go among reads over 16 MiB. */
enum { NAIVE_MAX = 256 };
typedef struct naive_region {
    uint64_t start, last;
    int type;
} naive_region;

static void types_over_many_pages(void **state)
{
    (void)state;
    static const char *const names[] = {"t0", "t1", "t2", "t3", "(untyped)"};
    static const uint64_t sizes[] = {8, 4096, 65536, 6u << 20};
    naive_region live[NAIVE_MAX];
    size_t nlive = 0;
    uint64_t reads[5] = {0}, rng = 22, base = 0x10000000;
    tk_cachesim *s = l1(0);
    for (int op = 0; op < 40000; op++) {
        uint64_t r = tu_rand_below(&rng, 1000);
        if (r < 8 && nlive < NAIVE_MAX) { /* a region, ending those it overlaps */
            uint64_t start = base + tu_rand_below(&rng, 2u << 20) * 8;
            uint64_t bytes = sizes[tu_rand_below(&rng, 4)], last = start + bytes - 1;
            int type = (int)tu_rand_below(&rng, 4);
            size_t k = 0;
            for (size_t i = 0; i < nlive; i++)
                if (!(live[i].start <= last && start <= live[i].last))
                    live[k++] = live[i];
            nlive = k;
            live[nlive++] = (naive_region){start, last, type};
            st_add(s, start, (uint32_t)bytes, 1, names[type]);
        } else if (r < 12 && nlive) { /* one goes */
            size_t i = tu_rand_below(&rng, nlive);
            st_remove(s, live[i].start);
            live[i] = live[--nlive];
        } else { /* a read */
            uint64_t addr = base + tu_rand_below(&rng, 2u << 20) * 8;
            int type = 4;
            for (size_t i = 0; i < nlive; i++)
                if (live[i].start <= addr && addr <= live[i].last)
                    type = live[i].type;
            reads[type]++;
            st_read(s, addr, 8);
        }
    }
    for (int t = 0; t < 5; t++) {
        if (!reads[t])
            continue;
        tk_cachesim_type got;
        st_type(s, names[t], &got);
        if (got.c.reads != reads[t] || got.c.bytes != 8 * reads[t])
            fail_msg("%s: %llu reads, expected %llu", names[t],
                     (unsigned long long)got.c.reads, (unsigned long long)reads[t]);
    }
    tk_cachesim_free(s);
}

static void fields_with_layout(void **state)
{
    (void)state;
    if (!fixture)
        skip();
    tk_cachesim *s = l1(0);
    /* malloc(3 * sizeof(struct Pad)) at an address that is not a multiple
     * of 16: one element of 48 bytes, strided by sizeof = 16 */
    const uint64_t p = 0x5008;
    st_add(s, p, 48, 1, "struct.Pad");
    st_read(s, p + 32 + 8, 1); /* pads[2].b (the original's formula,
                                  addr % 16 - start % 16, says a) */
    st_read(s, p + 16, 8);     /* pads[1].a */
    st_read(s, p + 9, 1);      /* padding only */
    st_read(s, p + 4, 8);      /* bytes 4-11: a, b and padding */
    st_write(s, p + 8, 1);     /* pads[0].b */
    st_add(s, 0x6000, 20, 1, "struct.Pad"); /* not a multiple of 16 */
    st_read(s, 0x6000, 4);
    st_add(s, 0x7000, 24, 1, "TdBasic"); /* by its typedef name */
    st_read(s, 0x7010, 8);
    tk_cachesim_type t;
    st_type(s, "struct.Pad", &t);
    assert_non_null(t.layout);
    assert_string_equal(t.layout, "struct Pad");
    assert_int_equal(t.layout_size, 16);
    assert_int_equal(t.c.reads, 5);
    assert_int_equal(t.c.writes, 1);
    assert_int_equal(t.padding, 1);
    assert_int_equal(t.unmatched, 1);
    const tk_cachesim_field *a = st_field(&t, "a"), *b = st_field(&t, "b");
    assert_int_equal(a->offset, 0);
    assert_int_equal(a->size, 8);
    assert_int_equal(b->offset, 8);
    expect_counts("Pad.a", &a->c, 2, 0, 12, 0);
    expect_counts("Pad.b", &b->c, 2, 1, 3, 1); /* the first access missed */
    st_type(s, "TdBasic", &t);
    assert_int_equal(t.layout_size, 24);
    expect_counts("TdBasic.c", &st_field(&t, "c")->c, 1, 0, 8, 1);
    expect_counts("TdBasic.a", &st_field(&t, "a")->c, 0, 0, 0, 0);
    tk_cachesim_free(s);
}

static void false_sharing(void **state)
{
    (void)state;
    tk_cachesim *s = l1(0);
    st_add(s, 0x1000, 16, 1, "struct.counters");
    for (int i = 0; i < 5; i++) {
        st_access(s, 0x1000, 8, 1, 1); /* thread 1: bytes 0-7 */
        st_access(s, 0x1008, 8, 1, 2); /* thread 2: bytes 8-15 */
    }
    st_access(s, 0x2000, 8, 1, 1); /* overlapping bytes 4-7: true sharing */
    st_access(s, 0x2004, 8, 1, 2);
    st_access(s, 0x3000, 8, 1, 1); /* one writer */
    st_access(s, 0x3008, 8, 0, 2); /* reads do not count */
    st_access(s, 0x4000, 4, 1, 7); /* three writers, 2 alternations */
    st_access(s, 0x4010, 4, 1, 8);
    st_access(s, 0x4010, 4, 1, 8);
    st_access(s, 0x4020, 4, 1, 9);
    uint64_t shared;
    size_t n;
    tk_error err;
    assert_int_equal(tk_cachesim_false_sharing_count(s, &n, &shared, &err), TK_OK);
    assert_int_equal(shared, 3);
    assert_int_equal(n, 2);
    tk_cachesim_false_sharing fs;
    tk_cachesim_get_false_sharing(s, 0, &fs); /* most alternations first */
    assert_int_equal(fs.line, 0x1000);
    assert_int_equal(fs.writes, 10);
    assert_int_equal(fs.alternations, 9);
    assert_int_equal(fs.nthreads, 2);
    const tk_cachesim_sharer *w = fs.threads;
    assert_int_equal(w[0].thread, 1);
    assert_int_equal(w[0].first, 0x1000);
    assert_int_equal(w[0].last, 0x1007);
    assert_int_equal(w[0].writes, 5);
    assert_string_equal(w[0].type, "struct.counters");
    assert_int_equal(w[0].offset, 0);
    assert_int_equal(w[1].thread, 2);
    assert_int_equal(w[1].first, 0x1008);
    assert_int_equal(w[1].last, 0x100f);
    assert_int_equal(w[1].offset, 8);
    tk_cachesim_get_false_sharing(s, 1, &fs);
    assert_int_equal(fs.line, 0x4000);
    assert_int_equal(fs.alternations, 2);
    assert_int_equal(fs.nthreads, 3);
    assert_int_equal(fs.threads[1].thread, 8);
    assert_int_equal(fs.threads[1].writes, 2);
    assert_null(fs.threads[2].type);
    tk_cachesim_free(s);
}

static void reuse_by_hand(void **state)
{
    (void)state;
    tk_cachesim *s = l1(TK_CACHESIM_REUSE);
    static const uint64_t lines[] = {0, 1, 2, 0, 0, 1};
    for (size_t i = 0; i < 6; i++)
        st_read(s, lines[i] * 64 + 8, 8);
    st_read(s, 2 * 64 + 60, 8); /* lines 2 and 3: distance 2, then cold */
    tk_cachesim_reuse r;
    assert_int_equal(tk_cachesim_get_reuse(s, &r), 1);
    assert_int_equal(r.cold, 4);
    assert_int_equal(r.bucket[0], 1);
    assert_int_equal(r.bucket[2], 3); /* distances 2 and 3 */
    assert_int_equal(r.nbuckets, 3);
    tk_cachesim_free(s);
    s = l1(0);
    assert_int_equal(tk_cachesim_get_reuse(s, &r), 0);
    tk_cachesim_free(s);
}

/* Against an LRU stack kept as an array (distance = position), over more
 * accesses and lines than the tree's first 1024 slots. */
static void reuse_against_stack(void **state)
{
    (void)state;
    tk_cachesim *s = l1(TK_CACHESIM_REUSE);
    enum { LINES = 3000, ACCESSES = 40000 };
    uint64_t *stack = malloc(LINES * sizeof *stack), rng = 5;
    size_t depth = 0;
    tk_cachesim_reuse want;
    memset(&want, 0, sizeof want);
    for (int i = 0; i < ACCESSES; i++) {
        uint64_t line = tu_rand(&rng) % 4 ? tu_rand_below(&rng, 200) : tu_rand_below(&rng, LINES);
        st_read(s, line * 64, 8);
        size_t d = 0;
        while (d < depth && stack[d] != line)
            d++;
        if (d == depth) {
            want.cold++;
            depth++;
        } else {
            want.bucket[d ? 64 - __builtin_clzll(d) : 0]++;
        }
        memmove(stack + 1, stack, d * sizeof *stack);
        stack[0] = line;
    }
    tk_cachesim_reuse got;
    tk_cachesim_get_reuse(s, &got);
    assert_int_equal(got.cold, want.cold);
    for (int k = 0; k < TK_CACHESIM_REUSE_BUCKETS; k++)
        if (got.bucket[k] != want.bucket[k])
            fail_msg("bucket %d: %llu, expected %llu", k, (unsigned long long)got.bucket[k],
                     (unsigned long long)want.bucket[k]);
    free(stack);
    tk_cachesim_free(s);
}

static void threads(void **state)
{
    (void)state;
    tk_cachesim *s = l1(0);
    st_access(s, 0x100, 8, 0, 42);
    st_access(s, 0x100, 8, 1, 7);
    st_access(s, 0x140, 2, 0, 42);
    st_access(s, 0x13f, 2, 0, 42); /* crosses into line 0x140 */
    assert_int_equal(tk_cachesim_threads(s), 2);
    tk_cachesim_thread t;
    tk_cachesim_get_thread(s, 0, &t);
    assert_int_equal(t.id, 42);
    expect_counts("thread 42", &t.c, 3, 0, 12, 2);
    tk_cachesim_get_thread(s, 1, &t);
    assert_int_equal(t.id, 7);
    expect_counts("thread 7", &t.c, 0, 1, 8, 0);
    tk_cachesim_free(s);
}

int main(int argc, char **argv)
{
    fixture = argc > 1 ? argv[1] : NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(types_and_lifetimes),
        cmocka_unit_test(types_over_many_pages),
        cmocka_unit_test(fields_with_layout),
        cmocka_unit_test(false_sharing),
        cmocka_unit_test(reuse_by_hand),
        cmocka_unit_test(reuse_against_stack),
        cmocka_unit_test(threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
