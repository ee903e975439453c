/* tk_input over memory, a regular file and a pipe: window sizes,
 * zero-copy pointers, advance, skip, offsets, end of input and rewind
 * rules, the progress hook. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* Byte i of every test stream: varied, position-dependent. */
static uint8_t pat(uint64_t i) { return (uint8_t)(i * 131 + (i >> 9)); }

static uint8_t *make_pattern(size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = pat(i);
    return p;
}

/* Walk the rest of the input (from its offset) with random window requests
 * and advances and check the bytes, the offsets and the end. */
static void walk(tk_input *in, uint64_t total, uint64_t seed, size_t max_want)
{
    tk_error err;
    uint64_t rs = seed, off = tk_input_offset(in);
    for (;;) {
        size_t want = 1 + (size_t)tu_rand_below(&rs, max_want);
        const uint8_t *d = NULL;
        int64_t n = tk_input_window(in, want, &d, &err);
        assert_true(n >= 0);
        assert_int_equal(tk_input_offset(in), off);
        /* fewer than asked only at the end */
        if ((size_t)n < want)
            assert_int_equal(off + (uint64_t)n, total);
        assert_true(off + (uint64_t)n <= total);
        for (int64_t i = 0; i < n; i += 1 + i / 8) /* sample, denser early */
            assert_int_equal(d[i], pat(off + (uint64_t)i));
        if (n > 0)
            assert_int_equal(d[n - 1], pat(off + (uint64_t)n - 1));
        if (n == 0)
            break;
        size_t step = 1 + (size_t)tu_rand_below(&rs, (uint64_t)n);
        tk_input_advance(in, step);
        off += step;
    }
    assert_int_equal(off, total);
    assert_int_equal(tk_input_offset(in), total);
}

static void test_memory(void **state)
{
    (void)state;
    tk_error err;
    uint8_t *data = make_pattern(100);
    tk_input *in = tk_input_from_memory(data, 100, NULL, &err);
    assert_non_null(in);
    assert_string_equal(tk_input_name(in), "<memory>");
    assert_int_equal(tk_input_size(in), 100);
    const uint8_t *d;
    assert_int_equal(tk_input_window(in, 10, &d, &err), 100);
    assert_ptr_equal(d, data); /* zero copy */
    tk_input_advance(in, 30);
    assert_int_equal(tk_input_offset(in), 30);
    assert_int_equal(tk_input_window(in, 1000, &d, &err), 70);
    assert_ptr_equal(d, data + 30);
    tk_input_advance(in, 1000); /* clamped to the end */
    assert_int_equal(tk_input_offset(in), 100);
    assert_int_equal(tk_input_window(in, 1, &d, &err), 0);
    assert_int_equal(tk_input_rewind(in, &err), TK_OK);
    assert_int_equal(tk_input_offset(in), 0);
    assert_int_equal(tk_input_window(in, 1, &d, &err), 100);
    assert_ptr_equal(d, data);
    walk(in, 100, 1, 64);
    tk_input_close(in);

    in = tk_input_from_memory(data, 0, "empty", &err);
    assert_string_equal(tk_input_name(in), "empty");
    assert_int_equal(tk_input_size(in), 0);
    assert_int_equal(tk_input_window(in, 18, &d, &err), 0);
    tk_input_close(in);
    free(data);
}

static void test_regular_file(void **state)
{
    (void)state;
    enum { N = (3 << 20) + 777 };
    char *dir = tu_tmpdir();
    const char *path = tu_path(dir, "f.bin");
    uint8_t *data = make_pattern(N);
    tu_write_file(path, data, N);
    free(data);
    tk_error err;
    tk_input *in = tk_input_open(path, &err);
    assert_non_null(in);
    assert_string_equal(tk_input_name(in), path);
    assert_int_equal(tk_input_size(in), N);
    const uint8_t *d;
    /* a file is read a chunk at a time; a bigger window is honoured */
    int64_t first = tk_input_window(in, 16, &d, &err);
    assert_true(first >= 16 && first < N);
    assert_int_equal(d[first - 1], pat((uint64_t)first - 1));
    assert_true(tk_input_window(in, (3 << 19), &d, &err) >= (3 << 19));
    walk(in, N, 2, 100000);
    assert_int_equal(tk_input_rewind(in, &err), TK_OK); /* any time for files */
    assert_int_equal(tk_input_offset(in), 0);
    walk(in, N, 3, 5000000);
    tk_input_close(in);

    /* an empty file */
    tu_write_file(path, "", 0);
    in = tk_input_open(path, &err);
    assert_non_null(in);
    assert_int_equal(tk_input_size(in), 0);
    assert_int_equal(tk_input_window(in, 29, &d, &err), 0);
    tk_input_close(in);

    /* tk_input_from_fd on a file knows its size too, and leaves the fd open */
    int fd = open(path, O_RDONLY);
    in = tk_input_from_fd(fd, NULL, &err);
    assert_non_null(in);
    assert_string_equal(tk_input_name(in), "<fd>");
    assert_int_equal(tk_input_size(in), 0);
    tk_input_close(in);
    assert_int_equal(fcntl(fd, F_GETFD) >= 0, 1);
    close(fd);
    tu_rmdir(dir);
}

