/* Conformance with the original tool's sample traces (notes/cacheray.md,
 * sections 3.1 and 5). Usage: test_conformance struct-test|bubble-sort
 * SHARED_DIR. Exits 77 (ctest SKIP_RETURN_CODE) when the sample is absent;
 * the samples are never copied into the repository. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hashmap.h"
#include "testutil.h"

static char sample[4096];

typedef struct summary {
    uint64_t size, by_tag[256], warnings, live;
    tu_recs recs;
    tk_endian endian;
} summary;

/* Read the sample, count full tag bytes from the raw data (as
 * cacheray-trace-check does) and run the checker over every record. */
static void load(summary *s)
{
    memset(s, 0, sizeof *s);
    size_t n;
    uint8_t *d = tu_read_file(sample, &n);
    assert_non_null(d);
    s->size = n;
    s->endian = tk_cacheray_detect_endian(d, n);
    tk_error err;
    assert_int_equal(tu_read_mem(d, n, TK_ENDIAN_AUTO, &s->recs, &err), 0);
    uint64_t *b;
    size_t nb = tu_boundaries(d, n, s->endian == TK_ENDIAN_BIG, &b);
    assert_int_equal(nb, s->recs.n);
    for (size_t i = 0; i < nb; i++) {
        assert_int_equal(s->recs.offset[i], b[i]);
        s->by_tag[d[b[i]]]++;
    }
    tk_cacheray_checker *c = tk_cacheray_checker_new(&err);
    for (size_t i = 0; i < nb; i++) {
        int k = tk_cacheray_check(c, &s->recs.v[i], b[i], i, NULL, 0, &err);
        assert_true(k >= 0);
        s->warnings += (uint64_t)k;
    }
    s->live = tk_cacheray_checker_live(c);
    tk_cacheray_checker_free(c);
    free(b);
    free(d);
}

/* cacheray-trace-check's report, rebuilt from the tag counts. */
static char *trace_check_report(const summary *s)
{
    tu_capture c;
    tu_capture_open(&c);
    fputs("The file was correct\nAccess stats:\n", c.fp);
    for (int t = 0; t < 256; t++)
        if (s->by_tag[t])
            fprintf(c.fp, "\t%d: %llu\n", t, (unsigned long long)s->by_tag[t]);
    return tu_capture_close(&c);
}

/* `tracekit info --json` through the library. */
static char *info_json(void)
{
    tk_error err;
    tk_input *in = tk_input_open(sample, &err);
    assert_non_null(in);
    const tk_format *f = tk_format_probe(in, &err);
    assert_non_null(f);
    assert_string_equal(tk_format_name(f), "cacheray");
    tu_capture c;
    tk_sink *s = tu_sink_open(&c, TK_SINK_JSON);
    assert_int_equal(tk_info(f, in, NULL, s, &err), TK_OK);
    char *out = tu_sink_text(s, &c);
    tk_input_close(in);
    return out;
}

static void test_struct_test(void **state)
{
    (void)state;
    summary s;
    load(&s);
    assert_int_equal(s.size, 284);
    assert_int_equal(s.endian, TK_ENDIAN_LITTLE);
    assert_int_equal(s.recs.n, 12);
    static const tk_cacheray_record want[12] = {
        {TK_CACHERAY_RTTA_ADD, 0, 0, 0x8b96b0, 0, 24, 1, 12, "struct.Basic"},
        {TK_CACHERAY_RTTA_ADD, 0, 0, 0x8b96d0, 0, 8, 1, 14, "struct.TdBasic"},
        {TK_CACHERAY_RTTA_ADD, 0, 0, 0x8b96f0, 0, 56, 1, 11, "struct.Deep"},
        {TK_CACHERAY_WRITE, 0, 4, 0x8b96b0, 0, 0, 0, 0, NULL},
        {TK_CACHERAY_WRITE, 0, 8, 0x8b96b8, 0, 0, 0, 0, NULL},
        {TK_CACHERAY_READ, 0, 4, 0x8b96b0, 0, 0, 0, 0, NULL},
        {TK_CACHERAY_READ, 0, 8, 0x8b96b8, 0, 0, 0, 0, NULL},
        {TK_CACHERAY_READ, 0, 8, 0x8b96c0, 0, 0, 0, 0, NULL},
        {TK_CACHERAY_READ, 0, 4, 0x8b96d0, 0, 0, 0, 0, NULL},
        {TK_CACHERAY_READ, 0, 4, 0x8b96d4, 0, 0, 0, 0, NULL},
        {TK_CACHERAY_RTTA_REMOVE, 0, 0, 0x8b96b0, 0, 0, 0, 0, NULL},
        {TK_CACHERAY_RTTA_REMOVE, 0, 0, 0x8b96d0, 0, 0, 0, 0, NULL},
    };
    static const uint64_t offsets[12] = {0, 41, 84, 124, 142, 160, 178, 196, 214, 232, 250, 267};
    for (size_t i = 0; i < 12; i++) {
        tu_assert_rec_equal(&want[i], &s.recs.v[i]);
        assert_int_equal(s.recs.offset[i], offsets[i]);
    }
    char *report = trace_check_report(&s);
    assert_string_equal(report, "The file was correct\nAccess stats:\n"
                                "\t0: 5\n\t1: 2\n\t2: 3\n\t3: 2\n");
    free(report);
    assert_int_equal(s.warnings, 0);
    assert_int_equal(s.live, 1); /* struct.Deep is never removed */

    char want_info[8192];
    snprintf(want_info, sizeof want_info,
             "{\"file\":\"%s\",\"format\":\"cacheray\",\"byte_order\":\"little\",\"size\":284,"
             "\"records\":12,\"by_kind\":[{\"kind\":\"read\",\"count\":5,\"atomic_count\":0,"
             "\"unaligned_count\":0,\"bytes\":28},{\"kind\":\"write\",\"count\":2,"
             "\"atomic_count\":0,"
             "\"unaligned_count\":0,\"bytes\":12},{\"kind\":\"rtta_add\",\"count\":3},"
             "{\"kind\":\"rtta_remove\",\"count\":2}],\"thread_count\":1,"
             "\"threads\":[{\"thread\":0,\"records\":12}],"
             "\"min_addr\":%llu,\"max_addr\":%llu,\"rtta_types\":["
             "{\"name\":\"struct.Basic\",\"regions\":1,\"elements\":1,\"bytes\":24},"
             "{\"name\":\"struct.Deep\",\"regions\":1,\"elements\":1,\"bytes\":56},"
             "{\"name\":\"struct.TdBasic\",\"regions\":1,\"elements\":1,\"bytes\":8}],"
             "\"live_regions_at_end\":1}\n",
             sample, 0x8b96b0ULL, 0x8b96d7ULL);
    char *info = info_json();
    assert_string_equal(info, want_info);
    free(info);
    tu_recs_free(&s.recs);
}

