/* Names and source locations of instrumented functions, as llvm-xray's
 * FuncIdConversionHelper prints them: the ELF symbol table first (LLVM's
 * symbolizer overrides the DWARF name with it), then DWARF (libdw), then
 * "@(<hex>)"; locations from the DWARF line table. Looked up lazily and
 * cached per function id. C++ names are demangled by demangle.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>

#include "core/numfmt.h"
#include "xray/map_int.h"

/* ------------------------------------------------------------- symbols */

static int cmp_sym(const void *x, const void *y)
{
    const xm_sym *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->addr != b->addr)
        return a->addr < b->addr ? -1 : 1;
    if (a->size != b->size)
        return a->size < b->size ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Section of SHT_SYMTAB (else SHT_DYNSYM) with more than the null symbol. */
static Elf_Scn *symbol_table(Elf *elf, GElf_Shdr *sh)
{
    Elf_Scn *dyn = NULL;
    GElf_Shdr dynsh;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn;
         scn = elf_nextscn(elf, scn)) {
        GElf_Shdr s;
        if (!gelf_getshdr(scn, &s) || s.sh_entsize != sizeof(Elf64_Sym) ||
            s.sh_size <= s.sh_entsize)
            continue;
        if (s.sh_type == SHT_SYMTAB) {
            *sh = s;
            return scn;
        }
        if (s.sh_type == SHT_DYNSYM && !dyn) {
            dyn = scn;
            dynsh = s;
        }
    }
    if (dyn)
        *sh = dynsh;
    return dyn;
}

static Elf_Data *shndx_table(Elf *elf, size_t symtab_ndx)
{
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn;
         scn = elf_nextscn(elf, scn)) {
        GElf_Shdr s;
        if (gelf_getshdr(scn, &s) && s.sh_type == SHT_SYMTAB_SHNDX &&
            s.sh_link == symtab_ndx)
            return elf_getdata(scn, NULL);
    }
    return NULL;
}

/* The symbols LLVM's symbolizer uses: defined in a section; function,
 * object, ifunc or untyped (not mapping symbols); sorted by address, one
 * per address (the largest, then the last). In a .o, per section. */
static void load_symbols(tk_xray_map *m)
{
    if (m->syms_loaded)
        return;
    m->syms_loaded = 1;
    if (!m->elf)
        return;
    GElf_Shdr sh;
    Elf_Scn *scn = symbol_table(m->elf, &sh);
    if (!scn)
        return;
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d)
        return;
    Elf_Data *xd = shndx_table(m->elf, elf_ndxscn(scn));
    size_t shnum = 0;
    elf_getshdrnum(m->elf, &shnum);
    size_t count = sh.sh_size / sh.sh_entsize;
    xm_sym *v = malloc(count * sizeof *v);
    if (!v)
        return;
    size_t n = 0;
    const char *file = NULL;
    for (size_t i = 1; i < count; i++) {
        GElf_Sym s;
        Elf32_Word xndx = 0;
        if (!gelf_getsymshndx(d, xd, (int)i, &s, &xndx))
            break;
        int type = GELF_ST_TYPE(s.st_info);
        if (type == STT_FILE) {
            file = elf_strptr(m->elf, sh.sh_link, s.st_name);
            continue;
        }
        if (type != STT_NOTYPE && type != STT_FUNC && type != STT_OBJECT &&
            type != STT_GNU_IFUNC)
            continue;
        size_t shndx = s.st_shndx == SHN_XINDEX ? xndx : s.st_shndx;
        if (shndx == SHN_UNDEF ||
            (s.st_shndx >= SHN_LORESERVE && s.st_shndx != SHN_XINDEX) ||
            shndx >= shnum)
            continue;
        const char *name = elf_strptr(m->elf, sh.sh_link, s.st_name);
        if (!name)
            continue;
        /* mapping symbols ($x, $d) and assembler labels are not names */
        if (m->machine == EM_AARCH64 && name[0] == '$' &&
            (name[1] == 'x' || name[1] == 'd'))
            continue;
        if ((m->machine == EM_RISCV || m->machine == 258) && name[0] == '.' &&
            name[1] == 'L')
            continue;
        uint64_t addr = s.st_value;
        if (m->etype == ET_REL) {
            GElf_Shdr ssh;
            Elf_Scn *sec = elf_getscn(m->elf, shndx);
            if (sec && gelf_getshdr(sec, &ssh))
                addr += ssh.sh_addr;
        }
        v[n++] = (xm_sym){m->etype == ET_REL ? shndx : 0, addr, s.st_size, i,
                          name,
                          GELF_ST_BIND(s.st_info) == STB_LOCAL ? file : NULL};
    }
    qsort(v, n, sizeof *v, cmp_sym);
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && v[i + 1].key == v[i].key && v[i + 1].addr == v[i].addr)
            continue;
        v[j++] = v[i];
    }
    m->syms = v;
    m->nsyms = j;
}

