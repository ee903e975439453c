/* tk_sink_limit past its cap: a thousand values of a few groups, their
 * group member anywhere among other members and nested values, given once
 * or twice, in snake_case or as is. What is printed and the counts per
 * group must be what a model of the rule (written here, apart from the
 * sink) gives. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define LIMIT 3
#define VALUES 1000
#define MAX_GROUPS 8

/* One value's group members: up to two ("code" given twice: the last
 * names the group), each with or without TK_SINK_ENUM. */
typedef struct spec {
    int shape;          /* where the members go, see emit_value */
    const char *code[2];
    int as_enum[2];
    int ncodes;
} spec;

static spec specs[VALUES + 1];

static void make_specs(void)
{
    /* "c_c" as is and "c c" in snake_case are one group; "x-y" as is and
     * in snake_case are two */
    static const char *const names[] = {"empty-region", "b", "c c", "x-y", "c_c"};
    uint32_t r = 12345;
    for (int i = 0; i <= VALUES; i++) {
        spec *s = &specs[i];
        r = r * 1103515245u + 12345u;
        uint32_t x = r >> 8;
        s->shape = (int)(x % 4);
        s->ncodes = x % 7 == 0 ? 0 : x % 5 == 0 ? 2 : 1;
        for (int k = 0; k < 2; k++) {
            /* mostly one group for long runs, as validate's are */
            uint32_t pick = (x >> (4 + 3 * k)) % 16;
            s->code[k] = names[pick < 10 ? (uint32_t)(i / 100) % 3 : pick % 5];
            s->as_enum[k] = pick < 10 || ((x >> (12 + k)) & 1) != 0;
        }
    }
}

/* A member named like the group key but nested (not the group), and keys
 * that start like it. */
static void other_members(tk_sink *s, int i)
{
    tk_sink_u64(s, "i", (uint64_t)i, 0);
    tk_sink_cstr(s, "cod", "no", 0);
    tk_sink_object_begin(s, "where");
    tk_sink_cstr(s, "code", "nested", TK_SINK_ENUM);
    tk_sink_array_begin(s, "list");
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "code", "deeper", 0);
    tk_sink_f64_flags(s, "t_s", 0.5, TK_SINK_SECONDS);
    tk_sink_object_end(s);
    tk_sink_array_end(s);
    tk_sink_object_end(s);
    tk_sink_str(s, "codes", "also-no", 4, 0);
    tk_sink_bool(s, "ok", i & 1);
    tk_sink_null(s, "none");
}

/* Group member k of value i: tk_sink_str over a longer buffer (not
 * NUL-terminated at its length) or tk_sink_cstr. */
static void code_member(tk_sink *s, const spec *v, int k, int i)
{
    unsigned flags = v->as_enum[k] ? TK_SINK_ENUM : 0;
    if (i & 2) {
        char buf[32];
        size_t n = strlen(v->code[k]);
        memcpy(buf, v->code[k], n);
        memcpy(buf + n, "-tail", 6);
        tk_sink_str(s, "code", buf, n, flags);
    } else {
        tk_sink_cstr(s, "code", v->code[k], flags);
    }
}

static void emit_value(tk_sink *s, int i)
{
    const spec *v = &specs[i];
    if (v->shape == 3)
        tk_sink_object_begin(s, NULL);
    else
        tk_sink_record_begin(s);
    tk_sink_cstr(s, "severity", "warning", TK_SINK_BARE);
    for (int k = 0; k < v->ncodes; k++) {
        if (v->shape == 1 && k == 0)
            other_members(s, i); /* the group member after the others */
        code_member(s, v, k, i);
        if (v->shape == 2 && k == 0)
            other_members(s, i); /* between two group members */
    }
    if (v->ncodes == 0 || v->shape == 0 || v->shape == 3)
        other_members(s, i);
    if (v->shape == 3)
        tk_sink_object_end(s);
    else
        tk_sink_record_end(s);
}

static void group_record(tk_sink *s, const char *group, uint64_t n)
{
    tk_sink_record_begin(s);
    tk_sink_cstr(s, "group", group, 0);
    tk_sink_u64(s, "n", n, 0);
    tk_sink_record_end(s);
}

