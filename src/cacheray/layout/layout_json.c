/* Struct layouts from the original tool's dwarf2json files (version 4):
 *   {"version":4,
 *    "structs":[{"id","name":"struct X","members":[{"id","memberName",
 *                "name":<type>,"offset","size"}]}],
 *    "unions":[{"id","name":"U","members":[... no "offset" ...]}],
 *    "typedefs":[{"type":<alias>,"def":<target>}]}
 * The file is checked whole first, so any error names its place. Members
 * whose type names another struct of the file are opened like DWARF
 * members ("b.a"). dwarf2json records no sizeof: it is inferred (see
 * layout_size). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cacheray/layout/layout_int.h"
#include "core/hashmap.h"
#include "core/strbuf.h"

typedef struct jctx {
    tk_cacheray_layouts *l;
    const char *path;
    tk_error *err;
    json_t *structs, *unions;   /* arrays, or NULL */
    tk_map struct_entry;        /* "X" of "struct X" -> index + 1 */
    tk_map union_entry;         /* "U" -> index + 1 */
    cr_fields fv;
    uint64_t *aligns;           /* guessed alignment per field in fv */
    size_t aligns_cap;
    tk_strbuf prefix;
    const json_t *open[CR_MAX_DEPTH]; /* entries being opened (cycles) */
} jctx;

static tk_status bad(jctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static tk_status bad(jctx *c, const char *fmt, ...)
{
    char what[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return tk_error_set(c->err, TK_EMALFORMED, TK_NO_OFFSET, TK_NO_RECORD,
                        "%s: dwarf2json: %s", c->path, what);
}

static tk_status oom(jctx *c)
{
    return tk_error_set(c->err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                        "out of memory");
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ------------------------------------------------------------ checking */

/* "offset": an integer, or (from DWARF 2 files) the expression bytes
 * [0x23 (DW_OP_plus_uconst), ULEB128...]. */
static int member_offset(const json_t *v, uint64_t *off)
{
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < 0 || (uint64_t)i > CR_MAX_OFFSET)
            return -1;
        *off = (uint64_t)i;
        return 0;
    }
    size_t n = json_array_size(v);
    if (!json_is_array(v) || n < 2 ||
        json_integer_value(json_array_get(v, 0)) != 0x23)
        return -1;
    uint64_t x = 0;
    for (size_t i = 1; i < n; i++) {
        const json_t *b = json_array_get(v, i);
        json_int_t byte = json_integer_value(b);
        if (!json_is_integer(b) || byte < 0 || byte > 255 || i > 9)
            return -1;
        x |= (uint64_t)(byte & 0x7f) << (7 * (i - 1));
        if (!(byte & 0x80)) {
            if (i != n - 1 || x > CR_MAX_OFFSET)
                return -1;
            *off = x;
            return 0;
        }
    }
    return -1;
}

static tk_status check_member(jctx *c, const char *list, size_t i,
                              size_t j, const json_t *m)
{
    if (!json_is_object(m))
        return bad(c, "%s[%zu].members[%zu] is not an object", list, i, j);
    if (json_object_size(m) == 0)
        return TK_OK; /* dwarf2json writes {} for members it cannot name */
    const json_t *name = json_object_get(m, "memberName");
    const json_t *type = json_object_get(m, "name");
    const json_t *off = json_object_get(m, "offset");
    const json_t *size = json_object_get(m, "size");
    uint64_t o;
    if (!json_is_string(name))
        return bad(c, "%s[%zu].members[%zu]: \"memberName\" is not a string",
                   list, i, j);
    if (type && !json_is_string(type))
        return bad(c, "%s[%zu].members[%zu]: \"name\" is not a string", list,
                   i, j);
    /* union members have no offset */
    if ((off || !strcmp(list, "structs")) && member_offset(off, &o) != 0)
        return bad(c,
                   "%s[%zu].members[%zu]: \"offset\" is not an integer "
                   "from 0 to 2^48",
                   list, i, j);
    json_int_t sz = json_integer_value(size);
    if (!json_is_integer(size) || sz > (json_int_t)CR_MAX_OFFSET)
        return bad(c,
                   "%s[%zu].members[%zu]: \"size\" is not an integer up "
                   "to 2^48 (negative: unknown)",
                   list, i, j);
    return TK_OK;
}

static tk_status check_types(jctx *c, const char *list, const json_t *arr)
{
    if (!arr)
        return TK_OK;
    if (!json_is_array(arr))
        return bad(c, "\"%s\" is not an array", list);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *t = json_array_get(arr, i);
        if (!json_is_object(t))
            return bad(c, "%s[%zu] is not an object", list, i);
        if (!json_is_string(json_object_get(t, "name")))
            return bad(c, "%s[%zu]: \"name\" is not a string", list, i);
        const json_t *members = json_object_get(t, "members");
        if (!json_is_array(members))
            return bad(c, "%s[%zu]: \"members\" is not an array", list, i);
        for (size_t j = 0; j < json_array_size(members); j++) {
            tk_status st =
                check_member(c, list, i, j, json_array_get(members, j));
            if (st != TK_OK)
                return st;
        }
    }
    return TK_OK;
}

