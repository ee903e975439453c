/* dwarf2json files (the original tool's sample and edge cases written
 * here), their errors, and field_at on hand-made layouts. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "cacheray/layout/layout.h"
#include "fixture_types.h"

static char *dir;

/* JSON written with ' for " (readable in C). */
static const char *write_json(const char *name, const char *text)
{
    char *s = strdup(text);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    const char *path = tu_path(dir, name);
    tu_write_file(path, s, strlen(s));
    free(s);
    return path;
}

static tk_cacheray_layouts *load_ok(const char *path)
{
    tk_error err;
    tk_cacheray_layouts *l = tk_cacheray_layouts_load(path, &err);
    if (!l)
        fail_msg("%s", err.message);
    return l;
}

static const tk_cacheray_layout *find(const tk_cacheray_layouts *l, const char *name)
{
    return tk_cacheray_layouts_find(l, name, strlen(name));
}

static void expect_field(const tk_cacheray_layout *l, size_t i, const char *name,
                         uint64_t offset, uint64_t size)
{
    if (i >= l->nfields)
        fail_msg("%s: no field %zu (%s)", l->name, i, name);
    assert_string_equal(l->fields[i].name, name);
    assert_int_equal(l->fields[i].offset, offset);
    assert_int_equal(l->fields[i].size, size);
}

/* cacheray/sim/.../struct_test/structs.dwarf.json, as dwarf2json wrote it */
static const char sample[] =
    "{\n"
    " 'structs': [\n"
    "  {'id': 87, 'members': [\n"
    "    {'id': 144, 'memberName': 'type', 'name': 'unsigned char', 'offset': 0, 'size': 1},\n"
    "    {'id': 162, 'memberName': 'addr', 'name': 'void*', 'offset': 1, 'size': 8},\n"
    "    {'id': 155, 'memberName': 'size', 'name': 'unsigned char', 'offset': 9, 'size': 1},\n"
    "    {'id': 163, 'memberName': 'threadid', 'name': 'long unsigned int', 'offset': 10, 'size': 8}],\n"
    "   'name': 'struct cacheray_log_l'},\n"
    "  {'id': 451, 'members': [\n"
    "    {'id': 239, 'memberName': 'a', 'name': 'int', 'offset': 0, 'size': 4},\n"
    "    {'id': 496, 'memberName': 'b', 'name': 'long int', 'offset': 8, 'size': 8},\n"
    "    {'id': 446, 'memberName': 'c', 'name': 'char*', 'offset': 16, 'size': 8}],\n"
    "   'name': 'struct Basic'},\n"
    "  {'id': 524, 'members': [\n"
    "    {'id': 239, 'memberName': 'at', 'name': 'int', 'offset': 0, 'size': 4},\n"
    "    {'id': 239, 'memberName': 'bt', 'name': 'int', 'offset': 4, 'size': 4}],\n"
    "   'name': 'struct TdBasic'},\n"
    "  {'id': 562, 'members': [\n"
    "    {'id': 239, 'memberName': 'a', 'name': 'int', 'offset': 0, 'size': 4},\n"
    "    {'id': 451, 'memberName': 'b', 'name': 'struct Basic', 'offset': 8, 'size': 24},\n"
    "    {'id': 503, 'memberName': 'c', 'name': 'struct Basic*', 'offset': 32, 'size': 8},\n"
    "    {'id': 513, 'memberName': 'd', 'name': 'struct TdBasic', 'offset': 40, 'size': 8},\n"
    "    {'id': 508, 'memberName': 'e', 'name': 'struct TdBasic*', 'offset': 48, 'size': 8}],\n"
    "   'name': 'struct Deep'}\n"
    " ],\n"
    " 'typedefs': [\n"
    "  {'def': 'struct cacheray_log_l', 'type': 'cacheray_log_t'},\n"
    "  {'def': 'unsigned char', 'type': 'cacheray_event_t'},\n"
    "  {'def': 'struct TdBasic', 'type': 'TheTdBasic'}\n"
    " ],\n"
    " 'unions': [],\n"
    " 'version': 4\n"
    "}\n";

