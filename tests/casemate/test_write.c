/* casemate writer: the exact keyword and compact text of every kind,
 * parse(write(x)) == x for random records in both forms (one at a time
 * and as whole logs), the '!' line, records the writer must reject,
 * tk_casemate_format's truncation, huge src strings and write errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_test.h"

static tk_casemate_record rec0(tk_casemate_kind kind, uint64_t id, uint64_t tid)
{
    tk_casemate_record r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.id = id;
    r.tid = tid;
    return r;
}

static void expect_text(const tk_casemate_record *r, const char *keyword, const char *compact)
{
    char buf[1024];
    size_t n = tk_casemate_format(r, TK_CASEMATE_KEYWORD, buf, sizeof buf);
    assert_string_equal(buf, keyword);
    assert_int_equal(n, strlen(keyword));
    n = tk_casemate_format(r, TK_CASEMATE_COMPACT, buf, sizeof buf);
    assert_string_equal(buf, compact);
    assert_int_equal(n, strlen(compact));
    /* both read back */
    tk_casemate_record got = cm_one(keyword);
    cm_assert_equal(r, &got);
    got = cm_one(compact);
    cm_assert_equal(r, &got);
}

static void test_exact_text(void **state)
{
    (void)state;
    tk_casemate_record r = rec0(TK_CASEMATE_MEM_WRITE, 5, 0);
    r.address = 0xaaaaaf200000;
    r.value = 0xaaaaaf201003;
    r.src_kind = TK_CASEMATE_SRC_STRING;
    r.src = "test04.c:36";
    r.src_len = 11;
    expect_text(&r,
                "(mem-write (id 5) (tid 0) (mem-order plain) (address 0xaaaaaf200000) "
                "(value 0xaaaaaf201003) (src \"test04.c:36\"))",
                "(mem-write 5 0 plain aaaaaf200000 aaaaaf201003 \"test04.c:36\")");
    r.mem_order = TK_CASEMATE_RELEASE;
    r.src_kind = TK_CASEMATE_SRC_NONE;
    expect_text(&r,
                "(mem-write (id 5) (tid 0) (mem-order release) (address 0xaaaaaf200000) "
                "(value 0xaaaaaf201003))",
                "(mem-write 5 0 release aaaaaf200000 aaaaaf201003)");

    r = rec0(TK_CASEMATE_MEM_READ, 18446744073709551615ULL, 3);
    r.address = 0;
    r.value = UINT64_MAX;
    r.src_kind = TK_CASEMATE_SRC_INT;
    r.src_int = 42;
    expect_text(&r,
                "(mem-read (id 18446744073709551615) (tid 3) (address 0x0) "
                "(value 0xffffffffffffffff) (src 42))",
                "(mem-read 18446744073709551615 3 0 ffffffffffffffff 42)");

    r = rec0(TK_CASEMATE_MEM_INIT, 0, 0);
    r.address = 0x23f000;
    r.size = 0x1000;
    expect_text(&r, "(mem-init (id 0) (tid 0) (address 0x23f000) (size 0x1000))",
                "(mem-init 0 0 23f000 1000)");
    r.kind = TK_CASEMATE_MEM_FREE;
    expect_text(&r, "(mem-free (id 0) (tid 0) (address 0x23f000) (size 0x1000))",
                "(mem-free 0 0 23f000 1000)");
    r.kind = TK_CASEMATE_MEM_SET;
    r.value = 0xff;
    expect_text(&r, "(mem-set (id 0) (tid 0) (address 0x23f000) (size 0x1000) (value 0xff))",
                "(mem-set 0 0 23f000 1000 ff)");

    r = rec0(TK_CASEMATE_SYSREG_WRITE, 12, 1);
    r.sysreg = TK_CASEMATE_TTBR0_EL2;
    r.value = 0x1aaaac1ab4000;
    expect_text(&r, "(sysreg-write (id 12) (tid 1) (sysreg ttbr0_el2) (value 0x1aaaac1ab4000))",
                "(sysreg-write 12 1 ttbr0_el2 1aaaac1ab4000)");

    r = rec0(TK_CASEMATE_BARRIER, 9, 0);
    r.barrier = TK_CASEMATE_DSB_ISHST;
    expect_text(&r, "(barrier (id 9) (tid 0) dsb (kind ishst))", "(barrier 9 0 dsb ishst)");
    r.barrier = TK_CASEMATE_DSB_SY;
    expect_text(&r, "(barrier (id 9) (tid 0) dsb (kind sy))", "(barrier 9 0 dsb sy)");
    r.barrier = TK_CASEMATE_ISB;
    expect_text(&r, "(barrier (id 9) (tid 0) isb)", "(barrier 9 0 isb)");

    r = rec0(TK_CASEMATE_TLBI, 4, 0);
    r.tlbi = TK_CASEMATE_TLBI_VMALLE1IS;
    expect_text(&r, "(tlbi (id 4) (tid 0) vmalle1is)", "(tlbi 4 0 vmalle1is)");
    r.tlbi = TK_CASEMATE_TLBI_VAE2IS;
    r.tlbi_operand = TK_CASEMATE_OPERAND_VALUE;
    r.value = 0x300000000000;
    expect_text(&r, "(tlbi (id 4) (tid 0) vae2is (value 0x300000000000))",
                "(tlbi 4 0 vae2is 300000000000)");
    r.tlbi = TK_CASEMATE_TLBI_VAE2;
    r.tlbi_operand = TK_CASEMATE_OPERAND_ADDR_LEVEL;
    r.address = 0x8000;
    r.level = 3;
    r.src_kind = TK_CASEMATE_SRC_INT;
    r.src_int = 7;
    expect_text(&r, "(tlbi (id 4) (tid 0) vae2 (addr 0x8000) (level 0x3) (src 7))",
                "(tlbi 4 0 vae2 (addr 0x8000) (level 0x3) 7)");

    r = rec0(TK_CASEMATE_HINT, 2, 0);
    r.hint = TK_CASEMATE_SET_PTE_THREAD_OWNER;
    r.location = 0x240008;
    r.value = 1;
    expect_text(&r,
                "(hint (id 2) (tid 0) (kind set_pte_thread_owner) (location 0x240008) (value 0x1))",
                "(hint 2 0 set_pte_thread_owner 240008 1)");

    static const tk_casemate_kind locks[] = {TK_CASEMATE_LOCK, TK_CASEMATE_TRYLOCK, TK_CASEMATE_UNLOCK};
    static const char *const kw[] = {"(lock (id 1) (tid 2) (address 0x242000) (src \"\"))",
                                     "(trylock (id 1) (tid 2) (address 0x242000) (src \"\"))",
                                     "(unlock (id 1) (tid 2) (address 0x242000) (src \"\"))"};
    static const char *const cp[] = {"(lock 1 2 242000 \"\")", "(trylock 1 2 242000 \"\")",
                                     "(unlock 1 2 242000 \"\")"};
    for (int i = 0; i < 3; i++) {
        r = rec0(locks[i], 1, 2);
        r.address = 0x242000;
        r.src_kind = TK_CASEMATE_SRC_STRING;
        r.src = "";
        r.src_len = 0;
        expect_text(&r, kw[i], cp[i]);
    }
}

