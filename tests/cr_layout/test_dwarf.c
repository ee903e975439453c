/* Struct layouts read back from a fixture program's DWARF (argv[1]; one
 * run per compiler and DWARF version). Every expected offset and size is
 * computed here with offsetof/sizeof on the same fixture_types.h. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "cacheray/layout/layout.h"
#include "fixture_types.h"

static const char *fixture;
static tk_cacheray_layouts *layouts;

static const tk_cacheray_layout *find(const char *name)
{
    return tk_cacheray_layouts_find(layouts, name, strlen(name));
}

static const tk_cacheray_layout *must_find(const char *name)
{
    const tk_cacheray_layout *l = find(name);
    if (!l)
        fail_msg("%s: no layout for \"%s\"", fixture, name);
    return l;
}

typedef struct want {
    const char *name;
    uint64_t offset, size;
} want;

#define FIELD(T, m) {#m, offsetof(T, m), sizeof(((T *)0)->m)}

/* The layout has exactly these fields, in this order. */
static void expect_fields(const tk_cacheray_layout *l, const want *w, size_t n)
{
    if (l->nfields != n) {
        for (size_t i = 0; i < l->nfields; i++)
            print_message("  %s @%llu +%llu\n", l->fields[i].name,
                          (unsigned long long)l->fields[i].offset,
                          (unsigned long long)l->fields[i].size);
        fail_msg("%s: %s has %zu fields, want %zu", fixture, l->name,
                 l->nfields, n);
    }
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(l->fields[i].name, w[i].name);
        assert_int_equal(l->fields[i].offset, w[i].offset);
        assert_int_equal(l->fields[i].size, w[i].size);
    }
}

static void load(void **state)
{
    (void)state;
    tk_error err;
    tk_error_clear(&err);
    layouts = tk_cacheray_layouts_load(fixture, &err);
    if (!layouts)
        fail_msg("%s: %s", fixture, err.message);
}

static void basic(void **state)
{
    (void)state;
    const tk_cacheray_layout *l = must_find("struct.Basic");
    assert_string_equal(l->name, "struct Basic");
    assert_int_equal(l->size, sizeof(struct Basic));
    const want w[] = {FIELD(struct Basic, a), FIELD(struct Basic, b),
                      FIELD(struct Basic, c)};
    expect_fields(l, w, 3);
    /* the padding between a and b */
    for (uint64_t o = sizeof(int); o < offsetof(struct Basic, b); o++)
        assert_int_equal(tk_cacheray_layout_field_at(l, o), -1);
    assert_int_equal(tk_cacheray_layout_field_at(l, 0), 0);
    assert_int_equal(tk_cacheray_layout_field_at(l, offsetof(struct Basic, b) + 7), 1);
    assert_int_equal(tk_cacheray_layout_field_at(l, offsetof(struct Basic, c)), 2);
    assert_int_equal(tk_cacheray_layout_field_at(l, sizeof(struct Basic)), -1);
}