/* The symbol containing the function's address, as LLVM's symbolizer finds
 * it, or NULL. */
static const xm_sym *find_symbol(tk_xray_map *m, const xm_func *f)
{
    load_symbols(m);
    uint64_t key = m->etype == ET_REL ? f->text_shndx : 0;
    /* the last symbol at or below the address (in the same section) */
    size_t lo = 0, hi = m->nsyms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const xm_sym *s = &m->syms[mid];
        if (s->key < key || (s->key == key && s->addr <= f->addr))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const xm_sym *s = &m->syms[lo - 1];
    if (s->key != key)
        return NULL;
    if (s->size != 0 && s->addr + s->size <= f->addr)
        return NULL;
    return s;
}

/* --------------------------------------------------------------- DWARF */

static int is_debug_section(const char *name)
{
    return !strncmp(name, ".debug_", 7) || !strncmp(name, ".zdebug_", 8);
}

/* A .o file's DWARF needs its relocations (libdw does not apply them): a
 * copy of the file with the absolute relocations of its non-allocated
 * sections applied. */
static Elf *relocated_copy(tk_xray_map *m)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(m->elf, &shstrndx) != 0)
        return NULL;
    int any = 0;
    for (Elf_Scn *scn = elf_nextscn(m->elf, NULL); scn && !any;
         scn = elf_nextscn(m->elf, scn)) {
        GElf_Shdr sh;
        const char *name;
        if (gelf_getshdr(scn, &sh) &&
            (name = elf_strptr(m->elf, shstrndx, sh.sh_name)) &&
            is_debug_section(name))
            any = 1;
    }
    if (!any)
        return NULL;
    size_t size;
    char *raw = elf_rawfile(m->elf, &size);
    if (!raw || size != m->file_size)
        return NULL;
    unsigned char *img = malloc(size);
    if (!img)
        return NULL;
    memcpy(img, raw, size);
    for (Elf_Scn *scn = elf_nextscn(m->elf, NULL); scn;
         scn = elf_nextscn(m->elf, scn)) {
        GElf_Shdr rsh, tsh, ssh;
        if (!gelf_getshdr(scn, &rsh) || rsh.sh_type != SHT_RELA)
            continue;
        Elf_Scn *tscn = elf_getscn(m->elf, rsh.sh_info);
        Elf_Scn *sscn = elf_getscn(m->elf, rsh.sh_link);
        if (!tscn || !sscn || !gelf_getshdr(tscn, &tsh) ||
            !gelf_getshdr(sscn, &ssh) || (tsh.sh_flags & SHF_ALLOC) ||
            (tsh.sh_flags & SHF_COMPRESSED) || tsh.sh_type == SHT_NOBITS ||
            tsh.sh_offset > size || tsh.sh_size > size - tsh.sh_offset)
            continue;
        Elf_Data *rd = elf_getdata(scn, NULL);
        Elf_Data *sd = elf_getdata(sscn, NULL);
        if (!rd || !sd)
            continue;
        size_t count = rsh.sh_size / sizeof(Elf64_Rela);
        for (size_t i = 0; i < count; i++) {
            GElf_Rela r;
            GElf_Sym s;
            if (!gelf_getrela(rd, (int)i, &r))
                break;
            uint32_t type = (uint32_t)GELF_R_TYPE(r.r_info);
            int width;
            if (m->machine == EM_X86_64)
                width = type == R_X86_64_64 ? 8
                        : (type == R_X86_64_32 || type == R_X86_64_32S) ? 4
                                                                        : 0;
            else if (m->machine == EM_AARCH64)
                width = type == R_AARCH64_ABS64 ? 8
                        : type == R_AARCH64_ABS32 ? 4
                                                  : 0;
            else
                width = 0;
            if (!width || r.r_offset > tsh.sh_size - (uint64_t)width)
                continue;
            uint64_t sv = 0;
            size_t si = GELF_R_SYM(r.r_info);
            if (si && gelf_getsym(sd, (int)si, &s) &&
                s.st_shndx != SHN_UNDEF)
                sv = s.st_value;
            uint64_t v = sv + (uint64_t)r.r_addend;
            unsigned char *p = img + tsh.sh_offset + r.r_offset;
            for (int b = 0; b < width; b++)
                p[b] = (unsigned char)(v >> (8 * b));
        }
    }
    Elf *e = elf_memory((char *)img, size);
    if (!e) {
        free(img);
        return NULL;
    }
    m->dwarf_image = img;
    return e;
}

