/* The format-level commands through the library API (tk_info, tk_dump,
 * tk_validate, tk_convert, registry) on a hand-built trace whose summary is
 * known exactly: repeated type names, a removal, an overlap, 70 threads,
 * an access that wraps the address space. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static tu_buf trace;

static int setup(void **state)
{
    (void)state;
    memset(&trace, 0, sizeof trace);
    for (uint64_t t = 0; t < 70; t++) { /* 70 reads, one per thread */
        uint8_t flags = t == 5 ? TK_CACHERAY_ATOMIC : t == 6 ? TK_CACHERAY_UNALIGNED
                      : t == 7 ? TK_CACHERAY_ATOMIC | TK_CACHERAY_UNALIGNED : 0;
        tu_access(&trace, (uint8_t)(TK_CACHERAY_READ | flags), 0x1000 + 8 * t, 8, t);
    }
    tu_access(&trace, TK_CACHERAY_WRITE, 0xfffffffffffffffcULL, 8, 0); /* last byte wraps */
    tu_add(&trace, 0x10000, 0, 16, 4, "T", 1);
    tu_add(&trace, 0x20000, 0, 16, 2, "T", 1);
    tu_add(&trace, 0x30000, 0, 8, 1, "U", 1);
    tu_remove(&trace, 0x10000, 0);
    tu_add(&trace, 0x30004, 0, 4, 1, "U", 1); /* ends the 0x30000 region */
    tu_add(&trace, 0x40000, 0, 1, 1, "", 0);
    return trace.len == 1444 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tu_buf_free(&trace);
    return 0;
}

static const tk_format *cacheray(void)
{
    const tk_format *f = tk_format_find("cacheray");
    assert_non_null(f);
    return f;
}

/* Run one command on `d` with options `kv` (key, value, ..., NULL). */
typedef enum { INFO, DUMP, VALIDATE } command;

static char *run(command cmd, tk_sink_style style, const uint8_t *d, size_t n, tk_status want,
                 uint64_t *nwarn, const char *const *kv)
{
    tk_error err;
    tk_error_clear(&err);
    tk_input *in = tk_input_from_memory(d, n, "t.trace", &err);
    tk_options *o = tk_options_new(&err);
    for (size_t i = 0; kv && kv[i]; i += 2)
        tk_options_set(o, kv[i], kv[i + 1], &err);
    tu_capture c;
    tk_sink *s = tu_sink_open(&c, style);
    tk_status st = cmd == INFO ? tk_info(cacheray(), in, o, s, &err)
                 : cmd == DUMP ? tk_dump(cacheray(), in, o, s, &err)
                               : tk_validate(cacheray(), in, o, s, nwarn, &err);
    assert_int_equal(st, want);
    char *out = tu_sink_text(s, &c);
    tk_options_free(o);
    tk_input_close(in);
    if (want != TK_OK) {
        free(out);
        return strdup(err.message);
    }
    return out;
}

static void test_info_json(void **state)
{
    (void)state;
    char *got = run(INFO, TK_SINK_JSON, trace.p, trace.len, TK_OK, NULL, NULL);
    char threads[2048] = "";
    for (int t = 0; t < 64; t++) /* 70 counted, the first 64 listed */
        snprintf(threads + strlen(threads), sizeof threads - strlen(threads),
                 "%s{\"thread\":%d,\"records\":%d}", t ? "," : "", t, t ? 1 : 8);
    char want[4096];
    snprintf(want, sizeof want,
             "{\"file\":\"t.trace\",\"format\":\"cacheray\",\"byte_order\":\"little\","
             "\"size\":1444,\"records\":77,\"by_kind\":[{\"kind\":\"read\",\"count\":70,"
             "\"atomic_count\":2,\"unaligned_count\":2,\"bytes\":560},"
             "{\"kind\":\"write\",\"count\":1,\"atomic_count\":0,\"unaligned_count\":0,"
             "\"bytes\":8},{\"kind\":\"rtta_add\",\"count\":5},"
             "{\"kind\":\"rtta_remove\",\"count\":1}],\"thread_count\":70,\"threads\":[%s],"
             "\"min_addr\":4096,\"max_addr\":18446744073709551615,"
             "\"rtta_types\":[{\"name\":\"\",\"regions\":1,\"elements\":1,\"bytes\":1},"
             "{\"name\":\"T\",\"regions\":2,\"elements\":6,\"bytes\":96},"
             "{\"name\":\"U\",\"regions\":2,\"elements\":2,\"bytes\":12}],"
             "\"live_regions_at_end\":3}\n",
             threads);
    assert_string_equal(got, want);
    free(got);
}

