/* casemate reader: every accepted spelling (keyword and positional fields,
 * mixed; src third, last, missing or an integer; aliases; case; 0x), the
 * '!' line, comments and CRLF, locations, every error message with its
 * exact line:col, records of any length across window edges, pipes, many
 * threads, and a randomized spelling test against known records. */
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

static tk_casemate_record with_src(tk_casemate_record r, const char *src)
{
    r.src_kind = TK_CASEMATE_SRC_STRING;
    r.src = src;
    r.src_len = strlen(src);
    return r;
}

static void expect_one(const char *text, tk_casemate_record want)
{
    tk_casemate_record got = cm_one(text);
    cm_assert_equal(&want, &got);
}

/* ---- every kind, canonical keyword form */

static void test_kinds_keyword(void **state)
{
    (void)state;
    tk_casemate_record r;

    r = with_src(rec0(TK_CASEMATE_MEM_WRITE, 5, 0), "test04.c:36");
    r.mem_order = TK_CASEMATE_PLAIN;
    r.address = 0xaaaaaf200000;
    r.value = 0xaaaaaf201003;
    expect_one("(mem-write (id 5) (tid 0) (mem-order plain) (address 0xaaaaaf200000) "
               "(value 0xaaaaaf201003) (src \"test04.c:36\"))", r);
    r.mem_order = TK_CASEMATE_RELEASE;
    expect_one("(mem-write (id 5) (tid 0) (mem-order release) (address 0xaaaaaf200000) "
               "(value 0xaaaaaf201003) (src \"test04.c:36\"))", r);

    r = with_src(rec0(TK_CASEMATE_MEM_READ, 1, 2), "r.c:1");
    r.address = 0x1000;
    r.value = 0x3;
    expect_one("(mem-read (id 1) (tid 2) (address 0x1000) (value 0x3) (src \"r.c:1\"))", r);

    r = with_src(rec0(TK_CASEMATE_MEM_INIT, 0, 0), "t.c:29");
    r.address = 0xaaaaaf200000;
    r.size = 0x1000;
    expect_one("(mem-init (id 0) (tid 0) (address 0xaaaaaf200000) (size 0x1000) (src \"t.c:29\"))", r);
    r.kind = TK_CASEMATE_MEM_FREE;
    expect_one("(mem-free (id 0) (tid 0) (address 0xaaaaaf200000) (size 0x1000) (src \"t.c:29\"))", r);

    r = with_src(rec0(TK_CASEMATE_MEM_SET, 7, 1), "s.c:2");
    r.address = 0x2000;
    r.size = 0x40;
    r.value = 0xff;
    expect_one("(mem-set (id 7) (tid 1) (address 0x2000) (size 0x40) (value 0xff) (src \"s.c:2\"))", r);

    static const char *const sysregs[] = {"vttbr_el2", "ttbr0_el2", "vtcr_el2", "hcr_el2",
                                          "tcr_el2", "sctlr_el2", "mair_el2"};
    for (int i = 0; i < TK_CASEMATE_SYSREG_COUNT; i++) {
        char text[256];
        snprintf(text, sizeof text,
                 "(sysreg-write (id 6) (tid 0) (sysreg %s) (value 0xaaaaaf200000) (src \"x:1\"))",
                 sysregs[i]);
        r = with_src(rec0(TK_CASEMATE_SYSREG_WRITE, 6, 0), "x:1");
        r.sysreg = (tk_casemate_sysreg)i;
        r.value = 0xaaaaaf200000;
        expect_one(text, r);
        assert_string_equal(tk_casemate_sysreg_name((tk_casemate_sysreg)i), sysregs[i]);
    }

    static const char *const dsb[] = {"nsh", "ish", "ishst", "sy"};
    for (int i = 0; i < 4; i++) {
        char text[256];
        snprintf(text, sizeof text, "(barrier (id 9) (tid 0) dsb (kind %s) (src \"b:43\"))", dsb[i]);
        r = with_src(rec0(TK_CASEMATE_BARRIER, 9, 0), "b:43");
        r.barrier = (tk_casemate_barrier)i;
        expect_one(text, r);
    }
    r = with_src(rec0(TK_CASEMATE_BARRIER, 6, 0), "simple.c:26");
    r.barrier = TK_CASEMATE_ISB;
    expect_one("(barrier (id 6) (tid 0) isb (src \"simple.c:26\"))", r);

    static const char *const tlbis[] = {"vmalls12e1", "vmalls12e1is", "vmalle1is", "alle1",
                                        "alle1is", "vmalle1", "alle2", "alle2is",
                                        "vale2is", "vae2is", "ipas2e1is", "vae2"};
    for (int i = 0; i < TK_CASEMATE_TLBI_COUNT; i++) {
        char text[256];
        r = with_src(rec0(TK_CASEMATE_TLBI, 4, 0), "t:24");
        r.tlbi = (tk_casemate_tlbi)i;
        assert_string_equal(tk_casemate_tlbi_name(r.tlbi), tlbis[i]);
        if (tk_casemate_tlbi_has_operand(r.tlbi)) {
            snprintf(text, sizeof text, "(tlbi (id 4) (tid 0) %s (value 300000000000) (src \"t:24\"))",
                     tlbis[i]);
            r.tlbi_operand = TK_CASEMATE_OPERAND_VALUE;
            r.value = 0x300000000000;
            expect_one(text, r);
            snprintf(text, sizeof text,
                     "(tlbi (id 4) (tid 0) %s (addr 0x8000) (level 3) (src \"t:24\"))", tlbis[i]);
            r.tlbi_operand = TK_CASEMATE_OPERAND_ADDR_LEVEL;
            r.value = 0;
            r.address = 0x8000;
            r.level = 3;
            expect_one(text, r);
        } else {
            snprintf(text, sizeof text, "(tlbi (id 4) (tid 0) %s (src \"t:24\"))", tlbis[i]);
            expect_one(text, r);
        }
    }

    static const char *const hints[] = {"set_root_lock", "set_owner_root", "release_table",
                                        "set_pte_thread_owner"};
    for (int i = 0; i < TK_CASEMATE_HINT_COUNT; i++) {
        char text[256];
        snprintf(text, sizeof text,
                 "(hint (id 2) (tid 0) (kind %s) (location 0xaaaaaf200000) "
                 "(value 0xaaaaaf203000) (src \"h:31\"))", hints[i]);
        r = with_src(rec0(TK_CASEMATE_HINT, 2, 0), "h:31");
        r.hint = (tk_casemate_hint)i;
        r.location = 0xaaaaaf200000;
        r.value = 0xaaaaaf203000;
        expect_one(text, r);
    }

    r = with_src(rec0(TK_CASEMATE_LOCK, 7, 0), "l:41");
    r.address = 0xaaaaaf203000;
    expect_one("(lock (id 7) (tid 0) (address 0xaaaaaf203000) (src \"l:41\"))", r);
    r.kind = TK_CASEMATE_TRYLOCK;
    expect_one("(trylock (id 7) (tid 0) (address 0xaaaaaf203000) (src \"l:41\"))", r);
    r.kind = TK_CASEMATE_UNLOCK;
    expect_one("(unlock (id 7) (tid 0) (address 0xaaaaaf203000) (src \"l:41\"))", r);
}