/* ---- round trips of random records */

static uint64_t rs;

static uint64_t rnum(void)
{
    switch (tu_rand_below(&rs, 4)) {
    case 0: return tu_rand_below(&rs, 16);
    case 1: return tu_rand(&rs);
    case 2: return UINT64_MAX - tu_rand_below(&rs, 3);
    default: return tu_rand_below(&rs, 1u << 20);
    }
}

static char pool[1 << 12];

/* A random record the writer accepts (any byte but '"' in src). */
static tk_casemate_record random_record(void)
{
    tk_casemate_record r = rec0((tk_casemate_kind)tu_rand_below(&rs, TK_CASEMATE_KIND_COUNT), rnum(),
                                rnum());
    r.address = rnum();
    r.value = rnum();
    r.size = rnum();
    r.location = rnum();
    r.mem_order = (tk_casemate_mem_order)tu_rand_below(&rs, TK_CASEMATE_MEM_ORDER_COUNT);
    r.barrier = (tk_casemate_barrier)tu_rand_below(&rs, TK_CASEMATE_BARRIER_COUNT);
    r.tlbi = (tk_casemate_tlbi)tu_rand_below(&rs, TK_CASEMATE_TLBI_COUNT);
    r.sysreg = (tk_casemate_sysreg)tu_rand_below(&rs, TK_CASEMATE_SYSREG_COUNT);
    r.hint = (tk_casemate_hint)tu_rand_below(&rs, TK_CASEMATE_HINT_COUNT);
    if (tk_casemate_tlbi_has_operand(r.tlbi))
        r.tlbi_operand = tu_rand_below(&rs, 2) ? TK_CASEMATE_OPERAND_VALUE : TK_CASEMATE_OPERAND_ADDR_LEVEL;
    r.level = rnum();
    r.src_kind = (tk_casemate_src_kind)tu_rand_below(&rs, 3);
    r.src_int = rnum();
    if (r.src_kind == TK_CASEMATE_SRC_STRING) {
        size_t n = tu_rand_below(&rs, tu_rand_below(&rs, 20) ? 40 : sizeof pool);
        for (size_t i = 0; i < n; i++) {
            pool[i] = (char)tu_rand_below(&rs, 256);
            if (pool[i] == '"')
                pool[i] = '\'';
        }
        r.src = pool;
        r.src_len = n;
    }
    assert_null(tk_casemate_record_problem(&r));
    return r;
}