static void original_sample(void **state)
{
    (void)state;
    tk_cacheray_layouts *l = load_ok(write_json("structs.dwarf.json", sample));

    const tk_cacheray_layout *basic = find(l, "struct.Basic");
    assert_non_null(basic);
    assert_string_equal(basic->name, "struct Basic");
    assert_int_equal(basic->size, sizeof(struct Basic));
    assert_int_equal(basic->nfields, 3);
    expect_field(basic, 0, "a", offsetof(struct Basic, a), sizeof(int));
    expect_field(basic, 1, "b", offsetof(struct Basic, b), sizeof(long));
    expect_field(basic, 2, "c", offsetof(struct Basic, c), sizeof(char *));
    assert_ptr_equal(find(l, "struct.Basic.3"), basic);
    assert_ptr_equal(find(l, "struct Basic"), basic);
    assert_ptr_equal(find(l, "Basic"), basic);

    /* the sample's TdBasic is fixture_types.h's TdNamed */
    const tk_cacheray_layout *td = find(l, "struct.TdBasic");
    assert_non_null(td);
    assert_int_equal(td->size, sizeof(TheTdNamed));
    assert_ptr_equal(find(l, "TheTdBasic"), td);
    assert_ptr_equal(find(l, "struct.TheTdBasic"), td);

    /* nested struct members are opened as in DWARF */
    const tk_cacheray_layout *deep = find(l, "struct.Deep");
    assert_non_null(deep);
    assert_int_equal(deep->size, sizeof(struct Deep));
    assert_int_equal(deep->nfields, 8);
    expect_field(deep, 0, "a", offsetof(struct Deep, a), sizeof(int));
    expect_field(deep, 1, "b.a", offsetof(struct Deep, b.a), sizeof(int));
    expect_field(deep, 2, "b.b", offsetof(struct Deep, b.b), sizeof(long));
    expect_field(deep, 3, "b.c", offsetof(struct Deep, b.c), sizeof(char *));
    expect_field(deep, 4, "c", offsetof(struct Deep, c), sizeof(void *));
    expect_field(deep, 5, "d.at", offsetof(struct Deep, d.at), sizeof(int));
    expect_field(deep, 6, "d.bt", offsetof(struct Deep, d.bt), sizeof(int));
    expect_field(deep, 7, "e", offsetof(struct Deep, e), sizeof(void *));

    /* a packed struct: its offsets bound the alignment guess */
    const tk_cacheray_layout *log = find(l, "cacheray_log_t");
    assert_non_null(log);
    assert_string_equal(log->name, "struct cacheray_log_l");
    assert_int_equal(log->size, 18);
    assert_null(find(l, "cacheray_event_t")); /* a typedef of a base type */
    assert_null(find(l, "struct.Nope"));
    tk_cacheray_layouts_free(l);
}