/* ---- the other spellings */

static void test_positional(void **state)
{
    (void)state;
    tk_casemate_record r;
    /* src last, casemate-check -c: hex without 0x */
    r = with_src(rec0(TK_CASEMATE_MEM_INIT, 1, 0), "f.c:1");
    r.address = 0x1000;
    r.size = 0x1000;
    expect_one("(mem-init 1 0 1000 1000 \"f.c:1\")", r);
    /* the spec document's examples: src third, upper-case words, msr */
    r = with_src(rec0(TK_CASEMATE_MEM_WRITE, 1, 1), "src");
    r.mem_order = TK_CASEMATE_RELEASE;
    r.address = 0x42;
    r.value = 0x93;
    expect_one("(mem-write 1 1 \"src\" release 42 93)", r);
    r = with_src(rec0(TK_CASEMATE_LOCK, 2, 1), "src");
    r.address = 0x42;
    expect_one("(lock 2 1 \"src\" 42)", r);
    r = with_src(rec0(TK_CASEMATE_SYSREG_WRITE, 3, 1), "src");
    r.sysreg = TK_CASEMATE_TTBR0_EL2;
    r.value = 0x93;
    expect_one("(msr 3 1 \"src\" TTBR_EL2 93)", r);
    r = with_src(rec0(TK_CASEMATE_BARRIER, 4, 1), "src");
    r.barrier = TK_CASEMATE_DSB_ISH;
    expect_one("(barrier 4 1 \"src\" DSB ISH)", r);
    r = with_src(rec0(TK_CASEMATE_HINT, 5, 1), "src");
    r.hint = TK_CASEMATE_SET_PTE_THREAD_OWNER;
    r.location = 0x42;
    r.value = 0x93;
    expect_one("(hint 5 1 \"src\" SET_PTE_THREAD_OWNER 42 93)", r);
    /* src third in keyword form */
    r = with_src(rec0(TK_CASEMATE_LOCK, 2, 1), "k");
    r.address = 0x42;
    expect_one("(lock (id 2) (tid 1) (src \"k\") (address 42))", r);
    /* positional TLBI operand, dsb kind and isb */
    r = with_src(rec0(TK_CASEMATE_TLBI, 3, 0), "x");
    r.tlbi = TK_CASEMATE_TLBI_IPAS2E1IS;
    r.tlbi_operand = TK_CASEMATE_OPERAND_VALUE;
    r.value = 0xabc;
    expect_one("(tlbi 3 0 ipas2e1is abc \"x\")", r);
    r = with_src(rec0(TK_CASEMATE_BARRIER, 3, 0), "x");
    r.barrier = TK_CASEMATE_DSB_ISHST;
    expect_one("(barrier 3 0 dsb ishst \"x\")", r);
    r.barrier = TK_CASEMATE_ISB;
    expect_one("(barrier 3 0 isb \"x\")", r);
}