/* The model: value i's group, in `out`. */
static void model_group(int i, char *out)
{
    const spec *v = &specs[i];
    out[0] = '\0';
    if (v->ncodes == 0)
        return;
    const char *c = v->code[v->ncodes - 1];
    size_t n = strlen(c);
    for (size_t j = 0; j <= n; j++)
        out[j] = v->as_enum[v->ncodes - 1] && (c[j] == '-' || c[j] == ' ') ? '_' : c[j];
}

typedef struct model {
    char names[MAX_GROUPS][32];
    uint64_t counts[MAX_GROUPS];
    size_t n;
} model;

static void model_count(model *m)
{
    memset(m, 0, sizeof *m);
    for (int i = LIMIT; i < VALUES; i++) {
        char g[32];
        model_group(i, g);
        size_t k = 0;
        while (k < m->n && strcmp(m->names[k], g) != 0)
            k++;
        assert_true(k < MAX_GROUPS);
        if (k == m->n)
            strcpy(m->names[m->n++], g);
        m->counts[k]++;
    }
}

/* The limited sink against the first LIMIT values rendered plainly and
 * the model's counts. */
static void check_style(tk_sink_style style)
{
    model m;
    model_count(&m);
    assert_true(m.n >= 4); /* the groups and "" all occur */

    tu_capture cg;
    tk_sink *got = tu_sink_open(&cg, style);
    tk_sink_limit(got, LIMIT, "code");
    for (int i = 0; i < VALUES; i++)
        emit_value(got, i);
    tk_sink_limit_end(got);
    const char *group;
    uint64_t n, total = 0;
    size_t k = 0;
    for (; tk_sink_dropped(got, k, &group, &n); k++) {
        assert_true(k < m.n);
        assert_string_equal(group, m.names[k]);
        assert_int_equal(n, m.counts[k]);
        group_record(got, group, n);
        total += n;
    }
    assert_int_equal(k, m.n);
    assert_int_equal(total, VALUES - LIMIT);
    emit_value(got, VALUES); /* rendered: the limit is over */

    tu_capture cw;
    tk_sink *want = tu_sink_open(&cw, style);
    for (int i = 0; i < LIMIT; i++)
        emit_value(want, i);
    for (size_t j = 0; j < m.n; j++)
        group_record(want, m.names[j], m.counts[j]);
    emit_value(want, VALUES);

    char *g = tu_sink_text(got, &cg), *w = tu_sink_text(want, &cw);
    assert_string_equal(g, w);
    free(g);
    free(w);
}

static void test_many_dropped_text(void **state)
{
    (void)state;
    check_style(TK_SINK_TEXT);
}

static void test_many_dropped_json(void **state)
{
    (void)state;
    check_style(TK_SINK_JSON);
}

/* Runs of one group, then a switch back and forth: each count is the
 * model's even when consecutive values share their group. */
static void test_group_switches(void **state)
{
    (void)state;
    static const char *const seq[] = {"a-b", "a-b", "a_b", "a b", "a-b", "", "a-b", "a-b"};
    static const int as_enum[] = {1, 0, 0, 1, 1, 0, 1, 1};
    tu_capture c;
    tk_sink *s = tu_sink_open(&c, TK_SINK_TEXT);
    tk_sink_limit(s, 0, "code");
    for (int i = 0; i < 8; i++) {
        tk_sink_record_begin(s);
        if (i != 5)
            tk_sink_cstr(s, "code", seq[i], as_enum[i] ? TK_SINK_ENUM : 0);
        tk_sink_record_end(s);
    }
    tk_sink_limit_end(s);
    /* a_b: values 0, 2, 3, 4, 6, 7; a-b (as is): 1; "": 5 */
    static const char *const want[] = {"a_b", "a-b", ""};
    static const uint64_t counts[] = {6, 1, 1};
    const char *group;
    uint64_t n;
    for (size_t k = 0; k < 3; k++) {
        assert_true(tk_sink_dropped(s, k, &group, &n));
        assert_string_equal(group, want[k]);
        assert_int_equal(n, counts[k]);
    }
    assert_false(tk_sink_dropped(s, 3, &group, &n));
    char *got = tu_sink_text(s, &c);
    assert_string_equal(got, "");
    free(got);
}

int main(void)
{
    make_specs();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_dropped_text),
        cmocka_unit_test(test_many_dropped_json),
        cmocka_unit_test(test_group_switches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