static void test_roundtrip_records(void **state)
{
    (void)state;
    rs = 1;
    char *buf = malloc(TK_CASEMATE_FORMAT_MAX + sizeof pool);
    assert_non_null(buf);
    for (int i = 0; i < 100000; i++) {
        tk_casemate_record r = random_record();
        for (int style = 0; style < 2; style++) {
            size_t n = tk_casemate_format(&r, (tk_casemate_style)style, buf,
                                          TK_CASEMATE_FORMAT_MAX + sizeof pool);
            assert_true(n < TK_CASEMATE_FORMAT_MAX + r.src_len);
            cm_recs got;
            tk_error err;
            if (cm_read_mem(buf, n, &got, &err) != 0 || got.n != 1)
                fail_msg("'%s' does not read back: %s", buf, err.message);
            cm_assert_equal(&r, &got.v[0]);
            cm_recs_free(&got);
        }
    }
    free(buf);
}

/* Whole logs through the writer, then read back; the writer's lines are
 * tk_casemate_format's; the expected line comes back too. */
static void test_roundtrip_logs(void **state)
{
    (void)state;
    rs = 2;
    enum { N = 20000 };
    tk_casemate_record *recs = malloc(N * sizeof *recs);
    char **srcs = calloc(N, sizeof *srcs);
    assert_true(recs && srcs);
    for (int i = 0; i < N; i++) {
        recs[i] = random_record();
        if (recs[i].src_kind == TK_CASEMATE_SRC_STRING) {
            srcs[i] = malloc(recs[i].src_len + 1);
            memcpy(srcs[i], recs[i].src, recs[i].src_len);
            recs[i].src = srcs[i];
        }
    }
    for (int style = 0; style < 2; style++) {
        tu_capture c;
        tu_capture_open(&c);
        tk_error err;
        tk_casemate_writer *w = tk_casemate_writer_new(c.fp, (tk_casemate_style)style, &err);
        assert_non_null(w);
        for (int i = 0; i < N; i++)
            assert_int_equal(tk_casemate_write(w, &recs[i], &err), TK_OK);
        assert_int_equal(tk_casemate_write_expected(w, "BBM valid->valid", 16, &err), TK_OK);
        assert_int_equal(tk_casemate_writer_free(w, &err), TK_OK);
        size_t len;
        char *text = tu_capture_close(&c);
        len = c.len;
        cm_recs got;
        assert_int_equal(cm_read_mem(text, len, &got, &err), 0);
        assert_int_equal(got.n, N);
        char line[TK_CASEMATE_FORMAT_MAX + sizeof pool];
        size_t at = 0;
        for (int i = 0; i < N; i++) {
            cm_assert_equal(&recs[i], &got.v[i]);
            assert_int_equal(got.off[i], at);
            size_t n = tk_casemate_format(&recs[i], (tk_casemate_style)style, line, sizeof line);
            assert_memory_equal(text + at, line, n);
            assert_int_equal(text[at + n], '\n');
            at += n + 1;
        }
        assert_string_equal(text + at, "! BBM valid->valid\n");
        assert_string_equal(got.expected, "BBM valid->valid");
        cm_recs_free(&got);
        free(text);
    }
    for (int i = 0; i < N; i++)
        free(srcs[i]);
    free(srcs);
    free(recs);
}

