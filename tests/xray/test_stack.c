/* Call-stack tries walked by tk_xray_stacks_visit: the paths, their order
 * and numbers, each against the JSON view the same set prints. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include <tracekit/xray_stack.h>

static void feed(tk_xray_stacks *s, char kind, int32_t func, uint64_t tsc, uint32_t tid)
{
    tk_error err;
    tk_xray_record rec;
    memset(&rec, 0, sizeof rec);
    rec.kind = kind == 'E' ? TK_XRAY_ENTER : TK_XRAY_EXIT;
    rec.func_id = func;
    rec.tsc = tsc;
    rec.tid = tid;
    assert_int_equal(tk_xray_stacks_add(s, &rec, &err), 0);
}

/* Each path as the JSON view writes it (names "#id"). */
typedef struct lines {
    char text[4096];
    size_t len;
    int stop_after; /* stop the walk after this many paths (0: never) */
    int seen;
} lines;

static int to_json(void *ctx, const tk_xray_stack_path *p)
{
    lines *l = ctx;
    int n = snprintf(l->text + l->len, sizeof l->text - l->len, "{");
    l->len += (size_t)n;
    if (p->tid)
        l->len += (size_t)snprintf(l->text + l->len, sizeof l->text - l->len, "\"thread\":%u,",
                                   p->tid);
    l->len += (size_t)snprintf(l->text + l->len, sizeof l->text - l->len, "\"stack\":[");
    for (size_t i = 0; i < p->depth; i++)
        l->len += (size_t)snprintf(l->text + l->len, sizeof l->text - l->len, "%s\"#%d\"",
                                   i ? "," : "", p->funcs[i]);
    l->len += (size_t)snprintf(l->text + l->len, sizeof l->text - l->len,
                               "],\"calls\":%llu,\"leaf_calls\":%llu,\"total_ticks\":%llu,"
                               "\"self_ticks\":%llu}\n",
                               (unsigned long long)p->calls, (unsigned long long)p->leaf_calls,
                               (unsigned long long)p->total_ticks,
                               (unsigned long long)p->self_ticks);
    return ++l->seen == l->stop_after;
}

/* Paths counted only (too many for the text). */
static int count_paths(void *ctx, const tk_xray_stack_path *p)
{
    (void)p;
    ((lines *)ctx)->seen++;
    return 0;
}

static char *printed(tk_xray_stacks *s, tk_xray_stacks_threads threads)
{
    tk_error err;
    tu_capture cap;
    tu_capture_open(&cap);
    tk_xray_stacks_print_options o = {.view = TK_XRAY_STACKS_JSON, .threads = threads};
    assert_int_equal(tk_xray_stacks_print(s, cap.fp, &o, &err), TK_OK);
    return tu_capture_close(&cap);
}

static void test_visit(void **state)
{
    (void)state;
    tk_error err;
    tk_xray_stacks *s = tk_xray_stacks_new(&err);
    assert_non_null(s);
    /* thread 1: 1 -> 2 -> 3, 1 -> 2; thread 2: 1 -> 4, 5 */
    feed(s, 'E', 1, 0, 1);
    feed(s, 'E', 2, 10, 1);
    feed(s, 'E', 3, 20, 1);
    feed(s, 'X', 3, 25, 1);
    feed(s, 'X', 2, 40, 1);
    feed(s, 'E', 1, 1, 2);
    feed(s, 'E', 4, 3, 2);
    feed(s, 'X', 4, 9, 2);
    feed(s, 'X', 1, 11, 2);
    feed(s, 'E', 2, 50, 1);
    feed(s, 'X', 2, 51, 1);
    feed(s, 'X', 1, 100, 1);
    feed(s, 'E', 5, 20, 2);
    feed(s, 'X', 5, 22, 2);
    lines l = {0};
    assert_int_equal(tk_xray_stacks_visit(s, TK_XRAY_STACKS_AGGREGATE, to_json, &l, &err), TK_OK);
    char *want = printed(s, TK_XRAY_STACKS_AGGREGATE);
    assert_string_equal(l.text, want);
    /* the merged root 1: 2 calls, 100 + 10 ticks, 73 of them outside 2 (30 + 1) and 4 (6) */
    assert_non_null(strstr(l.text, "{\"stack\":[\"#1\"],\"calls\":2,\"leaf_calls\":0,"
                                   "\"total_ticks\":110,\"self_ticks\":73}"));
    assert_int_equal(l.seen, 5);
    free(want);
    lines t = {0};
    assert_int_equal(tk_xray_stacks_visit(s, TK_XRAY_STACKS_ALL_THREADS, to_json, &t, &err),
                     TK_OK);
    want = printed(s, TK_XRAY_STACKS_ALL_THREADS);
    assert_string_equal(t.text, want);
    assert_int_equal(t.seen, 6);
    free(want);
    /* a visitor that stops gets no more paths */
    lines stop = {.stop_after = 2};
    assert_int_equal(tk_xray_stacks_visit(s, TK_XRAY_STACKS_PER_THREAD, to_json, &stop, &err),
                     TK_OK);
    assert_int_equal(stop.seen, 2);
    tk_xray_stacks_free(s);
}

