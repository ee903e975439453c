/* Call graphs (llvm-xray graph) on hand-built record streams. The expected
 * DOT texts were printed by llvm-xray 14 from the same records as YAML
 * traces; where it crashes (0/0 colours) the expectation is tracekit's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct r {
    char kind; /* E enter, A enter with args, X exit, T tail exit, C event */
    int32_t func;
    uint64_t tsc;
    uint32_t tid;
} r;

static tk_xray_kind kind_of(char k)
{
    switch (k) {
    case 'E': return TK_XRAY_ENTER;
    case 'A': return TK_XRAY_ENTER_ARG;
    case 'X': return TK_XRAY_EXIT;
    case 'T': return TK_XRAY_TAIL_EXIT;
    default: return TK_XRAY_CUSTOM_EVENT;
    }
}

static int add(tk_xray_graph *g, r x)
{
    tk_error err;
    tk_xray_record rec;
    memset(&rec, 0, sizeof rec);
    rec.kind = kind_of(x.kind);
    rec.func_id = x.func;
    rec.tsc = x.tsc;
    rec.tid = x.tid;
    return tk_xray_graph_add(g, &rec, &err);
}

/* Feed all records (each must give `want`, or any result if want < 0) and
 * return the finished graph. */
static tk_xray_graph *build(const r *recs, size_t n, int deduce, uint64_t freq)
{
    tk_error err;
    tk_xray_graph_options o = {.deduce_sibling_calls = deduce};
    tk_xray_graph *g = tk_xray_graph_new(&o, &err);
    assert_non_null(g);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(add(g, recs[i]), TK_XRAY_GRAPH_OK);
    assert_int_equal(tk_xray_graph_finish(g, freq, &err), TK_OK);
    return g;
}

static tk_xray_graph_stat stat(const char *name)
{
    tk_error err;
    tk_xray_graph_stat s;
    assert_int_equal(tk_xray_graph_parse_stat(name, &s, &err), TK_OK);
    return s;
}

/* DOT text with labels/colours given as llvm-xray option values. */
static char *dot(tk_xray_graph *g, const char *e, const char *v, const char *c, const char *b,
                 const char *(*name)(void *, int32_t))
{
    tk_error err;
    tk_xray_graph_print_options o = {stat(e), stat(c), stat(v), stat(b), name, NULL};
    tu_capture cap;
    tu_capture_open(&cap);
    assert_int_equal(tk_xray_graph_print_dot(g, cap.fp, &o, &err), TK_OK);
    return tu_capture_close(&cap);
}

