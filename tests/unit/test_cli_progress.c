/* The progress line's text (src/cli/progress_line.c): amounts in decimal
 * units, the time left rounded up, the line with and without a size, a
 * rate or a pass, and cutting to the buffer. */
#include <math.h>
#include <string.h>

#include "progress.h"
#include "testutil.h"

static void check_bytes(double bytes, const char *want)
{
    char buf[16];
    cli_progress_bytes(buf, sizeof buf, bytes);
    assert_string_equal(buf, want);
}

static void test_bytes(void **state)
{
    (void)state;
    check_bytes(0, "0 B");
    check_bytes(999, "999 B");
    check_bytes(999.5, "1.0 kB"); /* never "1000 B" */
    check_bytes(1000, "1.0 kB");
    check_bytes(262144, "262 kB");
    check_bytes(9949999, "9.9 MB");
    check_bytes(9950000, "10 MB");
    check_bytes(999499999, "999 MB");
    check_bytes(999500000, "1.0 GB");
    check_bytes(1.2e9, "1.2 GB");
    check_bytes(3.4e12, "3.4 TB");
    check_bytes(1.8e19, "18 EB"); /* UINT64_MAX: the largest unit */
}

static void check_eta(double seconds, const char *want)
{
    char buf[24];
    cli_progress_eta(buf, sizeof buf, seconds);
    assert_string_equal(buf, want);
}

static void test_eta(void **state)
{
    (void)state;
    check_eta(0, "0 s");
    check_eta(-1, "0 s");
    check_eta(0.01, "1 s"); /* up: "0 s" only when done */
    check_eta(5, "5 s");
    check_eta(59.5, "1 min 00 s");
    check_eta(125, "2 min 05 s");
    check_eta(3599, "59 min 59 s");
    check_eta(3600, "1 h 00 min");
    check_eta(3725, "1 h 02 min");
    check_eta(99 * 3600 + 3599, "99 h 59 min");
    check_eta(100 * 3600, "over 99 h");
    check_eta(1e300, "over 99 h");
    check_eta(INFINITY, "over 99 h");
    check_eta(NAN, "over 99 h");
}

static void check_line(const cli_progress_view *v, const char *want)
{
    char buf[200];
    size_t n = cli_progress_format(buf, sizeof buf, v);
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
}

static void test_line(void **state)
{
    (void)state;
    cli_progress_view v = {"cachesim trace.bin", 1, 1200000000, 3400000000, 410e6};
    check_line(&v, "tracekit: cachesim trace.bin: 1.2 GB of 3.4 GB (35%), 410 MB/s, ETA 6 s");
    v.pass = 2;
    check_line(&v, "tracekit: cachesim trace.bin: pass 2: 1.2 GB of 3.4 GB (35%), 410 MB/s, "
                   "ETA 6 s");
    /* no rate yet: no ETA */
    cli_progress_view first = {"validate t", 1, 262144, 1000000, 0};
    check_line(&first, "tracekit: validate t: 262 kB of 1.0 MB (26%)");
    /* a pipe: no size, so no percentage and no ETA */
    cli_progress_view pipe = {"dump <stdin>", 1, 5500000, -1, 2.5e6};
    check_line(&pipe, "tracekit: dump <stdin>: 5.5 MB, 2.5 MB/s");
    pipe.rate = 0;
    check_line(&pipe, "tracekit: dump <stdin>: 5.5 MB");
    /* 100% only at the end; past the size (a file that grew) stays 100% */
    cli_progress_view end = {"info f", 1, 999, 1000, 1e6};
    check_line(&end, "tracekit: info f: 999 B of 1.0 kB (99%), 1.0 MB/s, ETA 1 s");
    end.done = 1000;
    check_line(&end, "tracekit: info f: 1.0 kB of 1.0 kB (100%), 1.0 MB/s, ETA 0 s");
    end.done = 5000;
    check_line(&end, "tracekit: info f: 5.0 kB of 1.0 kB (100%), 1.0 MB/s, ETA 0 s");
    /* an empty file: no percentage */
    cli_progress_view empty = {"info e", 1, 0, 0, 0};
    check_line(&empty, "tracekit: info e: 0 B of 0 B");
    /* a slow pass: the ETA in minutes and hours */
    cli_progress_view slow = {"account x", 1, 1000000, 100000000000, 1e6};
    check_line(&slow, "tracekit: account x: 1.0 MB of 100 GB (0%), 1.0 MB/s, ETA 27 h 46 min");
}

static void test_cut(void **state)
{
    (void)state;
    cli_progress_view v = {"validate a-rather-long-name", 1, 1, 2, 0};
    char buf[20];
    memset(buf, 'x', sizeof buf);
    size_t n = cli_progress_format(buf, sizeof buf, &v);
    assert_int_equal(n, sizeof buf - 1);
    assert_string_equal(buf, "tracekit: validate ");
    assert_int_equal(cli_progress_format(buf, 1, &v), 0);
    assert_string_equal(buf, "");
    assert_int_equal(cli_progress_format(buf, 0, &v), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_eta),
        cmocka_unit_test(test_line),
        cmocka_unit_test(test_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
