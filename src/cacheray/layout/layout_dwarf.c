/* Struct layouts from DWARF (elfutils). libdwfl opens the file offline,
 * which also applies the relocations of a .o file's debug sections; no
 * separate debug file is looked for. Every unit's DIE tree is walked for
 * struct, union and class definitions and for typedefs naming them; each
 * definition is flattened into leaf fields. */
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "cacheray/layout/layout_die.h"
#include "cacheray/layout/layout_int.h"
#include "core/hashmap.h"
#include "core/strbuf.h"

/* A typedef of a named type, resolved once every unit has been read (the
 * definition may come later, or only as a declaration here). */
typedef struct pending_typedef {
    char *alias;       /* qualified typedef name */
    char *target;      /* scope of the typedef + the target's name */
    size_t short_off;  /* target + short_off: the target's own name */
    uint64_t die_key;  /* the target definition, 0 for a declaration */
    cr_kind kind;
} pending_typedef;

typedef struct walker {
    tk_cacheray_layouts *l;
    int big_endian;  /* DWARF 2-4 bit offsets count from the MSB */
    int cplusplus;   /* the unit's names are qualified with scopes */
    tk_strbuf scope; /* "ns::Outer::" while inside C++ scopes */
    tk_strbuf prefix; /* "inner." while flattening members */
    cr_fields fv;
    tk_map by_die;   /* definition DIE key -> layout index + 1 */
    pending_typedef *pend;
    size_t npend, cappend;
} walker;

/* ---------------------------------------------------------------- kinds */

static int is_aggregate(int tag)
{
    return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
           tag == DW_TAG_class_type;
}

static cr_kind kind_of(int tag)
{
    return tag == DW_TAG_union_type ? CR_UNION
           : tag == DW_TAG_class_type ? CR_CLASS
                                      : CR_STRUCT;
}

/* ------------------------------------------------------------ flattening */

static void prefix_cut(tk_strbuf *b, size_t len)
{
    b->len = len;
    if (b->p)
        b->p[len] = '\0';
}

static int push(walker *w, const char *name, uint64_t offset, uint64_t size)
{
    return cr_fields_push(w->l, &w->fv, w->prefix.p, w->prefix.len, name,
                          offset, size);
}

/* A member's own DW_AT_byte_size (rare), else its type's size. */
static uint64_t member_size(Dwarf_Die *m, Dwarf_Die *type)
{
    Dwarf_Attribute a;
    int64_t own;
    if (dwarf_attr(m, DW_AT_byte_size, &a) && cr_attr_int(&a, &own) == 0 &&
        own >= 0)
        return (uint64_t)own;
    return type ? cr_die_type_size(type) : CR_SIZE_UNKNOWN;
}

/* Leaf fields of the aggregate `agg` placed at byte `base`: nested
 * aggregates are opened ("inner.x"; anonymous members and base classes
 * add no prefix), everything else is one field (arrays included). -1 when
 * out of memory. */
static int flatten(walker *w, Dwarf_Die *agg, uint64_t base, int depth)
{
    Dwarf_Die m;
    if (dwarf_child(agg, &m) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&m);
        if (tag != DW_TAG_member && tag != DW_TAG_inheritance)
            continue;
        /* static data members (DWARF 4 puts them among the members) */
        if (cr_die_flag(&m, DW_AT_declaration) ||
            cr_die_flag(&m, DW_AT_external))
            continue;
        const char *name = tag == DW_TAG_member ? dwarf_diename(&m) : NULL;
        Dwarf_Die type, real;
        int has_type = cr_die_type(&m, &type) == 0;
        int has_real = has_type && cr_die_peel(&type, &real) == 0;

        if (dwarf_hasattr(&m, DW_AT_bit_size)) {
            uint64_t first, count;
            /* unnamed bit-fields are padding */
            if (name &&
                cr_die_bitfield_bytes(&m, has_type ? &type : NULL,
                                      w->big_endian, &first, &count) == 0 &&
                push(w, name, base + first, count) != 0)
                return -1;
            continue;
        }
        uint64_t off;
        if (cr_die_member_location(&m, &off) != 0)
            continue;
        off += base;
        if (has_real && is_aggregate(dwarf_tag(&real)) &&
            !cr_die_flag(&real, DW_AT_declaration) && depth < CR_MAX_DEPTH &&
            w->fv.n < CR_MAX_FIELDS) {
            size_t mark = w->prefix.len, before = w->fv.n;
            if (name) {
                sb_puts(&w->prefix, name);
                sb_putc(&w->prefix, '.');
            }
            int st = w->prefix.oom ? -1 : flatten(w, &real, off, depth + 1);
            prefix_cut(&w->prefix, mark);
            if (st != 0)
                return st;
            if (w->fv.n > before)
                continue;
            /* an empty aggregate stays one field */
        }
        if (name && push(w, name, off,
                         member_size(&m, has_type ? &type : NULL)) != 0)
            return -1;
    } while (dwarf_siblingof(&m, &m) == 0);
    return 0;
}