static Dwarf *get_dwarf(tk_xray_map *m)
{
    if (m->dwarf_loaded)
        return m->dwarf;
    m->dwarf_loaded = 1;
    if (!m->elf)
        return NULL;
    Elf *e = m->elf;
    if (m->etype == ET_REL) {
        m->dwarf_elf = relocated_copy(m);
        if (!m->dwarf_elf)
            return NULL;
        e = m->dwarf_elf;
    }
    m->dwarf = dwarf_begin_elf(e, DWARF_C_READ, NULL);
    return m->dwarf;
}

/* The compile unit covering `addr`: .debug_aranges when present (libdw),
 * else the units' own ranges (clang emits no aranges by default). */
static int find_cu(Dwarf *dw, uint64_t addr, Dwarf_Die *cu)
{
    if (dwarf_addrdie(dw, addr, cu))
        return 1;
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, addr) > 0)
            return 1;
        off = next;
    }
    return 0;
}

static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute a;
    const char *s = dwarf_formstring(
        dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
    if (!s)
        s = dwarf_formstring(
            dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
    if (!s)
        s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
    return s;
}

/* Linkage name (else name) of the innermost subprogram at `addr`. */
static char *dwarf_function_name(tk_xray_map *m, uint64_t addr)
{
    Dwarf *dw = get_dwarf(m);
    Dwarf_Die cu;
    if (!dw || !find_cu(dw, addr, &cu))
        return NULL;
    Dwarf_Die *scopes = NULL;
    int n = dwarf_getscopes(&cu, addr, &scopes);
    char *name = NULL;
    for (int i = 0; i < n && !name; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
            const char *s = die_name(&scopes[i]);
            if (s)
                name = strdup(s);
            break;
        }
    }
    free(scopes);
    return name;
}

/* ------------------------------------------------------ names, locations */

static char *hex_name(uint64_t addr)
{
    char buf[32];
    snprintf(buf, sizeof buf, "@(%" PRIx64 ")", addr);
    return strdup(buf);
}

/* The name of f, NULL when out of memory (tk_xray_map_name then says
 * "@(?)": a name is never an error, so demangling gets no tk_error). */
static char *compute_name(tk_xray_map *m, const xm_func *f)
{
    if (m->yaml) {
        if (!f->yaml_name)
            return hex_name(f->addr);
        return m->demangle ? tk_xray_demangle(f->yaml_name, NULL)
                           : strdup(f->yaml_name);
    }
    const xm_sym *sym = find_symbol(m, f);
    const char *raw = sym ? sym->name : NULL;
    char *owned = NULL;
    if (!raw)
        raw = owned = dwarf_function_name(m, f->addr);
    if (!raw)
        return hex_name(f->addr);
    char *name = m->demangle ? tk_xray_demangle(raw, NULL) : strdup(raw);
    free(owned);
    return name;
}