/* ---- the expected-result line */

static void test_expected(void **state)
{
    (void)state;
    tu_capture c;
    tu_capture_open(&c);
    tk_error err;
    tk_casemate_writer *w = tk_casemate_writer_new(c.fp, TK_CASEMATE_COMPACT, &err);
    assert_int_equal(tk_casemate_write_expected(w, "a\nb", 3, &err), TK_EUSAGE);
    assert_string_equal(err.message, "the expected-result text must be one line");
    assert_int_equal(tk_casemate_write_expected(w, NULL, 0, &err), TK_OK);
    assert_int_equal(tk_casemate_writer_flush(w, &err), TK_OK);
    /* longer than the writer's buffer */
    size_t n = (size_t)600 << 10;
    char *t = malloc(n);
    memset(t, 'x', n);
    assert_int_equal(tk_casemate_write_expected(w, t, n, &err), TK_OK);
    assert_int_equal(tk_casemate_writer_free(w, &err), TK_OK);
    char *text = tu_capture_close(&c);
    assert_int_equal(c.len, 2 + 2 + n + 1);
    assert_memory_equal(text, "!\n! xxx", 7);
    assert_int_equal(text[c.len - 1], '\n');
    cm_recs got;
    assert_int_equal(cm_read_mem(text, c.len, &got, &err), 0);
    assert_int_equal(got.n, 0);
    assert_string_equal(got.expected, ""); /* the first '!' line ends the log */
    cm_recs_free(&got);
    free(text);
    free(t);
}

/* ---- what the writer rejects */

static void expect_rejected(tk_casemate_record r, const char *why)
{
    assert_non_null(tk_casemate_record_problem(&r));
    assert_string_equal(tk_casemate_record_problem(&r), why);
    tu_capture c;
    tu_capture_open(&c);
    tk_error err;
    tk_casemate_writer *w = tk_casemate_writer_new(c.fp, TK_CASEMATE_KEYWORD, &err);
    assert_int_equal(tk_casemate_write(w, &r, &err), TK_EUSAGE);
    char want[256];
    snprintf(want, sizeof want, "cannot write casemate record: %s", why);
    assert_string_equal(err.message, want);
    assert_int_equal(tk_casemate_writer_free(w, &err), TK_OK);
    free(tu_capture_close(&c));
    assert_int_equal(c.len, 0);
}

