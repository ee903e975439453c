/* Conformance with casemate's 23 recorded logs (../shared/corpus/casemate,
 * notes/casemate.md section 9): every log reads, with its records counted
 * by kind and its expected-result line; every record and the whole log
 * survive both writer forms. Usage: test_casemate_corpus DIR. Exits 77
 * (ctest SKIP_RETURN_CODE) when DIR is absent; the logs are never copied
 * into the repository. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_test.h"

static char dir[4096];

/* Counts by kind in tk_casemate_kind order: mem-write, mem-read, mem-init,
 * mem-free, mem-set, sysreg-write, barrier, tlbi, hint, lock, trylock,
 * unlock; the records; the '!' text ("" = the log ends with a record). */
static const struct {
    const char *name;
    unsigned by_kind[TK_CASEMATE_KIND_COUNT];
    unsigned records;
    const char *expected;
} logs[] = {
    {"bad_EL2_ASID", {0, 0, 2, 0, 0, 1, 0, 0, 2, 0, 0, 0}, 5, "TTBR0_EL2 ASID is reserved 0"},
    {"bad_bbm_by_wrong_VMID", {3, 0, 4, 0, 0, 3, 6, 2, 3, 1, 0, 0}, 22, "BBM invalid unclean->valid"},
    {"bad_bbm_missing_tlbi", {3, 0, 3, 0, 0, 1, 2, 0, 3, 1, 0, 0}, 13, "BBM invalid unclean->valid"},
    {"bad_free_page_without_clean", {2, 0, 3, 0, 0, 1, 0, 0, 4, 1, 0, 0}, 11,
     "cannot release table where children are still unclean"},
    {"bad_no_assoc_lock", {1, 0, 1, 0, 0, 7, 0, 0, 0, 0, 0, 0}, 9, "must have associated root with a lock"},
    {"bad_no_bbm", {2, 0, 2, 0, 0, 1, 0, 0, 2, 1, 0, 0}, 8, "BBM valid->valid"},
    {"bad_no_bbm_stage1", {2, 0, 3, 0, 0, 1, 0, 0, 3, 1, 0, 0}, 10, "BBM valid->valid"},
    {"bad_overlap_ASID", {0, 0, 2, 0, 0, 2, 2, 0, 2, 0, 0, 0}, 8, "duplicate (VM/AS)ID"},
    {"bad_overlap_VMID", {0, 0, 2, 0, 0, 2, 2, 0, 2, 0, 0, 0}, 8, "duplicate (VM/AS)ID"},
    {"bad_race", {1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0}, 4, "must write to pte while holding owner lock"},
    {"bad_reuse_page", {3, 0, 3, 0, 0, 2, 0, 0, 3, 2, 0, 1}, 14, "double-use pte"},
    {"bad_switch_wrong_vmid", {0, 0, 1, 0, 0, 2, 2, 0, 1, 0, 0, 0}, 6,
     "root already associated with an (VM/AS)ID"},
    {"bad_unlocked_write", {1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0}, 4, "must write to pte while holding owner lock"},
    {"good_bbm", {3, 0, 3, 0, 0, 7, 2, 1, 3, 1, 0, 1}, 21, ""},
    {"good_bbm_by_VMID", {4, 0, 2, 0, 0, 8, 5, 2, 2, 1, 0, 1}, 25, ""},
    {"good_bbm_stage1", {4, 0, 2, 0, 0, 7, 2, 1, 2, 1, 0, 1}, 20, ""},
    {"good_free_page", {3, 0, 3, 0, 0, 8, 2, 1, 4, 2, 0, 2}, 25, ""},
    {"good_free_tree", {2, 0, 3, 0, 0, 2, 0, 0, 4, 1, 0, 1}, 13, ""},
    {"good_release_table", {0, 0, 3, 0, 0, 3, 2, 0, 4, 0, 0, 0}, 12, ""},
    {"good_switch", {0, 0, 2, 0, 0, 3, 3, 0, 2, 0, 0, 0}, 10, ""},
    {"good_write", {1, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 1}, 6, ""},
    {"good_write_child", {2, 0, 2, 0, 0, 1, 0, 0, 2, 1, 0, 1}, 9, ""},
    {"simple", {2, 0, 0, 0, 0, 0, 4, 1, 0, 0, 0, 0}, 7, ""},
};
#define NLOGS (sizeof logs / sizeof logs[0])

