/* The table set of one conversion (src/export/parquet/tables.c): file
 * layout, parts, the trace_id column, Hive directories, empty tables,
 * all-or-nothing output. Values are read back by the format tests
 * (tables.mjs, DuckDB and hyparquet); here the files and their footers'
 * schema names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "export/parquet/tables.h"

static const tk_pq_column cols[] = {
    {"n", TK_PQ_UINT64, 0, TK_PQ_ENC_AUTO},
    {"name", TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_AUTO},
};

static char root[64];

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/tk-pq-tables-XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static int exists(const char *fmt, const char *a)
{
    char path[256];
    snprintf(path, sizeof path, fmt, root, a);
    struct stat st;
    return stat(path, &st) == 0;
}

/* Does the file's footer name column `name`? (schema names are plain
 * bytes in the Thrift footer) */
static int footer_has(const char *path, const char *name)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(n >= 12);
    assert_memory_equal(buf, "PAR1", 4);
    assert_memory_equal(buf + n - 4, "PAR1", 4);
    return memmem(buf, n, name, strlen(name)) != NULL;
}

static tk_pq_dir *open_dir(const char *sub, const char *const *kv, tk_error *err)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s/%s", root, sub);
    tk_options *o = tk_options_new(err);
    for (; kv && kv[0]; kv += 2)
        assert_int_equal(tk_options_set(o, kv[0], kv[1], err), TK_OK);
    tk_pq_dir *d = tk_pq_dir_open(dir, "/some/where/run.trace", o, err);
    tk_options_free(o);
    return d;
}

static void write_rows(tk_pq_table *t, int n)
{
    tk_error err;
    for (int i = 0; i < n; i++) {
        tk_pq_writer *w = tk_pq_table_writer(t);
        assert_non_null(w);
        tk_pq_put_u64(w, 0, (uint64_t)i);
        if (i % 2)
            tk_pq_put_str(w, 1, "odd");
        assert_int_equal(tk_pq_table_row_end(t, &err), TK_OK);
    }
    assert_int_equal(tk_pq_table_rows(t), (uint64_t)n);
}

/* One file per table, trace_id from the source's name, an empty table
 * written with its schema, no temporary file left. */
static void test_one_file_per_table(void **state)
{
    (void)state;
    tk_error err;
    tk_pq_dir *d = open_dir("out", NULL, &err);
    assert_non_null(d);
    tk_pq_table *a = tk_pq_dir_table(d, "calls", cols, 2, &err);
    tk_pq_table *b = tk_pq_dir_table(d, "events", cols, 2, &err);
    assert_non_null(a);
    assert_non_null(b);
    assert_null(tk_pq_dir_table(d, "Bad-Name", cols, 2, &err));
    assert_int_equal(err.status, TK_EUSAGE);
    write_rows(a, 10);
    assert_false(exists("%s/out/%s", "calls.parquet")); /* not before commit */
    assert_int_equal(tk_pq_dir_commit(d, &err), TK_OK);
    char path[256];
    snprintf(path, sizeof path, "%s/out/calls.parquet", root);
    assert_true(footer_has(path, "trace_id"));
    assert_true(footer_has(path, "run.trace")); /* the dictionary's one entry */
    snprintf(path, sizeof path, "%s/out/events.parquet", root);
    assert_true(footer_has(path, "trace_id"));
    assert_false(exists("%s/out/%s", ".calls.parquet.tmp"));
}

/* Parts of N rows; a later run with fewer parts removes the stale ones. */
static void test_parts(void **state)
{
    (void)state;
    tk_error err;
    static const char *const kv[] = {"rows-per-file", "4", "trace-id", "night-7", NULL};
    tk_pq_dir *d = open_dir("parts", kv, &err);
    assert_non_null(d);
    write_rows(tk_pq_dir_table(d, "calls", cols, 2, &err), 10);
    assert_int_equal(tk_pq_dir_commit(d, &err), TK_OK);
    assert_true(exists("%s/parts/calls/%s", "part-00000.parquet"));
    assert_true(exists("%s/parts/calls/%s", "part-00002.parquet"));
    assert_false(exists("%s/parts/calls/%s", "part-00003.parquet"));
    char path[256];
    snprintf(path, sizeof path, "%s/parts/calls/part-00001.parquet", root);
    assert_true(footer_has(path, "night-7"));

    d = open_dir("parts", kv, &err);
    write_rows(tk_pq_dir_table(d, "calls", cols, 2, &err), 4);
    assert_int_equal(tk_pq_dir_commit(d, &err), TK_OK);
    assert_true(exists("%s/parts/calls/%s", "part-00000.parquet"));
    assert_false(exists("%s/parts/calls/%s", "part-00001.parquet"));
    assert_false(exists("%s/parts/calls/%s", "part-00002.parquet"));
}

/* A Hive partition directory: the path carries trace_id, the files not. */
static void test_hive_directory(void **state)
{
    (void)state;
    tk_error err;
    tk_pq_dir *d = open_dir("trace_id=run1", NULL, &err);
    assert_non_null(d);
    write_rows(tk_pq_dir_table(d, "calls", cols, 2, &err), 3);
    assert_int_equal(tk_pq_dir_commit(d, &err), TK_OK);
    char path[256];
    snprintf(path, sizeof path, "%s/trace_id=run1/calls.parquet", root);
    assert_false(footer_has(path, "trace_id"));
}

/* An aborted conversion leaves nothing; bad options and paths are errors. */
static void test_abort_and_errors(void **state)
{
    (void)state;
    tk_error err;
    tk_pq_dir *d = open_dir("aborted", NULL, &err);
    write_rows(tk_pq_dir_table(d, "calls", cols, 2, &err), 5);
    tk_pq_dir_abort(d);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s/aborted')\"", root);
    assert_int_equal(system(cmd), 0);

    static const char *const bad[] = {"compression", "lz4", NULL};
    assert_null(open_dir("x", bad, &err));
    assert_int_equal(err.status, TK_EUSAGE);
    char file[128];
    snprintf(file, sizeof file, "%s/plain", root);
    FILE *f = fopen(file, "w");
    fclose(f);
    assert_null(open_dir("plain", NULL, &err));
    assert_int_equal(err.status, TK_EIO);
    assert_non_null(strstr(err.message, "Not a directory"));
    assert_null(open_dir("plain/sub", NULL, &err)); /* a parent that is a file */
    assert_int_equal(err.status, TK_EIO);
    d = open_dir("new/parents/out", NULL, &err); /* made with its parents */
    assert_non_null(d);
    tk_pq_dir_abort(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_file_per_table),
        cmocka_unit_test(test_parts),
        cmocka_unit_test(test_hive_directory),
        cmocka_unit_test(test_abort_and_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