static void test_open_errors(void **state)
{
    (void)state;
    tk_error err;
    char *dir = tu_tmpdir();
    assert_null(tk_input_open(tu_path(dir, "missing"), &err));
    assert_int_equal(err.status, TK_EIO);
    assert_string_equal(err.message, "No such file or directory");
    assert_null(tk_input_open(dir, &err));
    assert_int_equal(err.status, TK_EIO);
    assert_string_equal(err.message, "is a directory");
    assert_null(tk_input_from_fd(-1, "bad", &err));
    assert_int_equal(err.status, TK_EIO);
    assert_string_equal(err.message, "Bad file descriptor");
    tu_rmdir(dir);
}

/* A child process writes the pattern into a pipe in uneven pieces. */
static pid_t start_writer(int *rfd, size_t n, uint64_t seed)
{
    uint8_t *data = make_pattern(n);
    pid_t pid = tu_pipe_feed(data, n, seed, rfd);
    free(data);
    return pid;
}

static void test_pipe(void **state)
{
    (void)state;
    enum { N = (3 << 20) + 123 };
    int rfd;
    pid_t pid = start_writer(&rfd, N, 4);
    tk_error err;
    tk_input *in = tk_input_from_fd(rfd, "pipe", &err);
    assert_non_null(in);
    assert_int_equal(tk_input_size(in), -1);
    const uint8_t *d;
    /* a window bigger than the read chunk is honoured */
    assert_true(tk_input_window(in, (3 << 19), &d, &err) >= (3 << 19));
    walk(in, N, 5, 300000);
    tk_input_close(in);
    tu_pipe_wait(pid, rfd);
}

static void test_pipe_rewind(void **state)
{
    (void)state;
    enum { N = (2 << 20) + 5 };
    int rfd;
    pid_t pid = start_writer(&rfd, N, 6);
    tk_error err;
    tk_input *in = tk_input_from_fd(rfd, "pipe", &err);
    const uint8_t *d;
    /* peeking without advancing (as format probing does) can rewind */
    assert_true(tk_input_window(in, 4096, &d, &err) >= 4096);
    assert_int_equal(tk_input_rewind(in, &err), TK_OK);
    assert_int_equal(tk_input_offset(in), 0);
    assert_true(tk_input_window(in, 29, &d, &err) >= 29);
    assert_int_equal(d[0], pat(0));
    assert_int_equal(d[28], pat(28));
    /* once bytes were dropped from the buffer, a pipe cannot go back */
    tk_input_advance(in, 1000);
    int64_t n = tk_input_window(in, (1 << 20) + 10, &d, &err);
    assert_true(n >= (1 << 20) + 10);
    assert_int_equal(d[0], pat(1000));
    assert_int_equal(tk_input_rewind(in, &err), TK_EUNSUPPORTED);
    assert_int_equal(err.status, TK_EUNSUPPORTED);
    assert_string_equal(err.message, "cannot rewind a pipe after reading past its buffer");
    assert_int_equal(tk_input_offset(in), 1000); /* position unchanged */
    walk(in, N, 7, 100000);
    tk_input_close(in);
    tu_pipe_wait(pid, rfd);
}

static void test_pipe_empty(void **state)
{
    (void)state;
    int rfd;
    pid_t pid = start_writer(&rfd, 0, 8);
    tk_error err;
    tk_input *in = tk_input_from_fd(rfd, NULL, &err);
    const uint8_t *d;
    assert_int_equal(tk_input_window(in, 18, &d, &err), 0);
    assert_int_equal(tk_input_window(in, 18, &d, &err), 0); /* stays at EOF */
    assert_int_equal(tk_input_offset(in), 0);
    tk_input_close(in);
    tu_pipe_wait(pid, rfd);
}

/* tk_input_skip: within the window, past it, and past the end. */
static void check_skip(tk_input *in, uint64_t total)
{
    tk_error err;
    const uint8_t *d;
    assert_true(tk_input_window(in, 100, &d, &err) >= 100);
    assert_int_equal(tk_input_skip(in, 10, &err), 0);
    assert_int_equal(tk_input_offset(in), 10);
    assert_int_equal(tk_input_skip(in, 2 << 20, &err), 0);
    uint64_t off = 10 + (2 << 20);
    assert_int_equal(tk_input_offset(in), off);
    assert_true(tk_input_window(in, 16, &d, &err) >= 16);
    assert_int_equal(d[0], pat(off));
    assert_int_equal(d[15], pat(off + 15));
    tk_input_advance(in, 5);
    walk(in, total, 9, 70000);
    assert_int_equal(tk_input_skip(in, 1, &err), 1); /* already at the end */
    assert_int_equal(tk_input_offset(in), total);
}