static uint8_t *load(size_t i, size_t *n)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s.log", dir, logs[i].name);
    uint8_t *d = tu_read_file(path, n);
    if (!d)
        fail_msg("cannot read %s", path);
    return d;
}

static void test_counts(void **state)
{
    (void)state;
    unsigned total = 0;
    for (size_t i = 0; i < NLOGS; i++) {
        size_t n;
        uint8_t *d = load(i, &n);
        cm_recs r;
        tk_error err;
        if (cm_read_mem(d, n, &r, &err) != 0)
            fail_msg("%s:%llu:%llu: %s", logs[i].name, (unsigned long long)err.line,
                     (unsigned long long)err.col, err.message);
        unsigned by_kind[TK_CASEMATE_KIND_COUNT] = {0};
        for (size_t k = 0; k < r.n; k++) {
            by_kind[r.v[k].kind]++;
            /* one record per line, ids counting from 0, src strings */
            assert_int_equal(r.line[k], k + 1);
            assert_int_equal(r.col[k], 1);
            assert_int_equal(r.v[k].id, k);
            assert_int_equal(r.v[k].src_kind, TK_CASEMATE_SRC_STRING);
            assert_non_null(memchr(r.v[k].src, ':', r.v[k].src_len));
        }
        assert_int_equal(r.n, logs[i].records);
        for (int k = 0; k < TK_CASEMATE_KIND_COUNT; k++)
            if (by_kind[k] != logs[i].by_kind[k])
                fail_msg("%s: %u %s records, expected %u", logs[i].name, by_kind[k],
                         tk_casemate_kind_name((tk_casemate_kind)k), logs[i].by_kind[k]);
        if (logs[i].expected[0]) {
            assert_non_null(r.expected);
            assert_string_equal(r.expected, logs[i].expected);
            assert_int_equal(r.expected_line, logs[i].records + 1);
        } else {
            assert_null(r.expected);
        }
        total += (unsigned)r.n;
        cm_recs_free(&r);
        free(d);
    }
    assert_int_equal(total, 270);
}

/* A few records exactly (old format with 0x, new without). */
static void test_records(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load(15, &n); /* good_bbm_stage1 */
    cm_recs r;
    tk_error err;
    assert_int_equal(cm_read_mem(d, n, &r, &err), 0);
    assert_int_equal(r.v[0].sysreg, TK_CASEMATE_VTCR_EL2);
    assert_int_equal(r.v[0].value, 0x10); /* "(value 10)": hex */
    assert_int_equal(r.v[16].tlbi, TK_CASEMATE_TLBI_VAE2IS);
    assert_int_equal(r.v[16].tlbi_operand, TK_CASEMATE_OPERAND_VALUE);
    assert_int_equal(r.v[16].value, 0x300000000000);
    assert_int_equal(r.v[18].value, 0xbeef001);
    assert_int_equal(r.v[18].src_len, strlen("examples/tests/good_bbm_stage1.c:39"));
    assert_memory_equal(r.v[18].src, "examples/tests/good_bbm_stage1.c:39", r.v[18].src_len);
    cm_recs_free(&r);
    free(d);

    d = load(22, &n); /* simple */
    assert_int_equal(cm_read_mem(d, n, &r, &err), 0);
    assert_int_equal(r.v[0].address, 0xaaaac8ad4000);
    assert_int_equal(r.v[4].tlbi, TK_CASEMATE_TLBI_VMALLE1IS);
    assert_int_equal(r.v[4].tlbi_operand, TK_CASEMATE_OPERAND_NONE);
    assert_int_equal(r.v[5].barrier, TK_CASEMATE_DSB_NSH);
    assert_int_equal(r.v[6].barrier, TK_CASEMATE_ISB);
    cm_recs_free(&r);
    free(d);

    d = load(9, &n); /* bad_race: a release write by thread 1 */
    assert_int_equal(cm_read_mem(d, n, &r, &err), 0);
    assert_int_equal(r.v[3].tid, 1);
    assert_int_equal(r.v[3].mem_order, TK_CASEMATE_RELEASE);
    assert_int_equal(r.v[3].value, 1);
    cm_recs_free(&r);
    free(d);
}

/* Each log written in both forms reads back the same, and the keyword
 * form of an "old" log is the log itself. */