static void test_mixed_and_src(void **state)
{
    (void)state;
    tk_casemate_record r = rec0(TK_CASEMATE_MEM_WRITE, 12, 3);
    r.mem_order = TK_CASEMATE_PLAIN;
    r.address = 0x10;
    r.value = 0x20;
    /* no src */
    expect_one("(mem-write 12 3 plain 10 20)", r);
    expect_one("(mem-write (id 12) (tid 3) (mem-order plain) (address 10) (value 20))", r);
    expect_one("(mem-write 12 (tid 3) plain (address 0x10) 20)", r);
    expect_one("(mem-write (id 12) 3 (mem-order plain) 10 (value 0x20))", r);
    /* integer src, last */
    r.src_kind = TK_CASEMATE_SRC_INT;
    r.src_int = 17;
    expect_one("(mem-write 12 3 plain 10 20 17)", r);
    expect_one("(mem-write 12 3 plain 10 20 (src 17))", r);
    expect_one("(mem-write (id 12) (tid 3) (mem-order plain) (address 10) (value 20) (src 0x11))", r);
    /* integer src third in keyword form */
    expect_one("(mem-write 12 3 (src 17) plain 10 20)", r);
    /* string src: anything but '"', across lines, empty */
    r = with_src(r, "a (b) ; c\n d");
    expect_one("(mem-write 12 3 plain 10 20 \"a (b) ; c\n d\")", r);
    r = with_src(r, "");
    expect_one("(mem-write 12 3 plain 10 20 \"\")", r);
    expect_one("(mem-write 12 3 \"\" plain 10 20)", r);
    /* the thread key, upper-case keys and kinds, 0X and upper-case digits */
    r = rec0(TK_CASEMATE_UNLOCK, 1, 9);
    r.address = 0xABCDEF;
    expect_one("(unlock (id 1) (thread 9) (address 0xabcdef))", r);
    expect_one("(UNLOCK (ID 1) (THREAD 9) (ADDRESS 0XABCDEF))", r);
    expect_one("(Unlock (Id 1) (Tid 9) (Address AbCdEf))", r);
    /* decimal ids, hex ids with 0x; hex everywhere else even without 0x */
    r = rec0(TK_CASEMATE_LOCK, 16, 16);
    r.address = 0x16;
    expect_one("(lock 0x10 0x10 16)", r);
    expect_one("(lock (id 16) (tid 16) (address 16))", r);
    /* TLBI (addr) then a positional level */
    r = rec0(TK_CASEMATE_TLBI, 1, 0);
    r.tlbi = TK_CASEMATE_TLBI_VAE2;
    r.tlbi_operand = TK_CASEMATE_OPERAND_ADDR_LEVEL;
    r.address = 0x1000;
    r.level = 2;
    expect_one("(tlbi 1 0 vae2 (addr 1000) 2)", r);
    expect_one("(tlbi 1 0 VAE2 (ADDR 1000) (LEVEL 2))", r);
    /* (value V) keyword operand for an operation written in upper case */
    r.tlbi = TK_CASEMATE_TLBI_VALE2IS;
    r.tlbi_operand = TK_CASEMATE_OPERAND_VALUE;
    r.address = r.level = 0;
    r.value = 0x5;
    expect_one("(tlbi 1 0 VALE2IS (value 5))", r);
}

static void test_numbers(void **state)
{
    (void)state;
    tk_casemate_record r = rec0(TK_CASEMATE_MEM_READ, UINT64_MAX, UINT64_MAX);
    r.address = UINT64_MAX;
    r.value = 0;
    expect_one("(mem-read 18446744073709551615 18446744073709551615 ffffffffffffffff 0)", r);
    expect_one("(mem-read 0xffffffffffffffff 0XFFFFFFFFFFFFFFFF 0xFFFFFFFFFFFFFFFF 0x0)", r);
    /* leading zeros do not count against 64 bits */
    r = rec0(TK_CASEMATE_MEM_READ, 7, 0);
    r.address = 1;
    r.value = 0x10;
    expect_one("(mem-read 000000000000000000000007 0 0x000000000000000000000001 "
               "00000000000000000000000000010)", r);
}

static void test_blanks_comments_crlf(void **state)
{
    (void)state;
    const char *text =
        "\xEF\xBB\xBF; a comment before anything\r\n"
        "\r\n"
        "(lock\t(id 1)\r\n  (tid 0) ; comment inside a record (with brackets)\r\n"
        "  (address\t0x10) \"s\"\r\n)(unlock 2 0 10)\r\n"
        "\f\v  ;; the last line is a comment without a newline";
    cm_recs r;
    tk_error err;
    assert_int_equal(cm_read_mem(text, strlen(text), &r, &err), 0);
    assert_int_equal(r.n, 2);
    tk_casemate_record want = with_src(rec0(TK_CASEMATE_LOCK, 1, 0), "s");
    want.address = 0x10;
    cm_assert_equal(&want, &r.v[0]);
    want = rec0(TK_CASEMATE_UNLOCK, 2, 0);
    want.address = 0x10;
    cm_assert_equal(&want, &r.v[1]);
    assert_int_equal(r.line[0], 3);
    assert_int_equal(r.col[0], 1);
    assert_int_equal(r.line[1], 6);
    assert_int_equal(r.col[1], 2);
    assert_int_equal(r.lines, 7);
    assert_null(r.expected);
    assert_int_equal(r.tell, strlen(text));
    cm_recs_free(&r);

    /* nothing but blanks and comments: no records */
    static const char *const empty[] = {"", "\n", " \t\r\n", "; x", "; x\n;y\r\n"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        assert_int_equal(cm_read_mem(empty[i], strlen(empty[i]), &r, &err), 0);
        assert_int_equal(r.n, 0);
        cm_recs_free(&r);
    }
}

/* ---- the expected-result line */