static const char edge_cases[] =
    "  \n\t {'version': 4,\n"
    " 'structs': [\n"
    "  {'name': 'struct Pad', 'members': [\n"
    "    {'memberName': 'x', 'name': 'long int', 'offset': 0, 'size': 8},\n"
    "    {'memberName': 'c', 'name': 'char', 'offset': 8, 'size': 1}]},\n"
    "  {'name': 'struct Buf', 'members': [\n"
    "    {'memberName': 'buf', 'name': 'char[]', 'offset': 0, 'size': 16},\n"
    "    {'memberName': 'c', 'name': 'char', 'offset': 16, 'size': 1}]},\n"
    "  {'name': 'struct Ints', 'members': [\n"
    "    {'memberName': 'v', 'name': 'int[]', 'offset': 0, 'size': 8},\n"
    "    {'memberName': 'c', 'name': 'char', 'offset': 8, 'size': 1}]},\n"
    "  {'name': 'struct Loc', 'members': [\n"
    "    {'memberName': 'a', 'name': 'int', 'offset': [35, 0], 'size': 4},\n"
    "    {'memberName': 'far', 'name': 'char', 'offset': [35, 128, 1], 'size': 1},\n"
    "    {}]},\n"
    "  {'name': 'struct Unknown', 'members': [\n"
    "    {'memberName': 'n', 'name': 'int', 'offset': 0, 'size': 4},\n"
    "    {'memberName': 'arr', 'name': 'int[]', 'offset': 4, 'size': -1},\n"
    "    {'memberName': 't', 'name': 'long int', 'offset': 16, 'size': 8}]},\n"
    "  {'name': 'struct Dup', 'members': [\n"
    "    {'memberName': 'first', 'name': 'int', 'offset': 0, 'size': 4}]},\n"
    "  {'name': 'struct Dup', 'members': [\n"
    "    {'memberName': 'second', 'name': 'long int', 'offset': 0, 'size': 8}]},\n"
    "  {'name': '<anon_struct>', 'members': [\n"
    "    {'memberName': 'hidden', 'name': 'int', 'offset': 0, 'size': 4}]},\n"
    "  {'name': 'struct Loop', 'members': [\n"
    "    {'memberName': 'self', 'name': 'struct Loop', 'offset': 0, 'size': 8}]},\n"
    "  {'name': 'struct Inner', 'members': [\n"
    "    {'memberName': 'x', 'name': 'short int', 'offset': 0, 'size': 2},\n"
    "    {'memberName': 'y', 'name': 'int', 'offset': 4, 'size': 4}]},\n"
    "  {'name': 'struct HasU', 'members': [\n"
    "    {'memberName': 'k', 'name': 'char', 'offset': 0, 'size': 1},\n"
    "    {'memberName': 'u', 'name': 'struct U', 'offset': 4, 'size': 8},\n"
    "    {'memberName': 'struct Inner', 'name': 'struct Inner', 'offset': 12, 'size': 8}]},\n"
    "  {'name': 'struct Wrong', 'members': [\n"
    "    {'memberName': 'b', 'name': 'struct Inner', 'offset': 0, 'size': 4}]}\n"
    " ],\n"
    " 'unions': [\n"
    "  {'name': 'U', 'members': [\n"
    "    {'memberName': 'i', 'name': 'int', 'size': 4},\n"
    "    {'memberName': 'c', 'name': 'char[]', 'size': 6},\n"
    "    {'memberName': 'in', 'name': 'struct Inner', 'size': 8}]}\n"
    " ],\n"
    " 'typedefs': [\n"
    "  {'type': 'A', 'def': 'B'}, {'type': 'B', 'def': 'struct Pad'},\n"
    "  {'type': 'X', 'def': 'Y'}, {'type': 'Y', 'def': 'X'},\n"
    "  {'type': 'UT', 'def': 'struct U'}\n"
    " ]}\n";

static void sizes_and_edge_cases(void **state)
{
    (void)state;
    tk_cacheray_layouts *l = load_ok(write_json("edge.json", edge_cases));
    const tk_cacheray_layout *t;

    /* sizeof from the alignment guess: tail padding comes back */
    assert_non_null(t = find(l, "struct.Pad.4"));
    assert_int_equal(t->size, sizeof(struct Pad));
    assert_int_equal(tk_cacheray_layout_field_at(t, 9), -1);
    assert_non_null(t = find(l, "struct Buf"));
    assert_int_equal(t->size, 17); /* char[] aligns to 1 */
    assert_non_null(t = find(l, "struct Ints"));
    assert_int_equal(t->size, 12); /* int[] aligns to 4 */

    /* DWARF 2 offsets: DW_OP_plus_uconst ULEB128; {} members skipped */
    assert_non_null(t = find(l, "struct.Loc"));
    assert_int_equal(t->nfields, 2);
    expect_field(t, 0, "a", 0, 4);
    expect_field(t, 1, "far", 128, 1);
    assert_int_equal(t->size, 132);

    /* size -1 (dwarf2json could not tell): up to the next field */
    assert_non_null(t = find(l, "struct.Unknown"));
    expect_field(t, 1, "arr", 4, 12);
    assert_int_equal(t->size, 24);

    /* first of duplicates wins; placeholders name nothing */
    assert_non_null(t = find(l, "Dup"));
    assert_int_equal(t->nfields, 1);
    expect_field(t, 0, "first", 0, 4);
    assert_null(find(l, "<anon_struct>"));
    assert_null(find(l, "struct <anon_struct>"));

    /* a struct containing itself stays one field */
    assert_non_null(t = find(l, "struct.Loop"));
    assert_int_equal(t->nfields, 1);
    expect_field(t, 0, "self", 0, 8);

    /* unions: no offsets, the same names and layout as in C */
    const tk_cacheray_layout *u = find(l, "union.U");
    assert_non_null(u);
    assert_string_equal(u->name, "union U");
    assert_int_equal(u->size, sizeof(union U));
    assert_int_equal(u->nfields, 4);
    expect_field(u, 0, "i", offsetof(union U, i), sizeof(int));
    expect_field(u, 1, "c", offsetof(union U, c), 6);
    expect_field(u, 2, "in.x", offsetof(union U, in.x), sizeof(short));
    expect_field(u, 3, "in.y", offsetof(union U, in.y), sizeof(int));
    assert_null(find(l, "struct.U"));

    /* a union member ("struct U" in dwarf2json's spelling) and an
     * anonymous member (named after its type: no prefix) */
    assert_non_null(t = find(l, "struct.HasU"));
    assert_int_equal(t->nfields, 7);
    expect_field(t, 0, "k", 0, 1);
    expect_field(t, 1, "u.i", 4, 4);
    expect_field(t, 2, "u.c", 4, 6);
    expect_field(t, 3, "u.in.x", 4, 2);
    expect_field(t, 4, "u.in.y", 8, 4);
    expect_field(t, 5, "x", 12, 2);
    expect_field(t, 6, "y", 16, 4);
    assert_int_equal(t->size, 20);

    /* the named type does not fit the member: one field */
    assert_non_null(t = find(l, "struct.Wrong"));
    assert_int_equal(t->nfields, 1);
    expect_field(t, 0, "b", 0, 4);

    /* typedef chains, cycles, unions spelled "struct U" */
    assert_ptr_equal(find(l, "A"), find(l, "struct Pad"));
    assert_ptr_equal(find(l, "struct.A"), find(l, "struct Pad"));
    assert_null(find(l, "X"));
    assert_ptr_equal(find(l, "UT"), u);
    assert_ptr_equal(find(l, "union.UT"), u);
    assert_null(find(l, "struct.UT"));
    tk_cacheray_layouts_free(l);
}