static tk_status check_typedefs(jctx *c, const json_t *arr)
{
    if (!arr)
        return TK_OK;
    if (!json_is_array(arr))
        return bad(c, "\"typedefs\" is not an array");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *t = json_array_get(arr, i);
        if (!json_is_object(t) ||
            !json_is_string(json_object_get(t, "type")) ||
            !json_is_string(json_object_get(t, "def")))
            return bad(c,
                       "typedefs[%zu] is not an object with strings \"type\" "
                       "and \"def\"",
                       i);
    }
    return TK_OK;
}

/* ------------------------------------------------------------- names */

/* The tag a type entry is found by: "struct X" -> "X", a union's bare
 * name as is; NULL for dwarf2json's "<anon_struct>" placeholders (all
 * anonymous types share them, so they name nothing reliably). */
static const char *tag_of(const char *name, cr_kind kind)
{
    if (kind == CR_STRUCT && starts_with(name, "struct "))
        name += 7;
    else if (kind == CR_UNION && starts_with(name, "union "))
        name += 6;
    return name[0] && name[0] != '<' ? name : NULL;
}

/* The entry a member's type name refers to: "struct X" names a struct or
 * (dwarf2json's spelling for unions) a union; "union U" a union. */
static const json_t *entry_named(const jctx *c, const char *type,
                                 int *is_union)
{
    const char *tag = NULL;
    int union_only = 0;
    if (starts_with(type, "struct "))
        tag = type + 7;
    else if (starts_with(type, "union "))
        tag = type + 6, union_only = 1;
    if (!tag)
        return NULL;
    size_t v = union_only ? 0 : cr_map_get(&c->struct_entry, tag, strlen(tag));
    if (v) {
        *is_union = 0;
        return json_array_get(c->structs, v - 1);
    }
    v = cr_map_get(&c->union_entry, tag, strlen(tag));
    *is_union = 1;
    return v ? json_array_get(c->unions, v - 1) : NULL;
}

/* ---------------------------------------------------------- alignment */

static uint64_t low_bit(uint64_t x) { return x & -x; }

/* sizeof of the C base types dwarf2json names (DWARF's spellings), for
 * the element type of arrays; 0 when unknown. */
static uint64_t base_type_size(const char *t)
{
    static const struct {
        const char *name;
        uint64_t size;
    } base[] = {
        {"char", 1},           {"signed char", 1},
        {"unsigned char", 1},  {"_Bool", 1},
        {"bool", 1},           {"short int", 2},
        {"short unsigned int", 2}, {"int", 4},
        {"unsigned int", 4},   {"float", 4},
        {"long int", 8},       {"long unsigned int", 8},
        {"long long int", 8},  {"long long unsigned int", 8},
        {"double", 8},
    };
    while (starts_with(t, "const ") || starts_with(t, "volatile "))
        t = strchr(t, ' ') + 1;
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
        if (!strcmp(t, base[i].name))
            return base[i].size;
    return 0;
}

/* A field's alignment, guessed: an array's element type when it is a
 * pointer or base type, otherwise the largest power of two dividing its
 * size (a scalar's size is its alignment); at most 8, and never more than
 * its offset shows. */
static uint64_t guess_align(const char *type, uint64_t size, uint64_t off)
{
    uint64_t a = 0;
    size_t n = type ? strlen(type) : 0;
    if (n > 2 && !strcmp(type + n - 2, "[]")) {
        char elem[128];
        if (n - 2 < sizeof elem) {
            memcpy(elem, type, n - 2);
            elem[n - 2] = '\0';
            a = elem[n - 3] == '*' ? 8 : base_type_size(elem);
        }
    }
    if (!a)
        a = size && size != CR_SIZE_UNKNOWN ? low_bit(size) : 1;
    if (a > 8)
        a = 8;
    if (off && low_bit(off) < a)
        a = low_bit(off);
    return a;
}

/* ----------------------------------------------------------- building */

static int push(jctx *c, const char *name, uint64_t off, uint64_t size,
                const char *type)
{
    if (c->fv.n == c->aligns_cap) {
        size_t cap = c->aligns_cap ? c->aligns_cap * 2 : 16;
        uint64_t *a = realloc(c->aligns, cap * sizeof *a);
        if (!a)
            return -1;
        c->aligns = a;
        c->aligns_cap = cap;
    }
    c->aligns[c->fv.n] = guess_align(type, size, off);
    return cr_fields_push(c->l, &c->fv, c->prefix.p, c->prefix.len, name,
                          off, size);
}

