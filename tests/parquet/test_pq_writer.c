/* The Parquet writer's contract (src/export/parquet/parquet.h): bad
 * schemas and bad values are TK_EUSAGE naming the column, write failures
 * TK_EIO; the file's frame (PAR1, the footer length); row groups flushed
 * as they fill, so the memory held stays one row group's. The values and
 * metadata themselves are checked by two readers (readers_test.sh). */
#include <stdlib.h>
#include <string.h>

#include "export/parquet/pq_int.h"
#include "testutil.h"

static const tk_pq_column cols[] = {
    {"id", TK_PQ_INT64, 0, TK_PQ_ENC_AUTO},
    {"name", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_AUTO},
    {"small", TK_PQ_INT8, TK_PQ_NULLABLE, TK_PQ_ENC_PLAIN},
    {"u", TK_PQ_UINT32, 0, TK_PQ_ENC_AUTO},
};
enum { NCOLS = sizeof cols / sizeof *cols };

static tk_pq_writer *open_mem(char **p, size_t *n, FILE **f, const tk_pq_options *o)
{
    *f = open_memstream(p, n);
    assert_non_null(*f);
    tk_error err;
    tk_pq_writer *w = tk_pq_writer_new(*f, cols, NCOLS, o, &err);
    assert_non_null(w);
    return w;
}

static void expect_schema_error(const tk_pq_column *c, size_t n, const char *msg)
{
    FILE *f = tmpfile();
    tk_error err;
    assert_null(tk_pq_writer_new(f, c, n, NULL, &err));
    assert_int_equal(err.status, TK_EUSAGE);
    if (!strstr(err.message, msg))
        fail_msg("'%s' lacks '%s'", err.message, msg);
    fclose(f);
}

static void test_bad_schema(void **state)
{
    (void)state;
    tk_pq_column dup[] = {{"a", TK_PQ_INT64, 0, 0}, {"a", TK_PQ_STRING, 0, 0}};
    expect_schema_error(dup, 2, "two columns named 'a'");
    tk_pq_column delta[] = {{"s", TK_PQ_STRING, 0, TK_PQ_ENC_DELTA}};
    expect_schema_error(delta, 1, "column 's': delta");
    tk_pq_column dict[] = {{"i", TK_PQ_INT32, 0, TK_PQ_ENC_DICT}};
    expect_schema_error(dict, 1, "column 'i': dictionary");
    tk_pq_column noname[] = {{"", TK_PQ_INT32, 0, 0}};
    expect_schema_error(noname, 1, "without a name");
    expect_schema_error(cols, 0, "0 columns");
    tk_pq_options o;
    tk_pq_options_init(&o);
    o.codec = (tk_pq_codec)42;
    FILE *f = tmpfile();
    tk_error err;
    assert_null(tk_pq_writer_new(f, cols, NCOLS, &o, &err));
    assert_int_equal(err.status, TK_EUSAGE);
    fclose(f);
}

/* One bad call in an otherwise good row: the row's end says what. */
static void expect_row_error(int which, const char *msg)
{
    char *p = NULL;
    size_t n = 0;
    FILE *f;
    tk_pq_writer *w = open_mem(&p, &n, &f, NULL);
    tk_error err;
    tk_pq_put_i64(w, 0, 1);
    tk_pq_put_u64(w, 3, 2);
    assert_int_equal(tk_pq_row_end(w, &err), TK_OK);
    /* the good values of row 1, but for what `which` breaks */
    if (which != 0 && which != 3 && which != 5 && which != 6)
        tk_pq_put_i64(w, 0, 1);
    if (which != 2 && which != 7)
        tk_pq_put_u64(w, 3, 1);
    switch (which) {
    case 1: tk_pq_put_i64(w, 2, 300); break;
    case 2: tk_pq_put_i64(w, 3, -1); break;
    case 3: tk_pq_put_str(w, 0, "x"); break; /* a string for an int */
    case 4: tk_pq_put_i64(w, 0, 2); break;
    case 5: tk_pq_put_null(w, 0); break;
    case 6: tk_pq_put_i64(w, 9, 1); break;
    case 7: tk_pq_put_u64(w, 3, (uint64_t)UINT32_MAX + 1); break;
    case 8: tk_pq_put_f64(w, 1, 1.5); break;
    default: break; /* 0: no id */
    }
    assert_int_equal(tk_pq_row_end(w, &err), TK_EUSAGE);
    if (!strstr(err.message, msg))
        fail_msg("'%s' lacks '%s'", err.message, msg);
    /* the failure stays */
    assert_int_equal(tk_pq_row_end(w, &err), TK_EUSAGE);
    assert_int_equal(tk_pq_finish(w, &err), TK_EUSAGE);
    fclose(f);
    free(p);
}

