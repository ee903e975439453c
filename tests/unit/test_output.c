/* tk_output: the file appears whole on commit, and nothing (not even the
 * temporary) remains after abort. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

/* The name of the only entry in `dir`. */
static const char *only_entry(const char *dir)
{
    static char name[256];
    DIR *d = opendir(dir);
    struct dirent *e;
    name[0] = '\0';
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            snprintf(name, sizeof name, "%s", e->d_name);
    closedir(d);
    return name;
}

static void test_commit(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    const char *path = tu_path(dir, "out.bin");
    tk_error err;
    tk_output *o = tk_output_open(path, &err);
    assert_non_null(o);
    /* while writing, only the temporary exists, next to the target */
    assert_int_equal(tu_dir_count(dir), 1);
    assert_int_equal(strncmp(only_entry(dir), "out.bin.tmp-", 12), 0);
    assert_int_equal(strlen(only_entry(dir)), strlen("out.bin.tmp-XXXXXX"));
    FILE *f = tk_output_file(o);
    for (int i = 0; i < 100000; i++)
        fputs("0123456789", f);
    assert_int_equal(tk_output_commit(o, &err), TK_OK);
    assert_int_equal(tu_dir_count(dir), 1);
    assert_string_equal(only_entry(dir), "out.bin");
    size_t n;
    uint8_t *got = tu_read_file(path, &n);
    assert_int_equal(n, 1000000);
    assert_memory_equal(got + 999990, "0123456789", 10);
    free(got);
    /* the usual mode, not mkstemp's 0600 */
    struct stat st;
    mode_t mask = umask(0);
    umask(mask);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0666 & ~mask);
    tu_rmdir(dir);
}

static void test_commit_replaces(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    const char *path = tu_path(dir, "out.bin");
    tu_write_file(path, "old contents", 12);
    tk_error err;
    tk_output *o = tk_output_open(path, &err);
    fputs("new", tk_output_file(o));
    assert_int_equal(tu_dir_count(dir), 2); /* old file + temporary */
    assert_int_equal(tk_output_commit(o, &err), TK_OK);
    size_t n;
    uint8_t *got = tu_read_file(path, &n);
    assert_int_equal(n, 3);
    assert_memory_equal(got, "new", 3);
    free(got);
    assert_int_equal(tu_dir_count(dir), 1);
    tu_rmdir(dir);
}

static void test_abort(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    const char *path = tu_path(dir, "out.bin");
    tk_error err;
    tk_output *o = tk_output_open(path, &err);
    fputs("partial", tk_output_file(o));
    tk_output_abort(o);
    assert_int_equal(tu_dir_count(dir), 0);
    /* abort leaves an existing file as it was */
    tu_write_file(path, "keep", 4);
    o = tk_output_open(path, &err);
    fputs("partial", tk_output_file(o));
    tk_output_abort(o);
    assert_int_equal(tu_dir_count(dir), 1);
    size_t n;
    uint8_t *got = tu_read_file(path, &n);
    assert_int_equal(n, 4);
    assert_memory_equal(got, "keep", 4);
    free(got);
    tk_output_abort(NULL);
    tu_rmdir(dir);
}

static void test_open_fails(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/no/such/dir/out.bin", dir);
    tk_error err;
    assert_null(tk_output_open(path, &err));
    assert_int_equal(err.status, TK_EIO);
    assert_string_equal(err.message,
                        "cannot create a temporary file beside it: No such file or directory");
    assert_string_equal(err.file, path); /* the output is to blame, not the input */
    assert_int_equal(tu_dir_count(dir), 0);
    tu_rmdir(dir);
}

static void test_stdout(void **state)
{
    (void)state;
    tk_error err;
    tk_output *o = tk_output_open("-", &err);
    assert_non_null(o);
    assert_ptr_equal(tk_output_file(o), stdout);
    assert_int_equal(tk_output_commit(o, &err), TK_OK);
    o = tk_output_open("-", &err);
    tk_output_abort(o); /* must not close stdout */
    assert_true(fflush(stdout) == 0);
}

/* A device is written in place (renaming over /dev/null would replace
 * it), and a symbolic link keeps pointing at the file it names. */
static void test_device_and_link(void **state)
{
    (void)state;
    tk_error err;
    tk_output *o = tk_output_open("/dev/null", &err);
    assert_non_null(o);
    fputs("gone", tk_output_file(o));
    assert_int_equal(tk_output_commit(o, &err), TK_OK);
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));

    char *dir = tu_tmpdir();
    char target[512], link[512];
    snprintf(target, sizeof target, "%s/real.txt", dir);
    snprintf(link, sizeof link, "%s/link.txt", dir);
    tu_write_file(target, "old", 3);
    assert_int_equal(symlink(target, link), 0);
    o = tk_output_open(link, &err);
    assert_non_null(o);
    fputs("new", tk_output_file(o));
    assert_int_equal(tk_output_commit(o, &err), TK_OK);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    size_t n;
    uint8_t *got = tu_read_file(target, &n);
    assert_int_equal(n, 3);
    assert_memory_equal(got, "new", 3);
    free(got);
    unlink(link);
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commit),
        cmocka_unit_test(test_commit_replaces),
        cmocka_unit_test(test_abort),
        cmocka_unit_test(test_open_fails),
        cmocka_unit_test(test_stdout),
        cmocka_unit_test(test_device_and_link),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