static void prefix_cut(tk_strbuf *b, size_t len)
{
    b->len = len;
    if (b->p)
        b->p[len] = '\0';
}

/* Leaf fields of the type entry `t` placed at byte `base`. A member whose
 * type is a struct or union of the file is opened ("b.a"; dwarf2json names
 * anonymous members after their type, and those add no prefix) when its
 * fields fit in the member's size; anything else is one field. -1 when
 * out of memory. */
static int flatten(jctx *c, const json_t *t, int is_union, uint64_t base,
                   int depth)
{
    c->open[depth] = t;
    const json_t *members = json_object_get(t, "members");
    for (size_t j = 0; j < json_array_size(members); j++) {
        const json_t *m = json_array_get(members, j);
        if (json_object_size(m) == 0)
            continue;
        const char *name = json_string_value(json_object_get(m, "memberName"));
        const char *type = json_string_value(json_object_get(m, "name"));
        uint64_t off = 0;
        if (!is_union || json_object_get(m, "offset"))
            member_offset(json_object_get(m, "offset"), &off);
        off += base;
        json_int_t isize = json_integer_value(json_object_get(m, "size"));
        uint64_t size = isize < 0 ? CR_SIZE_UNKNOWN : (uint64_t)isize;

        int nested_union = 0;
        const json_t *nested = type ? entry_named(c, type, &nested_union)
                                    : NULL;
        for (int d = 0; nested && d <= depth; d++)
            if (c->open[d] == nested)
                nested = NULL; /* a type containing itself */
        if (nested && depth + 1 < CR_MAX_DEPTH && c->fv.n < CR_MAX_FIELDS) {
            size_t mark = c->prefix.len, before = c->fv.n;
            if (strcmp(name, type) != 0) {
                sb_puts(&c->prefix, name);
                sb_putc(&c->prefix, '.');
            }
            int st = c->prefix.oom ? -1
                                   : flatten(c, nested, nested_union, off,
                                             depth + 1);
            prefix_cut(&c->prefix, mark);
            if (st != 0)
                return st;
            int fits = c->fv.n > before;
            for (size_t k = before; k < c->fv.n && fits; k++) {
                const tk_cacheray_field *f = &c->fv.v[k];
                fits = size == CR_SIZE_UNKNOWN ||
                       (f->size != CR_SIZE_UNKNOWN &&
                        f->offset + f->size <= off + size);
            }
            if (fits)
                continue;
            c->fv.n = before; /* not that type after all: one field */
        }
        if (push(c, name, off, size, type) != 0)
            return -1;
    }
    return 0;
}

/* dwarf2json has no sizeof: the end of the last field rounded up to the
 * largest guessed field alignment (tail padding restored for the common
 * cases: struct {long x; char c;} is 16). */
static uint64_t layout_size(const jctx *c)
{
    uint64_t end = 0, align = 1;
    for (size_t k = 0; k < c->fv.n; k++) {
        const tk_cacheray_field *f = &c->fv.v[k];
        uint64_t e = f->offset +
                     (f->size == CR_SIZE_UNKNOWN ? 0 : f->size);
        if (e > end)
            end = e;
        if (c->aligns[k] > align)
            align = c->aligns[k];
    }
    return (end + align - 1) / align * align;
}

static tk_status add_types(jctx *c, const json_t *arr, cr_kind kind)
{
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *t = json_array_get(arr, i);
        const char *tag =
            tag_of(json_string_value(json_object_get(t, "name")), kind);
        if (!tag || cr_find_tag(c->l, kind, tag, strlen(tag)) >= 0)
            continue; /* unnamed, or a later duplicate: the first wins */
        c->fv.n = 0;
        prefix_cut(&c->prefix, 0);
        if (flatten(c, t, kind == CR_UNION, 0, 0) != 0 ||
            cr_add_layout(c->l, kind, tag, strlen(tag), layout_size(c),
                          &c->fv) < 0)
            return oom(c);
    }
    return TK_OK;
}

/* The layout a typedef's "def" names: "struct X" (a struct, else a union:
 * dwarf2json spells unions "struct U" too), "union U", or another typedef
 * (chains followed, capped). */