static void expect_error(const char *name, const char *text, tk_status status,
                         const char *message_part)
{
    const char *path = write_json(name, text);
    char saved[4096];
    snprintf(saved, sizeof saved, "%s", path);
    tk_error err;
    tk_cacheray_layouts *l = tk_cacheray_layouts_load(saved, &err);
    if (l)
        fail_msg("%s loaded", name);
    assert_int_equal(err.status, status);
    /* the message names the file */
    assert_memory_equal(err.message, saved, strlen(saved));
    if (!strstr(err.message, message_part))
        fail_msg("\"%s\" lacks \"%s\"", err.message, message_part);
}

static void errors(void **state)
{
    (void)state;
    expect_error("trunc.json", "{'version': 4, 'structs': [", TK_EMALFORMED,
                 ":1:27: invalid JSON");
    expect_error("v3.json", "{'version': 3}", TK_EUNSUPPORTED,
                 "dwarf2json version 3 is not supported (expected 4)");
    expect_error("vs.json", "{'version': '4'}", TK_EUNSUPPORTED,
                 "version \"4\"");
    expect_error("nov.json", "{'structs': []}", TK_EMALFORMED,
                 "no \"version\" (expected 4)");
    expect_error("obj.json", "{'version': 4, 'structs': {}}", TK_EMALFORMED,
                 "\"structs\" is not an array");
    expect_error("off.json",
                 "{'version': 4, 'structs': [{'name': 'struct S', 'members': ["
                 "{'memberName': 'a', 'offset': 0, 'size': 4},"
                 "{'memberName': 'b', 'offset': '4', 'size': 4}]}]}",
                 TK_EMALFORMED,
                 ": dwarf2json: structs[0].members[1]: \"offset\" is not an "
                 "integer from 0 to 2^48");
    expect_error("neg.json",
                 "{'version': 4, 'structs': [{'name': 'struct S', 'members': ["
                 "{'memberName': 'a', 'offset': -4, 'size': 4}]}]}",
                 TK_EMALFORMED, "structs[0].members[0]: \"offset\"");
    expect_error("nooff.json",
                 "{'version': 4, 'structs': [{'name': 'struct S', 'members': ["
                 "{'memberName': 'a', 'size': 4}]}]}",
                 TK_EMALFORMED, "structs[0].members[0]: \"offset\"");
    expect_error("expr.json",
                 "{'version': 4, 'structs': [{'name': 'struct S', 'members': ["
                 "{'memberName': 'a', 'offset': [6], 'size': 4}]}]}",
                 TK_EMALFORMED, "structs[0].members[0]: \"offset\"");
    expect_error("size.json",
                 "{'version': 4, 'unions': [{'name': 'U', 'members': ["
                 "{'memberName': 'a', 'size': 4.5}]}]}",
                 TK_EMALFORMED, "unions[0].members[0]: \"size\"");
    expect_error("huge.json",
                 "{'version': 4, 'structs': [{'name': 'struct S', 'members': ["
                 "{'memberName': 'a', 'offset': 9223372036854775807, 'size': 4}]}]}",
                 TK_EMALFORMED, "structs[0].members[0]: \"offset\"");
    expect_error("hugesize.json",
                 "{'version': 4, 'structs': [{'name': 'struct S', 'members': ["
                 "{'memberName': 'a', 'offset': 0, 'size': 9223372036854775807}]}]}",
                 TK_EMALFORMED, "structs[0].members[0]: \"size\"");
    expect_error("mname.json",
                 "{'version': 4, 'unions': [{'name': 'U', 'members': ["
                 "{'size': 4}]}]}",
                 TK_EMALFORMED, "unions[0].members[0]: \"memberName\"");
    expect_error("members.json",
                 "{'version': 4, 'structs': [{'name': 'struct S'}]}",
                 TK_EMALFORMED, "structs[0]: \"members\" is not an array");
    expect_error("td.json", "{'version': 4, 'typedefs': [{'type': 'T'}]}",
                 TK_EMALFORMED, "typedefs[0]");
    expect_error("top.json", "{'version': 4, 'structs': [7]}", TK_EMALFORMED,
                 "structs[0] is not an object");
}