static void test_rejects(void **state)
{
    (void)state;
    tk_casemate_record r = rec0(TK_CASEMATE_KIND_COUNT, 0, 0);
    expect_rejected(r, "record kind out of range");
    r = rec0((tk_casemate_kind)-1, 0, 0);
    expect_rejected(r, "record kind out of range");
    r = rec0(TK_CASEMATE_MEM_WRITE, 0, 0);
    r.mem_order = TK_CASEMATE_MEM_ORDER_COUNT;
    expect_rejected(r, "memory order out of range");
    r = rec0(TK_CASEMATE_SYSREG_WRITE, 0, 0);
    r.sysreg = TK_CASEMATE_SYSREG_COUNT;
    expect_rejected(r, "system register out of range");
    r = rec0(TK_CASEMATE_BARRIER, 0, 0);
    r.barrier = TK_CASEMATE_BARRIER_COUNT;
    expect_rejected(r, "barrier kind out of range");
    r = rec0(TK_CASEMATE_HINT, 0, 0);
    r.hint = TK_CASEMATE_HINT_COUNT;
    expect_rejected(r, "hint kind out of range");
    r = rec0(TK_CASEMATE_TLBI, 0, 0);
    r.tlbi = TK_CASEMATE_TLBI_COUNT;
    expect_rejected(r, "TLBI operation out of range");
    r.tlbi = TK_CASEMATE_TLBI_IPAS2E1IS;
    expect_rejected(r, "this TLBI operation needs an operand (value, or addr and level)");
    r.tlbi_operand = (tk_casemate_tlbi_operand)7;
    expect_rejected(r, "this TLBI operation needs an operand (value, or addr and level)");
    r.tlbi = TK_CASEMATE_TLBI_ALLE2IS;
    r.tlbi_operand = TK_CASEMATE_OPERAND_VALUE;
    expect_rejected(r, "this TLBI operation takes no operand");
    r = rec0(TK_CASEMATE_LOCK, 0, 0);
    r.src_kind = TK_CASEMATE_SRC_STRING;
    r.src = "a\"b";
    r.src_len = 3;
    expect_rejected(r, "src string contains '\"' (the format has no escapes)");
    r.src = NULL;
    expect_rejected(r, "src string missing");
    r.src_kind = (tk_casemate_src_kind)9;
    expect_rejected(r, "src kind out of range");
    /* a src of length 0 may be NULL; fields a kind does not use are ignored */
    r = rec0(TK_CASEMATE_LOCK, 0, 0);
    r.src_kind = TK_CASEMATE_SRC_STRING;
    r.mem_order = (tk_casemate_mem_order)99;
    r.tlbi_operand = TK_CASEMATE_OPERAND_VALUE;
    assert_null(tk_casemate_record_problem(&r));

    tk_error err;
    assert_null(tk_casemate_writer_new(stdout, (tk_casemate_style)2, &err));
    assert_int_equal(err.status, TK_EUSAGE);
}

/* ---- tk_casemate_format, names, big records, write errors */

static void test_format_and_names(void **state)
{
    (void)state;
    tk_casemate_record r = rec0(TK_CASEMATE_LOCK, 1, 2);
    r.address = 0x10;
    const char *full = "(lock (id 1) (tid 2) (address 0x10))";
    char buf[64];
    for (size_t size = 0; size < sizeof buf; size++) {
        memset(buf, '#', sizeof buf);
        assert_int_equal(tk_casemate_format(&r, TK_CASEMATE_KEYWORD, buf, size), strlen(full));
        if (size) {
            size_t k = size - 1 < strlen(full) ? size - 1 : strlen(full);
            assert_memory_equal(buf, full, k);
            assert_int_equal(buf[k], '\0');
        }
        assert_int_equal(buf[size], '#');
    }
    assert_int_equal(tk_casemate_format(&r, TK_CASEMATE_COMPACT, NULL, 0), strlen("(lock 1 2 10)"));

    assert_string_equal(tk_casemate_kind_name(TK_CASEMATE_SYSREG_WRITE), "sysreg-write");
    assert_string_equal(tk_casemate_kind_name(TK_CASEMATE_KIND_COUNT), "?");
    assert_string_equal(tk_casemate_mem_order_name(TK_CASEMATE_RELEASE), "release");
    assert_string_equal(tk_casemate_mem_order_name(TK_CASEMATE_MEM_ORDER_COUNT), "?");
    assert_string_equal(tk_casemate_barrier_name(TK_CASEMATE_DSB_SY), "dsb sy");
    assert_string_equal(tk_casemate_barrier_name(TK_CASEMATE_ISB), "isb");
    assert_string_equal(tk_casemate_barrier_name(TK_CASEMATE_BARRIER_COUNT), "?");
    assert_string_equal(tk_casemate_tlbi_name(TK_CASEMATE_TLBI_COUNT), "?");
    assert_string_equal(tk_casemate_sysreg_name(TK_CASEMATE_SYSREG_COUNT), "?");
    assert_string_equal(tk_casemate_hint_name(TK_CASEMATE_RELEASE_TABLE), "release_table");
    assert_string_equal(tk_casemate_hint_name(TK_CASEMATE_HINT_COUNT), "?");
    int operands = 0;
    for (int t = 0; t < TK_CASEMATE_TLBI_COUNT; t++)
        operands += tk_casemate_tlbi_has_operand((tk_casemate_tlbi)t);
    assert_int_equal(operands, 4);
}

