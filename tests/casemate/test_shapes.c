/* Scale in one dimension (issue 23, bench/shapes.sh): the checker's state
 * follows the trees alive, not the trees ever seen. Roots released and
 * tables that left their tree give their pages back (before, each kept
 * ~29 KB: 4 KiB of slots and a 512-entry array), and memory let go that
 * way still reads as it was: a released root loaded again walks its
 * initialised entries, values and all. */
#include "cm_test.h"

#include <tracekit/casemate_check.h>

#define PAGES 0x40000000ull
#define LOCKS 0x7f000000ull

static tk_casemate_checker *K;
static uint64_t id;

static void feed(tk_casemate_record *rec, tk_casemate_kind kind)
{
    tk_error err;
    rec->kind = kind;
    rec->id = id++;
    int rc = tk_casemate_check_feed(K, rec, &err);
    if (rc != 0) {
        tk_casemate_check_print_context(K, stderr);
        fail_msg("record %llu: %d", (unsigned long long)rec->id, rc);
    }
    memset(rec, 0, sizeof *rec);
}

static void sysreg(tk_casemate_sysreg reg, uint64_t v)
{
    tk_casemate_record r = {.sysreg = reg, .value = v};
    feed(&r, TK_CASEMATE_SYSREG_WRITE);
}

static void hint(tk_casemate_hint h, uint64_t loc, uint64_t v)
{
    tk_casemate_record r = {.hint = h, .location = loc, .value = v};
    feed(&r, TK_CASEMATE_HINT);
}

static void mem(tk_casemate_kind kind, uint64_t addr, uint64_t v)
{
    tk_casemate_record r = {.address = addr, .value = v, .size = v};
    feed(&r, kind);
}

static tk_casemate_check_stats stats(void)
{
    tk_casemate_check_stats s;
    tk_casemate_check_get_stats(K, &s);
    return s;
}

/* 20000 stage-2 roots of 2-entry start tables, 256 alive at once */
static void test_roots_released(void **state)
{
    (void)state;
    enum { N = 20000, LIVE = 256 };
    tk_error err;
    K = tk_casemate_check_new(NULL, &err);
    assert_non_null(K);
    sysreg(TK_CASEMATE_VTCR_EL2, 0x2a); /* T0SZ 42: level 2, 2 entries */
    sysreg(TK_CASEMATE_HCR_EL2, 1);
    mem(TK_CASEMATE_MEM_INIT, PAGES, (uint64_t)N * 0x1000);
    mem(TK_CASEMATE_MEM_WRITE, PAGES + 8, 0x1234000); /* root 0's entry 1: invalid */
    for (uint64_t i = 0; i < N; i++) {
        uint64_t base = PAGES + i * 0x1000;
        if (i >= LIVE)
            hint(TK_CASEMATE_RELEASE_TABLE, base - LIVE * 0x1000, 0);
        hint(TK_CASEMATE_SET_ROOT_LOCK, base, LOCKS + 8 * i);
        sysreg(TK_CASEMATE_VTTBR_EL2, base | (1 + i % LIVE) << 48);
    }
    tk_casemate_check_stats s = stats();
    assert_int_equal(s.roots, LIVE);
    assert_int_equal(s.entries, 2 * LIVE);
    assert_true(s.pages <= LIVE + 1); /* was N: every root's page kept */
    /* root 0, released long ago, comes back with its values */
    hint(TK_CASEMATE_RELEASE_TABLE, PAGES + (N - LIVE) * 0x1000, 0);
    sysreg(TK_CASEMATE_VTTBR_EL2, PAGES | (uint64_t)(1 + (N - LIVE) % LIVE) << 48);
    s = stats();
    assert_int_equal(s.entries, 2 * LIVE);
    assert_int_equal(s.invalid_clean, 2 * LIVE);
    tk_casemate_record r = {.address = PAGES + 8, .value = 0x1234000};
    feed(&r, TK_CASEMATE_MEM_READ); /* an entry again: the value must match */
    r = (tk_casemate_record){.address = PAGES + 8, .value = 0};
    r.kind = TK_CASEMATE_MEM_READ;
    r.id = id++;
    assert_int_equal(tk_casemate_check_feed(K, &r, &err), 1); /* pte-changed */
    tk_casemate_check_free(K);
    K = NULL;
}

/* 3000 level-3 tables through 64 slots of a level-2 table, each replaced
 * with a full break-before-make */
static void test_tables_left(void **state)
{
    (void)state;
    enum { N = 3000, SLOTS = 64 };
    tk_error err;
    K = tk_casemate_check_new(NULL, &err);
    assert_non_null(K);
    uint64_t l0 = PAGES, l1 = l0 + 0x1000, l2 = l1 + 0x1000, l3 = l2 + 0x1000;
    mem(TK_CASEMATE_MEM_INIT, PAGES, (3 + N) * 0x1000ull);
    hint(TK_CASEMATE_SET_ROOT_LOCK, l0, LOCKS);
    mem(TK_CASEMATE_MEM_WRITE, l1, l2 | 3);
    mem(TK_CASEMATE_MEM_WRITE, l0, l1 | 3);
    sysreg(TK_CASEMATE_VTTBR_EL2, l0 | 1ull << 48);
    tk_casemate_record r = {.address = LOCKS};
    for (uint64_t i = 0; i < N; i++) {
        uint64_t slot = l2 + 8 * (i % SLOTS);
        r.address = LOCKS;
        feed(&r, TK_CASEMATE_LOCK);
        if (i >= SLOTS) {
            mem(TK_CASEMATE_MEM_WRITE, slot, 0);
            r.barrier = TK_CASEMATE_DSB_ISH;
            feed(&r, TK_CASEMATE_BARRIER);
            r.tlbi = TK_CASEMATE_TLBI_VMALLS12E1IS;
            feed(&r, TK_CASEMATE_TLBI);
            r.barrier = TK_CASEMATE_DSB_ISH;
            feed(&r, TK_CASEMATE_BARRIER);
        }
        mem(TK_CASEMATE_MEM_WRITE, slot, (l3 + i * 0x1000) | 3);
        r.address = LOCKS;
        feed(&r, TK_CASEMATE_UNLOCK);
    }
    tk_casemate_check_stats s = stats();
    assert_int_equal(s.entries, 3 * 512 + SLOTS * 512);
    assert_true(s.pages <= 3 + SLOTS); /* was 3 + N */
    tk_casemate_check_free(K);
    K = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roots_released),
        cmocka_unit_test(test_tables_left),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
