/* tk_sink: the exact text and JSON every command prints. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Render the same calls in one style and compare with `want`. */
typedef void (*emit_fn)(tk_sink *s);

static void expect(emit_fn fn, tk_sink_style style, const char *want)
{
    tu_capture c;
    tk_sink *s = tu_sink_open(&c, style);
    assert_int_equal(tk_sink_get_style(s), style);
    fn(s);
    char *got = tu_sink_text(s, &c);
    assert_string_equal(got, want);
    free(got);
}

/* ---- records: one line each */

static void emit_records(tk_sink *s)
{
    tk_sink_record_begin(s);
    tk_sink_u64(s, "i", 7, TK_SINK_BARE);
    tk_sink_u64(s, "offset", 0x12, TK_SINK_BARE | TK_SINK_HEX);
    tk_sink_cstr(s, "type", "read", TK_SINK_BARE);
    tk_sink_u64(s, "addr", 0x7ffe0000, TK_SINK_HEX);
    tk_sink_u64(s, "size", 4, 0);
    tk_sink_bool(s, "atomic", 1);
    tk_sink_cstr(s, "name", "a b", 0);
    tk_sink_record_end(s);
    tk_sink_record_begin(s);
    tk_sink_i64(s, "delta", -5);
    tk_sink_object_begin(s, "obj");
    tk_sink_u64(s, "x", 1, 0);
    tk_sink_u64(s, "y", 2, 0);
    tk_sink_object_end(s);
    tk_sink_array_begin(s, "list");
    tk_sink_u64(s, NULL, 1, 0);
    tk_sink_u64(s, NULL, 2, 0);
    tk_sink_u64(s, NULL, 3, 0);
    tk_sink_array_end(s);
    tk_sink_null(s, "none");
    tk_sink_f64(s, "ratio", 0.25);
    tk_sink_record_end(s);
}

static void test_records_text(void **state)
{
    (void)state;
    expect(emit_records, TK_SINK_TEXT,
           "7 0x12 read addr=0x7ffe0000 size=4 atomic=yes name=\"a b\"\n"
           "delta=-5 obj={x=1 y=2} list=[1,2,3] none=- ratio=0.25\n");
}

static void test_records_json(void **state)
{
    (void)state;
    expect(emit_records, TK_SINK_JSON,
           "{\"i\":7,\"offset\":18,\"type\":\"read\",\"addr\":2147352576,\"size\":4,"
           "\"atomic\":true,\"name\":\"a b\"}\n"
           "{\"delta\":-5,\"obj\":{\"x\":1,\"y\":2},\"list\":[1,2,3],\"none\":null,"
           "\"ratio\":0.25}\n");
}

/* ---- a document with nested objects and arrays of scalars */

static void emit_document(tk_sink *s)
{
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "file", "a.trace", 0);
    tk_sink_u64(s, "size", 7255, 0);
    tk_sink_object_begin(s, "range");
    tk_sink_u64(s, "min", 0x10, TK_SINK_HEX);
    tk_sink_object_begin(s, "inner");
    tk_sink_bool(s, "deep", 0);
    tk_sink_object_end(s);
    tk_sink_u64(s, "max", 0x20, TK_SINK_HEX);
    tk_sink_object_end(s);
    tk_sink_array_begin(s, "threads");
    tk_sink_u64(s, NULL, 1000, 0);
    tk_sink_u64(s, NULL, 1001, 0);
    tk_sink_u64(s, NULL, 1002, 0);
    tk_sink_array_end(s);
    tk_sink_array_begin(s, "empty");
    tk_sink_array_end(s);
    tk_sink_null(s, "nothing");
    tk_sink_f64(s, "ratio", 0.5);
    tk_sink_object_end(s);
}

static void test_document_text(void **state)
{
    (void)state;
    expect(emit_document, TK_SINK_TEXT,
           "file: a.trace\n"
           "size: 7255\n"
           "range:\n"
           "  min: 0x10\n"
           "  inner:\n"
           "    deep: no\n"
           "  max: 0x20\n"
           "threads: 1000, 1001, 1002\n"
           "empty: (none)\n"
           "nothing: -\n"
           "ratio: 0.5\n");
}