/* The threads listed are the 64 smallest ids in order, whatever order they
 * come in (here descending, a huge id, a thread coming back), with their
 * records. */
static void test_info_threads_order(void **state)
{
    (void)state;
    tu_buf b;
    memset(&b, 0, sizeof b);
    for (uint64_t t = 200; t >= 1; t--) {
        tu_access(&b, TK_CACHERAY_READ, 0x1000, 8, t);
        if (t % 3 == 0)
            tu_access(&b, TK_CACHERAY_WRITE, 0x1000, 8, t);
    }
    tu_access(&b, TK_CACHERAY_READ, 0x1000, 8, 1ull << 40);
    tu_access(&b, TK_CACHERAY_READ, 0x1000, 8, 7);
    char *got = run(INFO, TK_SINK_JSON, b.p, b.len, TK_OK, NULL, NULL);
    char want[4096] = "\"thread_count\":201,\"threads\":[";
    for (int t = 1; t <= 64; t++)
        snprintf(want + strlen(want), sizeof want - strlen(want),
                 "%s{\"thread\":%d,\"records\":%d}", t > 1 ? "," : "", t,
                 1 + (t % 3 == 0) + (t == 7));
    strcat(want, "]");
    assert_non_null(strstr(got, want));
    free(got);
    tu_buf_free(&b);
}

static void test_info_text_empty(void **state)
{
    (void)state;
    char *got = run(INFO, TK_SINK_TEXT, (const uint8_t *)"", 0, TK_OK, NULL, NULL);
    assert_string_equal(got, "file: t.trace\n"
                             "format: cacheray\n"
                             "byte_order: little\n"
                             "size: 0\n"
                             "records: 0\n"
                             "by_kind:\n"
                             "  kind         count  atomic_count  unaligned_count  bytes\n"
                             "  read             0             0                0      0\n"
                             "  write            0             0                0      0\n"
                             "  rtta_add         0             -                -      -\n"
                             "  rtta_remove      0             -                -      -\n"
                             "thread_count: 0\n"
                             "threads: (none)\n"
                             "min_addr: -\n"
                             "max_addr: -\n"
                             "rtta_types: (none)\n"
                             "live_regions_at_end: 0\n");
    free(got);
    got = run(INFO, TK_SINK_JSON, (const uint8_t *)"", 0, TK_OK, NULL, NULL);
    assert_non_null(strstr(got, "\"threads\":[],\"min_addr\":null,\"max_addr\":null,"
                                "\"rtta_types\":[],"));
    free(got);
}

static void test_dump_options(void **state)
{
    (void)state;
    const char *const kv[] = {"skip", "69", "limit", "3", NULL};
    char *got = run(DUMP, TK_SINK_TEXT, trace.p, trace.len, TK_OK, NULL, kv);
    assert_string_equal(got,
                        "69 0x4da read addr=0x1228 size=8 thread=69\n"
                        "70 0x4ec write addr=0xfffffffffffffffc size=8 thread=0\n"
                        "71 0x4fe rtta_add addr=0x10000 thread=0 elem_size=16 elem_count=4 "
                        "type_name=T\n");
    free(got);
    const char *const kv2[] = {"skip", "76", "limit", "1", NULL};
    got = run(DUMP, TK_SINK_JSON, trace.p, trace.len, TK_OK, NULL, kv2);
    assert_string_equal(got, "{\"record\":76,\"offset\":1415,\"kind\":\"rtta_add\",\"addr\":262144,"
                             "\"thread\":0,\"elem_size\":1,\"elem_count\":1,\"type_name\":\"\"}\n");
    free(got);
    const char *const flags[] = {"skip", "5", "limit", "3", NULL};
    got = run(DUMP, TK_SINK_TEXT, trace.p, trace.len, TK_OK, NULL, flags);
    assert_string_equal(got, "5 0x5a read addr=0x1028 size=8 thread=5 atomic\n"
                             "6 0x6c read addr=0x1030 size=8 thread=6 unaligned\n"
                             "7 0x7e read addr=0x1038 size=8 thread=7 atomic unaligned\n");
    free(got);
    const char *const bad[] = {"limit", "ten", NULL};
    got = run(DUMP, TK_SINK_TEXT, trace.p, trace.len, TK_EUSAGE, NULL, bad);
    assert_string_equal(got, "--limit: 'ten' is not a non-negative number");
    free(got);
    const char *const endian[] = {"endian", "sideways", NULL};
    got = run(DUMP, TK_SINK_TEXT, trace.p, trace.len, TK_EUSAGE, NULL, endian);
    assert_string_equal(got, "--endian: expected little, big or auto, not 'sideways'");
    free(got);
}

