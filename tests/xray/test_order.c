/* Records in their thread's time order (ctest xray.order):
 *
 *  - FDR buffers out of time order in the file (the runtime's buffer ring
 *    after a wrap) are read so that each thread's come in time order, in
 *    the slots of that thread's buffers (other threads keep theirs), from
 *    files, memory and pipes; errors inside a moved buffer keep their
 *    offsets; the writer's output reads back in the order written;
 *  - basic-mode records under an FDR header (llvm-xray convert -f raw of
 *    an FDR trace) read as basic records;
 *  - a thread whose TSC goes back (records repeated, as after fork): the
 *    analyses report each record in the thread's past and, skipping them,
 *    give what the trace without the repetition gives. */
#include <fcntl.h>

#include <tracekit/xray_account.h>
#include <tracekit/xray_graph.h>
#include <tracekit/xray_stack.h>

#include "rw_common.h"

/* ================================================== buffers out of order */

/* One v5 buffer of thread `tid`: `n` calls of function `fid` (enter and
 * exit 10 ticks apart) from TSC `tsc`, with wall clock `usec`. */
static void buffer(tu_buf *b, uint32_t tid, uint32_t usec, uint64_t tsc, uint32_t fid,
                   int n)
{
    size_t ext = b->len;
    xb_extents(b, 0);
    size_t start = b->len;
    xb_newbuf(b, tid);
    xb_wall(b, 7, usec);
    xb_pid(b, 99);
    xb_cpu(b, 1, tsc);
    for (int i = 0; i < n; i++) {
        xb_fn(b, TK_XRAY_ENTER, fid, i ? 5 : 0);
        xb_fn(b, TK_XRAY_EXIT, fid, 10);
    }
    xb_patch64(b, ext + 1, b->len - start);
}

typedef struct slot_plan {
    uint32_t tid, usec;
    uint64_t tsc;
    uint32_t fid;
} slot_plan;

/* Thread 1 wrote its buffers as times 300, 100, 200 (a wrapped ring),
 * thread 2 in order, with garbage and an empty buffer in between; thread
 * 3's two buffers share a wall clock and differ in TSC. */
static const slot_plan plan[] = {
    {1, 300, 3000, 13}, {2, 150, 1500, 21}, {1, 100, 1000, 11}, {3, 400, 9000, 32},
    {2, 250, 2500, 22}, {1, 200, 2000, 12}, {3, 400, 8000, 31},
};
#define NPLAN (sizeof plan / sizeof plan[0])

static void build_ring(tu_buf *b)
{
    xb_header(b, 5, TK_XRAY_FDR, 1000000000ULL, 4096);
    for (size_t i = 0; i < NPLAN; i++) {
        buffer(b, plan[i].tid, plan[i].usec, plan[i].tsc, plan[i].fid, 2);
        if (i == 2)
            tu_putn(b, "\x00\x00\x00", 3); /* skipped, as llvm-xray does */
        if (i == 4)
            xb_extents(b, 0); /* an empty buffer stays where it is */
    }
}

/* Functions in the order the slots must read them: thread 1's slots
 * (0, 2, 5) get its buffers by time (11, 12, 13), thread 3's (3, 6) get
 * 31, 32; thread 2 keeps 21, 22. */
static const int32_t slot_funcs[] = {11, 21, 12, 31, 22, 13, 32};

static void assert_ring_order(const xr_list *got)
{
    assert_int_equal(got->n, NPLAN * 4);
    for (size_t i = 0; i < got->n; i++) {
        assert_int_equal(got->v[i].func_id, slot_funcs[i / 4]);
        assert_int_equal(got->v[i].index, i);
        if (i > 0 && got->v[i].tid == got->v[i - 1].tid)
            assert_true(got->v[i].tsc >= got->v[i - 1].tsc);
    }
}

static int read_all(tk_input *in, xr_list *got, tk_xray_order_info *oi, tk_error *err)
{
    tk_xray_reader *r = tk_xray_reader_new(in, err);
    assert_non_null(r);
    tk_xray_record rec;
    int rc;
    while ((rc = tk_xray_next(r, &rec, err)) > 0) {
        xr_rec *x = xr_add(got, &rec);
        x->offset = tk_xray_reader_offset(r);
        x->index = tk_xray_reader_index(r);
    }
    tk_xray_reader_order(r, oi);
    tk_xray_reader_free(r);
    return rc;
}

