/* C++ names from a C++ fixture's DWARF (argv[1]): scopes qualify names as
 * LLVM does ("class.ns::C"), base classes are flattened without a prefix,
 * static members are not fields. The expected layouts come from C structs
 * laid out like the C++ ones. */
#include <stddef.h>
#include <string.h>

#include "testutil.h"

#include "cacheray/layout/layout.h"

static const char *fixture;
static tk_cacheray_layouts *layouts;

/* C twins of fixture_cxx.cc's types */
struct C_twin {
    int a;
    long b;
};
struct Derived_twin {
    int x; /* from Base */
    int y;
};
struct Holder_twin {
    struct {
        char n;
    } nested;
    int z;
};

static const tk_cacheray_layout *find(const char *name)
{
    return tk_cacheray_layouts_find(layouts, name, strlen(name));
}

static void expect_field(const tk_cacheray_layout *l, size_t i, const char *name,
                         uint64_t offset, uint64_t size)
{
    assert_true(i < l->nfields);
    assert_string_equal(l->fields[i].name, name);
    assert_int_equal(l->fields[i].offset, offset);
    assert_int_equal(l->fields[i].size, size);
}

static void classes(void **state)
{
    (void)state;
    tk_error err;
    layouts = tk_cacheray_layouts_load(fixture, &err);
    if (!layouts)
        fail_msg("%s: %s", fixture, err.message);

    const tk_cacheray_layout *c = find("class.ns::C");
    assert_non_null(c);
    assert_string_equal(c->name, "class ns::C");
    assert_int_equal(c->size, sizeof(struct C_twin));
    assert_int_equal(c->nfields, 2); /* not the static counter */
    expect_field(c, 0, "a", offsetof(struct C_twin, a), sizeof(int));
    expect_field(c, 1, "b", offsetof(struct C_twin, b), sizeof(long));
    assert_ptr_equal(find("class.ns::C.5"), c);
    assert_ptr_equal(find("class ns::C"), c);
    assert_ptr_equal(find("ns::C"), c);
    assert_ptr_equal(find("struct.ns::C"), c); /* struct and class agree */
    assert_null(find("class.C"));
    assert_null(find("union.ns::C"));

    const tk_cacheray_layout *d = find("struct.ns::Derived");
    assert_non_null(d);
    assert_int_equal(d->size, sizeof(struct Derived_twin));
    assert_int_equal(d->nfields, 2);
    expect_field(d, 0, "x", offsetof(struct Derived_twin, x), sizeof(int));
    expect_field(d, 1, "y", offsetof(struct Derived_twin, y), sizeof(int));

    const tk_cacheray_layout *h = find("struct.ns::Holder");
    assert_non_null(h);
    assert_int_equal(h->size, sizeof(struct Holder_twin));
    assert_int_equal(h->nfields, 2);
    expect_field(h, 0, "nested.n", offsetof(struct Holder_twin, nested.n), 1);
    expect_field(h, 1, "z", offsetof(struct Holder_twin, z), sizeof(int));
    const tk_cacheray_layout *n = find("struct.ns::Holder::Nested");
    assert_non_null(n);
    assert_int_equal(n->size, 1);

    tk_cacheray_layouts_free(layouts);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIXTURE\n", argv[0]);
        return 2;
    }
    fixture = argv[1];
    const struct CMUnitTest tests[] = {cmocka_unit_test(classes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