/* Many threads of one root, merged (in place: one node, not a chain of
 * them) and walked per thread; a thread whose second root arrives after
 * its first (the first root is kept without the roots map until then). */
static void test_many_threads(void **state)
{
    (void)state;
    tk_error err;
    tk_xray_stacks *s = tk_xray_stacks_new(&err);
    assert_non_null(s);
    for (uint32_t t = 1; t <= 300; t++) { /* 7 -> (8 -> (10)) or 7 -> 9 */
        feed(s, 'E', 7, 100 * t, t);
        feed(s, 'E', t % 2 ? 8 : 9, 100 * t + 1, t);
        if (t % 3 == 0) {
            feed(s, 'E', 10, 100 * t + 2, t);
            feed(s, 'X', 10, 100 * t + 4, t);
        }
        feed(s, 'X', t % 2 ? 8 : 9, 100 * t + 5, t);
        feed(s, 'X', 7, 100 * t + 10, t);
    }
    for (uint32_t k = 0; k < 4; k++) { /* thread 1 again: roots 9, 7, 9, 7 */
        feed(s, 'E', k % 2 ? 7 : 9, 40000 + 10 * k, 1);
        feed(s, 'X', k % 2 ? 7 : 9, 40000 + 10 * k + 3, 1);
    }
    lines l = {0};
    assert_int_equal(tk_xray_stacks_visit(s, TK_XRAY_STACKS_AGGREGATE, to_json, &l, &err), TK_OK);
    /* 7: 302 calls, 300 * 10 + 2 * 3 ticks; 8: 150; 9: 150 + 2 at the top */
    assert_non_null(strstr(l.text, "{\"stack\":[\"#7\"],\"calls\":302,\"leaf_calls\":2,"
                                   "\"total_ticks\":3006,"));
    assert_non_null(strstr(l.text, "{\"stack\":[\"#7\",\"#8\"],\"calls\":150,"));
    assert_non_null(strstr(l.text, "{\"stack\":[\"#7\",\"#9\"],\"calls\":150,"));
    assert_non_null(strstr(l.text, "{\"stack\":[\"#7\",\"#8\",\"#10\"],\"calls\":50,"));
    assert_non_null(strstr(l.text, "{\"stack\":[\"#7\",\"#9\",\"#10\"],\"calls\":50,"));
    assert_non_null(strstr(l.text, "{\"stack\":[\"#9\"],\"calls\":2,\"leaf_calls\":2,"
                                   "\"total_ticks\":6,"));
    assert_int_equal(l.seen, 6);
    lines t = {0};
    assert_int_equal(tk_xray_stacks_visit(s, TK_XRAY_STACKS_ALL_THREADS, count_paths, &t, &err),
                     TK_OK);
    /* per thread: 7 and its callees (2 or 3 paths), thread 1's 9 too */
    assert_int_equal(t.seen, 300 * 2 + 100 + 1);
    tk_xray_stacks_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_visit),
                                       cmocka_unit_test(test_many_threads)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