/* Prefixes of the sample (every one of the first 64 bytes, then every
 * 11th: each structural step is cut somewhere) are errors, never crashes. */
static void truncations(void **state)
{
    (void)state;
    char *s = strdup(sample);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    const char *path = tu_path(dir, "prefix.json");
    char saved[4096];
    snprintf(saved, sizeof saved, "%s", path);
    size_t n = strlen(s);
    for (size_t len = 1; len + 1 < n; len += len < 64 ? 1 : 11) {
        tu_write_file(saved, s, len);
        tk_error err;
        tk_cacheray_layouts *l = tk_cacheray_layouts_load(saved, &err);
        if (l)
            fail_msg("prefix of %zu bytes loaded", len);
        assert_int_equal(err.status, TK_EMALFORMED);
        assert_memory_equal(err.message, saved, strlen(saved));
    }
    free(s);
}

/* ---------------------------------------------------------- field_at */

static void field_at_overlaps(void **state)
{
    (void)state;
    /* sorted by offset; a spans b and c */
    const tk_cacheray_field f[] = {
        {"a", 0, 8}, {"b", 0, 4}, {"c", 4, 4}, {"d", 12, 2}};
    const tk_cacheray_layout l = {"struct T", 16, 4, f};
    const long want[16] = {0, 0, 0, 0, 0, 0, 0, 0,
                           -1, -1, -1, -1, 3, 3, -1, -1};
    for (uint64_t o = 0; o < 16; o++)
        assert_int_equal(tk_cacheray_layout_field_at(&l, o), want[o]);
    assert_int_equal(tk_cacheray_layout_field_at(&l, 16), -1);
    assert_int_equal(tk_cacheray_layout_field_at(&l, UINT64_MAX), -1);

    /* a union member spanning a later-starting field wins over it */
    const tk_cacheray_field g[] = {{"s.a", 0, 4}, {"l", 0, 8}, {"s.b", 4, 4}};
    const tk_cacheray_layout u = {"union V", 8, 3, g};
    assert_int_equal(tk_cacheray_layout_field_at(&u, 0), 0);
    assert_int_equal(tk_cacheray_layout_field_at(&u, 5), 1);

    const tk_cacheray_layout empty = {"struct E", 4, 0, NULL};
    assert_int_equal(tk_cacheray_layout_field_at(&empty, 0), -1);
    assert_int_equal(tk_cacheray_layout_field_at(NULL, 0), -1);
}

static int setup(void **state)
{
    (void)state;
    dir = tu_tmpdir();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmdir(dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(original_sample),
        cmocka_unit_test(sizes_and_edge_cases),
        cmocka_unit_test(errors),
        cmocka_unit_test(truncations),
        cmocka_unit_test(field_at_overlaps),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