/* Record the definition `die` under its qualified name unless the name is
 * taken (first definition wins), and remember which layout the DIE is. */
static int add_definition(walker *w, Dwarf_Die *die, const char *name,
                          size_t len)
{
    cr_kind kind = kind_of(dwarf_tag(die));
    long index = cr_find_tag(w->l, kind, name, len);
    if (index < 0) {
        Dwarf_Word size;
        if (dwarf_aggregate_size(die, &size) != 0)
            return 0; /* no DW_AT_byte_size: not a usable definition */
        w->fv.n = 0;
        prefix_cut(&w->prefix, 0);
        if (flatten(w, die, 0, 0) != 0)
            return -1;
        index = cr_add_layout(w->l, kind, name, len, size, &w->fv);
        if (index < 0)
            return -1;
    }
    size_t *v = tk_map_u64(&w->by_die, cr_die_key(die));
    if (!v)
        return -1;
    if (!*v)
        *v = (size_t)index + 1;
    return 0;
}

/* -------------------------------------------------------------- typedefs */

/* Queue the typedef `alias` (ownership passes) of the named `target`. */
static int add_pending(walker *w, char *alias, Dwarf_Die *target,
                       const char *tname)
{
    if (w->npend == w->cappend) {
        size_t cap = w->cappend ? w->cappend * 2 : 32;
        pending_typedef *p = realloc(w->pend, cap * sizeof *p);
        if (!p) {
            free(alias);
            return -1;
        }
        w->pend = p;
        w->cappend = cap;
    }
    /* The target is looked for in the typedef's scope first. */
    size_t slen = w->scope.len, tlen = strlen(tname);
    char *t = malloc(slen + tlen + 1);
    if (!t) {
        free(alias);
        return -1;
    }
    if (slen)
        memcpy(t, w->scope.p, slen);
    memcpy(t + slen, tname, tlen + 1);
    w->pend[w->npend++] = (pending_typedef){
        alias, t, slen,
        cr_die_flag(target, DW_AT_declaration) ? 0 : cr_die_key(target),
        kind_of(dwarf_tag(target))};
    return 0;
}

/* A typedef naming an aggregate (through qualifiers and other typedefs).
 * An anonymous one is recorded right away under the typedef's name
 * ("struct TdBasic", as LLVM names it); a named one waits for the end. */
static int visit_typedef(walker *w, Dwarf_Die *td)
{
    const char *name = dwarf_diename(td);
    Dwarf_Die type, real;
    if (!name || cr_die_type(td, &type) != 0 ||
        cr_die_peel(&type, &real) != 0 ||
        !is_aggregate(dwarf_tag(&real)))
        return 0;
    size_t mark = w->scope.len;
    sb_puts(&w->scope, name);
    size_t alen = w->scope.len;
    char *alias = w->scope.oom ? NULL : strndup(w->scope.p, alen);
    prefix_cut(&w->scope, mark);
    if (!alias)
        return -1;
    const char *tname = dwarf_diename(&real);
    if (tname)
        return add_pending(w, alias, &real, tname);
    int st = 0;
    if (!cr_die_flag(&real, DW_AT_declaration)) {
        size_t *v = tk_map_find_u64(&w->by_die, cr_die_key(&real));
        if (!v) {
            st = add_definition(w, &real, alias, alen);
            v = st == 0 ? tk_map_find_u64(&w->by_die, cr_die_key(&real)) : NULL;
        }
        if (st == 0 && v && cr_add_alias(w->l, alias, alen, *v - 1) != 0)
            st = -1;
    }
    free(alias);
    return st;
}

static int resolve_pending(walker *w)
{
    for (size_t i = 0; i < w->npend; i++) {
        pending_typedef *p = &w->pend[i];
        long index = -1;
        size_t *v = p->die_key ? tk_map_find_u64(&w->by_die, p->die_key)
                               : NULL;
        if (v)
            index = (long)*v - 1;
        if (index < 0)
            index = cr_find_tag(w->l, p->kind, p->target, strlen(p->target));
        if (index < 0) {
            const char *s = p->target + p->short_off;
            index = cr_find_tag(w->l, p->kind, s, strlen(s));
        }
        if (index >= 0 &&
            cr_add_alias(w->l, p->alias, strlen(p->alias), (size_t)index) != 0)
            return -1;
    }
    return 0;
}

/* ----------------------------------------------------------------- walk */

/* Definitions anywhere below `parent`: at unit level, in namespaces, nested
 * in other aggregates (C++ qualifies their names), local to functions. */