/* basename(file):line:column of the DWARF line row for the address; without
 * one, the file of a local symbol's STT_FILE (as LLVM 14 does: "a.c:0:0"
 * for a static function of a binary without debug info), else
 * "<invalid>:0:0". */
static char *compute_location(tk_xray_map *m, const xm_func *f)
{
    Dwarf *dw = get_dwarf(m);
    Dwarf_Die cu;
    Dwarf_Line *line = NULL;
    const char *src = NULL;
    int lineno = 0, col = 0;
    if (dw && find_cu(dw, f->addr, &cu) &&
        (line = dwarf_getsrc_die(&cu, f->addr)) != NULL) {
        src = dwarf_linesrc(line, NULL, NULL);
        dwarf_lineno(line, &lineno);
        dwarf_linecol(line, &col);
    }
    if (!src) {
        const xm_sym *sym = find_symbol(m, f);
        if (sym && sym->file && *sym->file)
            src = sym->file;
    }
    const char *base = "<invalid>";
    if (src) {
        const char *slash = strrchr(src, '/');
        base = slash ? slash + 1 : src;
    }
    size_t need = strlen(base) + 32;
    char *s = malloc(need);
    if (s)
        snprintf(s, need, "%s:%d:%d", base, lineno, col);
    return s;
}

const char *tk_xray_map_name(tk_xray_map *m, int32_t id)
{
    if (!m) {
        static _Thread_local char bufs[4][16];
        static _Thread_local unsigned next;
        char *b = bufs[next++ % 4]; /* a million rows: no printf */
        b[0] = '#';
        b[1] = '-';
        int neg = id < 0;
        tk_num_printf_u(b + 1 + neg, neg ? (uint64_t)(-(int64_t)id) : (uint64_t)id, 0);
        return b;
    }
    xm_func *f = tk_xm_func(m, id);
    if (!f) {
        char **slot = tk_map_u64(&m->unknown, (uint32_t)id);
        if (!slot)
            return "#?";
        if (!*slot && (*slot = malloc(16)))
            snprintf(*slot, 16, "#%" PRId32, id);
        return *slot ? *slot : "#?";
    }
    if (!f->name)
        f->name = compute_name(m, f);
    return f->name ? f->name : "@(?)";
}

const char *tk_xray_map_location(tk_xray_map *m, int32_t id)
{
    xm_func *f = tk_xm_func(m, id);
    if (!f)
        return "(unknown)";
    if (m->yaml)
        return "<invalid>:0:0";
    if (!f->loc)
        f->loc = compute_location(m, f);
    return f->loc ? f->loc : "<invalid>:0:0";
}

void tk_xray_map_set_demangle(tk_xray_map *m, int demangle)
{
    if (!m || !demangle == !m->demangle)
        return;
    m->demangle = demangle != 0;
    for (size_t i = 0; i < m->nfuncs; i++) {
        free(m->funcs[i].name);
        m->funcs[i].name = NULL;
    }
}

void tk_xm_symbolize_free(tk_xray_map *m)
{
    for (size_t i = 0; i < m->nfuncs; i++) {
        free(m->funcs[i].name);
        free(m->funcs[i].loc);
        m->funcs[i].name = m->funcs[i].loc = NULL;
    }
    if (m->dwarf)
        dwarf_end(m->dwarf);
    if (m->dwarf_elf)
        elf_end(m->dwarf_elf);
    free(m->dwarf_image);
    free(m->syms);
    m->dwarf = NULL;
    m->dwarf_elf = NULL;
    m->dwarf_image = NULL;
    m->syms = NULL;
    m->nsyms = 0;
    m->syms_loaded = m->dwarf_loaded = 0;
}