static void test_document_json(void **state)
{
    (void)state;
    expect(emit_document, TK_SINK_JSON,
           "{\"file\":\"a.trace\",\"size\":7255,\"range\":{\"min\":16,\"inner\":"
           "{\"deep\":false},\"max\":32},\"threads\":[1000,1001,1002],\"empty\":[],"
           "\"nothing\":null,\"ratio\":0.5}\n");
}

/* ---- tables: arrays of flat objects */

static void row(tk_sink *s, const char *type, uint64_t count, int64_t atomic)
{
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "type", type, 0);
    tk_sink_u64(s, "count", count, 0);
    if (atomic >= 0)
        tk_sink_u64(s, "atomic", (uint64_t)atomic, 0);
    tk_sink_object_end(s);
}

static void emit_table(tk_sink *s)
{
    tk_sink_object_begin(s, NULL);
    tk_sink_u64(s, "records", 400, 0);
    tk_sink_array_begin(s, "by_type");
    row(s, "read", 283, 9);
    row(s, "write", 114, 0);
    row(s, "rtta_add", 3, -1); /* missing cell shows "-" */
    row(s, "x", 1234567, 12);
    tk_sink_array_end(s);
    tk_sink_u64(s, "after", 1, 0);
    tk_sink_object_end(s);
}

static void test_table_text(void **state)
{
    (void)state;
    /* text columns left-aligned, numbers right-aligned, 2 spaces apart */
    expect(emit_table, TK_SINK_TEXT,
           "records: 400\n"
           "by_type:\n"
           "  type        count  atomic\n"
           "  read          283       9\n"
           "  write         114       0\n"
           "  rtta_add        3       -\n"
           "  x         1234567      12\n"
           "after: 1\n");
}

/* Columns are as wide as their text shows: UTF-8 continuation bytes take
 * no column, in cells shorter and longer than the 8 bytes counted at once. */
static void emit_table_utf8(tk_sink *s)
{
    tk_sink_object_begin(s, NULL);
    tk_sink_array_begin(s, "by_type");
    row(s, "\xc3\xa9t\xc3\xa9", 1, 2);                         /* été: 3 columns, 5 bytes */
    row(s, "caf\xc3\xa9-cr\xc3\xa8me-br\xc3\xbbl\xc3\xa9" "e", 10, 20); /* 17 columns, 22 bytes */
    row(s, "\xe2\x86\x92\xe2\x86\x92\xe2\x86\x92x", 3, 4);       /* 4 columns, 10 bytes */
    tk_sink_array_end(s);
    tk_sink_object_end(s);
}

static void test_table_utf8_text(void **state)
{
    (void)state;
    expect(emit_table_utf8, TK_SINK_TEXT,
           "by_type:\n"
           "  type               count  atomic\n"
           "  \xc3\xa9t\xc3\xa9                    1       2\n"
           "  caf\xc3\xa9-cr\xc3\xa8me-br\xc3\xbbl\xc3\xa9" "e     10      20\n"
           "  \xe2\x86\x92\xe2\x86\x92\xe2\x86\x92x                   3       4\n");
}

static void test_table_json(void **state)
{
    (void)state;
    expect(emit_table, TK_SINK_JSON,
           "{\"records\":400,\"by_type\":[{\"type\":\"read\",\"count\":283,\"atomic\":9},"
           "{\"type\":\"write\",\"count\":114,\"atomic\":0},{\"type\":\"rtta_add\",\"count\":3},"
           "{\"type\":\"x\",\"count\":1234567,\"atomic\":12}],\"after\":1}\n");
}

/* Nested objects in rows become "a.b" columns, arrays one cell; a last
 * text column gets no padding; a table in a nested object indents more. */