static void test_huge_src(void **state)
{
    (void)state;
    size_t n = (size_t)3 << 20; /* more than the writer's buffer */
    char *s = malloc(n);
    for (size_t i = 0; i < n; i++)
        s[i] = (char)('a' + i % 26);
    tk_casemate_record r = rec0(TK_CASEMATE_UNLOCK, 3, 4);
    r.src_kind = TK_CASEMATE_SRC_STRING;
    r.src = s;
    r.src_len = n;
    tk_casemate_record small = rec0(TK_CASEMATE_LOCK, 2, 4);
    tu_capture c;
    tu_capture_open(&c);
    tk_error err;
    tk_casemate_writer *w = tk_casemate_writer_new(c.fp, TK_CASEMATE_COMPACT, &err);
    assert_int_equal(tk_casemate_write(w, &small, &err), TK_OK);
    assert_int_equal(tk_casemate_write(w, &r, &err), TK_OK);
    assert_int_equal(tk_casemate_write(w, &small, &err), TK_OK);
    assert_int_equal(tk_casemate_writer_free(w, &err), TK_OK);
    char *text = tu_capture_close(&c);
    cm_recs got;
    assert_int_equal(cm_read_mem(text, c.len, &got, &err), 0);
    assert_int_equal(got.n, 3);
    cm_assert_equal(&small, &got.v[0]);
    cm_assert_equal(&r, &got.v[1]);
    cm_assert_equal(&small, &got.v[2]);
    cm_recs_free(&got);
    free(text);
    free(s);
}

static void test_write_errors(void **state)
{
    (void)state;
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        skip();
    setvbuf(full, NULL, _IONBF, 0);
    tk_error err;
    tk_casemate_writer *w = tk_casemate_writer_new(full, TK_CASEMATE_KEYWORD, &err);
    tk_casemate_record r = rec0(TK_CASEMATE_LOCK, 1, 0);
    assert_int_equal(tk_casemate_write(w, &r, &err), TK_OK); /* buffered */
    assert_int_equal(tk_casemate_writer_flush(w, &err), TK_EIO);
    assert_string_equal(err.message, "writing casemate output failed");
    assert_int_equal(tk_casemate_write(w, &r, &err), TK_OK);
    assert_int_equal(tk_casemate_writer_free(w, &err), TK_EIO);
    assert_int_equal(tk_casemate_writer_free(NULL, &err), TK_OK);
    fclose(full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_text),
        cmocka_unit_test(test_roundtrip_records),
        cmocka_unit_test(test_roundtrip_logs),
        cmocka_unit_test(test_expected),
        cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_format_and_names),
        cmocka_unit_test(test_huge_src),
        cmocka_unit_test(test_write_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