static void test_roundtrip(void **state)
{
    (void)state;
    int identical = 0;
    for (size_t i = 0; i < NLOGS; i++) {
        size_t n;
        uint8_t *d = load(i, &n);
        cm_recs r;
        tk_error err;
        assert_int_equal(cm_read_mem(d, n, &r, &err), 0);
        for (int style = 0; style < 2; style++) {
            tu_capture c;
            tu_capture_open(&c);
            tk_casemate_writer *w = tk_casemate_writer_new(c.fp, (tk_casemate_style)style, &err);
            for (size_t k = 0; k < r.n; k++)
                assert_int_equal(tk_casemate_write(w, &r.v[k], &err), TK_OK);
            if (r.expected)
                assert_int_equal(tk_casemate_write_expected(w, r.expected, r.expected_len, &err), TK_OK);
            assert_int_equal(tk_casemate_writer_free(w, &err), TK_OK);
            char *text = tu_capture_close(&c);
            cm_recs back;
            assert_int_equal(cm_read_mem(text, c.len, &back, &err), 0);
            assert_int_equal(back.n, r.n);
            for (size_t k = 0; k < r.n; k++)
                cm_assert_equal(&r.v[k], &back.v[k]);
            if (r.expected)
                assert_string_equal(back.expected, r.expected);
            else
                assert_null(back.expected);
            /* the old logs (0x numbers) are already canonical, bar the
             * last newline some lack */
            if (style == 0 && (c.len == n || (c.len == n + 1 && d[n - 1] != '\n')) &&
                memcmp(text, d, n) == 0)
                identical++;
            cm_recs_free(&back);
            free(text);
        }
        cm_recs_free(&r);
        free(d);
    }
    assert_int_equal(identical, 18);
}

/* tracekit info --json on one log, through the registry. */
static void test_info(void **state)
{
    (void)state;
    char path[8192];
    snprintf(path, sizeof path, "%s/bad_bbm_by_wrong_VMID.log", dir);
    tk_error err;
    tk_input *in = tk_input_open(path, &err);
    assert_non_null(in);
    const tk_format *f = tk_format_probe(in, &err);
    assert_non_null(f);
    assert_string_equal(tk_format_name(f), "casemate");
    tu_capture c;
    tk_sink *s = tu_sink_open(&c, TK_SINK_JSON);
    assert_int_equal(tk_info(f, in, NULL, s, &err), TK_OK);
    char *out = tu_sink_text(s, &c);
    char want[16384];
    snprintf(want, sizeof want,
             "{\"file\":\"%s\",\"format\":\"casemate\",\"size\":2538,\"lines\":23,\"records\":22,"
             "\"by_kind\":[{\"kind\":\"mem_write\",\"count\":3},"
             "{\"kind\":\"mem_read\",\"count\":0},"
             "{\"kind\":\"mem_init\",\"count\":4},{\"kind\":\"mem_free\",\"count\":0},"
             "{\"kind\":\"mem_set\",\"count\":0},{\"kind\":\"sysreg_write\",\"count\":3},"
             "{\"kind\":\"barrier\",\"count\":6},{\"kind\":\"tlbi\",\"count\":2},"
             "{\"kind\":\"hint\",\"count\":3},{\"kind\":\"lock\",\"count\":1},"
             "{\"kind\":\"trylock\",\"count\":0},{\"kind\":\"unlock\",\"count\":0}],"
             "\"thread_count\":1,\"threads\":[{\"thread\":0,\"records\":22}],"
             "\"ids\":{\"first\":0,\"last\":21,\"min\":0,\"max\":21,\"not_increasing\":0},"
             "\"min_addr\":187650228637696,\"max_addr\":187650228654079,\"lock_count\":1,"
             "\"barriers\":[{\"barrier\":\"dsb\",\"domain\":\"ish\",\"count\":6}],"
             "\"tlbis\":[{\"tlbi\":\"vmalle1is\",\"count\":1},{\"tlbi\":\"ipas2e1is\",\"count\":1}],"
             "\"sysregs\":[{\"sysreg\":\"vttbr_el2\",\"count\":3}],"
             "\"hints\":[{\"hint\":\"set_root_lock\",\"count\":1},{\"hint\":\"set_owner_root\",\"count\":2}],"
             "\"sources\":{\"strings\":22,\"integers\":0,\"missing\":0},"
             "\"expected\":\"BBM invalid unclean->valid\"}\n",
             path);
    assert_string_equal(out, want);
    free(out);
    tk_input_close(in);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_casemate_corpus DIR\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    char probe[8192];
    snprintf(probe, sizeof probe, "%s/good_bbm.log", dir);
    if (access(probe, R_OK) != 0) {
        printf("skipped: %s not found\n", probe);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_records),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_info),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
