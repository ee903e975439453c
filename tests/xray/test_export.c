/* Chrome Trace Event export: valid JSON, slices closed as calls return,
 * exact microsecond timestamps, escaped names and payloads. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "testutil.h"


static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

static const char *odd_name(void *ctx, int32_t id)
{
    (void)ctx;
    return id == 2 ? "a\"b\\c" : NULL;
}

static char *export(tk_xray_name_fn name)
{
    static const uint64_t args[] = {7, 8};
    static const char payload[] = "he said \"hi\"\n\x01";
    tk_xray_record recs[] = {
        {TK_XRAY_ENTER_ARG, 0, 0, 1, 1000000, 1, 5, 2, args, 0, NULL},
        {TK_XRAY_ENTER, 0, 0, 2, 1234567, 1, 5, 0, NULL, 0, NULL},
        {TK_XRAY_EXIT, 0, 0, 2, 1300000, 1, 5, 0, NULL, 0, NULL},
        {TK_XRAY_ENTER, 0, 0, 3, 1400000, 1, 5, 0, NULL, 0, NULL},
        {TK_XRAY_TAIL_EXIT, 0, 0, 1, 1500000, 1, 5, 0, NULL, 0, NULL},
        {TK_XRAY_EXIT, 0, 0, 9, 1600000, 1, 5, 0, NULL, 0, NULL},
        {TK_XRAY_CUSTOM_EVENT, 0, 0, 0, 1700000, 2, 5, 0, NULL,
         (uint32_t)sizeof payload - 1, (const uint8_t *)payload},
        {TK_XRAY_TYPED_EVENT, 0, 3, 0, 1800000, 2, 5, 0, NULL, 2, (const uint8_t *)"ok"},
        {TK_XRAY_ENTER, 0, 0, 4, 1900000, 2, 5, 0, NULL, 0, NULL},
    };
    tkf_memfile trace, out;
    tkf_memfile_open(&trace);
    tk_xray_header h;
    tk_xray_default_header(&h, TK_XRAY_FDR, 5);
    tk_error err;
    tk_xray_writer *w = tk_xray_writer_new(trace.fp, &h, &err);
    assert_non_null(w);
    for (size_t i = 0; i < sizeof recs / sizeof recs[0]; i++)
        assert_int_equal(tk_xray_write(w, &recs[i], &err), TK_OK);
    assert_int_equal(tk_xray_writer_free(w, &err), TK_OK);
    tkf_memfile_close(&trace);
    tk_input *in = tk_input_from_memory(trace.buf, trace.len, "t", &err);
    tk_xray_reader *r = tk_xray_reader_new(in, &err);
    assert_non_null(r);
    tkf_memfile_open(&out);
    assert_int_equal(tk_xray_write_chrome(r, out.fp, name, NULL, &err), TK_OK);
    tkf_memfile_close(&out);
    tk_xray_reader_free(r);
    tk_input_close(in);
    tkf_memfile_free(&trace);
    char *text = strndup(out.buf, out.len);
    tkf_memfile_free(&out);
    return text;
}

static void test_chrome(void **state)
{
    (void)state;
    char *text = export(NULL);
    /* One JSON document: check it as a single line. */
    char *flat = strdup(text);
    size_t n = 0;
    for (char *p = flat; *p; p++)
        if (*p != '\n')
            flat[n++] = *p;
    flat[n++] = '\n';
    assert_int_equal(tkf_check_json_lines(flat, n), 1);
    assert_int_equal(count(text, "\"ph\":\"B\""), 4);
    assert_int_equal(count(text, "\"ph\":\"E\""), 3); /* f2; f3 and f1 by the tail exit */
    assert_int_equal(count(text, "\"ph\":\"i\""), 2);
    assert_int_equal(count(text, "\"process_name\""), 1);
    assert_int_equal(count(text, "\"thread_name\""), 2);
    assert_non_null(strstr(text, "\"name\":\"#2\",\"cat\":\"xray\",\"ph\":\"B\",\"ts\":1234.567,"
                                 "\"pid\":5,\"tid\":1"));
    assert_non_null(strstr(text, "\"args\":{\"arg0\":7,\"arg1\":8}"));
    assert_non_null(strstr(text, "\"data\":\"he said \\\"hi\\\"\\n\\u0001\""));
    assert_non_null(strstr(text, "\"name\":\"typed-event 3\""));
    assert_null(strstr(text, "#9"));
    assert_non_null(strstr(text, "\"displayTimeUnit\":\"ns\"}"));
    free(flat);
    free(text);
    text = export(odd_name);
    assert_non_null(strstr(text, "\"name\":\"a\\\"b\\\\c\""));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_chrome)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