static void check_dot(tk_xray_graph *g, const char *e, const char *v, const char *c,
                      const char *b, const char *want)
{
    char *got = dot(g, e, v, c, b, NULL);
    assert_string_equal(got, want);
    free(got);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_plain(void **state)
{
    (void)state;
    static const r recs[] = {{'E', 1, 10, 1}, {'E', 2, 20, 1}, {'X', 2, 25, 1},
                             {'E', 2, 30, 1}, {'X', 2, 37, 1}, {'X', 1, 40, 1}};
    tk_xray_graph *g = build(recs, N(recs), 0, 0);
    check_dot(g, "none", "none", "none", "none",
              "digraph xray {\n"
              "F1 -> F2 [label=\"\"];\n"
              "F0 -> F1 [label=\"\"];\n"
              "F2 [label=\"#2\"];\n"
              "F1 [label=\"#1\"];\n"
              "}\n");
    /* the public accessors, in the same order */
    assert_int_equal(tk_xray_graph_edges(g), 2);
    assert_int_equal(tk_xray_graph_vertices(g), 2);
    int32_t from, to, id;
    tk_xray_graph_stats s;
    assert_int_equal(tk_xray_graph_edge(g, 0, &from, &to, &s), 0);
    assert_int_equal(from, 1);
    assert_int_equal(to, 2);
    assert_int_equal(s.count, 2);
    assert_true(s.min == 5 && s.max == 7 && s.sum == 12 && s.med == 7);
    assert_int_equal(tk_xray_graph_edge(g, 1, &from, &to, &s), 0);
    assert_int_equal(from, 0);
    assert_int_equal(to, 1);
    assert_true(s.count == 1 && s.sum == 30);
    assert_int_equal(tk_xray_graph_vertex(g, 1, &id, &s), 0);
    assert_int_equal(id, 1);
    assert_int_equal(tk_xray_graph_vertex(g, 2, &id, &s), -1);
    assert_int_equal(tk_xray_graph_edge(g, 2, &from, &to, &s), -1);
    tk_xray_graph_free(g);
}

/* Every statistic as label and colour, seconds at 1000 ticks/s. Function 2
 * is called from 1 (250 and 100 ticks) and from 3 (1 tick). */
static void test_all_stats(void **state)
{
    (void)state;
    static const r recs[] = {{'E', 1, 0, 1},    {'E', 2, 100, 1},  {'X', 2, 350, 1},
                             {'E', 3, 400, 1},  {'E', 2, 410, 1},  {'X', 2, 411, 1},
                             {'X', 3, 900, 1},  {'E', 2, 1000, 1}, {'X', 2, 1100, 1},
                             {'X', 1, 5000, 1}, {'E', 3, 6000, 2}, {'X', 3, 6500, 2}};
    tk_xray_graph *g = build(recs, N(recs), 0, 1000);
    check_dot(g, "count", "count", "none", "none",
              "digraph xray {\nnode [shape=record];\n"
              "F1 -> F2 [label=\"2\"];\n"
              "F0 -> F3 [label=\"1\"];\n"
              "F0 -> F1 [label=\"1\"];\n"
              "F3 -> F2 [label=\"1\"];\n"
              "F1 -> F3 [label=\"1\"];\n"
              "F2 [label=\"{#2|3}\"];\n"
              "F1 [label=\"{#1|1}\"];\n"
              "F3 [label=\"{#3|2}\"];\n}\n");
    check_dot(g, "min", "min", "count", "count",
              "digraph xray {\nnode [shape=record];\n"
              "F1 -> F2 [label=\"1.000000e-01\" color=\"#7F0000\"];\n"
              "F0 -> F3 [label=\"5.000000e-01\" color=\"#DF422C\"];\n"
              "F0 -> F1 [label=\"5.000000e+00\" color=\"#DF422C\"];\n"
              "F3 -> F2 [label=\"1.000000e-03\" color=\"#DF422C\"];\n"
              "F1 -> F3 [label=\"5.000000e-01\" color=\"#DF422C\"];\n"
              "F2 [label=\"{#2|1.000000e-03}\" color=\"#7F0000\"];\n"
              "F1 [label=\"{#1|5.000000e+00}\" color=\"#F4744E\"];\n"
              "F3 [label=\"{#3|5.000000e-01}\" color=\"#C4150D\"];\n}\n");
    check_dot(g, "med", "med", "min", "min",
              "digraph xray {\nnode [shape=record];\n"
              "F1 -> F2 [label=\"2.500000e-01\" color=\"#FEE5C2\"];\n"
              "F0 -> F3 [label=\"5.000000e-01\" color=\"#FDC790\"];\n"
              "F0 -> F1 [label=\"5.000000e+00\" color=\"#7F0000\"];\n"
              "F3 -> F2 [label=\"1.000000e-03\" color=\"#FFF5E8\"];\n"
              "F1 -> F3 [label=\"5.000000e-01\" color=\"#FDC790\"];\n"
              "F2 [label=\"{#2|1.000000e-01}\" color=\"#FFF5E8\"];\n"
              "F1 [label=\"{#1|5.000000e+00}\" color=\"#7F0000\"];\n"
              "F3 [label=\"{#3|5.000000e-01}\" color=\"#FDC790\"];\n}\n");
    check_dot(g, "90p", "90p", "med", "med",
              "digraph xray {\nnode [shape=record];\n"
              "F1 -> F2 [label=\"2.500000e-01\" color=\"#FDD8A7\"];\n"
              "F0 -> F3 [label=\"5.000000e-01\" color=\"#FDC790\"];\n"
              "F0 -> F1 [label=\"5.000000e+00\" color=\"#7F0000\"];\n"
              "F3 -> F2 [label=\"1.000000e-03\" color=\"#FFF5E8\"];\n"
              "F1 -> F3 [label=\"5.000000e-01\" color=\"#FDC790\"];\n"
              "F2 [label=\"{#2|2.500000e-01}\" color=\"#FEE5C2\"];\n"
              "F1 [label=\"{#1|5.000000e+00}\" color=\"#7F0000\"];\n"
              "F3 [label=\"{#3|5.000000e-01}\" color=\"#FDC790\"];\n}\n");
    check_dot(g, "99p", "99p", "90p", "90p",
              "digraph xray {\nnode [shape=record];\n"
              "F1 -> F2 [label=\"2.500000e-01\" color=\"#FDD8A7\"];\n"
              "F0 -> F3 [label=\"5.000000e-01\" color=\"#FDC790\"];\n"
              "F0 -> F1 [label=\"5.000000e+00\" color=\"#7F0000\"];\n"
              "F3 -> F2 [label=\"1.000000e-03\" color=\"#FFF5E8\"];\n"
              "F1 -> F3 [label=\"5.000000e-01\" color=\"#FDC790\"];\n"
              "F2 [label=\"{#2|2.500000e-01}\" color=\"#FDD8A7\"];\n"
              "F1 [label=\"{#1|5.000000e+00}\" color=\"#7F0000\"];\n"
              "F3 [label=\"{#3|5.000000e-01}\" color=\"#FDC790\"];\n}\n");
    check_dot(g, "max", "max", "99p", "99p",
              "digraph xray {\nnode [shape=record];\n"
              "F1 -> F2 [label=\"2.500000e-01\" color=\"#FDD8A7\"];\n"
              "F0 -> F3 [label=\"5.000000e-01\" color=\"#FDC790\"];\n"
              "F0 -> F1 [label=\"5.000000e+00\" color=\"#7F0000\"];\n"
              "F3 -> F2 [label=\"1.000000e-03\" color=\"#FFF5E8\"];\n"
              "F1 -> F3 [label=\"5.000000e-01\" color=\"#FDC790\"];\n"
              "F2 [label=\"{#2|2.500000e-01}\" color=\"#FDD8A7\"];\n"
              "F1 [label=\"{#1|5.000000e+00}\" color=\"#7F0000\"];\n"
              "F3 [label=\"{#3|5.000000e-01}\" color=\"#FDC790\"];\n}\n");
    check_dot(g, "sum", "sum", "max", "max",
              "digraph xray {\nnode [shape=record];\n"
              "F1 -> F2 [label=\"3.500000e-01\" color=\"#FDD8A7\"];\n"
              "F0 -> F3 [label=\"5.000000e-01\" color=\"#FDC790\"];\n"
              "F0 -> F1 [label=\"5.000000e+00\" color=\"#7F0000\"];\n"
              "F3 -> F2 [label=\"1.000000e-03\" color=\"#FFF5E8\"];\n"
              "F1 -> F3 [label=\"5.000000e-01\" color=\"#FDC790\"];\n"
              "F2 [label=\"{#2|3.510000e-01}\" color=\"#FDD8A7\"];\n"
              "F1 [label=\"{#1|5.000000e+00}\" color=\"#7F0000\"];\n"
              "F3 [label=\"{#3|1.000000e+00}\" color=\"#FDC790\"];\n}\n");
    check_dot(g, "none", "none", "sum", "sum",
              "digraph xray {\n"
              "F1 -> F2 [label=\"\" color=\"#FDD19B\"];\n"
              "F0 -> F3 [label=\"\" color=\"#FDC790\"];\n"
              "F0 -> F1 [label=\"\" color=\"#7F0000\"];\n"
              "F3 -> F2 [label=\"\" color=\"#FFF5E8\"];\n"
              "F1 -> F3 [label=\"\" color=\"#FDC790\"];\n"
              "F2 [label=\"#2\" color=\"#FDD19B\"];\n"
              "F1 [label=\"#1\" color=\"#7F0000\"];\n"
              "F3 [label=\"#3\" color=\"#FCA26B\"];\n}\n");
    /* vertex 2 over its in-edges: 250, 1, 100 ticks */
    int32_t id;
    tk_xray_graph_stats s;
    assert_int_equal(tk_xray_graph_vertex(g, 0, &id, &s), 0);
    assert_int_equal(id, 2);
    assert_int_equal(s.count, 3);
    assert_true(s.min == 1 / 1000.0 && s.med == 100 / 1000.0 && s.p90 == 250 / 1000.0 &&
                s.p99 == 250 / 1000.0 && s.max == 250 / 1000.0 && s.sum == 351 / 1000.0);
    tk_xray_graph_free(g);
}

/* Durations 1..100 shuffled on one edge, 101..120 on another into the same
 * function: element n/2, n*9/10, n*99/100 of the sorted durations. */
static void test_order_statistics(void **state)
{
    (void)state;
    tk_error err;
    tk_xray_graph *g = tk_xray_graph_new(NULL, &err);
    uint64_t lat[100], rs = 11, t = 1000;
    for (int i = 0; i < 100; i++)
        lat[i] = (uint64_t)i + 1;
    for (int i = 99; i > 0; i--) {
        uint64_t j = tu_rand_below(&rs, (uint64_t)i + 1), x = lat[i];
        lat[i] = lat[j];
        lat[j] = x;
    }
    add(g, (r){'E', 9, 0, 1});
    for (int i = 0; i < 100; i++) {
        assert_int_equal(add(g, (r){'E', 7, t, 1}), 0);
        assert_int_equal(add(g, (r){'X', 7, t + lat[i], 1}), 0);
        t += 1000;
    }
    assert_int_equal(add(g, (r){'X', 9, t, 1}), 0);
    for (int i = 0; i < 20; i++) {
        assert_int_equal(add(g, (r){'E', 7, t, 2}), 0);
        assert_int_equal(add(g, (r){'X', 7, t + 101 + (uint64_t)i, 2}), 0);
        t += 1000;
    }
    assert_int_equal(tk_xray_graph_finish(g, 0, &err), TK_OK);
    tk_xray_graph_stats s;
    int found = 0;
    for (size_t i = 0; i < tk_xray_graph_edges(g); i++) {
        int32_t from, to;
        tk_xray_graph_edge(g, i, &from, &to, &s);
        if (from == 9 && to == 7) {
            found++;
            assert_int_equal(s.count, 100);
            assert_true(s.min == 1 && s.med == 51 && s.p90 == 91 && s.p99 == 100 &&
                        s.max == 100 && s.sum == 5050);
        } else if (from == 0 && to == 7) {
            found++;
            /* 20 calls 101..120: indices 10, 18, 19 */
            assert_int_equal(s.count, 20);
            assert_true(s.min == 101 && s.med == 111 && s.p90 == 119 && s.p99 == 120 &&
                        s.max == 120 && s.sum == 2210);
        }
    }
    assert_int_equal(found, 2);
    for (size_t i = 0; i < tk_xray_graph_vertices(g); i++) {
        int32_t id;
        tk_xray_graph_vertex(g, i, &id, &s);
        if (id == 7) {
            found++;
            /* 120 calls 1..120: indices 60, 108, 118 */
            assert_int_equal(s.count, 120);
            assert_true(s.min == 1 && s.med == 61 && s.p90 == 109 && s.p99 == 119 &&
                        s.max == 120 && s.sum == 7260);
        }
    }
    assert_int_equal(found, 3);
    tk_xray_graph_free(g);
}

/* llvm-xray sorts all records by TSC before building the graph: records fed
 * thread by thread come out as if sorted. Functions 1 and 65 share a
 * DenseMap bucket, so the one inserted first (1, the earlier TSC) is listed
 * first; and a call of 0 ticks followed by one of 5 leaves min = 5 (0 means
 * "unset" to llvm-xray), although the 0 arrives last. */
static void test_sorted_order(void **state)
{
    (void)state;
    static const r recs[] = {{'E', 65, 100, 1}, {'X', 65, 150, 1}, {'E', 1, 50, 2},
                             {'X', 1, 60, 2}};
    tk_xray_graph *g = build(recs, N(recs), 0, 0);
    check_dot(g, "none", "none", "none", "none",
              "digraph xray {\n"
              "F0 -> F1 [label=\"\"];\n"
              "F0 -> F65 [label=\"\"];\n"
              "F1 [label=\"#1\"];\n"
              "F65 [label=\"#65\"];\n"
              "}\n");
    tk_xray_graph_free(g);
    static const r minq[] = {{'E', 7, 195, 2}, {'X', 7, 200, 2}, {'E', 7, 100, 1},
                             {'X', 7, 100, 1}};
    g = build(minq, N(minq), 0, 0);
    check_dot(g, "min", "min", "none", "none",
              "digraph xray {\nnode [shape=record];\n"
              "F0 -> F7 [label=\"5.000000e+00\"];\n"
              "F7 [label=\"{#7|5.000000e+00}\"];\n}\n");
    tk_xray_graph_free(g);
    /* in the other order the 0 comes last and wins */
    static const r minz[] = {{'E', 7, 95, 2}, {'X', 7, 100, 2}, {'E', 7, 200, 1},
                             {'X', 7, 200, 1}};
    g = build(minz, N(minz), 0, 0);
    check_dot(g, "min", "none", "none", "none",
              "digraph xray {\nF0 -> F7 [label=\"0.000000e+00\"];\nF7 [label=\"#7\"];\n}\n");
    tk_xray_graph_free(g);
}

/* Random nested calls of `threads` threads (interleaved at random), fed to
 * an exact graph and a streaming one whose tiny budget makes it spill. */
static void feed_random(tk_xray_graph *exact, tk_xray_graph *stream, int threads, uint64_t seed)
{
    int32_t stack[4][16];
    size_t depth[4] = {0};
    uint64_t tsc[4] = {0}, rs = seed;
    for (int i = 0; i < 20000; i++) {
        uint32_t t = (uint32_t)tu_rand_below(&rs, (uint64_t)threads);
        tsc[t] += tu_rand_below(&rs, 50);
        int enter = depth[t] == 0 || (depth[t] < 16 && tu_rand_below(&rs, 2));
        r x = {enter ? 'E' : 'X', 0, tsc[t], t + 1};
        if (enter)
            stack[t][depth[t]++] = x.func = 1 + (int32_t)tu_rand_below(&rs, 12);
        else
            x.func = stack[t][--depth[t]];
        assert_int_equal(add(exact, x), 0);
        assert_int_equal(add(stream, x), 0);
    }
}

static int same_stats(const tk_xray_graph_stats *a, const tk_xray_graph_stats *b, int min)
{
    return a->count == b->count && a->med == b->med && a->p90 == b->p90 &&
           a->p99 == b->p99 && a->max == b->max && a->sum == b->sum &&
           (!min || a->min == b->min);
}

/* Streaming keeps memory per edge, not per call: every statistic but min
 * equals the replay's on many threads, and on one thread (llvm-xray's
 * order is the order fed) so do min and the DOT text. */
static void test_streaming(void **state)
{
    (void)state;
    tk_error err;
    tk_xray_graph_options so = {.streaming = 1, .memory_limit = 512};
    for (int threads = 1; threads <= 4; threads += 3) {
        tk_xray_graph *g = tk_xray_graph_new(NULL, &err), *s = tk_xray_graph_new(&so, &err);
        assert_non_null(g);
        assert_non_null(s);
        feed_random(g, s, threads, 77 + (uint64_t)threads);
        assert_int_equal(tk_xray_graph_finish(g, 1000, &err), TK_OK);
        assert_int_equal(tk_xray_graph_finish(s, 1000, &err), TK_OK);
        assert_int_equal(tk_xray_graph_edges(s), tk_xray_graph_edges(g));
        assert_int_equal(tk_xray_graph_vertices(s), tk_xray_graph_vertices(g));
        for (size_t i = 0; i < tk_xray_graph_edges(g); i++) {
            int32_t f, t, f2, t2;
            tk_xray_graph_stats a, b;
            tk_xray_graph_edge(g, i, &f, &t, &a);
            size_t k = 0;
            for (; k < tk_xray_graph_edges(s); k++) {
                tk_xray_graph_edge(s, k, &f2, &t2, &b);
                if (f2 == f && t2 == t)
                    break;
            }
            assert_true(k < tk_xray_graph_edges(s) && a.count > 0);
            assert_true(same_stats(&a, &b, threads == 1));
        }
        for (size_t i = 0; i < tk_xray_graph_vertices(g); i++) {
            int32_t v, v2;
            tk_xray_graph_stats a, b;
            tk_xray_graph_vertex(g, i, &v, &a);
            size_t k = 0;
            for (; k < tk_xray_graph_vertices(s); k++) {
                tk_xray_graph_vertex(s, k, &v2, &b);
                if (v2 == v)
                    break;
            }
            assert_true(k < tk_xray_graph_vertices(s));
            assert_true(same_stats(&a, &b, threads == 1));
        }
        if (threads == 1) {
            char *a = dot(g, "med", "sum", "min", "99p", NULL);
            char *b = dot(s, "med", "sum", "min", "99p", NULL);
            assert_string_equal(a, b);
            free(a);
            free(b);
        }
        tk_xray_graph_free(g);
        tk_xray_graph_free(s);
    }
}

/* graph-diff: the union by name, each side's statistics (NULL where a
 * function or edge is missing), the relative difference, and the colours
 * of what only one side has. */
static void test_diff(void **state)
{
    (void)state;
    static const r ra[] = {{'E', 1, 0, 1}, {'E', 2, 10, 1}, {'X', 2, 20, 1}, {'X', 1, 100, 1}};
    static const r rb[] = {{'E', 1, 0, 1}, {'E', 3, 5, 1}, {'X', 3, 6, 1}, {'X', 1, 150, 1}};
    tk_xray_graph *a = build(ra, N(ra), 0, 0), *b = build(rb, N(rb), 0, 0);
    tk_error err;
    tk_xray_graph_diff *d = tk_xray_graph_diff_new(a, b, NULL, NULL, &err);
    assert_non_null(d);
    assert_int_equal(tk_xray_graph_diff_vertices(d), 4); /* root, #1, #2, #3 */
    assert_int_equal(tk_xray_graph_diff_edges(d), 3);
    int seen = 0;
    for (size_t i = 0; i < 4; i++) {
        const char *name;
        const tk_xray_graph_stats *st[2];
        tk_xray_graph_diff_vertex(d, i, &name, st);
        if (!strcmp(name, "#1")) {
            seen |= 1;
            assert_true(st[0] && st[1] && st[0]->sum == 100 && st[1]->sum == 150);
            assert_true(tk_xray_graph_diff_rel(st, TK_XRAY_GRAPH_SUM) == 0.5);
        } else if (!strcmp(name, "#2")) {
            seen |= 2;
            assert_true(st[0] && !st[1]);
        } else if (!strcmp(name, "#3")) {
            seen |= 4;
            assert_true(!st[0] && st[1] && st[1]->count == 1);
        }
    }
    assert_int_equal(seen, 7);
    tu_capture cap;
    tu_capture_open(&cap);
    tk_xray_graph_diff_print_options o = {.vertex_color = TK_XRAY_GRAPH_SUM,
                                          .vertex_label = TK_XRAY_GRAPH_SUM};
    assert_int_equal(tk_xray_graph_diff_print_dot(d, cap.fp, &o, &err), TK_OK);
    char *dot = tu_capture_close(&cap);
    assert_non_null(strstr(dot, "[label=\"{#1|50.00%}\" color=\""));
    assert_non_null(strstr(dot, "[label=\"#2\" color=\"#FF0000\"]")); /* only in A */
    assert_non_null(strstr(dot, "[label=\"#3\" color=\"#00FF00\"]")); /* only in B */
    assert_non_null(strstr(dot, "[label=\"F0\"]"));
    free(dot);
    tk_xray_graph_diff_free(d);
    tk_xray_graph_free(a);
    tk_xray_graph_free(b);
}

static void test_deduce_sibling_calls(void **state)
{
    (void)state;
    tk_error err;
    static const r recs[] = {{'E', 1, 0, 1}, {'E', 2, 10, 1}, {'E', 3, 20, 1}, {'X', 1, 50, 1}};
    tk_xray_graph *g = tk_xray_graph_new(NULL, &err);
    for (int i = 0; i < 3; i++)
        assert_int_equal(add(g, recs[i]), 0);
    assert_int_equal(add(g, recs[3]), TK_XRAY_GRAPH_NO_MATCHING_ENTRY);
    int32_t st[4];
    assert_int_equal(tk_xray_graph_stack(g, 1, st, 4), 3);
    assert_true(st[0] == 1 && st[1] == 2 && st[2] == 3);
    assert_int_equal(tk_xray_graph_stack(g, 2, st, 4), 0);
    tk_xray_graph_free(g);

    g = build(recs, N(recs), 1, 0);
    check_dot(g, "sum", "none", "none", "none",
              "digraph xray {\n"
              "F1 -> F2 [label=\"4.000000e+01\"];\n"
              "F0 -> F1 [label=\"5.000000e+01\"];\n"
              "F2 -> F3 [label=\"3.000000e+01\"];\n"
              "F2 [label=\"#2\"];\n"
              "F1 [label=\"#1\"];\n"
              "F3 [label=\"#3\"];\n"
              "}\n");
    tk_xray_graph_free(g);
}

/* Unmatched exits: failures leave the state as it was (llvm-xray -k). */
static void test_keep_going(void **state)
{
    (void)state;
    tk_error err;
    static const r recs[] = {{'X', 4, 5, 1},  {'E', 1, 10, 1}, {'E', 2, 20, 1},
                             {'X', 3, 22, 1}, {'X', 2, 25, 1}, {'E', 2, 30, 1},
                             {'X', 1, 33, 1}, {'X', 2, 37, 1}, {'X', 1, 40, 1}};
    static const int plain[] = {1, 0, 0, 1, 0, 0, 1, 0, 0};
    static const int deduce[] = {2, 0, 0, 2, 0, 0, 0, 2, 2};
    for (int d = 0; d < 2; d++) {
        tk_xray_graph_options o = {.deduce_sibling_calls = d};
        tk_xray_graph *g = tk_xray_graph_new(&o, &err);
        for (size_t i = 0; i < N(recs); i++)
            assert_int_equal(add(g, recs[i]), d ? deduce[i] : plain[i]);
        assert_int_equal(tk_xray_graph_finish(g, 0, &err), TK_OK);
        if (!d)
            check_dot(g, "count", "count", "none", "none",
                      "digraph xray {\nnode [shape=record];\n"
                      "F1 -> F2 [label=\"2\"];\n"
                      "F0 -> F1 [label=\"1\"];\n"
                      "F2 [label=\"{#2|2}\"];\n"
                      "F1 [label=\"{#1|1}\"];\n}\n");
        else
            check_dot(g, "sum", "sum", "none", "none",
                      "digraph xray {\nnode [shape=record];\n"
                      "F1 -> F2 [label=\"8.000000e+00\"];\n"
                      "F0 -> F1 [label=\"2.300000e+01\"];\n"
                      "F2 [label=\"{#2|8.000000e+00}\"];\n"
                      "F1 [label=\"{#1|2.300000e+01}\"];\n}\n");
        tk_xray_graph_free(g);
    }
    assert_string_equal(tk_xray_graph_failure_text(TK_XRAY_GRAPH_NO_MATCHING_ENTRY),
                        "No matching ENTRY record");
    assert_string_equal(tk_xray_graph_failure_text(TK_XRAY_GRAPH_NOT_IN_STACK),
                        "No matching Entry record in stack");
}

/* Functions entered but never left: count 0, zeros; colouring by a
 * statistic that is 0 everywhere (llvm-xray divides 0 by 0 and crashes)
 * gives the lightest colour. Events, tail exits and entries with
 * arguments; function 0 is the root's id. */
/* Statistics of vertex `func` (or of edge from -> func when from >= 0),
 * looked up by id. */
static tk_xray_graph_stats stats_of(const tk_xray_graph *g, int32_t from, int32_t func)
{
    tk_xray_graph_stats st;
    memset(&st, 0, sizeof st);
    int32_t f, t;
    for (size_t i = 0; from < 0 && i < tk_xray_graph_vertices(g); i++)
        if (tk_xray_graph_vertex(g, i, &t, &st) == 0 && t == func)
            return st;
    for (size_t i = 0; from >= 0 && i < tk_xray_graph_edges(g); i++)
        if (tk_xray_graph_edge(g, i, &f, &t, &st) == 0 && f == from && t == func)
            return st;
    fail_msg("no %d -> %d", from, func);
    return st;
}

static void check_stats(tk_xray_graph_stats st, uint64_t count, double min, double med,
                        double p90, double p99, double max, double sum)
{
    assert_int_equal(st.count, count);
    assert_true(st.min == min && st.med == med && st.p90 == p90 && st.p99 == p99);
    assert_true(st.max == max && st.sum == sum);
}

/* An edge called once keeps its duration in place of a timings list, and
 * the first calls are kept where med and p90 go until the orders are
 * fixed: a vertex over a single call and a multiple-call in-edge, and a
 * second thread fed last but earlier in time (the orders then need their
 * sorts). */
static void test_single_calls(void **state)
{
    (void)state;
    static const r recs[] = {{'E', 1, 10, 1},  {'E', 2, 20, 1},  {'X', 2, 30, 1},
                             {'E', 2, 40, 1},  {'X', 2, 60, 1},  {'E', 2, 70, 1},
                             {'X', 2, 100, 1}, {'X', 1, 110, 1}, {'E', 2, 200, 1},
                             {'X', 2, 300, 1}, {'E', 3, 5, 2},   {'X', 3, 6, 2},
                             {'E', 4, 7, 2}};
    for (size_t n = N(recs) - 3; n <= N(recs); n += 3) { /* one thread, two */
        tk_xray_graph *g = build(recs, n, 0, 0);
        check_stats(stats_of(g, -1, 2), 4, 10, 30, 100, 100, 100, 160);
        check_stats(stats_of(g, 0, 2), 1, 100, 100, 100, 100, 100, 100);
        check_stats(stats_of(g, 1, 2), 3, 10, 20, 30, 30, 30, 60);
        check_stats(stats_of(g, -1, 1), 1, 100, 100, 100, 100, 100, 100);
        assert_int_equal(tk_xray_graph_vertices(g), n == N(recs) ? 4 : 2);
        assert_int_equal(tk_xray_graph_edges(g), n == N(recs) ? 4 : 3);
        if (n == N(recs)) {
            check_stats(stats_of(g, 0, 3), 1, 1, 1, 1, 1, 1, 1);
            check_stats(stats_of(g, -1, 4), 0, 0, 0, 0, 0, 0, 0); /* never returned */
        }
        tk_xray_graph_free(g);
    }
}

static void test_unfinished_and_events(void **state)
{
    (void)state;
    static const r recs[] = {{'E', 1, 10, 1}, {'A', 2, 20, 1}, {'C', 0, 25, 1},
                             {'T', 2, 30, 1}, {'E', 3, 40, 1}};
    tk_xray_graph *g = build(recs, N(recs), 0, 0);
    check_dot(g, "sum", "count", "none", "count",
              "digraph xray {\nnode [shape=record];\n"
              "F1 -> F2 [label=\"1.000000e+01\"];\n"
              "F2 [label=\"{#2|1}\" color=\"#7F0000\"];\n"
              "F1 [label=\"{#1|0}\" color=\"#FFF7EC\"];\n"
              "F3 [label=\"{#3|0}\" color=\"#FFF7EC\"];\n}\n");
    check_dot(g, "none", "med", "min", "min",
              "digraph xray {\nnode [shape=record];\n"
              "F1 -> F2 [label=\"\" color=\"#7F0000\"];\n"
              "F2 [label=\"{#2|1.000000e+01}\" color=\"#7F0000\"];\n"
              "F1 [label=\"{#1|0.000000e+00}\" color=\"#FFF7EC\"];\n"
              "F3 [label=\"{#3|0.000000e+00}\" color=\"#FFF7EC\"];\n}\n");
    tk_xray_graph_free(g);
    static const r zero[] = {{'E', 0, 10, 1}, {'E', 5, 12, 1}, {'X', 5, 15, 1},
                             {'X', 0, 20, 1}};
    g = build(zero, N(zero), 0, 0);
    check_dot(g, "count", "none", "none", "none",
              "digraph xray {\n"
              "F0 -> F0 [label=\"1\"];\n"
              "F0 -> F5 [label=\"1\"];\n"
              "F5 [label=\"#5\"];\n}\n");
    tk_xray_graph_free(g);
    /* nothing at all */
    g = build(NULL, 0, 0, 0);
    check_dot(g, "count", "count", "count", "none", "digraph xray {\nnode [shape=record];\n}\n");
    check_dot(g, "none", "none", "none", "none", "digraph xray {\n}\n");
    tk_xray_graph_free(g);
}

static const char *odd_names(void *ctx, int32_t id)
{
    (void)ctx;
    switch (id) {
    case 1: return "a<b>&c";
    case 2: return "0123456789012345678901234567890123456789ABCDE"; /* 45 */
    case 3: return "0123456789012345678901234567890123456&<>"; /* 40: not cut */
    case 4: return "01234567890123456789012345678901234567&&&"; /* cut, then escaped */
    default: return NULL;
    }
}

static void test_names(void **state)
{
    (void)state;
    static const r recs[] = {{'E', 1, 10, 1}, {'E', 2, 11, 1}, {'E', 3, 12, 1},
                             {'E', 4, 13, 1}, {'E', 5, 14, 1}};
    tk_xray_graph *g = build(recs, N(recs), 0, 0);
    char *got = dot(g, "none", "count", "none", "none", odd_names);
    assert_string_equal(got,
                        "digraph xray {\nnode [shape=record];\n"
                        "F2 [label=\"{0123456789012345678901234567890123456789...|0}\"];\n"
                        "F4 [label=\"{01234567890123456789012345678901234567&amp;&amp;...|0}\"];\n"
                        "F1 [label=\"{a&lt;b&gt;&amp;c|0}\"];\n"
                        "F3 [label=\"{0123456789012345678901234567890123456&amp;&lt;&gt;|0}\"];\n"
                        "F5 [label=\"{#5|0}\"];\n}\n");
    free(got);
    tk_xray_graph_free(g);
}

static void test_colors_and_stats(void **state)
{
    (void)state;
    tk_error err;
    char buf[8];
    struct {
        double p;
        const char *want;
    } c[] = {/* llvm-xray's colours at 1/2, 1/3, 2/3 of the maximum */
             {sqrt(1 / 2.0), "#DF422C"}, {sqrt(1 / 3.0), "#F4744E"},
             {sqrt(2 / 3.0), "#C4150D"}, {0, "#FFF7EC"}, {1, "#7F0000"},
             /* clamped; NaN (0/0) as 0 */
             {-1, "#FFF7EC"}, {2, "#7F0000"}, {NAN, "#FFF7EC"}};
    for (size_t i = 0; i < N(c); i++) {
        tk_xray_graph_color(c[i].p, buf);
        assert_string_equal(buf, c[i].want);
    }
    static const char *const names[] = {"none", "count", "min", "med",
                                        "90p",  "99p",   "max", "sum"};
    for (int i = 0; i < 8; i++) {
        tk_xray_graph_stat s = TK_XRAY_GRAPH_NONE;
        assert_int_equal(tk_xray_graph_parse_stat(names[i], &s, &err), TK_OK);
        assert_int_equal((int)s, i);
    }
    tk_xray_graph_stat s;
    assert_int_equal(tk_xray_graph_parse_stat("p90", &s, &err), TK_EUSAGE);
    assert_string_equal(err.message, "unknown statistic 'p90' (none, count, min, med, 90p, "
                                     "99p, max or sum)");
    assert_int_equal(tk_xray_graph_parse_stat("", &s, &err), TK_EUSAGE);
    /* nothing is added after finishing; printing finishes if needed */
    tk_xray_graph *g = tk_xray_graph_new(NULL, &err);
    add(g, (r){'E', 1, 1, 1});
    add(g, (r){'X', 1, 3, 1});
    check_dot(g, "sum", "none", "none", "none",
              "digraph xray {\nF0 -> F1 [label=\"2.000000e+00\"];\nF1 [label=\"#1\"];\n}\n");
    assert_int_equal(add(g, (r){'E', 2, 4, 1}), 0);
    assert_int_equal(tk_xray_graph_vertices(g), 1);
    tk_xray_graph_free(g);
}

/* A failed write is TK_EIO with the error filled, for the DOT graph and
 * for the stacks (which share the convention). */
static void test_write_failure(void **state)
{
    (void)state;
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        skip();
    tk_error err;
    tk_error_clear(&err);
    tk_xray_graph *g = build((r[]){{'E', 1, 1, 1}, {'X', 1, 3, 1}}, 2, 0, 0);
    assert_int_equal(tk_xray_graph_print_dot(g, full, NULL, &err), TK_EIO);
    assert_int_equal(err.status, TK_EIO);
    assert_string_equal(err.message, "writing output failed");
    tk_xray_graph_free(g);
    clearerr(full);
    tk_xray_stacks *s = tk_xray_stacks_new(&err);
    assert_non_null(s);
    tk_xray_record rec;
    memset(&rec, 0, sizeof rec);
    rec.kind = TK_XRAY_ENTER;
    rec.func_id = 1;
    assert_int_equal(tk_xray_stacks_add(s, &rec, &err), 0);
    rec.kind = TK_XRAY_EXIT;
    rec.tsc = 2;
    assert_int_equal(tk_xray_stacks_add(s, &rec, &err), 0);
    tk_xray_stacks_print_options o = {.view = TK_XRAY_STACKS_FOLDED};
    tk_error_clear(&err);
    assert_int_equal(tk_xray_stacks_print(s, full, &o, &err), TK_EIO);
    assert_int_equal(err.status, TK_EIO);
    tk_xray_stacks_free(s);
    fclose(full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_all_stats),
        cmocka_unit_test(test_order_statistics),
        cmocka_unit_test(test_sorted_order),
        cmocka_unit_test(test_streaming),
        cmocka_unit_test(test_diff),
        cmocka_unit_test(test_deduce_sibling_calls),
        cmocka_unit_test(test_keep_going),
        cmocka_unit_test(test_single_calls),
        cmocka_unit_test(test_unfinished_and_events),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_colors_and_stats),
        cmocka_unit_test(test_write_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