static void name_spellings(void **state)
{
    (void)state;
    const tk_cacheray_layout *basic = must_find("struct.Basic");
    const char *same[] = {"struct.Basic.3", "struct.Basic.12", "struct Basic",
                          "struct  Basic", "Basic", "CvBasic"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        if (find(same[i]) != basic)
            fail_msg("%s: \"%s\" does not find struct Basic", fixture,
                     same[i]);
    /* not NUL-terminated */
    assert_ptr_equal(tk_cacheray_layouts_find(layouts, "struct.BasicXYZ", 12), basic);

    const tk_cacheray_layout *td = must_find("TdBasic");
    assert_string_equal(td->name, "struct TdBasic");
    assert_int_equal(td->size, sizeof(TdBasic));
    const want w[] = {FIELD(TdBasic, at), FIELD(TdBasic, bt)};
    expect_fields(td, w, 2);
    assert_ptr_equal(find("struct.TdBasic"), td);
    assert_ptr_equal(find("struct.TdBasic.7"), td);
    assert_ptr_equal(find("struct TdBasic"), td);
    assert_ptr_equal(find("TdAgain"), td);
    assert_ptr_equal(find("struct.TdAgain"), td);

    /* a typedef of a named struct finds it under either name */
    const tk_cacheray_layout *named = must_find("struct.TdNamed");
    assert_ptr_equal(find("TheTdNamed"), named);
    assert_ptr_equal(find("struct.TheTdNamed"), named);

    const char *none[] = {"struct.Nope",   "Nope",          "union.Basic",
                          "union Basic",   "Basic.3",       "struct.Basic.x",
                          "struct.",       "struct",        "",
                          "void*",         "struct.Basic*", "class.Nope",
                          "struct.Basic.", "struct.anon"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        if (find(none[i]))
            fail_msg("%s: \"%s\" finds %s", fixture, none[i],
                     find(none[i])->name);
    assert_null(tk_cacheray_layouts_find(layouts, NULL, 0));
    assert_null(tk_cacheray_layouts_find(NULL, "Basic", 5));
}

static void tail_padding(void **state)
{
    (void)state;
    const tk_cacheray_layout *l = must_find("struct.Pad");
    assert_int_equal(l->size, sizeof(struct Pad));
    assert_int_equal(l->size, 16);
    const want w[] = {FIELD(struct Pad, x), FIELD(struct Pad, c)};
    expect_fields(l, w, 2);
    for (uint64_t o = offsetof(struct Pad, c) + 1; o < sizeof(struct Pad); o++)
        assert_int_equal(tk_cacheray_layout_field_at(l, o), -1);
    assert_int_equal(tk_cacheray_layout_field_at(l, offsetof(struct Pad, c)), 1);
}

static void nested_and_anonymous(void **state)
{
    (void)state;
    const tk_cacheray_layout *l = must_find("struct.Nested");
    assert_int_equal(l->size, sizeof(struct Nested));
    const want w[] = {
        FIELD(struct Nested, tag),
        {"inner.x", offsetof(struct Nested, inner.x), sizeof(short)},
        {"inner.y", offsetof(struct Nested, inner.y), sizeof(int)},
        FIELD(struct Nested, i),
        FIELD(struct Nested, d),
        FIELD(struct Nested, p),
        FIELD(struct Nested, q),
        FIELD(struct Nested, arr),
        FIELD(struct Nested, pairs),
        {"deeper.in.x", offsetof(struct Nested, deeper.in.x), sizeof(short)},
        {"deeper.in.y", offsetof(struct Nested, deeper.in.y), sizeof(int)},
        {"deeper.last", offsetof(struct Nested, deeper.last), 1},
    };
    expect_fields(l, w, sizeof w / sizeof w[0]);
    /* byte 1 is padding; i and d overlap: the first in order wins, and d
     * alone holds the bytes past i */
    assert_int_equal(tk_cacheray_layout_field_at(l, 1), -1);
    assert_int_equal(tk_cacheray_layout_field_at(l, offsetof(struct Nested, i)), 3);
    assert_int_equal(
        tk_cacheray_layout_field_at(l, offsetof(struct Nested, d) + sizeof(int)), 4);
    assert_int_equal(
        tk_cacheray_layout_field_at(l, offsetof(struct Nested, arr) + 4 * sizeof(int)),
        7);
    assert_int_equal(
        tk_cacheray_layout_field_at(l, offsetof(struct Nested, pairs) +
                                     sizeof(struct Inner) + 1),
        8);
    /* the struct declared inside struct Nested is a type of its own */
    assert_int_equal(must_find("struct.Deeper")->size, sizeof(struct Deeper));
}

/* The bytes a bit-field's bits touch, found by setting all its bits. */
#define BITS(m)                                                               \
    do {                                                                      \
        struct Bits v;                                                        \
        memset(&v, 0, sizeof v);                                              \
        v.m = 0;                                                              \
        v.m--;                                                                \
        const unsigned char *p = (const unsigned char *)&v;                   \
        size_t lo = 0, hi = sizeof v;                                         \
        while (!p[lo])                                                        \
            lo++;                                                             \
        while (!p[hi - 1])                                                    \
            hi--;                                                             \
        w[n++] = (want){#m, lo, hi - lo};                                     \
    } while (0)

static void bit_fields(void **state)
{
    (void)state;
    const tk_cacheray_layout *l = must_find("struct.Bits");
    assert_int_equal(l->size, sizeof(struct Bits));
    want w[8];
    size_t n = 0;
    BITS(a);
    BITS(b);
    BITS(c);
    w[n++] = (want)FIELD(struct Bits, d);
    BITS(e);
    BITS(f);
    BITS(g);
    /* a, b share byte 0 and b, c byte 1: sorted by first byte, stable */
    expect_fields(l, w, n);
    assert_int_equal(w[2].offset, 1); /* c: bits 10..21 */
    assert_int_equal(w[2].size, 2);
    assert_int_equal(tk_cacheray_layout_field_at(l, 0), 0);
    assert_int_equal(tk_cacheray_layout_field_at(l, 1), 1);
}

static void unions(void **state)
{
    (void)state;
    const tk_cacheray_layout *l = must_find("union.U");
    assert_string_equal(l->name, "union U");
    assert_ptr_equal(find("union U"), l);
    assert_ptr_equal(find("U"), l);
    assert_null(find("struct.U"));
    assert_int_equal(l->size, sizeof(union U));
    const want w[] = {
        FIELD(union U, i),
        FIELD(union U, c),
        {"in.x", offsetof(union U, in.x), sizeof(short)},
        {"in.y", offsetof(union U, in.y), sizeof(int)},
    };
    expect_fields(l, w, 4);
    assert_int_equal(tk_cacheray_layout_field_at(l, 0), 0);
    assert_int_equal(tk_cacheray_layout_field_at(l, 5), 1); /* c[5], over in.y */
    assert_int_equal(tk_cacheray_layout_field_at(l, 6), 3);
}

static void flexible_array(void **state)
{
    (void)state;
    const tk_cacheray_layout *l = must_find("struct.Flex");
    assert_int_equal(l->size, sizeof(struct Flex));
    /* the member has no size: it runs to the end of the struct */
    const want w[] = {
        FIELD(struct Flex, n), FIELD(struct Flex, tag),
        {"data", offsetof(struct Flex, data),
         sizeof(struct Flex) - offsetof(struct Flex, data)}};
    expect_fields(l, w, 3);
}

static void scopes_and_duplicates(void **state)
{
    (void)state;
    const tk_cacheray_layout *in = must_find("struct.InnerDef");
    assert_int_equal(in->size, sizeof(struct InnerDef));
    const tk_cacheray_layout *outer = must_find("struct.Outer");
    const want w[] = {{"in.k", offsetof(struct Outer, in.k), sizeof(int)},
                      FIELD(struct Outer, name)};
    expect_fields(outer, w, 2);

    /* struct Conflict differs between the two units: the first is kept */
    const tk_cacheray_layout *c = must_find("struct.Conflict");
    assert_int_equal(c->size, sizeof(struct Conflict));
    const want wc[] = {FIELD(struct Conflict, x)};
    expect_fields(c, wc, 1);
}

static void original_sample(void **state)
{
    (void)state;
    /* cacheray/test/structs: the struct-test trace's types */
    const tk_cacheray_layout *l = must_find("struct.Deep");
    assert_int_equal(l->size, sizeof(struct Deep));
    const want w[] = {
        FIELD(struct Deep, a),
        {"b.a", offsetof(struct Deep, b.a), sizeof(int)},
        {"b.b", offsetof(struct Deep, b.b), sizeof(long)},
        {"b.c", offsetof(struct Deep, b.c), sizeof(char *)},
        FIELD(struct Deep, c),
        {"d.at", offsetof(struct Deep, d.at), sizeof(int)},
        {"d.bt", offsetof(struct Deep, d.bt), sizeof(int)},
        FIELD(struct Deep, e),
    };
    expect_fields(l, w, sizeof w / sizeof w[0]);
}

static void unload(void **state)
{
    (void)state;
    tk_cacheray_layouts_free(layouts);
    layouts = NULL;
    tk_cacheray_layouts_free(NULL);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIXTURE\n", argv[0]);
        return 2;
    }
    fixture = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(load),
        cmocka_unit_test(basic),
        cmocka_unit_test(name_spellings),
        cmocka_unit_test(tail_padding),
        cmocka_unit_test(nested_and_anonymous),
        cmocka_unit_test(bit_fields),
        cmocka_unit_test(unions),
        cmocka_unit_test(flexible_array),
        cmocka_unit_test(scopes_and_duplicates),
        cmocka_unit_test(original_sample),
        cmocka_unit_test(unload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