static void test_bubble_sort(void **state)
{
    (void)state;
    summary s;
    load(&s);
    assert_int_equal(s.size, 302184);
    assert_int_equal(s.endian, TK_ENDIAN_LITTLE);
    assert_int_equal(s.recs.n, 16788);
    uint64_t reads = 0, writes = 0, amin = UINT64_MAX, amax = 0;
    tk_map addrs, lines;
    tk_map_init(&addrs, 1);
    tk_map_init(&lines, 1);
    for (size_t i = 0; i < s.recs.n; i++) {
        const tk_cacheray_record *r = &s.recs.v[i];
        assert_true(r->type == TK_CACHERAY_READ || r->type == TK_CACHERAY_WRITE); /* no RTTA */
        reads += r->type == TK_CACHERAY_READ;
        writes += r->type == TK_CACHERAY_WRITE;
        assert_int_equal(r->size, 4);
        assert_int_equal(r->thread, 0);
        assert_int_equal(r->flags, 0);
        amin = r->addr < amin ? r->addr : amin;
        amax = r->addr > amax ? r->addr : amax;
        assert_non_null(tk_map_u64(&addrs, r->addr));
        assert_non_null(tk_map_u64(&lines, r->addr / 64));
    }
    assert_int_equal(reads, 13344);
    assert_int_equal(writes, 3444);
    assert_int_equal(addrs.n, 100);
    assert_int_equal(lines.n, 7);
    assert_int_equal(amin, 0x7ffea8b2a640ULL);
    assert_int_equal(amax, 0x7ffea8b2a7ccULL);
    tk_map_free(&addrs);
    tk_map_free(&lines);
    char *report = trace_check_report(&s);
    assert_string_equal(report, "The file was correct\nAccess stats:\n\t0: 13344\n\t1: 3444\n");
    free(report);
    assert_int_equal(s.warnings, 0);
    assert_int_equal(s.live, 0);

    char want_info[8192];
    snprintf(want_info, sizeof want_info,
             "{\"file\":\"%s\",\"format\":\"cacheray\",\"byte_order\":\"little\","
             "\"size\":302184,\"records\":16788,\"by_kind\":[{\"kind\":\"read\","
             "\"count\":13344,\"atomic_count\":0,\"unaligned_count\":0,\"bytes\":53376},"
             "{\"kind\":\"write\",\"count\":3444,\"atomic_count\":0,\"unaligned_count\":0,"
             "\"bytes\":13776},{\"kind\":\"rtta_add\",\"count\":0},{\"kind\":"
             "\"rtta_remove\",\"count\":0}],\"thread_count\":1,"
             "\"threads\":[{\"thread\":0,\"records\":16788}],"
             "\"min_addr\":%llu,\"max_addr\":%llu,\"rtta_types\":[],"
             "\"live_regions_at_end\":0}\n",
             sample, 0x7ffea8b2a640ULL, 0x7ffea8b2a7cfULL);
    char *info = info_json();
    assert_string_equal(info, want_info);
    free(info);
    tu_recs_free(&s.recs);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s struct-test|bubble-sort SHARED_DIR\n", argv[0]);
        return 2;
    }
    snprintf(sample, sizeof sample, "%s/corpus/cacheray/%s.trace", argv[2], argv[1]);
    if (access(sample, R_OK) != 0) {
        printf("SKIPPED: %s is not available\n", sample);
        return 77;
    }
    const struct CMUnitTest struct_test[] = {cmocka_unit_test(test_struct_test)};
    const struct CMUnitTest bubble_sort[] = {cmocka_unit_test(test_bubble_sort)};
    if (strcmp(argv[1], "struct-test") == 0)
        return cmocka_run_group_tests(struct_test, NULL, NULL);
    if (strcmp(argv[1], "bubble-sort") == 0)
        return cmocka_run_group_tests(bubble_sort, NULL, NULL);
    fprintf(stderr, "unknown sample '%s'\n", argv[1]);
    return 2;
}