static int walk_scope(walker *w, Dwarf_Die *parent, int depth)
{
    Dwarf_Die c;
    if (depth > CR_MAX_DEPTH || dwarf_child(parent, &c) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&c);
        size_t mark = w->scope.len;
        int st = 0;
        if (is_aggregate(tag)) {
            const char *name = dwarf_diename(&c);
            if (cr_die_flag(&c, DW_AT_declaration))
                continue;
            if (name) {
                sb_puts(&w->scope, name);
                st = w->scope.oom ? -1
                                  : add_definition(w, &c, w->scope.p,
                                                   w->scope.len);
                if (w->cplusplus)
                    sb_puts(&w->scope, "::");
                else
                    prefix_cut(&w->scope, mark);
            }
            if (st == 0)
                st = walk_scope(w, &c, depth + 1);
        } else if (tag == DW_TAG_namespace) {
            if (w->cplusplus) {
                const char *name = dwarf_diename(&c);
                sb_puts(&w->scope, name ? name : "(anonymous namespace)");
                sb_puts(&w->scope, "::");
            }
            st = walk_scope(w, &c, depth + 1);
        } else if (tag == DW_TAG_typedef) {
            st = visit_typedef(w, &c);
        } else if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block) {
            st = walk_scope(w, &c, depth + 1);
        }
        prefix_cut(&w->scope, mark);
        if (st != 0 || w->scope.oom || w->prefix.oom)
            return -1;
    } while (dwarf_siblingof(&c, &c) == 0);
    return 0;
}

static int is_cplusplus(Dwarf_Die *cu)
{
    int lang = dwarf_srclang(cu);
    return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
           lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14 ||
           lang == DW_LANG_ObjC_plus_plus;
}

/* ----------------------------------------------------------------- load */

static int no_separate_debuginfo(Dwfl_Module *mod, void **userdata,
                                 const char *modname, Dwarf_Addr base,
                                 const char *file_name,
                                 const char *debuglink_file,
                                 GElf_Word debuglink_crc,
                                 char **debuginfo_file_name)
{
    (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
    (void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
    return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
    .find_debuginfo = no_separate_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static int has_debug_info(Elf *elf)
{
    size_t shstrndx;
    if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
        return 0;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn;
         scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        const char *name;
        if (gelf_getshdr(scn, &sh) &&
            (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
            (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info") ||
             !strcmp(name, ".debug_types")))
            return 1;
    }
    return 0;
}

static tk_status walk_units(walker *w, Dwarf *dw, const char *path,
                            tk_error *err)
{
    Dwarf_CU *cu = NULL;
    Dwarf_Die cudie, subdie;
    Dwarf_Half version;
    uint8_t unit_type;
    int r;
    while ((r = dwarf_get_units(dw, cu, &cu, &version, &unit_type, &cudie,
                                &subdie)) == 0) {
        if (unit_type == DW_UT_skeleton || unit_type == DW_UT_split_compile)
            continue; /* split DWARF: the types are in the .dwo file */
        w->cplusplus = is_cplusplus(&cudie);
        prefix_cut(&w->scope, 0);
        if (walk_scope(w, &cudie, 0) != 0)
            return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                                "out of memory");
    }
    if (r < 0)
        return tk_error_set(err, TK_EMALFORMED, TK_NO_OFFSET, TK_NO_RECORD,
                            "%s: malformed DWARF: %s", path, dwarf_errmsg(-1));
    if (resolve_pending(w) != 0)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                            "out of memory");
    return TK_OK;
}

tk_status cr_load_dwarf(tk_cacheray_layouts *l, const char *path, tk_error *err)
{
    Dwfl *dwfl = dwfl_begin(&offline_callbacks);
    if (!dwfl)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                            "%s: %s", path, dwfl_errmsg(-1));
    tk_status st;
    Dwfl_Module *mod = dwfl_report_offline(dwfl, "", path, -1);
    if (!mod || dwfl_report_end(dwfl, NULL, NULL) != 0) {
        st = tk_error_set(err, TK_EMALFORMED, TK_NO_OFFSET, TK_NO_RECORD,
                          "%s: cannot read ELF file: %s", path,
                          dwfl_errmsg(-1));
        dwfl_end(dwfl);
        return st;
    }
    Dwarf_Addr bias;
    Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
    Elf *elf = dwfl_module_getelf(mod, &bias);
    if (!dw) {
        int e = dwfl_errno();
        if (!has_debug_info(elf))
            st = tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                              "%s: no DWARF debug information (compile with "
                              "-g)",
                              path);
        else
            st = tk_error_set(err, TK_EMALFORMED, TK_NO_OFFSET, TK_NO_RECORD,
                              "%s: cannot read DWARF: %s", path,
                              dwfl_errmsg(e));
        dwfl_end(dwfl);
        return st;
    }
    const char *ident = elf ? elf_getident(elf, NULL) : NULL;
    walker w = {.l = l, .big_endian = ident && ident[EI_DATA] == ELFDATA2MSB};
    tk_map_init(&w.by_die, sizeof(size_t));
    st = walk_units(&w, dw, path, err);
    for (size_t i = 0; i < w.npend; i++) {
        free(w.pend[i].alias);
        free(w.pend[i].target);
    }
    free(w.pend);
    tk_map_free(&w.by_die);
    cr_fields_free(&w.fv);
    sb_free(&w.scope);
    sb_free(&w.prefix);
    dwfl_end(dwfl);
    return st;
}