static void test_expected_line(void **state)
{
    (void)state;
    struct {
        const char *text;
        size_t records;
        const char *expected; /* NULL: none */
        uint64_t line;
    } cases[] = {
        {"(lock 1 0 1)\n! BBM valid->valid\n", 1, "BBM valid->valid", 2},
        {"(lock 1 0 1)\r\n!   BBM valid->valid \t\r\n", 1, "BBM valid->valid", 2},
        {"(lock 1 0 1)\n!BBM", 1, "BBM", 2},
        {"!\n", 0, "", 1},
        {"! \r\n", 0, "", 1},
        {"; c\n  ! duplicate (VM/AS)ID\n(this is never read\n", 0, "duplicate (VM/AS)ID", 2},
        {"(lock 1 0 1) ! on the same line\n(lock 2 0 1)\n", 1, "on the same line", 1},
        {"(lock 1 0 1)\n! a ; not a comment \"x\"\n! second\n", 1, "a ; not a comment \"x\"", 2},
        {"(lock 1 0 1)\n", 1, NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cm_recs r;
        tk_error err;
        assert_int_equal(cm_read_mem(cases[i].text, strlen(cases[i].text), &r, &err), 0);
        assert_int_equal(r.n, cases[i].records);
        if (cases[i].expected) {
            assert_non_null(r.expected);
            assert_string_equal(r.expected, cases[i].expected);
            assert_int_equal(r.expected_len, strlen(cases[i].expected));
            assert_int_equal(r.expected_line, cases[i].line);
        } else {
            assert_null(r.expected);
            assert_int_equal(r.expected_line, 0);
        }
        cm_recs_free(&r);
    }
    /* the text is kept whole however long */
    size_t n = (size_t)9 << 20;
    char *big = malloc(n + 32);
    assert_non_null(big);
    memcpy(big, "(lock 1 0 1)\n! ", 15);
    for (size_t i = 15; i < n; i++)
        big[i] = (char)('a' + i % 26);
    memcpy(big + n, "\n(garbage", 9);
    cm_recs r;
    tk_error err;
    assert_int_equal(cm_read_mem(big, n + 9, &r, &err), 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.expected_len, n - 15);
    assert_memory_equal(r.expected, big + 15, n - 15);
    assert_int_equal(r.tell, n + 1);
    cm_recs_free(&r);
    free(big);
}

/* ---- errors: message, line and column */

static void expect_error(const char *text, uint64_t line, uint64_t col, uint64_t record,
                         const char *message)
{
    cm_recs r;
    tk_error err;
    int rc = cm_read_mem(text, strlen(text), &r, &err);
    if (rc != -1)
        fail_msg("'%s' read cleanly", text);
    if (err.line != line || err.col != col || err.record != record ||
        strcmp(err.message, message) != 0)
        fail_msg("'%s':\n  got  %llu:%llu (record %llu): %s\n  want %llu:%llu (record %llu): %s",
                 text, (unsigned long long)err.line, (unsigned long long)err.col,
                 (unsigned long long)err.record, err.message, (unsigned long long)line,
                 (unsigned long long)col, (unsigned long long)record, message);
    assert_int_equal(err.status, TK_EMALFORMED);
    assert_int_equal(err.offset, TK_NO_OFFSET);
    assert_int_equal(r.n, record);
    char buf[512];
    tk_error_format(&err, "f.log", buf, sizeof buf);
    char want[512];
    snprintf(want, sizeof want, "f.log:%llu:%llu (record %llu): %s", (unsigned long long)line,
             (unsigned long long)col, (unsigned long long)record, message);
    assert_string_equal(buf, want);
    cm_recs_free(&r);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("x", 1, 1, 0,
                 "expected '(' to start a record (or a line starting with '!'), got 'x'");
    expect_error("(lock 1 0 1)\n  )", 2, 3, 1,
                 "expected '(' to start a record (or a line starting with '!'), got ')'");
    expect_error("(lock 1 0 1)\r\n\"s\"", 2, 1, 1,
                 "expected '(' to start a record (or a line starting with '!'), got a string");
    expect_error("(lock 1 0 1)\n(lock 2 0 1) junk", 2, 14, 2,
                 "expected '(' to start a record (or a line starting with '!'), got 'junk'");
    expect_error("(foo 1 0)", 1, 2, 0,
                 "expected a record kind (mem-write, mem-read, mem-init, mem-free, mem-set, "
                 "sysreg-write, msr, barrier, tlbi, hint, lock, trylock, unlock), got 'foo'");
    expect_error("( )", 1, 3, 0,
                 "expected a record kind (mem-write, mem-read, mem-init, mem-free, mem-set, "
                 "sysreg-write, msr, barrier, tlbi, hint, lock, trylock, unlock), got ')'");
    expect_error("(", 1, 2, 0,
                 "expected a record kind (mem-write, mem-read, mem-init, mem-free, mem-set, "
                 "sysreg-write, msr, barrier, tlbi, hint, lock, trylock, unlock), got end of input");
    expect_error("(lock x 0 1)", 1, 7, 0, "expected the id (a decimal number), got 'x'");
    expect_error("(lock -1 0 1)", 1, 7, 0, "expected the id (a decimal number), got '-1'");
    expect_error("(lock 12abc 0 1)", 1, 7, 0, "expected the id (a decimal number), got '12abc'");
    expect_error("(lock 18446744073709551616 0 1)", 1, 7, 0,
                 "the id (a decimal number) does not fit in 64 bits: '18446744073709551616'");
    expect_error("(lock 1 (tid) 1)", 1, 13, 0, "expected the thread id (a decimal number), got ')'");
    expect_error("(lock (id 1 (tid 0) 1)", 1, 13, 0, "expected ')' to close (id ...), got '('");
    expect_error("(lock (idx 1) 0 1)", 1, 8, 0, "expected the id (a decimal number), got key 'idx'");
    expect_error("(lock ( ) 0 1)", 1, 9, 0, "expected a key after '(', got ')'");
    expect_error("(lock (tid 1) 0 1)", 1, 8, 0, "expected the id (a decimal number), got key 'tid'");
    expect_error("(mem-write 1 0 plain 10 zz \"s\")", 1, 25, 0,
                 "expected the value (a hex number), got 'zz'");
    expect_error("(mem-write 1 0 plain 10)", 1, 24, 0, "expected the value (a hex number), got ')'");
    expect_error("(mem-write 1 0 relaxed 10 20)", 1, 16, 0,
                 "expected a memory order (plain, release), got 'relaxed'");
    expect_error("(mem-write (id 1) (tid 0) (order plain) 10 20)", 1, 28, 0,
                 "expected a memory order (plain, release), got key 'order'");
    expect_error("(lock (id 1) (tid 0) (adress 5))", 1, 23, 0,
                 "expected the address (a hex number), got key 'adress'");
    /* a src right after the ids is the old positional form's: the
     * address is missing */
    expect_error("(lock (id 1) (tid 0) (src \"s\"))", 1, 31, 0,
                 "expected the address (a hex number), got ')'");
    expect_error("(lock 1 0 0x)", 1, 11, 0, "expected the address (a hex number), got '0x'");
    expect_error("(lock 1 0 10000000000000000)", 1, 11, 0,
                 "the address (a hex number) does not fit in 64 bits: '10000000000000000'");
    expect_error("(lock 1 0 10 \"s\" 3)", 1, 18, 0, "expected ')' to end the record, got '3'");
    expect_error("(lock 1 0 10 3 4)", 1, 16, 0, "expected ')' to end the record, got '4'");
    expect_error("(lock 1 0 10 x)", 1, 14, 0,
                 "expected the src or ')' to end the record, got 'x'");
    expect_error("(lock 1 0 10 (value 3))", 1, 15, 0,
                 "expected the src (a string or a decimal number), got key 'value'");
    expect_error("(lock 1 0 10 (src x))", 1, 19, 0,
                 "expected the src (a string or a decimal number), got 'x'");
    expect_error("(lock 1 0 10 (src \"a\" \"b\"))", 1, 23, 0,
                 "expected ')' to close (src ...), got a string");
    expect_error("(lock 1 0 10 \"s", 1, 14, 0, "unterminated string (no closing '\"')");
    expect_error("(lock 1 0\n\n  \"multi\nline", 3, 3, 0, "unterminated string (no closing '\"')");
    expect_error("(lock 1 0 10", 1, 13, 0, "expected the src or ')' to end the record, got end of input");
    expect_error("(lock 1 0 10 \"s\"\n", 2, 1, 0, "expected ')' to end the record, got end of input");
    expect_error("(sysreg-write 1 0 ttbr1_el2 5)", 1, 19, 0,
                 "expected a system register (vttbr_el2, ttbr0_el2, vtcr_el2, hcr_el2, "
                 "tcr_el2, sctlr_el2, mair_el2), got 'ttbr1_el2'");
    expect_error("(barrier 1 0 dmb ish)", 1, 14, 0, "expected a barrier (dsb, isb), got 'dmb'");
    expect_error("(barrier 1 0 dsb osh)", 1, 18, 0,
                 "expected a DSB kind (nsh, ish, ishst, sy), got 'osh'");
    expect_error("(barrier 1 0 dsb (domain ish))", 1, 19, 0,
                 "expected a DSB kind (nsh, ish, ishst, sy), got key 'domain'");
    expect_error("(barrier 1 0 isb ish)", 1, 18, 0,
                 "expected the src or ')' to end the record, got 'ish'");
    expect_error("(tlbi 1 0 vae1is 5)", 1, 11, 0,
                 "expected a TLBI operation (vmalls12e1, vmalls12e1is, vmalle1is, alle1, "
                 "alle1is, vmalle1, alle2, alle2is, vale2is, vae2is, ipas2e1is, vae2), got 'vae1is'");
    expect_error("(tlbi 1 0 vae2is)", 1, 17, 0,
                 "expected the TLBI operand ((value HEX), HEX, or (addr HEX) (level HEX)), got ')'");
    expect_error("(tlbi 1 0 vae2is \"s\")", 1, 18, 0,
                 "expected the TLBI operand ((value HEX), HEX, or (addr HEX) (level HEX)), got a string");
    expect_error("(tlbi 1 0 vae2is (level 3))", 1, 19, 0,
                 "expected the TLBI operand ((value HEX) or (addr HEX) (level HEX)), got key 'level'");
    expect_error("(tlbi 1 0 vae2is (addr 3))", 1, 26, 0,
                 "expected the TLBI level (a hex number), got ')'");
    expect_error("(tlbi 1 0 vmalle1is 5 6)", 1, 23, 0, "expected ')' to end the record, got '6'");
    expect_error("(tlbi 1 0 vmalle1is (value 5))", 1, 22, 0,
                 "expected the src (a string or a decimal number), got key 'value'");
    expect_error("(hint 1 0 set_lock 1 2)", 1, 11, 0,
                 "expected a hint kind (set_root_lock, set_owner_root, release_table, "
                 "set_pte_thread_owner), got 'set_lock'");
    expect_error("(lock (id 1) (tid 0) (address 1)\n; comment\n", 3, 1, 0,
                 "expected the src or ')' to end the record, got end of input");
    /* a word is shown shortened, with unprintable bytes escaped */
    expect_error("(lock 1 0 1 \x01\xff'\\abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz)", 1, 13, 0,
                 "expected the src or ')' to end the record, got "
                 "'\\x01\\xff\\x27\\x5cabcdefghijklmnopqrstuvwxyzabcdefghij...'");
    /* the second record's error names record 1 and its line */
    expect_error("(lock 1 0 1)\r\n(lock 2 0 zz)\r\n", 2, 11, 1,
                 "expected the address (a hex number), got 'zz'");
}

/* ---- locations, zero copy, the end */

static void test_locations(void **state)
{
    (void)state;
    const char *text = "  (lock 1 0 1 \"a\")\n\n\t(unlock 2 0 1 \"bc\") (lock 3 0 2)\n";
    tk_error err;
    tk_input *in = tk_input_from_memory(text, strlen(text), "m", &err);
    tk_casemate_reader *r = tk_casemate_reader_new(in, &err);
    assert_non_null(r);
    assert_int_equal(tk_casemate_reader_index(r), TK_NO_RECORD);
    assert_int_equal(tk_casemate_reader_offset(r), TK_NO_OFFSET);
    assert_int_equal(tk_casemate_reader_line(r), 0);
    assert_null(tk_casemate_reader_expected(r, NULL));
    tk_casemate_record rec;
    static const uint64_t line[] = {1, 3, 3}, col[] = {3, 2, 22}, off[] = {2, 21, 41};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(tk_casemate_next(r, &rec, &err), 1);
        assert_int_equal(tk_casemate_reader_index(r), (uint64_t)i);
        assert_int_equal(tk_casemate_reader_line(r), line[i]);
        assert_int_equal(tk_casemate_reader_col(r), col[i]);
        assert_int_equal(tk_casemate_reader_offset(r), off[i]);
        if (i == 1) { /* zero copy: src points into the input */
            assert_ptr_equal(rec.src, text + 36);
            assert_int_equal(rec.src_len, 2);
        }
    }
    assert_int_equal(tk_casemate_reader_tell(r), 53);
    assert_int_equal(tk_casemate_next(r, &rec, &err), 0);
    assert_int_equal(tk_casemate_next(r, &rec, &err), 0);
    assert_int_equal(tk_casemate_reader_tell(r), strlen(text));
    assert_int_equal(tk_casemate_reader_lines(r), 3);
    assert_int_equal(tk_casemate_reader_index(r), 2);
    tk_casemate_reader_free(r);
    tk_input_close(in);
    tk_casemate_reader_free(NULL);
}