static long resolve_def(const jctx *c, const tk_map *aliases,
                        const json_t *typedefs, const char *def, int depth)
{
    if (depth >= CR_MAX_DEPTH)
        return -1;
    if (starts_with(def, "struct ")) {
        const char *tag = def + 7;
        long i = cr_find_tag(c->l, CR_STRUCT, tag, strlen(tag));
        return i >= 0 ? i : cr_find_tag(c->l, CR_UNION, tag, strlen(tag));
    }
    if (starts_with(def, "union "))
        return cr_find_tag(c->l, CR_UNION, def + 6, strlen(def + 6));
    size_t v = cr_map_get(aliases, def, strlen(def));
    if (!v)
        return -1;
    const json_t *td = json_array_get(typedefs, v - 1);
    return resolve_def(c, aliases, typedefs,
                       json_string_value(json_object_get(td, "def")),
                       depth + 1);
}

static tk_status add_typedefs(jctx *c, const json_t *typedefs)
{
    tk_map aliases;
    tk_map_init(&aliases, sizeof(size_t));
    tk_status st = TK_OK;
    size_t n = json_array_size(typedefs);
    for (size_t i = 0; i < n && st == TK_OK; i++) {
        const char *alias = json_string_value(
            json_object_get(json_array_get(typedefs, i), "type"));
        size_t *v = tk_map_str(&aliases, alias, strlen(alias));
        if (!v)
            st = oom(c);
        else if (!*v)
            *v = i + 1;
    }
    for (size_t i = 0; i < n && st == TK_OK; i++) {
        const json_t *td = json_array_get(typedefs, i);
        const char *alias = json_string_value(json_object_get(td, "type"));
        long index =
            resolve_def(c, &aliases, typedefs,
                        json_string_value(json_object_get(td, "def")), 0);
        if (index >= 0 &&
            cr_add_alias(c->l, alias, strlen(alias), (size_t)index) != 0)
            st = oom(c);
    }
    tk_map_free(&aliases);
    return st;
}

/* Index the type entries by tag, first of each name. */
static tk_status index_entries(jctx *c, tk_map *map, const json_t *arr,
                               cr_kind kind)
{
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const char *tag = tag_of(
            json_string_value(json_object_get(json_array_get(arr, i), "name")),
            kind);
        if (!tag)
            continue;
        size_t *v = tk_map_str(map, tag, strlen(tag));
        if (!v)
            return oom(c);
        if (!*v)
            *v = i + 1;
    }
    return TK_OK;
}

/* --------------------------------------------------------------- load */

static tk_status load_root(jctx *c, const json_t *root)
{
    if (!json_is_object(root))
        return bad(c, "the top level is not an object");
    const json_t *version = json_object_get(root, "version");
    if (!version)
        return bad(c, "no \"version\" (expected 4)");
    if (!json_is_integer(version) || json_integer_value(version) != 4) {
        char *text = json_dumps(version, JSON_ENCODE_ANY | JSON_COMPACT);
        tk_status st = tk_error_set(
            c->err, TK_EUNSUPPORTED, TK_NO_OFFSET, TK_NO_RECORD,
            "%s: dwarf2json version %.32s is not supported (expected 4)",
            c->path, text ? text : "?");
        free(text);
        return st;
    }
    c->structs = json_object_get(root, "structs");
    c->unions = json_object_get(root, "unions");
    const json_t *typedefs = json_object_get(root, "typedefs");
    tk_status st = check_types(c, "structs", c->structs);
    if (st == TK_OK)
        st = check_types(c, "unions", c->unions);
    if (st == TK_OK)
        st = check_typedefs(c, typedefs);
    if (st == TK_OK)
        st = index_entries(c, &c->struct_entry, c->structs, CR_STRUCT);
    if (st == TK_OK)
        st = index_entries(c, &c->union_entry, c->unions, CR_UNION);
    if (st == TK_OK)
        st = add_types(c, c->structs, CR_STRUCT);
    if (st == TK_OK)
        st = add_types(c, c->unions, CR_UNION);
    if (st == TK_OK)
        st = add_typedefs(c, typedefs);
    return st;
}

tk_status cr_load_json(tk_cacheray_layouts *l, const char *path, int fd,
                       tk_error *err)
{
    json_error_t je;
    json_t *root = json_loadfd(fd, 0, &je);
    if (!root)
        return tk_error_set(err, TK_EMALFORMED, TK_NO_OFFSET, TK_NO_RECORD,
                            "%s:%d:%d: invalid JSON: %s", path, je.line,
                            je.column, je.text);
    jctx c = {.l = l, .path = path, .err = err};
    tk_map_init(&c.struct_entry, sizeof(size_t));
    tk_map_init(&c.union_entry, sizeof(size_t));
    tk_status st = load_root(&c, root);
    tk_map_free(&c.struct_entry);
    tk_map_free(&c.union_entry);
    cr_fields_free(&c.fv);
    free(c.aligns);
    sb_free(&c.prefix);
    json_decref(root);
    return st;
}