static void test_bad_values(void **state)
{
    (void)state;
    expect_row_error(0, "column 'id' has no value in row 1");
    expect_row_error(1, "column 'small': 300 is out of range (row 1)");
    expect_row_error(2, "column 'u': -1 is out of range");
    expect_row_error(3, "column 'id' does not take a byte string");
    expect_row_error(4, "column 'id': two values in row 1");
    expect_row_error(5, "column 'id' is not nullable");
    expect_row_error(6, "no column 9");
    expect_row_error(7, "column 'u': 4294967296 is out of range");
    expect_row_error(8, "column 'name' does not take a double");
}

static void test_unended_row(void **state)
{
    (void)state;
    char *p = NULL;
    size_t n = 0;
    FILE *f;
    tk_pq_writer *w = open_mem(&p, &n, &f, NULL);
    tk_error err;
    tk_pq_put_i64(w, 0, 1);
    assert_int_equal(tk_pq_finish(w, &err), TK_EUSAGE);
    assert_non_null(strstr(err.message, "not ended"));
    fclose(f);
    free(p);
}

/* A constant column: only a required dictionary column, only before the
 * first row; it then takes no puts, and rows are complete without it. */
static void test_constant(void **state)
{
    (void)state;
    static const tk_pq_column cc[] = {
        {"id", TK_PQ_INT64, 0, TK_PQ_ENC_AUTO},
        {"trace", TK_PQ_STRING, 0, TK_PQ_ENC_DICT},
        {"opt", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_DICT},
        {"plain", TK_PQ_STRING, 0, TK_PQ_ENC_PLAIN},
    };
    FILE *f = tmpfile();
    tk_error err;
    tk_pq_writer *w = tk_pq_writer_new(f, cc, 4, NULL, &err);
    assert_non_null(w);
    assert_int_equal(tk_pq_set_constant(w, 0, "x", 1, &err), TK_EUSAGE);
    assert_int_equal(tk_pq_set_constant(w, 2, "x", 1, &err), TK_EUSAGE);
    assert_int_equal(tk_pq_set_constant(w, 3, "x", 1, &err), TK_EUSAGE);
    assert_int_equal(tk_pq_set_constant(w, 9, "x", 1, &err), TK_EUSAGE);
    assert_int_equal(tk_pq_set_constant(w, 1, "t", 1, &err), TK_OK);
    assert_int_equal(tk_pq_set_constant(w, 1, "t", 1, &err), TK_EUSAGE); /* twice */
    for (int i = 0; i < 100; i++) {
        tk_pq_put_i64(w, 0, i);
        tk_pq_put_str(w, 3, "p");
        assert_int_equal(tk_pq_row_end(w, &err), TK_OK);
    }
    assert_int_equal(w->rows, 100);
    tk_pq_put_i64(w, 0, 100);
    tk_pq_put_str(w, 1, "t"); /* a put to the constant column */
    tk_pq_put_str(w, 3, "p");
    assert_int_equal(tk_pq_row_end(w, &err), TK_EUSAGE);
    assert_non_null(strstr(err.message, "column 'trace' is constant (row 100)"));
    tk_pq_free(w);
    fclose(f);
    /* after the first row it is too late */
    f = tmpfile();
    w = tk_pq_writer_new(f, cc, 4, NULL, &err);
    tk_pq_put_i64(w, 0, 1);
    tk_pq_put_str(w, 1, "t");
    tk_pq_put_str(w, 3, "p");
    assert_int_equal(tk_pq_row_end(w, &err), TK_OK);
    assert_int_equal(tk_pq_set_constant(w, 1, "t", 1, &err), TK_EUSAGE);
    tk_pq_free(w);
    fclose(f);
}