static void test_skip(void **state)
{
    (void)state;
    enum { N = (3 << 20) + 77 };
    uint8_t *data = make_pattern(N);
    tk_error err;
    const uint8_t *d;

    tk_input *in = tk_input_from_memory(data, N, NULL, &err);
    check_skip(in, N);
    tk_input_close(in);

    char *dir = tu_tmpdir();
    const char *path = tu_path(dir, "s.bin");
    tu_write_file(path, data, N);
    in = tk_input_open(path, &err);
    assert_non_null(in);
    check_skip(in, N);
    /* a file rewinds after a skip, and skips past its end to the end */
    assert_int_equal(tk_input_rewind(in, &err), TK_OK);
    assert_true(tk_input_window(in, 1, &d, &err) >= 1);
    assert_int_equal(d[0], pat(0));
    assert_int_equal(tk_input_skip(in, (uint64_t)N + 1000, &err), 1);
    assert_int_equal(tk_input_offset(in), N);
    assert_int_equal(tk_input_window(in, 1, &d, &err), 0);
    tk_input_close(in);
    tu_rmdir(dir);

    int rfd;
    pid_t pid = start_writer(&rfd, N, 10);
    in = tk_input_from_fd(rfd, "pipe", &err);
    check_skip(in, N); /* read through */
    tk_input_close(in);
    tu_pipe_wait(pid, rfd);
    free(data);
}

/* What the progress hook was told. */
typedef struct seen {
    unsigned calls, pass;
    uint64_t offset;
    int64_t size;
    int backwards; /* an offset below the one before, in one pass */
} seen;

static void on_progress(void *ctx, const tk_input_progress *p)
{
    seen *s = ctx;
    if (s->calls && p->pass == s->pass && p->offset < s->offset)
        s->backwards = 1;
    s->calls++;
    s->pass = p->pass;
    s->offset = p->offset;
    s->size = p->size;
}

/* The hook sees every chunk read (not every window), offsets that only
 * grow within a pass, a new pass after a rewind or tk_input_new_pass, and
 * shares itself with a copy of the input; memory inputs never call it. */
static void test_progress(void **state)
{
    (void)state;
    enum { N = (1 << 20) + 5 };
    char *dir = tu_tmpdir();
    const char *path = tu_path(dir, "p.bin");
    uint8_t *data = make_pattern(N);
    tu_write_file(path, data, N);
    tk_error err;
    seen s = {0};
    tk_input *in = tk_input_open(path, &err);
    assert_non_null(in);
    tk_input_set_progress(in, on_progress, &s);
    walk(in, N, 7, 1000);
    /* 256 KiB a read, and once more to see the end: few calls, not one per window */
    assert_in_range(s.calls, 5, 12);
    assert_int_equal(s.pass, 1);
    assert_int_equal(s.offset, N);
    assert_int_equal(s.size, N);
    assert_false(s.backwards);
    assert_int_equal(tk_input_rewind(in, &err), TK_OK);
    walk(in, N, 8, 1000);
    assert_int_equal(s.pass, 2);
    assert_int_equal(s.offset, N);
    tk_input_new_pass(in);
    assert_int_equal(tk_input_seek(in, 100, &err), TK_OK);
    const uint8_t *d;
    assert_true(tk_input_window(in, 10, &d, &err) >= 10);
    assert_int_equal(s.pass, 3);
    assert_true(s.offset > 100 && s.offset <= N);
    assert_false(s.backwards);

    /* a copy (as XRay spools a pipe) reports as the next pass */
    int fd = open(path, O_RDONLY);
    tk_input *copy = tk_input_from_fd(fd, "copy", &err);
    assert_non_null(copy);
    tk_input_share_progress(copy, in);
    walk(copy, N, 9, 1000);
    assert_int_equal(s.pass, 4);
    assert_int_equal(s.offset, N);
    tk_input_close(copy);
    close(fd);

    /* stopped */
    unsigned calls = s.calls;
    tk_input_set_progress(in, NULL, NULL);
    assert_int_equal(tk_input_rewind(in, &err), TK_OK);
    walk(in, N, 10, 1000);
    assert_int_equal(s.calls, calls);
    tk_input_close(in);

    in = tk_input_from_memory(data, N, NULL, &err);
    tk_input_set_progress(in, on_progress, &s);
    walk(in, N, 11, 1000);
    assert_int_equal(s.calls, calls);
    tk_input_close(in);
    free(data);
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_regular_file),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_pipe),
        cmocka_unit_test(test_pipe_rewind),
        cmocka_unit_test(test_pipe_empty),
        cmocka_unit_test(test_skip),
        cmocka_unit_test(test_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