static void test_ring_from_memory(void **state)
{
    (void)state;
    tu_buf b = {0};
    build_ring(&b);
    tk_error err;
    tk_input *in = tk_input_from_memory(b.p, b.len, "mem", &err);
    xr_list got = {0};
    tk_xray_order_info oi;
    assert_int_equal(read_all(in, &got, &oi, &err), 0);
    assert_ring_order(&got);
    assert_int_equal(oi.threads, 2);
    assert_int_equal(oi.moved_buffers, 5); /* 3 of thread 1, 2 of thread 3 */
    assert_int_equal(oi.unchecked, 0);
    /* offsets are the records' own: thread 1's first slot reads the buffer
     * at the third place in the file */
    assert_true(got.v[0].offset > got.v[4].offset);
    xr_free(&got);
    tk_input_close(in);
    /* the raw view stays in file order */
    xr_raw raw = {0};
    assert_int_equal(xr_read_raw(b.p, b.len, &raw, &err), 0);
    assert_int_equal(raw.v[1].kind, TK_XRAY_FDR_NEW_BUFFER);
    assert_int_equal(raw.v[1].tid, 1);
    assert_int_equal(raw.v[5].func_id, 13);
    xr_raw_free(&raw);
    tu_buf_free(&b);
}

/* Standard input cannot seek: it is copied to a temporary file first, and
 * without a usable $TMPDIR read in file order (reported unchecked). */
static void test_ring_from_pipe(void **state)
{
    (void)state;
    tu_buf b = {0};
    build_ring(&b);
    assert_true(b.len < 4096); /* fits the pipe: no writer thread needed */
    for (int tmp_ok = 1; tmp_ok >= 0; tmp_ok--) {
        char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
        if (!tmp_ok)
            setenv("TMPDIR", "/nonexistent/tracekit", 1);
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        assert_int_equal(write(fds[1], b.p, b.len), (ssize_t)b.len);
        close(fds[1]);
        tk_error err;
        tk_input *in = tk_input_from_fd(fds[0], "pipe", &err);
        xr_list got = {0};
        tk_xray_order_info oi;
        assert_int_equal(read_all(in, &got, &oi, &err), 0);
        if (tmp_ok) {
            assert_ring_order(&got);
            assert_int_equal(oi.moved_buffers, 5);
        } else {
            assert_int_equal(oi.unchecked, 1);
            assert_int_equal(got.v[0].func_id, 13); /* file order */
        }
        xr_free(&got);
        tk_input_close(in);
        close(fds[0]);
        if (old)
            setenv("TMPDIR", old, 1);
        else
            unsetenv("TMPDIR");
        free(old);
    }
    tu_buf_free(&b);
}

/* A bad record in a moved buffer is reported at its own offset, after
 * every record before it in reading order. */
static void test_error_in_moved_buffer(void **state)
{
    (void)state;
    tu_buf b = {0};
    xb_header(&b, 5, TK_XRAY_FDR, 1000000000ULL, 4096);
    buffer(&b, 1, 300, 3000, 13, 1);
    size_t bad = b.len + 16 + 64 + 8; /* second buffer: its second record */
    buffer(&b, 1, 100, 1000, 11, 1);
    b.p[bad] = 0x0E; /* action 7: unknown */
    tk_error err;
    tk_input *in = tk_input_from_memory(b.p, b.len, "mem", &err);
    xr_list got = {0};
    tk_xray_order_info oi;
    assert_int_equal(read_all(in, &got, &oi, &err), -1);
    assert_int_equal(got.n, 1); /* the entry of function 11 */
    assert_int_equal(got.v[0].func_id, 11);
    assert_int_equal(err.offset, bad);
    assert_string_equal(err.message, "unknown function record type 7");
    xr_free(&got);
    tk_input_close(in);
    tu_buf_free(&b);
}

/* tracekit's writer keeps a thread's wall clock increasing, so records
 * whose TSCs go back still read back in the order written. */
static void test_writer_keeps_order(void **state)
{
    (void)state;
    tk_xray_header h;
    tk_xray_default_header(&h, TK_XRAY_FDR, 5);
    h.buffer_size = 128; /* a block per few records */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tk_error err;
    tk_xray_writer *w = tk_xray_writer_new(f, &h, &err);
    assert_non_null(w);
    static const uint64_t tscs[] = {5000, 5010, 100, 110, 9000, 9010, 7, 8, 3, 4};
    for (size_t i = 0; i < 10; i++) {
        tk_xray_record r = {.kind = i % 2 ? TK_XRAY_EXIT : TK_XRAY_ENTER,
                            .func_id = (int32_t)(i / 2 + 1), .tsc = tscs[i], .tid = 4};
        assert_int_equal(tk_xray_write(w, &r, &err), TK_OK);
    }
    assert_int_equal(tk_xray_writer_free(w, &err), TK_OK);
    fclose(f);
    tk_input *in = tk_input_from_memory(buf, len, "mem", &err);
    xr_list got = {0};
    tk_xray_order_info oi;
    assert_int_equal(read_all(in, &got, &oi, &err), 0);
    assert_int_equal(got.n, 10);
    for (size_t i = 0; i < 10; i++)
        assert_int_equal(got.v[i].tsc, tscs[i]);
    assert_int_equal(oi.moved_buffers, 0);
    xr_free(&got);
    tk_input_close(in);
    free(buf);
}