/* ---- a randomized spelling of known records */

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static void sput(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->p = realloc(b->p, cap);
        assert_non_null(b->p);
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sputs(sbuf *b, const char *s) { sput(b, s, strlen(s)); }

static uint64_t rs;

static uint64_t pick(uint64_t n) { return tu_rand_below(&rs, n); }

/* Blanks between tokens: at least one; sometimes tabs, newlines, CRLF or
 * a comment. */
static void blank(sbuf *b)
{
    switch (pick(12)) {
    case 0: sputs(b, "\t"); break;
    case 1: sputs(b, "\n  "); break;
    case 2: sputs(b, "\r\n"); break;
    case 3: sputs(b, " ; a comment ) ( \" \n"); break;
    case 4: sputs(b, "   "); break;
    default: sputs(b, " "); break;
    }
}

/* Optional blanks (after '(' and before ')'). */
static void maybe_blank(sbuf *b)
{
    if (pick(6) == 0)
        blank(b);
}

/* A word in lower, upper or mixed case. */
static void word(sbuf *b, const char *w)
{
    unsigned mode = (unsigned)pick(6);
    for (const char *c = w; *c; c++) {
        char ch = *c;
        if (ch >= 'a' && ch <= 'z' && (mode == 1 || (mode == 2 && pick(2))))
            ch = (char)(ch - 'a' + 'A');
        sput(b, &ch, 1);
    }
}

static void hexnum(sbuf *b, uint64_t v)
{
    char t[64];
    int upper = pick(4) == 0;
    const char *prefix = pick(2) ? "" : pick(4) ? "0x" : "0X";
    const char *zeros = pick(8) ? "" : "0000";
    snprintf(t, sizeof t, upper ? "%s%s%llX" : "%s%s%llx", prefix, zeros, (unsigned long long)v);
    sputs(b, t);
}

static void decnum(sbuf *b, uint64_t v)
{
    char t[64];
    if (pick(8) == 0)
        snprintf(t, sizeof t, "0x%llx", (unsigned long long)v);
    else
        snprintf(t, sizeof t, "%llu", (unsigned long long)v);
    sputs(b, t);
}

typedef enum { HEX, DEC, WORD } vtype;

/* One field, keyword or positional, preceded by blanks. */
static void field(sbuf *b, const char *key, vtype t, uint64_t v, const char *w)
{
    blank(b);
    int kw = (int)pick(2);
    if (kw) {
        sputs(b, "(");
        maybe_blank(b);
        word(b, key);
        blank(b);
    }
    if (t == HEX)
        hexnum(b, v);
    else if (t == DEC)
        decnum(b, v);
    else
        word(b, w);
    if (kw) {
        maybe_blank(b);
        sputs(b, ")");
    }
}

static void src(sbuf *b, const tk_casemate_record *r, int third)
{
    if (r->src_kind == TK_CASEMATE_SRC_NONE)
        return;
    blank(b);
    int kw = third && r->src_kind == TK_CASEMATE_SRC_INT ? 1 : (int)pick(2);
    if (kw) {
        sputs(b, "(");
        word(b, "src");
        blank(b);
    }
    if (r->src_kind == TK_CASEMATE_SRC_INT) {
        decnum(b, r->src_int);
    } else {
        sputs(b, "\"");
        sput(b, r->src, r->src_len);
        sputs(b, "\"");
    }
    if (kw)
        sputs(b, ")");
}

static const char *const kinds[] = {"mem-write", "mem-read", "mem-init", "mem-free",
                                    "mem-set", "sysreg-write", "barrier", "tlbi",
                                    "hint", "lock", "trylock", "unlock"};

static void spell(sbuf *b, const tk_casemate_record *r)
{
    sputs(b, "(");
    maybe_blank(b);
    word(b, r->kind == TK_CASEMATE_SYSREG_WRITE && pick(2) ? "msr" : kinds[r->kind]);
    field(b, "id", DEC, r->id, NULL);
    field(b, pick(2) ? "tid" : "thread", DEC, r->tid, NULL);
    int third = r->src_kind != TK_CASEMATE_SRC_NONE && pick(3) == 0;
    if (third)
        src(b, r, 1);
    switch (r->kind) {
    case TK_CASEMATE_MEM_WRITE:
        field(b, "mem-order", WORD, 0, tk_casemate_mem_order_name(r->mem_order));
        field(b, "address", HEX, r->address, NULL);
        field(b, "value", HEX, r->value, NULL);
        break;
    case TK_CASEMATE_MEM_READ:
        field(b, "address", HEX, r->address, NULL);
        field(b, "value", HEX, r->value, NULL);
        break;
    case TK_CASEMATE_MEM_INIT:
    case TK_CASEMATE_MEM_FREE:
        field(b, "address", HEX, r->address, NULL);
        field(b, "size", HEX, r->size, NULL);
        break;
    case TK_CASEMATE_MEM_SET:
        field(b, "address", HEX, r->address, NULL);
        field(b, "size", HEX, r->size, NULL);
        field(b, "value", HEX, r->value, NULL);
        break;
    case TK_CASEMATE_SYSREG_WRITE:
        field(b, "sysreg", WORD, 0,
              r->sysreg == TK_CASEMATE_TTBR0_EL2 && pick(2) ? "ttbr_el2" : tk_casemate_sysreg_name(r->sysreg));
        field(b, "value", HEX, r->value, NULL);
        break;
    case TK_CASEMATE_BARRIER:
        blank(b);
        if (r->barrier == TK_CASEMATE_ISB) {
            word(b, "isb");
        } else {
            word(b, "dsb");
            field(b, "kind", WORD, 0, tk_casemate_barrier_name(r->barrier) + 4);
        }
        break;
    case TK_CASEMATE_TLBI:
        blank(b);
        word(b, tk_casemate_tlbi_name(r->tlbi));
        if (r->tlbi_operand == TK_CASEMATE_OPERAND_VALUE) {
            field(b, "value", HEX, r->value, NULL);
        } else if (r->tlbi_operand == TK_CASEMATE_OPERAND_ADDR_LEVEL) {
            blank(b);
            sputs(b, "(addr ");
            hexnum(b, r->address);
            sputs(b, ")");
            field(b, "level", HEX, r->level, NULL);
        }
        break;
    case TK_CASEMATE_HINT:
        field(b, "kind", WORD, 0, tk_casemate_hint_name(r->hint));
        field(b, "location", HEX, r->location, NULL);
        field(b, "value", HEX, r->value, NULL);
        break;
    default:
        field(b, "address", HEX, r->address, NULL);
        break;
    }
    if (!third)
        src(b, r, 0);
    maybe_blank(b);
    sputs(b, ")");
}

static uint64_t rnum(void)
{
    switch (pick(4)) {
    case 0: return pick(16);
    case 1: return tu_rand(&rs);
    case 2: return 0xaaaa00000000ULL + pick(1u << 30);
    default: return pick(1u << 20);
    }
}

static const char src_chars[] = "abcXYZ019 _-./:;()!\t\n";

/* A random record; src strings are kept in `pool`. */
static tk_casemate_record random_record(char *pool, size_t cap)
{
    tk_casemate_record r = rec0((tk_casemate_kind)pick(TK_CASEMATE_KIND_COUNT), rnum(), rnum());
    r.address = rnum();
    r.value = rnum();
    r.size = rnum();
    r.location = rnum();
    r.mem_order = (tk_casemate_mem_order)pick(TK_CASEMATE_MEM_ORDER_COUNT);
    r.barrier = (tk_casemate_barrier)pick(TK_CASEMATE_BARRIER_COUNT);
    r.tlbi = (tk_casemate_tlbi)pick(TK_CASEMATE_TLBI_COUNT);
    r.sysreg = (tk_casemate_sysreg)pick(TK_CASEMATE_SYSREG_COUNT);
    r.hint = (tk_casemate_hint)pick(TK_CASEMATE_HINT_COUNT);
    if (r.kind == TK_CASEMATE_TLBI && tk_casemate_tlbi_has_operand(r.tlbi)) {
        r.tlbi_operand = pick(3) ? TK_CASEMATE_OPERAND_VALUE : TK_CASEMATE_OPERAND_ADDR_LEVEL;
        r.level = pick(4);
    }
    switch (pick(5)) {
    case 0:
        break;
    case 1:
        r.src_kind = TK_CASEMATE_SRC_INT;
        r.src_int = rnum();
        break;
    default: {
        size_t n = pick(pick(50) == 0 ? cap : 48);
        for (size_t i = 0; i < n; i++)
            pool[i] = src_chars[pick(sizeof src_chars - 1)];
        r.src_kind = TK_CASEMATE_SRC_STRING;
        r.src = pool;
        r.src_len = n;
        break;
    }
    }
    return r;
}

/* Records with their spellings, separated by blanks, comments or
 * nothing, until the text is at least `bytes` long. */
static void random_log(uint64_t seed, size_t bytes, sbuf *text, cm_recs *want)
{
    rs = seed;
    memset(text, 0, sizeof *text);
    memset(want, 0, sizeof *want);
    static char pool[70000];
    uint64_t line = 1;
    size_t line_start = 0, scanned = 0;
    while (text->len < bytes) {
        switch (pick(6)) {
        case 0: break;
        case 1: sputs(text, "\r\n"); break;
        case 2: sputs(text, "; between records\n\n"); break;
        default: sputs(text, "\n"); break;
        }
        for (; scanned < text->len; scanned++)
            if (text->p[scanned] == '\n') {
                line++;
                line_start = scanned + 1;
            }
        tk_casemate_record r = random_record(pool, sizeof pool);
        cm_push(want, &r, line, text->len - line_start + 1, text->len);
        spell(text, &r);
    }
    sputs(text, "\n");
}

static void compare(const cm_recs *want, const cm_recs *got)
{
    assert_int_equal(got->n, want->n);
    for (size_t i = 0; i < want->n; i++) {
        cm_assert_equal(&want->v[i], &got->v[i]);
        if (got->line[i] != want->line[i] || got->col[i] != want->col[i] ||
            got->off[i] != want->off[i])
            fail_msg("record %zu at %llu:%llu offset %llu, want %llu:%llu offset %llu", i,
                     (unsigned long long)got->line[i], (unsigned long long)got->col[i],
                     (unsigned long long)got->off[i], (unsigned long long)want->line[i],
                     (unsigned long long)want->col[i], (unsigned long long)want->off[i]);
    }
}

/* Small logs with every variant, then one of 13 MiB, which crosses the
 * reader's 4 MiB windows many times, from memory, a file and a pipe. */
static void test_random_spellings(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        sbuf text;
        cm_recs want, got;
        tk_error err;
        random_log(seed, 2000, &text, &want);
        if (cm_read_mem(text.p, text.len, &got, &err) != 0)
            fail_msg("seed %llu: %llu:%llu: %s", (unsigned long long)seed,
                     (unsigned long long)err.line, (unsigned long long)err.col, err.message);
        compare(&want, &got);
        cm_recs_free(&got);
        cm_recs_free(&want);
        free(text.p);
    }

    sbuf text;
    cm_recs want, got;
    tk_error err;
    random_log(4242, (size_t)13 << 20, &text, &want);
    assert_int_equal(cm_read_mem(text.p, text.len, &got, &err), 0);
    compare(&want, &got);
    assert_int_equal(got.tell, text.len);
    cm_recs_free(&got);

    char *dir = tu_tmpdir();
    const char *path = tu_path(dir, "random.log");
    tu_write_file(path, text.p, text.len);
    tk_input *in = tk_input_open(path, &err);
    assert_non_null(in);
    assert_int_equal(cm_read_input(in, &got, &err), 0);
    compare(&want, &got);
    cm_recs_free(&got);
    tk_input_close(in);
    tu_rmdir(dir);

    int fd;
    pid_t pid = tu_pipe_feed(text.p, text.len, 99, &fd);
    in = tk_input_from_fd(fd, "pipe", &err);
    assert_non_null(in);
    assert_int_equal(cm_read_input(in, &got, &err), 0);
    compare(&want, &got);
    cm_recs_free(&got);
    tk_input_close(in);
    tu_pipe_wait(pid, fd);
    cm_recs_free(&want);
    free(text.p);
}