static void test_validate(void **state)
{
    (void)state;
    uint64_t nwarn = 99;
    char *got = run(VALIDATE, TK_SINK_TEXT, trace.p, trace.len, TK_OK, &nwarn, NULL);
    assert_int_equal(nwarn, 1);
    assert_string_equal(got, "warning record=75 offset=0x569 code=overlap addr=0x30004 "
                             "region_addr=0x30000 "
                             "message=\"rtta_add overlaps a live region, which it ends\"\n");
    free(got);
    /* a structural error stops validation with its location */
    tu_buf cut = {0};
    tu_putn(&cut, trace.p, trace.len - 1);
    got = run(VALIDATE, TK_SINK_TEXT, cut.p, cut.len, TK_EMALFORMED, &nwarn, NULL);
    assert_string_equal(got, "truncated rtta_add record: needs 29 bytes, 28 left");
    tu_buf_free(&cut);
    free(got);
}

static void test_convert_and_registry(void **state)
{
    (void)state;
    size_t i = 0; /* other formats may be registered too */
    while (i < tk_format_count() && tk_format_at(i) != cacheray())
        i++;
    assert_true(i < tk_format_count());
    assert_null(tk_format_at(tk_format_count()));
    assert_null(tk_format_find("pcap"));
    assert_string_equal(tk_format_name(cacheray()), "cacheray");
    const char *const *t = tk_format_targets(cacheray());
    assert_string_equal(t[0], "cacheray");
    assert_string_equal(t[1], "jsonl");
    assert_string_equal(t[2], "perfetto");
    assert_string_equal(t[3], "parquet");
    assert_null(t[4]);
    assert_true(tk_format_target_is_dir(cacheray(), "parquet"));
    assert_false(tk_format_target_is_dir(cacheray(), "jsonl"));

    tk_error err;
    tk_input *in = tk_input_from_memory(trace.p, trace.len, "t", &err);
    assert_ptr_equal(tk_format_probe(in, &err), cacheray());
    tu_capture c;
    tu_capture_open(&c);
    tk_options *o = tk_options_new(&err);
    tk_options_set(o, "out-endian", "big", &err);
    assert_int_equal(tk_convert(cacheray(), in, o, "cacheray", c.fp, &err), TK_OK);
    char *be = tu_capture_close(&c);
    assert_int_equal(c.len, trace.len);
    tk_input_close(in);
    /* back to little through the converter reproduces the trace */
    in = tk_input_from_memory(be, c.len, "be", &err);
    tu_capture_open(&c);
    tk_options_set(o, "out-endian", "little", &err);
    assert_int_equal(tk_convert(cacheray(), in, o, "cacheray", c.fp, &err), TK_OK);
    char *le = tu_capture_close(&c);
    assert_int_equal(c.len, trace.len);
    assert_memory_equal(le, trace.p, trace.len);
    tk_input_close(in);
    /* jsonl is dump --json */
    in = tk_input_from_memory(trace.p, trace.len, "t", &err);
    tu_capture_open(&c);
    assert_int_equal(tk_convert(cacheray(), in, NULL, "jsonl", c.fp, &err), TK_OK);
    char *jsonl = tu_capture_close(&c);
    char *dump = run(DUMP, TK_SINK_JSON, trace.p, trace.len, TK_OK, NULL, NULL);
    assert_string_equal(jsonl, dump);
    tk_input_close(in);
    assert_int_equal(tk_convert(cacheray(), NULL, NULL, "svg", stdout, &err), TK_EUSAGE);
    assert_string_equal(err.message, "cacheray cannot be converted to 'svg'");
    free(jsonl);
    free(dump);
    free(le);
    free(be);
    tk_options_free(o);
}

static void test_probe_rejects(void **state)
{
    (void)state;
    tk_error err;
    tk_input *in = tk_input_from_memory("", 0, "e", &err);
    assert_null(tk_format_probe(in, &err));
    assert_int_equal(err.status, TK_EMALFORMED);
    assert_string_equal(err.message, "empty input: cannot tell its format (use --format)");
    tk_input_close(in);
    static const uint8_t junk[64] = {0x04, 0x05, 0x06};
    in = tk_input_from_memory(junk, sizeof junk, "j", &err);
    assert_null(tk_format_probe(in, &err));
    assert_string_equal(err.message, "not a recognized trace (use --format)");
    assert_int_equal(err.status, TK_EMALFORMED);
    assert_true(err.offset == TK_NO_OFFSET);
    tk_input_close(in);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_info_json),     T(test_info_threads_order),    T(test_info_text_empty),
        T(test_dump_options),
        T(test_validate),      T(test_convert_and_registry), T(test_probe_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