/* ================================================ basic under FDR header */

static void test_basic_under_fdr_header(void **state)
{
    (void)state;
    tu_buf b = {0};
    xb_header(&b, 5, TK_XRAY_FDR, 1000000000ULL, 0);
    for (uint32_t i = 0; i < 40; i++) /* ~ llvm-xray convert -f raw */
        xb_basic(&b, 0, i % 2 ? TK_XRAY_EXIT : TK_XRAY_ENTER, (int32_t)(i / 2 % 3 + 1),
                 1000 + i, 5, 5);
    tk_error err;
    tk_input *in = tk_input_from_memory(b.p, b.len, "mem", &err);
    tk_xray_reader *r = tk_xray_reader_new(in, &err);
    assert_non_null(r);
    assert_int_equal(tk_xray_reader_layout(r), TK_XRAY_BASIC);
    assert_int_equal(tk_xray_reader_header(r)->type, TK_XRAY_FDR);
    tk_xray_reader_free(r);
    tk_input_close(in);
    xr_list got = {0};
    assert_int_equal(xr_read(b.p, b.len, &got, &err, NULL), 0);
    assert_int_equal(got.n, 40);
    assert_int_equal(got.v[39].tsc, 1039);
    assert_int_equal(got.v[39].pid, 5);
    xr_free(&got);
    /* the raw FDR view does not apply */
    xr_raw raw = {0};
    assert_int_equal(xr_read_raw(b.p, b.len, &raw, &err), -1);
    assert_int_equal(err.status, TK_EUSAGE);
    xr_raw_free(&raw);
    /* a real FDR trace stays FDR; a size that is not whole records too */
    b.len -= 8;
    assert_int_equal(xr_layout(b.p, b.len), TK_XRAY_FDR);
    tu_buf_free(&b);
}

/* ===================================================== TSC going back */

/* The shape of a forked program's basic trace: the parent (thread 10)
 * enters main and spawn and forks; the child (thread 11) flushes a copy
 * of the parent's buffer, then its own calls; the parent flushes the same
 * four records again and goes on. */
typedef struct step {
    int kind;
    int32_t fid;
    uint64_t tsc;
    uint32_t tid;
    int repeated; /* a copy of an earlier record */
} step;

static const step forked[] = {
    {TK_XRAY_ENTER, 4, 100, 10, 0}, {TK_XRAY_ENTER, 1, 110, 10, 0},
    {TK_XRAY_EXIT, 1, 120, 10, 0},  {TK_XRAY_ENTER, 3, 130, 10, 0},
    {TK_XRAY_ENTER, 2, 200, 11, 0}, {TK_XRAY_ENTER, 1, 210, 11, 0},
    {TK_XRAY_EXIT, 1, 220, 11, 0},  {TK_XRAY_EXIT, 2, 230, 11, 0},
    {TK_XRAY_ENTER, 4, 100, 10, 1}, {TK_XRAY_ENTER, 1, 110, 10, 1},
    {TK_XRAY_EXIT, 1, 120, 10, 1},  {TK_XRAY_ENTER, 3, 130, 10, 1},
    {TK_XRAY_EXIT, 3, 900, 10, 0},  {TK_XRAY_ENTER, 1, 910, 10, 0},
    {TK_XRAY_EXIT, 1, 930, 10, 0},  {TK_XRAY_EXIT, 4, 950, 10, 0},
};
#define NFORKED (sizeof forked / sizeof forked[0])

static tk_xray_record record_of(const step *s)
{
    tk_xray_record r = {.kind = (tk_xray_kind)s->kind, .func_id = s->fid, .tsc = s->tsc,
                        .tid = s->tid};
    return r;
}

static void account_rows(int with_repeats, tk_xray_account_row **rows, size_t *n)
{
    tk_error err;
    tk_xray_account *a = tk_xray_account_new(NULL, &err);
    for (size_t i = 0; i < NFORKED; i++) {
        if (forked[i].repeated && !with_repeats)
            continue;
        tk_xray_record r = record_of(&forked[i]);
        assert_int_equal(tk_xray_account_add(a, &r, &err),
                         forked[i].repeated ? TK_XRAY_ACCOUNT_TSC_BACK : TK_XRAY_ACCOUNT_OK);
    }
    assert_int_equal(tk_xray_account_rows(a, TK_XRAY_SORT_FUNCID, 0, rows, n, &err), TK_OK);
    tk_xray_account_free(a);
}