/* ---- no limits: long records, long words, long gaps */

static void test_long(void **state)
{
    (void)state;
    sbuf b;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < 1000; i++)
        sputs(&b, "(lock 1 0 1 \"x\")\n");
    /* a 10 MiB src */
    size_t n = ((size_t)10 << 20) + 123;
    char *s = malloc(n);
    assert_non_null(s);
    for (size_t i = 0; i < n; i++)
        s[i] = (char)('a' + i % 26);
    sputs(&b, "(mem-write (id 2) (tid 1) (mem-order plain) (address 10) (value 20) (src \"");
    size_t at = b.len;
    sput(&b, s, n);
    sputs(&b, "\"))\n");
    /* 6 MiB of blanks and newlines inside a record */
    sputs(&b, "(lock (id 3)");
    for (int i = 0; i < (6 << 20) / 8; i++)
        sputs(&b, "      \r\n");
    sputs(&b, "(tid 5) 10)\n");
    /* a 6 MiB comment between records */
    sputs(&b, ";");
    for (int i = 0; i < (6 << 20) / 8; i++)
        sputs(&b, "comment ");
    sputs(&b, "\n(unlock 4 0 10)\n");
    /* a long hex number with leading zeros and a long decimal one */
    sputs(&b, "(lock ");
    for (int i = 0; i < 100000; i++)
        sputs(&b, "0");
    sputs(&b, "5 0 ");
    for (int i = 0; i < 100000; i++)
        sputs(&b, "0");
    sputs(&b, "ff)\n");

    for (int how = 0; how < 2; how++) {
        cm_recs r;
        tk_error err;
        if (how == 0) {
            assert_int_equal(cm_read_mem(b.p, b.len, &r, &err), 0);
        } else {
            int fd;
            pid_t pid = tu_pipe_feed(b.p, b.len, 7, &fd);
            tk_input *in = tk_input_from_fd(fd, "pipe", &err);
            assert_int_equal(cm_read_input(in, &r, &err), 0);
            tk_input_close(in);
            tu_pipe_wait(pid, fd);
        }
        assert_int_equal(r.n, 1004);
        assert_int_equal(r.v[1000].src_len, n);
        assert_memory_equal(r.v[1000].src, b.p + at, n);
        assert_int_equal(r.v[1001].kind, TK_CASEMATE_LOCK);
        assert_int_equal(r.v[1001].tid, 5);
        assert_int_equal(r.line[1001], 1002);
        assert_int_equal(r.line[1002], 1002 + (6 << 20) / 8 + 2);
        assert_int_equal(r.v[1002].kind, TK_CASEMATE_UNLOCK);
        assert_int_equal(r.v[1003].id, 5);
        assert_int_equal(r.v[1003].address, 0xff);
        cm_recs_free(&r);
    }
    free(s);
    free(b.p);
}