/* /dev/full: unbuffered, the magic fails at once; buffered, the footer's
 * flush does. Both TK_EIO with the system's reason. */
static void test_write_failure(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "wb");
    if (!f)
        skip();
    setvbuf(f, NULL, _IONBF, 0);
    tk_error err;
    assert_null(tk_pq_writer_new(f, cols, NCOLS, NULL, &err));
    assert_int_equal(err.status, TK_EIO);
    assert_non_null(strstr(err.message, "No space left on device"));
    fclose(f);

    f = fopen("/dev/full", "wb");
    tk_pq_writer *w = tk_pq_writer_new(f, cols, NCOLS, NULL, &err);
    assert_non_null(w);
    for (int i = 0; i < 10; i++) {
        tk_pq_put_i64(w, 0, i);
        tk_pq_put_u64(w, 3, (uint64_t)i);
        assert_int_equal(tk_pq_row_end(w, &err), TK_OK);
    }
    assert_int_equal(tk_pq_finish(w, &err), TK_EIO);
    assert_non_null(strstr(err.message, "writing the Parquet file"));
    fclose(f);
}

/* The frame, and row groups written as they fill: the file grows during
 * the rows, and what the writer holds never passes one row group. */
static void test_frame_and_flush(void **state)
{
    (void)state;
    char *p = NULL;
    size_t n = 0;
    FILE *f;
    tk_pq_options o;
    tk_pq_options_init(&o);
    o.row_group_rows = 10000;
    tk_pq_writer *w = open_mem(&p, &n, &f, &o);
    tk_error err;
    size_t groups = 0;
    uint64_t held_max = 0;
    for (int i = 0; i < 95000; i++) {
        tk_pq_put_i64(w, 0, (int64_t)i * 7919 % 100003); /* not sorted: real pages */
        char name[32];
        snprintf(name, sizeof name, "n%d", i % 300);
        tk_pq_put_str(w, 1, name);
        tk_pq_put_u64(w, 3, (uint64_t)i);
        assert_int_equal(tk_pq_row_end(w, &err), TK_OK);
        uint64_t held = 0;
        for (size_t c = 0; c < NCOLS; c++)
            held += w->cols[c].chunk.len;
        held_max = held > held_max ? held : held_max;
        if (w->nrgs != groups) { /* a row group just went out */
            groups = w->nrgs;
            assert_int_equal(held, 0);
            fflush(f);
            assert_true(n >= w->pos);
        }
    }
    assert_int_equal(groups, 9);
    assert_int_equal(tk_pq_rows(w), 95000);
    assert_true(held_max < 200000); /* one row group's pages */
    assert_int_equal(tk_pq_finish(w, &err), TK_OK);
    fclose(f);
    assert_true(n > 12);
    assert_memory_equal(p, "PAR1", 4);
    assert_memory_equal(p + n - 4, "PAR1", 4);
    uint32_t flen = (uint8_t)p[n - 8] | (uint8_t)p[n - 7] << 8 | (uint8_t)p[n - 6] << 16 |
                    (uint32_t)(uint8_t)p[n - 5] << 24;
    assert_true(flen > 100 && flen < n - 12);
    /* FileMetaData starts with field 1 (version, i32): 0x15, zigzag(2) */
    assert_int_equal((uint8_t)p[n - 8 - flen], 0x15);
    assert_int_equal((uint8_t)p[n - 8 - flen + 1], 0x04);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_schema),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_unended_row),
        cmocka_unit_test(test_constant),
        cmocka_unit_test(test_write_failure),
        cmocka_unit_test(test_frame_and_flush),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
