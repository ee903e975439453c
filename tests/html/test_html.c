/* The HTML encoder's contract (src/export/html/html.h): text escaped and
 * invalid UTF-8 as U+FFFD; data-v the exact JSON value; capped tables with
 * their "other" row; dropped cards and tree nodes with what they hold; the
 * size bound whatever the caller writes; write failures TK_EIO. What the
 * page does in a browser is tests/html/check.mjs's. */
#include <stdlib.h>
#include <string.h>

#include "export/html/html.h"
#include "testutil.h"

static tk_html *open_mem(char **p, size_t *n, FILE **f)
{
    *f = open_memstream(p, n);
    assert_non_null(*f);
    tk_error err;
    tk_html *h = tk_html_begin(*f, "T<i>", "a&b", &err);
    assert_non_null(h);
    return h;
}

static void finish(tk_html *h, FILE *f)
{
    tk_error err;
    assert_int_equal(tk_html_end(h, &err), TK_OK);
    fclose(f);
}

static void test_escaping(void **state)
{
    (void)state;
    char *p;
    size_t n;
    FILE *f;
    tk_html *h = open_mem(&p, &n, &f);
    tk_html_para(h, "<script>x</script> \"q\" 'a' \xff\xfe ok \xc3\xa9");
    tk_html_field fl = {"l", "k", TK_HTML_PLAIN, 0, tk_html_str("x\"<y")};
    tk_html_facts(h, "doc", NULL, &fl, 1);
    finish(h, f);
    assert_non_null(strstr(p, "<title>T&lt;i&gt; \xE2\x80\x94 a&amp;b</title>"));
    assert_non_null(strstr(p, "<p>&lt;script&gt;x&lt;/script&gt; &quot;q&quot; &#39;a&#39; "
                              "\xEF\xBF\xBD\xEF\xBF\xBD ok \xc3\xa9</p>"));
    assert_non_null(
        strstr(p, "data-key=\"k\" data-v=\"&quot;x\\&quot;&lt;y&quot;\">x&quot;&lt;y<"));
    assert_null(strstr(p, "<script>x"));
    assert_null(strstr(p, "http")); /* nothing fetched */
    free(p);
}

static void test_exact_values(void **state)
{
    (void)state;
    char *p;
    size_t n;
    FILE *f;
    tk_html *h = open_mem(&p, &n, &f);
    tk_html_field fl[4] = {{"a", "a", TK_HTML_SECONDS, 0, tk_html_f64(3.961e-05)},
                           {"b", "b", TK_HTML_PLAIN, 0, tk_html_u64(18446744073709551615u)},
                           {"c", "c", TK_HTML_SECONDS, 1e9, tk_html_u64(1500)},
                           {"d", "d", TK_HTML_PLAIN, 0, tk_html_null()}};
    tk_html_facts(h, "doc", NULL, fl, 4);
    finish(h, f);
    assert_non_null(strstr(p, "data-key=\"a\" data-v=\"3.961e-05\">39.610\xC2\xB5s<"));
    assert_non_null(strstr(p, "data-v=\"18446744073709551615\""));
    assert_non_null(strstr(p, "data-key=\"c\" data-v=\"1500\">1.500\xC2\xB5s<"));
    assert_non_null(strstr(p, "data-key=\"d\" data-v=\"null\""));
    free(p);
}

static size_t count(const char *s, const char *what)
{
    size_t k = 0;
    for (const char *q = s; (q = strstr(q, what)); q++)
        k++;
    return k;
}

static void test_table_cap(void **state)
{
    (void)state;
    char *p;
    size_t n;
    FILE *f;
    tk_html *h = open_mem(&p, &n, &f);
    tk_html_column cols[2] = {{.label = "id", .key = "id", .flags = TK_HTML_COL_KEY},
                              {.label = "n", .key = "n", .flags = TK_HTML_COL_SUM}};
    tk_html_table_spec s = {.src = "t", .cols = cols, .ncols = 2, .max_rows = 10};
    tk_html_table_begin(h, &s);
    int shown = 0;
    for (int i = 0; i < 25; i++)
        shown += tk_html_table_row(h, (tk_html_value[2]){tk_html_i64(i), tk_html_u64(2)});
    tk_html_table_end(h);
    finish(h, f);
    assert_int_equal(shown, 10);
    assert_int_equal(count(p, "data-key=\"id\""), 10);
    assert_non_null(strstr(p, "data-src=\"t\" data-keys=\"id\""));
    assert_non_null(strstr(p, "other (15 rows)</td><td class=\"tk-num\">30</td>"));
    assert_non_null(strstr(p, "15 more rows not shown"));
    free(p);
}