/* ---- many threads, large ids */

static void test_many_threads(void **state)
{
    (void)state;
    sbuf b;
    memset(&b, 0, sizeof b);
    char line[128];
    for (uint64_t t = 0; t < 100000; t++) {
        uint64_t tid = t < 99990 ? t * 7919 : UINT64_MAX - t;
        snprintf(line, sizeof line, "(lock (id %llu) (tid %llu) (address %llx))\n",
                 (unsigned long long)t, (unsigned long long)tid, (unsigned long long)t);
        sputs(&b, line);
    }
    cm_recs r;
    tk_error err;
    assert_int_equal(cm_read_mem(b.p, b.len, &r, &err), 0);
    assert_int_equal(r.n, 100000);
    assert_int_equal(r.v[5].tid, 5 * 7919);
    assert_int_equal(r.v[99999].tid, UINT64_MAX - 99999);
    cm_recs_free(&r);

    /* info counts them all and lists the first 64 */
    tk_input *in = tk_input_from_memory(b.p, b.len, "m", &err);
    tu_capture c;
    tk_sink *s = tu_sink_open(&c, TK_SINK_JSON);
    assert_int_equal(tk_info(tk_format_find("casemate"), in, NULL, s, &err), TK_OK);
    char *out = tu_sink_text(s, &c);
    assert_non_null(strstr(out, "\"thread_count\":100000,\"threads\":[{\"thread\":0,"
                                "\"records\":1},{\"thread\":7919,\"records\":1},"
                                "{\"thread\":15838,"));
    assert_non_null(strstr(out, "\"lock_count\":100000,"));
    free(out);
    tk_input_close(in);
    free(b.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds_keyword),
        cmocka_unit_test(test_positional),
        cmocka_unit_test(test_mixed_and_src),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_blanks_comments_crlf),
        cmocka_unit_test(test_expected_line),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_locations),
        cmocka_unit_test(test_random_spellings),
        cmocka_unit_test(test_long),
        cmocka_unit_test(test_many_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