static void test_account_skips_repeats(void **state)
{
    (void)state;
    tk_error err;
    tk_xray_account_row *with, *without;
    size_t n, m;
    account_rows(1, &with, &n);
    account_rows(0, &without, &m);
    assert_int_equal(n, 4);
    assert_int_equal(m, n);
    for (size_t i = 0; i < n; i++) { /* field by field: rows have padding */
        assert_int_equal(with[i].func_id, without[i].func_id);
        assert_int_equal(with[i].count, without[i].count);
        assert_int_equal(with[i].min, without[i].min);
        assert_int_equal(with[i].med, without[i].med);
        assert_int_equal(with[i].p90, without[i].p90);
        assert_int_equal(with[i].p99, without[i].p99);
        assert_int_equal(with[i].max, without[i].max);
        assert_int_equal(with[i].sum, without[i].sum);
    }
    assert_int_equal(with[0].func_id, 1);
    assert_int_equal(with[0].count, 3); /* work: twice in the parent, once in the child */
    assert_int_equal(with[2].func_id, 3);
    assert_int_equal(with[2].sum, 770); /* spawn: 130 to 900, once */
    free(with);
    free(without);
    /* equal TSCs are fine while the thread is not behind */
    tk_xray_account *a = tk_xray_account_new(NULL, &err);
    tk_xray_record e = {.kind = TK_XRAY_ENTER, .func_id = 1, .tsc = 5, .tid = 1};
    tk_xray_record x = {.kind = TK_XRAY_EXIT, .func_id = 1, .tsc = 5, .tid = 1};
    assert_int_equal(tk_xray_account_add(a, &e, &err), TK_XRAY_ACCOUNT_OK);
    assert_int_equal(tk_xray_account_add(a, &x, &err), TK_XRAY_ACCOUNT_OK);
    e.tsc = x.tsc = 4; /* behind: failures, and the thread stays behind ... */
    assert_int_equal(tk_xray_account_add(a, &e, &err), TK_XRAY_ACCOUNT_TSC_BACK);
    e.tsc = 5;
    assert_int_equal(tk_xray_account_add(a, &e, &err), TK_XRAY_ACCOUNT_TSC_BACK);
    e.tsc = 6; /* ... until its TSC passes the largest again */
    assert_int_equal(tk_xray_account_add(a, &e, &err), TK_XRAY_ACCOUNT_OK);
    tk_xray_account_free(a);
}

static char *stacks_text(int with_repeats)
{
    tk_error err;
    tk_xray_stacks *s = tk_xray_stacks_new(&err);
    for (size_t i = 0; i < NFORKED; i++) {
        if (forked[i].repeated && !with_repeats)
            continue;
        tk_xray_record r = record_of(&forked[i]);
        assert_int_equal(tk_xray_stacks_add(s, &r, &err), forked[i].repeated ? 2 : 0);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tk_xray_stacks_print_options o = {.view = TK_XRAY_STACKS_JSON};
    assert_int_equal(tk_xray_stacks_print(s, f, &o, &err), TK_OK);
    fclose(f);
    tk_xray_stacks_free(s);
    return buf;
}

static char *graph_text(int with_repeats)
{
    tk_error err;
    tk_xray_graph *g = tk_xray_graph_new(NULL, &err);
    for (size_t i = 0; i < NFORKED; i++) {
        if (forked[i].repeated && !with_repeats)
            continue;
        tk_xray_record r = record_of(&forked[i]);
        assert_int_equal(tk_xray_graph_add(g, &r, &err),
                         forked[i].repeated ? TK_XRAY_GRAPH_TSC_BACK : TK_XRAY_GRAPH_OK);
    }
    assert_int_equal(tk_xray_graph_finish(g, 0, &err), TK_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tk_xray_graph_print_options o = {TK_XRAY_GRAPH_COUNT, TK_XRAY_GRAPH_SUM,
                                     TK_XRAY_GRAPH_NONE, TK_XRAY_GRAPH_NONE, NULL, NULL};
    assert_int_equal(tk_xray_graph_print_dot(g, f, &o, &err), TK_OK);
    fclose(f);
    tk_xray_graph_free(g);
    return buf;
}

static void test_stack_and_graph_skip_repeats(void **state)
{
    (void)state;
    char *a = stacks_text(1), *b = stacks_text(0);
    assert_string_equal(a, b);
    free(a);
    free(b);
    a = graph_text(1);
    b = graph_text(0);
    assert_string_equal(a, b);
    assert_null(strstr(a, "F3 -> F4")); /* no main -> spawn -> main */
    assert_non_null(strstr(a, "F4 -> F3"));
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_from_memory),
        cmocka_unit_test(test_ring_from_pipe),
        cmocka_unit_test(test_error_in_moved_buffer),
        cmocka_unit_test(test_writer_keeps_order),
        cmocka_unit_test(test_basic_under_fdr_header),
        cmocka_unit_test(test_account_skips_repeats),
        cmocka_unit_test(test_stack_and_graph_skip_repeats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