static void test_cards_and_trees(void **state)
{
    (void)state;
    char *p;
    size_t n;
    FILE *f;
    tk_html *h = open_mem(&p, &n, &f);
    int shown = 0;
    for (int i = 0; i < TK_HTML_MAX_CARDS + 5; i++) {
        shown += tk_html_card_begin(h, TK_HTML_BAD, "violation");
        tk_html_para(h, "inside");
        tk_html_card_end(h);
    }
    tk_html_tree_begin(h, NULL, NULL, NULL);
    for (int i = 0; i < TK_HTML_MAX_NODES + 7; i++) {
        if (tk_html_tree_node_begin(h, "node", NULL, 0, 0))
            tk_html_tree_leaf(h, "leaf", NULL, 0);
        tk_html_tree_node_end(h);
    }
    tk_html_tree_end(h);
    finish(h, f);
    assert_int_equal(shown, TK_HTML_MAX_CARDS);
    assert_int_equal(count(p, "<p>inside</p>"), TK_HTML_MAX_CARDS);
    assert_non_null(strstr(p, "5 more cards not shown"));
    assert_int_equal(count(p, "<details>"), TK_HTML_MAX_NODES / 2);
    assert_int_equal(count(p, "<details>"), count(p, "</details>"));
    assert_non_null(strstr(p, "more nodes not shown"));
    free(p);
}

/* However much a caller writes, the page stays under the bound. */
static void test_size_bound(void **state)
{
    (void)state;
    char *p;
    size_t n;
    FILE *f;
    tk_html *h = open_mem(&p, &n, &f);
    tk_html_column cols[1] = {{.label = "s", .key = "s"}};
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    for (int t = 0; t < 200; t++) {
        tk_html_table_spec s = {.cols = cols, .ncols = 1};
        tk_html_table_begin(h, &s);
        for (int i = 0; i < 1000; i++)
            tk_html_table_row(h, (tk_html_value[1]){tk_html_str(big)});
        tk_html_table_end(h);
        tk_html_card_begin(h, TK_HTML_WARN, big);
        tk_html_card_end(h);
    }
    finish(h, f);
    assert_true(n <= TK_HTML_MAX_BYTES);
    assert_non_null(strstr(p, "</html>"));
    free(p);
    /* a flame graph alone: long names, frames all above the fraction */
    h = open_mem(&p, &n, &f);
    tk_html_flame *fl = tk_html_flame_new(NULL);
    uint32_t root = tk_html_flame_add(fl, 0, big, 1u << 30, 0, 1);
    for (int i = 0; i < 100000; i++)
        tk_html_flame_add(fl, root, big, 1u << 16, 1, 1);
    tk_html_flame_spec fs = {.path_key = "stack", .min_fraction = 1e-9};
    tk_html_flame_write(h, fl, &fs);
    tk_html_flame_free(fl);
    finish(h, f);
    assert_true(n <= TK_HTML_MAX_BYTES);
    assert_true(count(p, "class=\"tk-fr\"") > 100);
    assert_non_null(strstr(p, "</html>"));
    free(p);
}

static void test_write_failure(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        skip();
    tk_error err;
    tk_html *h = tk_html_begin(f, "t", NULL, &err);
    assert_non_null(h);
    for (int i = 0; i < 10000; i++)
        tk_html_para(h, "a paragraph that fills the stream's buffer");
    assert_int_equal(tk_html_end(h, &err), TK_EIO);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escaping),      cmocka_unit_test(test_exact_values),
        cmocka_unit_test(test_table_cap),     cmocka_unit_test(test_cards_and_trees),
        cmocka_unit_test(test_size_bound),    cmocka_unit_test(test_write_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
