/* tk_error: setting, clearing and the one-line rendering every CLI error
 * message goes through. */
#include <string.h>

#include "testutil.h"

static const char *fmt(const tk_error *e, const char *file)
{
    static char buf[512];
    return tk_error_format(e, file, buf, sizeof buf);
}

static void test_offset_and_record(void **state)
{
    (void)state;
    tk_error e;
    assert_int_equal(tk_error_set(&e, TK_EMALFORMED, 0x12, 1,
                                  "truncated read record: needs %d bytes, %d left", 18, 5),
                     TK_EMALFORMED);
    assert_int_equal(e.status, TK_EMALFORMED);
    assert_int_equal(e.offset, 0x12);
    assert_int_equal(e.record, 1);
    assert_int_equal(e.line, 0);
    assert_string_equal(fmt(&e, "f.trace"),
                        "f.trace: offset 0x12 (record 1): truncated read record: needs 18 bytes, 5 left");
    /* without a file name the location leads */
    assert_string_equal(fmt(&e, NULL),
                        "offset 0x12 (record 1): truncated read record: needs 18 bytes, 5 left");
}

static void test_offset_only_and_big_values(void **state)
{
    (void)state;
    tk_error e;
    tk_error_set(&e, TK_EMALFORMED, 0, TK_NO_RECORD, "empty input");
    assert_string_equal(fmt(&e, "x"), "x: offset 0x0: empty input");
    tk_error_set(&e, TK_EMALFORMED, UINT64_MAX - 1, UINT64_MAX - 1, "m");
    assert_string_equal(fmt(&e, "x"),
                        "x: offset 0xfffffffffffffffe (record 18446744073709551614): m");
    tk_error_set(&e, TK_EIO, TK_NO_OFFSET, 7, "m");
    assert_string_equal(fmt(&e, "x"), "x (record 7): m");
}

static void test_line_col(void **state)
{
    (void)state;
    tk_error e;
    assert_int_equal(tk_error_set_text(&e, TK_EMALFORMED, 12, 3, 4, "bad %s", "token"),
                     TK_EMALFORMED);
    assert_int_equal(e.offset, TK_NO_OFFSET);
    assert_string_equal(fmt(&e, "f.log"), "f.log:12:3 (record 4): bad token");
    tk_error_set_text(&e, TK_EMALFORMED, 12, 0, TK_NO_RECORD, "bad");
    assert_string_equal(fmt(&e, "f.log"), "f.log:12: bad");
    tk_error_set_text(&e, TK_EMALFORMED, 1, 1, TK_NO_RECORD, "bad");
    assert_string_equal(fmt(&e, "f.log"), "f.log:1:1: bad");
}

static void test_no_location_and_default_message(void **state)
{
    (void)state;
    tk_error e;
    tk_error_set(&e, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "No such file or directory");
    assert_string_equal(fmt(&e, "a.trace"), "a.trace: No such file or directory");
    assert_string_equal(fmt(&e, NULL), "No such file or directory");
    /* an empty message falls back to the status name */
    tk_error_set(&e, TK_EMALFORMED, 0x10, TK_NO_RECORD, "%s", "");
    assert_string_equal(fmt(&e, "a"), "a: offset 0x10: malformed trace");
}

static void test_truncating_buffer(void **state)
{
    (void)state;
    tk_error e;
    tk_error_set(&e, TK_EMALFORMED, 0x12, 1, "message");
    char small[12];
    memset(small, 'Z', sizeof small);
    assert_ptr_equal(tk_error_format(&e, "f.trace", small, sizeof small), small);
    assert_string_equal(small, "f.trace: of"); /* 11 chars + NUL */
    char none[1] = {'Z'};
    tk_error_format(&e, "f.trace", none, 0); /* size 0: untouched */
    assert_int_equal(none[0], 'Z');
}

static void test_clear_and_null(void **state)
{
    (void)state;
    tk_error e;
    tk_error_set(&e, TK_EIO, 5, 6, "x");
    tk_error_clear(&e);
    assert_int_equal(e.status, TK_OK);
    assert_int_equal(e.offset, TK_NO_OFFSET);
    assert_int_equal(e.record, TK_NO_RECORD);
    assert_int_equal(e.line, 0);
    assert_int_equal(e.col, 0);
    assert_string_equal(e.message, "");
    tk_error_clear(NULL);
    assert_int_equal(tk_error_set(NULL, TK_EUSAGE, 0, 0, "x"), TK_EUSAGE);
    assert_int_equal(tk_error_set_text(NULL, TK_EIO, 1, 1, 0, "x"), TK_EIO);
}

static void test_long_message_truncated(void **state)
{
    (void)state;
    char big[600];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    tk_error e;
    tk_error_set(&e, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "%s", big);
    assert_int_equal(strlen(e.message), sizeof e.message - 1);
}

static void test_status_names(void **state)
{
    (void)state;
    assert_string_equal(tk_status_name(TK_OK), "ok");
    assert_string_equal(tk_status_name(TK_EMALFORMED), "malformed trace");
    assert_string_equal(tk_status_name(TK_EVIOLATION), "check failed");
    assert_string_equal(tk_status_name(TK_EIO), "I/O error");
    assert_string_equal(tk_status_name(TK_EUSAGE), "usage error");
    assert_string_equal(tk_status_name(TK_ENOMEM), "out of memory");
    assert_string_equal(tk_status_name(TK_EUNSUPPORTED), "not supported");
    assert_string_equal(tk_status_name((tk_status)99), "unknown error");
    assert_string_equal(tk_version(), TRACEKIT_VERSION_STRING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offset_and_record),
        cmocka_unit_test(test_offset_only_and_big_values),
        cmocka_unit_test(test_line_col),
        cmocka_unit_test(test_no_location_and_default_message),
        cmocka_unit_test(test_truncating_buffer),
        cmocka_unit_test(test_clear_and_null),
        cmocka_unit_test(test_long_message_truncated),
        cmocka_unit_test(test_status_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