static void emit_table_nested(tk_sink *s)
{
    tk_sink_object_begin(s, NULL);
    tk_sink_object_begin(s, "outer");
    tk_sink_array_begin(s, "rows");
    for (int i = 0; i < 2; i++) {
        tk_sink_object_begin(s, NULL);
        tk_sink_u64(s, "id", i ? 10 : 1, 0);
        tk_sink_object_begin(s, "pos");
        tk_sink_u64(s, "x", i ? 5 : 500, TK_SINK_HEX);
        tk_sink_object_end(s);
        tk_sink_array_begin(s, "tags");
        tk_sink_u64(s, NULL, 1, 0);
        if (i)
            tk_sink_u64(s, NULL, 2, 0);
        tk_sink_array_end(s);
        tk_sink_cstr(s, "name", i ? "b" : "longer name", 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_object_end(s);
    tk_sink_object_end(s);
}

static void test_table_nested_text(void **state)
{
    (void)state;
    expect(emit_table_nested, TK_SINK_TEXT,
           "outer:\n"
           "  rows:\n"
           "    id  pos.x  tags  name\n"
           "     1  0x1f4  1     \"longer name\"\n"
           "    10    0x5  1,2   b\n");
}

static void test_table_nested_json(void **state)
{
    (void)state;
    expect(emit_table_nested, TK_SINK_JSON,
           "{\"outer\":{\"rows\":[{\"id\":1,\"pos\":{\"x\":500},\"tags\":[1],"
           "\"name\":\"longer name\"},{\"id\":10,\"pos\":{\"x\":5},\"tags\":[1,2],"
           "\"name\":\"b\"}]}}\n");
}

/* A top-level array of objects is a table without a heading. */
static void emit_top_table(tk_sink *s)
{
    tk_sink_array_begin(s, NULL);
    row(s, "a", 1, 2);
    row(s, "bb", 22, 333);
    tk_sink_array_end(s);
}

static void test_top_table_text(void **state)
{
    (void)state;
    expect(emit_top_table, TK_SINK_TEXT,
           "type  count  atomic\n"
           "a         1       2\n"
           "bb       22     333\n");
}

/* An empty last cell leaves no trailing blanks on its line. */
static void emit_empty_last_cell(tk_sink *s)
{
    tk_sink_object_begin(s, NULL);
    tk_sink_array_begin(s, "rows");
    for (int i = 0; i < 2; i++) {
        tk_sink_object_begin(s, NULL);
        tk_sink_cstr(s, "name", i ? "b" : "aaa", 0);
        tk_sink_array_begin(s, "list");
        if (i)
            tk_sink_u64(s, NULL, 7, 0);
        tk_sink_array_end(s);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_object_end(s);
}

static void test_empty_last_cell_text(void **state)
{
    (void)state;
    expect(emit_empty_last_cell, TK_SINK_TEXT,
           "rows:\n"
           "  name  list\n"
           "  aaa\n"
           "  b     7\n");
}

/* ---- scalars at the top level and full 64-bit values */

static void emit_extremes(tk_sink *s)
{
    tk_sink_record_begin(s);
    tk_sink_u64(s, "max", UINT64_MAX, 0);
    tk_sink_u64(s, "hexmax", UINT64_MAX, TK_SINK_HEX);
    tk_sink_i64(s, "min", INT64_MIN);
    tk_sink_u64(s, "zero", 0, TK_SINK_HEX);
    tk_sink_record_end(s);
    tk_sink_u64(s, NULL, 5, 0);
    tk_sink_cstr(s, NULL, "top", 0);
}

static void test_extremes_text(void **state)
{
    (void)state;
    expect(emit_extremes, TK_SINK_TEXT,
           "max=18446744073709551615 hexmax=0xffffffffffffffff "
           "min=-9223372036854775808 zero=0x0\n"
           "5\n"
           "top\n");
}

static void test_extremes_json(void **state)
{
    (void)state;
    expect(emit_extremes, TK_SINK_JSON,
           "{\"max\":18446744073709551615,\"hexmax\":18446744073709551615,"
           "\"min\":-9223372036854775808,\"zero\":0}\n"
           "5\n"
           "\"top\"\n");
}

/* ---- string escaping in both styles, keys included */

static void emit_strings(tk_sink *s)
{
    tk_sink_record_begin(s);
    tk_sink_str(s, "q", "say \"hi\"\\", 9, 0);
    tk_sink_str(s, "ctl", "a\n\t\x01" "b", 5, 0);
    tk_sink_str(s, "bad", "x\xff\xc3\xa9", 4, 0);
    tk_sink_str(s, "nul", "a\0b", 3, 0);
    tk_sink_cstr(s, "k\"ey", "", 0);
    tk_sink_cstr(s, "null", NULL, 0);
    tk_sink_record_end(s);
}

static void test_strings_text(void **state)
{
    (void)state;
    expect(emit_strings, TK_SINK_TEXT,
           "q=\"say \\\"hi\\\"\\\\\" ctl=a\\x0a\\x09\\x01b bad=x\\xff\xc3\xa9 "
           "nul=a\\x00b k\"ey=\"\" null=\"\"\n");
}

static void test_strings_json(void **state)
{
    (void)state;
    expect(emit_strings, TK_SINK_JSON,
           "{\"q\":\"say \\\"hi\\\"\\\\\",\"ctl\":\"a\\n\\t\\u0001b\","
           "\"bad\":\"x\\ufffd\xc3\xa9\",\"nul\":\"a\\u0000b\",\"k\\\"ey\":\"\","
           "\"null\":\"\"}\n");
}

/* ---- numbers for people: a duration column takes the unit its largest
 * value reads best in; percentages and plain doubles in fixed notation;
 * JSON keeps every digit */

static void timing(tk_sink *s, const char *fn, double sum, double med, double miss)
{
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "function", fn, 0);
    tk_sink_f64_flags(s, "sum", sum, TK_SINK_SECONDS);
    if (med == med)
        tk_sink_f64_flags(s, "med", med, TK_SINK_SECONDS);
    else
        tk_sink_null(s, "med");
    tk_sink_f64_flags(s, "miss", miss, TK_SINK_PERCENT);
    tk_sink_f64(s, "plain", sum);
    tk_sink_object_end(s);
}

static void emit_numbers(tk_sink *s)
{
    tk_sink_object_begin(s, NULL);
    tk_sink_f64_flags(s, "span", 96.684e-6, TK_SINK_SECONDS);
    tk_sink_f64_flags(s, "rate", 0.227273, TK_SINK_PERCENT);
    tk_sink_array_begin(s, "rows");
    timing(s, "a", 0.027444515, 1.5e-9, 0.5);
    timing(s, "b", 1.6903e-05, NAN, 1.0);
    timing(s, "c", -2e-6, 2.5e-10, 0.0);
    tk_sink_array_end(s);
    tk_sink_object_end(s);
    tk_sink_record_begin(s);
    tk_sink_f64_flags(s, "t", 1.5, TK_SINK_SECONDS);
    tk_sink_f64_flags(s, "tiny", 3e-10, TK_SINK_SECONDS);
    tk_sink_f64_flags(s, "inf", INFINITY, TK_SINK_SECONDS);
    tk_sink_f64_flags(s, "p", 0.00004, TK_SINK_PERCENT);
    tk_sink_f64(s, "x", 1e-300);
    tk_sink_record_end(s);
}

static void test_numbers_text(void **state)
{
    (void)state;
    expect(emit_numbers, TK_SINK_TEXT,
           "span: 96.684\xC2\xB5s\n"
           "rate: 22.73%\n"
           "rows:\n"
           "  function       sum      med     miss        plain\n"
           "  a         27.445ms  1.500ns   50.00%    0.0274445\n"
           "  b          0.017ms        -  100.00%  0.000016903\n"
           "  c         -0.002ms  0.250ns    0.00%    -0.000002\n"
           "t=1.500s tiny=0.300ns inf=inf p=0.00% x=0\n");
}

static void test_numbers_json(void **state)
{
    (void)state;
    expect(emit_numbers, TK_SINK_JSON,
           "{\"span\":9.6684e-05,\"rate\":0.227273,\"rows\":["
           "{\"function\":\"a\",\"sum\":0.027444515,\"med\":1.5e-09,\"miss\":0.5,"
           "\"plain\":0.027444515},"
           "{\"function\":\"b\",\"sum\":1.6903e-05,\"med\":null,\"miss\":1,"
           "\"plain\":1.6903e-05},"
           "{\"function\":\"c\",\"sum\":-2e-06,\"med\":2.5e-10,\"miss\":0,"
           "\"plain\":-2e-06}]}\n"
           "{\"t\":1.5,\"tiny\":3e-10,\"inf\":null,\"p\":4e-05,\"x\":1e-300}\n");
}

/* ---- the vocabulary's helpers: addresses and big integers as strings
 * (--json-hex), names in snake_case, a duration's key without "_s" */

static void emit_vocabulary(tk_sink *s)
{
    tk_sink_record_begin(s);
    tk_sink_cstr(s, "kind", "function-enter", TK_SINK_BARE | TK_SINK_ENUM);
    tk_sink_u64(s, "addr", 0x7ffe0000, TK_SINK_ADDR);
    tk_sink_u64(s, "offset", 0x12, TK_SINK_HEX);
    tk_sink_u64(s, "small", UINT64_C(1) << 53, 0);
    tk_sink_u64(s, "big", (UINT64_C(1) << 53) + 1, 0);
    tk_sink_i64(s, "low", -(INT64_C(1) << 53));
    tk_sink_i64(s, "lower", INT64_MIN);
    tk_sink_cstr(s, "code", "dsb ish", TK_SINK_ENUM);
    tk_sink_f64_flags(s, "span_s", 0.0015, TK_SINK_SECONDS);
    tk_sink_f64_flags(s, "_s", 2.0, TK_SINK_SECONDS);
    tk_sink_record_end(s);
}

static void test_vocabulary(void **state)
{
    (void)state;
    expect(emit_vocabulary, TK_SINK_TEXT,
           "function_enter addr=0x7ffe0000 offset=0x12 small=9007199254740992 "
           "big=9007199254740993 low=-9007199254740992 lower=-9223372036854775808 "
           "code=dsb_ish span=1.500ms _s=2.000s\n");
    expect(emit_vocabulary, TK_SINK_JSON,
           "{\"kind\":\"function_enter\",\"addr\":2147352576,\"offset\":18,"
           "\"small\":9007199254740992,\"big\":9007199254740993,"
           "\"low\":-9007199254740992,\"lower\":-9223372036854775808,"
           "\"code\":\"dsb_ish\",\"span_s\":0.0015,\"_s\":2}\n");
    tu_capture c;
    tk_sink *s = tu_sink_open(&c, TK_SINK_JSON);
    tk_sink_set_json_hex(s, 1);
    emit_vocabulary(s);
    char *got = tu_sink_text(s, &c);
    assert_string_equal(got, "{\"kind\":\"function_enter\",\"addr\":\"0x7ffe0000\",\"offset\":18,"
                             "\"small\":9007199254740992,\"big\":\"0x20000000000001\","
                             "\"low\":-9007199254740992,\"lower\":\"-0x8000000000000000\","
                             "\"code\":\"dsb_ish\",\"span_s\":0.0015,\"_s\":2}\n");
    free(got);
}

/* ---- tk_sink_limit: validate's cap on warnings */

static void warning(tk_sink *s, const char *code, int i)
{
    tk_sink_record_begin(s);
    tk_sink_cstr(s, "severity", "warning", TK_SINK_BARE);
    tk_sink_u64(s, "i", (uint64_t)i, 0);
    tk_sink_object_begin(s, "where");
    tk_sink_cstr(s, "code", "not-the-group", 0); /* nested: not the group */
    tk_sink_array_begin(s, "list");
    tk_sink_f64_flags(s, NULL, 1.0, TK_SINK_SECONDS);
    tk_sink_array_end(s);
    tk_sink_object_end(s);
    if (code)
        tk_sink_cstr(s, "code", code, 0);
    tk_sink_record_end(s);
}

static void emit_limited(tk_sink *s)
{
    static const char *const codes[] = {"a", "b", "a", "c", NULL, "a", "c"};
    tk_sink_limit(s, 2, "code");
    for (int i = 0; i < 7; i++)
        warning(s, codes[i], i);
    tk_sink_limit_end(s);
    const char *group;
    uint64_t n;
    for (size_t i = 0; tk_sink_dropped(s, i, &group, &n); i++) {
        tk_sink_record_begin(s);
        tk_sink_cstr(s, "group", group, 0);
        tk_sink_u64(s, "n", n, 0);
        tk_sink_record_end(s);
    }
    warning(s, "after", 9); /* the limit is over */
}

static void test_limit_text(void **state)
{
    (void)state;
    expect(emit_limited, TK_SINK_TEXT,
           "warning i=0 where={code=not-the-group list=[1.000s]} code=a\n"
           "warning i=1 where={code=not-the-group list=[1.000s]} code=b\n"
           "group=a n=2\n"
           "group=c n=2\n"
           "group=\"\" n=1\n"
           "warning i=9 where={code=not-the-group list=[1.000s]} code=after\n");
}

static void test_limit_json(void **state)
{
    (void)state;
    expect(emit_limited, TK_SINK_JSON,
           "{\"severity\":\"warning\",\"i\":0,\"where\":{\"code\":\"not-the-group\","
           "\"list\":[1]},\"code\":\"a\"}\n"
           "{\"severity\":\"warning\",\"i\":1,\"where\":{\"code\":\"not-the-group\","
           "\"list\":[1]},\"code\":\"b\"}\n"
           "{\"group\":\"a\",\"n\":2}\n"
           "{\"group\":\"c\",\"n\":2}\n"
           "{\"group\":\"\",\"n\":1}\n"
           "{\"severity\":\"warning\",\"i\":9,\"where\":{\"code\":\"not-the-group\","
           "\"list\":[1]},\"code\":\"after\"}\n");
}

/* A new limit starts new counts; a zero limit drops everything. */
static void test_limit_restart(void **state)
{
    (void)state;
    tu_capture c;
    tk_sink *s = tu_sink_open(&c, TK_SINK_TEXT);
    tk_sink_limit(s, 0, "code");
    warning(s, "x", 0);
    warning(s, "x", 1);
    const char *group;
    uint64_t n = 0;
    assert_true(tk_sink_dropped(s, 0, &group, &n));
    assert_string_equal(group, "x");
    assert_int_equal(n, 2);
    assert_false(tk_sink_dropped(s, 1, &group, &n));
    tk_sink_limit(s, 1, NULL);
    warning(s, "y", 2);
    warning(s, "y", 3);
    tk_sink_limit_end(s);
    assert_true(tk_sink_dropped(s, 0, &group, &n));
    assert_string_equal(group, ""); /* no group key */
    assert_int_equal(n, 1);
    assert_false(tk_sink_dropped(s, 1, &group, &n));
    char *got = tu_sink_text(s, &c);
    assert_string_equal(got, "warning i=2 where={code=not-the-group list=[1.000s]} code=y\n");
    free(got);
}

/* ---- large output (past the internal flush threshold) arrives whole */

static void test_large_stream(void **state)
{
    (void)state;
    tu_capture c;
    tk_sink *s = tu_sink_open(&c, TK_SINK_JSON);
    for (uint64_t i = 0; i < 20000; i++) {
        tk_sink_record_begin(s);
        tk_sink_u64(s, "i", i, 0);
        tk_sink_record_end(s);
    }
    char *got = tu_sink_text(s, &c);
    size_t want_len = 0;
    for (uint64_t i = 0; i < 20000; i++)
        want_len += (size_t)snprintf(NULL, 0, "{\"i\":%llu}\n", (unsigned long long)i);
    assert_int_equal(strlen(got), want_len);
    assert_memory_equal(got, "{\"i\":0}\n{\"i\":1}\n", 16);
    assert_string_equal(got + want_len - 12, "{\"i\":19999}\n");
    free(got);
}

/* A table longer than a block (4096 rows) prints in blocks: the header
 * once, every row in order, the first block's widths and duration unit
 * kept (a later, longer value pushes its own row only). */
/* Rows that set their columns in another order, or add a column, land
 * in the right cells. */
static void emit_shuffled_rows(tk_sink *s)
{
    tk_sink_array_begin(s, NULL);
    tk_sink_object_begin(s, NULL);
    tk_sink_u64(s, "a", 1, 0);
    tk_sink_u64(s, "b", 2, 0);
    tk_sink_object_end(s);
    tk_sink_object_begin(s, NULL);
    tk_sink_u64(s, "b", 20, 0);
    tk_sink_u64(s, "c", 300, 0);
    tk_sink_u64(s, "a", 10, 0);
    tk_sink_object_end(s);
    tk_sink_object_begin(s, NULL);
    tk_sink_u64(s, "c", 3, 0);
    tk_sink_object_end(s);
    tk_sink_array_end(s);
}

static void test_shuffled_rows_text(void **state)
{
    (void)state;
    expect(emit_shuffled_rows, TK_SINK_TEXT,
           " a   b    c\n"
           " 1   2    -\n"
           "10  20  300\n"
           " -   -    3\n");
}

static void test_long_table_blocks(void **state)
{
    (void)state;
    enum { ROWS = 10000 };
    tu_capture c;
    tk_sink *s = tu_sink_open(&c, TK_SINK_TEXT);
    tk_sink_array_begin(s, "rows");
    for (uint64_t i = 0; i < ROWS; i++) {
        tk_sink_object_begin(s, NULL);
        tk_sink_u64(s, "i", i, 0);
        tk_sink_f64_flags(s, "t", i < 4096 ? 0.002 : 7.5, TK_SINK_SECONDS);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    char *got = tu_sink_text(s, &c);
    char *line = got;
    size_t n = 0;
    char want[64];
    for (char *nl; (nl = strchr(line, '\n')); line = nl + 1, n++) {
        *nl = '\0';
        if (n == 0) {
            assert_string_equal(line, "   i        t");
        } else {
            uint64_t i = n - 1;
            /* the unit is the first block's (ms): 7.5 s reads 7500.000ms */
            snprintf(want, sizeof want, "%4llu  %s", (unsigned long long)i,
                     i < 4096 ? "2.000ms" : "7500.000ms");
            assert_string_equal(line, want);
        }
    }
    assert_int_equal(n, ROWS + 1);
    free(got);
}

/* ---- a failing output is reported by tk_sink_finish */

static void test_write_failure(void **state)
{
    (void)state;
    tk_error err;
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        skip();
    tk_sink *s = tk_sink_new(full, TK_SINK_TEXT, &err);
    for (int i = 0; i < 10000; i++) {
        tk_sink_record_begin(s);
        tk_sink_cstr(s, "pad", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 0);
        tk_sink_record_end(s);
    }
    tk_error_clear(&err);
    assert_int_equal(tk_sink_finish(s, &err), TK_EIO);
    assert_int_equal(err.status, TK_EIO);
    assert_string_equal(err.message, "writing output failed");
    tk_sink_free(s);
    fclose(full);
}

/* Freeing a sink with containers still open must not leak or crash. */
static void test_free_unfinished(void **state)
{
    (void)state;
    tu_capture c;
    tk_sink *s = tu_sink_open(&c, TK_SINK_TEXT);
    tk_sink_object_begin(s, NULL);
    tk_sink_array_begin(s, "rows");
    row(s, "a", 1, 2);
    tk_sink_object_begin(s, NULL);
    tk_sink_free(s);
    free(tu_capture_close(&c));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records_text),
        cmocka_unit_test(test_records_json),
        cmocka_unit_test(test_document_text),
        cmocka_unit_test(test_document_json),
        cmocka_unit_test(test_table_text),
        cmocka_unit_test(test_table_utf8_text),
        cmocka_unit_test(test_table_json),
        cmocka_unit_test(test_table_nested_text),
        cmocka_unit_test(test_table_nested_json),
        cmocka_unit_test(test_top_table_text),
        cmocka_unit_test(test_empty_last_cell_text),
        cmocka_unit_test(test_extremes_text),
        cmocka_unit_test(test_extremes_json),
        cmocka_unit_test(test_strings_text),
        cmocka_unit_test(test_strings_json),
        cmocka_unit_test(test_large_stream),
        cmocka_unit_test(test_shuffled_rows_text),
        cmocka_unit_test(test_long_table_blocks),
        cmocka_unit_test(test_write_failure),
        cmocka_unit_test(test_free_unfinished),
        cmocka_unit_test(test_numbers_text),
        cmocka_unit_test(test_numbers_json),
        cmocka_unit_test(test_vocabulary),
        cmocka_unit_test(test_limit_text),
        cmocka_unit_test(test_limit_json),
        cmocka_unit_test(test_limit_restart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
