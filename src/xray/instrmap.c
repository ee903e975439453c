/* XRay instrumentation maps: the xray_instr_map section of an ELF64 file, or
 * llvm-xray's YAML form of it; the YAML writer (`llvm-xray extract`). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "xray/map_int.h"

#define SLED_SIZE 32

#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint16_t le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

const char *tk_xray_sled_kind_name(tk_xray_sled_kind k)
{
    switch (k) {
    case TK_XRAY_SLED_ENTRY: return "function-enter";
    case TK_XRAY_SLED_EXIT: return "function-exit";
    case TK_XRAY_SLED_TAIL: return "tail-exit";
    case TK_XRAY_SLED_LOG_ARGS_ENTER: return "log-args-enter";
    case TK_XRAY_SLED_CUSTOM_EVENT: return "custom-event";
    case TK_XRAY_SLED_TYPED_EVENT: return "typed-event";
    }
    return "unknown";
}

/* ------------------------------------------------------------------ map */

static tk_xray_map *map_new(const char *path)
{
    tk_xray_map *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->path = strdup(path);
    if (!m->path) {
        free(m);
        return NULL;
    }
    m->fd = -1;
    m->demangle = 1;
    tk_map_init(&m->unknown, sizeof(char *));
    return m;
}

void tk_xray_map_free(tk_xray_map *m)
{
    if (!m)
        return;
    tk_xm_symbolize_free(m);
    for (size_t i = 0; i < m->nfuncs; i++)
        free(m->funcs[i].yaml_name);
    for (size_t i = 0; i < m->unknown.n; i++)
        free(*(char **)tk_map_value(&m->unknown, i));
    tk_map_free(&m->unknown);
    if (m->elf)
        elf_end(m->elf);
    if (m->fd >= 0)
        close(m->fd);
    free(m->sleds);
    free(m->funcs);
    free(m->byaddr);
    free(m->path);
    free(m);
}

size_t tk_xray_map_count(const tk_xray_map *m)
{
    return m ? m->n : 0;
}

const tk_xray_sled *tk_xray_map_sled(const tk_xray_map *m, size_t i)
{
    return m && i < m->n ? &m->sleds[i] : NULL;
}

int32_t tk_xray_map_max_id(const tk_xray_map *m)
{
    return m && m->nfuncs ? m->funcs[m->nfuncs - 1].id : 0;
}

int tk_xray_map_is_yaml(const tk_xray_map *m)
{
    return m ? m->yaml : 0;
}

xm_func *tk_xm_func(const tk_xray_map *m, int32_t id)
{
    if (!m)
        return NULL;
    size_t lo = 0, hi = m->nfuncs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->funcs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->nfuncs && m->funcs[lo].id == id ? &m->funcs[lo] : NULL;
}

int tk_xray_map_function_address(const tk_xray_map *m, int32_t id,
                                 uint64_t *addr)
{
    const xm_func *f = tk_xm_func(m, id);
    if (!f)
        return 0;
    if (addr)
        *addr = f->addr;
    return 1;
}

int tk_xray_map_function_id(const tk_xray_map *m, uint64_t addr, int32_t *id)
{
    if (!m)
        return 0;
    size_t lo = 0, hi = m->nbyaddr;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->byaddr[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo >= m->nbyaddr || m->byaddr[lo].addr != addr)
        return 0;
    if (id)
        *id = m->byaddr[lo].id;
    return 1;
}

/* ---------------------------------------------------- id bookkeeping
 * Assignments (id -> address, address -> id) are recorded in order; the
 * last one wins in both directions, as in llvm-xray's hash maps. */

typedef struct assign {
    int32_t id;
    uint64_t addr;
    uint32_t text_shndx;
    char *name;   /* YAML function-name (owned until moved) */
    size_t seq;
} assign;

typedef struct assigns {
    assign *v;
    size_t n, cap;
} assigns;

static int assigns_push(assigns *a, int32_t id, uint64_t addr,
                        uint32_t text_shndx, char *name)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 64;
        assign *v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n] = (assign){id, addr, text_shndx, name, a->n};
    a->n++;
    return 0;
}

static void assigns_free(assigns *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i].name);
    free(a->v);
}

static int cmp_by_id(const void *x, const void *y)
{
    const assign *a = x, *b = y;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp_by_addr(const void *x, const void *y)
{
    const assign *a = x, *b = y;
    if (a->addr != b->addr)
        return a->addr < b->addr ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Build m->funcs and m->byaddr from the assignments (consumes names). */
static int assigns_finish(tk_xray_map *m, assigns *a)
{
    if (a->n == 0)
        return 0;
    m->funcs = calloc(a->n, sizeof *m->funcs);
    m->byaddr = calloc(a->n, sizeof *m->byaddr);
    if (!m->funcs || !m->byaddr)
        return -1;
    qsort(a->v, a->n, sizeof *a->v, cmp_by_id);
    for (size_t i = 0; i < a->n; i++) {
        if (i + 1 < a->n && a->v[i + 1].id == a->v[i].id)
            continue; /* a later assignment wins */
        xm_func *f = &m->funcs[m->nfuncs++];
        f->id = a->v[i].id;
        f->addr = a->v[i].addr;
        f->text_shndx = a->v[i].text_shndx;
        f->yaml_name = a->v[i].name;
        a->v[i].name = NULL;
    }
    qsort(a->v, a->n, sizeof *a->v, cmp_by_addr);
    for (size_t i = 0; i < a->n; i++) {
        if (i + 1 < a->n && a->v[i + 1].addr == a->v[i].addr)
            continue;
        m->byaddr[m->nbyaddr++] = (xm_addr_id){a->v[i].addr, a->v[i].id};
    }
    return 0;
}

static int sleds_reserve(tk_xray_map *m, size_t *cap, size_t more)
{
    if (m->n + more <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < m->n + more)
        c *= 2;
    tk_xray_sled *v = realloc(m->sleds, c * sizeof *v);
    if (!v)
        return -1;
    m->sleds = v;
    *cap = c;
    return 0;
}

/* ------------------------------------------------------------------ ELF */

typedef struct reloc {
    uint64_t off;   /* within the map section */
    uint64_t value;
    size_t seq;
} reloc;

typedef struct relocs {
    reloc *v;
    size_t n, cap;
} relocs;

static int cmp_reloc(const void *x, const void *y)
{
    const reloc *a = x, *b = y;
    if (a->off != b->off)
        return a->off < b->off ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Value of the relocation at `off` (the first one there, as llvm-xray). */
static int reloc_find(const relocs *r, uint64_t off, uint64_t *value)
{
    size_t lo = 0, hi = r->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->v[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo >= r->n || r->v[lo].off != off)
        return 0;
    *value = r->v[lo].value;
    return 1;
}

enum { RK_NONE, RK_ABS, RK_PCREL, RK_RELATIVE };

static int reloc_kind(uint16_t machine, uint32_t type)
{
    switch (machine) {
    case EM_X86_64:
        switch (type) {
        case R_X86_64_64: case R_X86_64_32: case R_X86_64_32S:
            return RK_ABS;
        case R_X86_64_PC64: case R_X86_64_PC32:
            return RK_PCREL;
        case R_X86_64_RELATIVE:
            return RK_RELATIVE;
        }
        break;
    case EM_AARCH64:
        switch (type) {
        case R_AARCH64_ABS64: case R_AARCH64_ABS32:
            return RK_ABS;
        case R_AARCH64_PREL64: case R_AARCH64_PREL32:
            return RK_PCREL;
        case R_AARCH64_RELATIVE:
            return RK_RELATIVE;
        }
        break;
    case EM_PPC64:
        switch (type) {
        case R_PPC64_ADDR64: return RK_ABS;
        case R_PPC64_REL64: return RK_PCREL;
        case R_PPC64_RELATIVE: return RK_RELATIVE;
        }
        break;
    case EM_RISCV: /* R_RISCV_64, R_RISCV_RELATIVE */
    case EM_LOONGARCH: /* R_LARCH_64, R_LARCH_RELATIVE */
        if (type == 2)
            return RK_ABS;
        if (type == 3)
            return RK_RELATIVE;
        break;
    }
    return RK_NONE;
}

/* A relocation section and the section it applies to (sh_info). */
typedef struct relsec {
    size_t target, ndx;
} relsec;

typedef struct elfctx {
    tk_xray_map *m;
    size_t shnum;
    tk_error *err;
    relsec *relsecs; /* every SHT_REL(A) section, by target */
    size_t nrelsecs;
} elfctx;

static int cmp_relsec(const void *x, const void *y)
{
    const relsec *a = x, *b = y;
    if (a->target != b->target)
        return a->target < b->target ? -1 : 1;
    return a->ndx < b->ndx ? -1 : a->ndx > b->ndx;
}

/* Index the relocation sections once (a .o has one map section and one
 * relocation section per function). */
static int index_relsecs(elfctx *c)
{
    for (Elf_Scn *scn = elf_nextscn(c->m->elf, NULL); scn;
         scn = elf_nextscn(c->m->elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) ||
            (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL))
            continue;
        if (c->nrelsecs % 64 == 0) {
            relsec *v = realloc(c->relsecs, (c->nrelsecs + 64) * sizeof *v);
            if (!v)
                return -1;
            c->relsecs = v;
        }
        c->relsecs[c->nrelsecs++] = (relsec){sh.sh_info, elf_ndxscn(scn)};
    }
    if (c->nrelsecs > 1)
        qsort(c->relsecs, c->nrelsecs, sizeof *c->relsecs, cmp_relsec);
    return 0;
}

/* Value of symbol `symi` of the symbol table in section `symtab_ndx`. */
static int symbol_value(elfctx *c, size_t symtab_ndx, size_t symi,
                        uint64_t *value)
{
    *value = 0;
    if (symi == 0 || symtab_ndx == 0 || symtab_ndx >= c->shnum)
        return 0;
    Elf_Scn *scn = elf_getscn(c->m->elf, symtab_ndx);
    GElf_Shdr sh;
    if (!scn || !gelf_getshdr(scn, &sh) ||
        (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
        return -1;
    Elf_Data *d = elf_getdata(scn, NULL);
    GElf_Sym sym;
    Elf32_Word xndx = 0;
    Elf_Data *xd = NULL;
    if (!d || !gelf_getsymshndx(d, xd, (int)symi, &sym, &xndx))
        return -1;
    uint64_t v = sym.st_value;
    if (c->m->etype == ET_REL && sym.st_shndx != SHN_UNDEF &&
        sym.st_shndx < SHN_LORESERVE && sym.st_shndx < c->shnum) {
        GElf_Shdr ssh;
        Elf_Scn *s2 = elf_getscn(c->m->elf, sym.st_shndx);
        if (s2 && gelf_getshdr(s2, &ssh))
            v += ssh.sh_addr;
    } else if (sym.st_shndx == SHN_UNDEF) {
        v = 0;
    }
    *value = v;
    return 0;
}

/* Relocations that apply to map section `map_ndx` (address `map_addr`,
 * `map_size` bytes). */
static tk_status collect_relocs(elfctx *c, size_t map_ndx, uint64_t map_addr,
                                uint64_t map_size, relocs *r)
{
    tk_xray_map *m = c->m;
    /* a .o: the sections whose sh_info is the map; else every one (the
     * dynamic relocations, whose offsets are addresses) */
    size_t lo = 0, hi = c->nrelsecs;
    if (m->etype == ET_REL) {
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (c->relsecs[mid].target < map_ndx)
                lo = mid + 1;
            else
                hi = mid;
        }
        hi = lo;
        while (hi < c->nrelsecs && c->relsecs[hi].target == map_ndx)
            hi++;
    }
    for (size_t k = lo; k < hi; k++) {
        Elf_Scn *scn = elf_getscn(m->elf, c->relsecs[k].ndx);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh))
            continue;
        if (sh.sh_offset > m->file_size ||
            sh.sh_size > m->file_size - sh.sh_offset)
            return tk_error_set(c->err, TK_EMALFORMED, sh.sh_offset,
                                TK_NO_RECORD,
                                "relocation section %zu (%" PRIu64
                                " bytes) extends past the end of the file",
                                elf_ndxscn(scn), (uint64_t)sh.sh_size);
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d)
            continue;
        int rela = sh.sh_type == SHT_RELA;
        size_t entsize = rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
        size_t count = sh.sh_size / entsize;
        for (size_t i = 0; i < count; i++) {
            uint64_t where, info;
            int64_t addend = 0;
            if (rela) {
                GElf_Rela ra;
                if (!gelf_getrela(d, (int)i, &ra))
                    break;
                where = ra.r_offset;
                info = ra.r_info;
                addend = ra.r_addend;
            } else {
                GElf_Rel rl;
                if (!gelf_getrel(d, (int)i, &rl))
                    break;
                where = rl.r_offset;
                info = rl.r_info;
            }
            uint64_t off;
            if (m->etype == ET_REL) {
                off = where;
            } else {
                if (where < map_addr || where - map_addr >= map_size)
                    continue;
                off = where - map_addr;
            }
            int kind = reloc_kind(m->machine, (uint32_t)GELF_R_TYPE(info));
            if (kind == RK_NONE)
                continue;
            uint64_t s = 0, value;
            if (kind != RK_RELATIVE &&
                symbol_value(c, sh.sh_link, GELF_R_SYM(info), &s) != 0)
                continue;
            uint64_t p = map_addr + off;
            switch (kind) {
            case RK_ABS: value = s + (uint64_t)addend; break;
            case RK_PCREL: value = s + (uint64_t)addend - p; break;
            default: value = (uint64_t)addend; break;
            }
            if (r->n == r->cap) {
                size_t cap = r->cap ? r->cap * 2 : 64;
                reloc *v = realloc(r->v, cap * sizeof *v);
                if (!v)
                    return tk_error_set(c->err, TK_ENOMEM, TK_NO_OFFSET,
                                        TK_NO_RECORD, "out of memory");
                r->v = v;
                r->cap = cap;
            }
            r->v[r->n] = (reloc){off, value, r->n};
            r->n++;
        }
    }
    if (r->n > 1)
        qsort(r->v, r->n, sizeof *r->v, cmp_reloc);
    return TK_OK;
}

static const char *machine_ok(uint16_t machine)
{
    switch (machine) {
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "AArch64";
    case EM_PPC64: return "ppc64le";
    case EM_RISCV: return "riscv64";
    case EM_LOONGARCH: return "loongarch64";
    }
    return NULL;
}

/* The ELF header checks, on the raw bytes (exact messages). */
static tk_status check_ehdr(tk_xray_map *m, const unsigned char *h, size_t n,
                            tk_error *err)
{
    if (n < EI_NIDENT)
        return tk_error_set(err, TK_EMALFORMED, n, TK_NO_RECORD,
                            "truncated ELF header (%zu bytes)", n);
    if (h[EI_CLASS] == ELFCLASS32)
        return tk_error_set(err, TK_EUNSUPPORTED, EI_CLASS, TK_NO_RECORD,
                            "32-bit ELF file: only 64-bit little-endian ELF "
                            "has a supported XRay instrumentation map");
    if (h[EI_CLASS] != ELFCLASS64)
        return tk_error_set(err, TK_EMALFORMED, EI_CLASS, TK_NO_RECORD,
                            "invalid ELF class %u", h[EI_CLASS]);
    if (h[EI_DATA] == ELFDATA2MSB)
        return tk_error_set(err, TK_EUNSUPPORTED, EI_DATA, TK_NO_RECORD,
                            "big-endian ELF file: only 64-bit little-endian "
                            "ELF has a supported XRay instrumentation map");
    if (h[EI_DATA] != ELFDATA2LSB)
        return tk_error_set(err, TK_EMALFORMED, EI_DATA, TK_NO_RECORD,
                            "invalid ELF data encoding %u", h[EI_DATA]);
    if (n < sizeof(Elf64_Ehdr))
        return tk_error_set(err, TK_EMALFORMED, n, TK_NO_RECORD,
                            "truncated ELF header (%zu of %zu bytes)", n,
                            sizeof(Elf64_Ehdr));
    m->etype = le16(h + 16);
    m->machine = le16(h + 18);
    if (!machine_ok(m->machine))
        return tk_error_set(err, TK_EUNSUPPORTED, 18, TK_NO_RECORD,
                            "unsupported ELF machine %u (XRay maps are read "
                            "for x86-64, AArch64, ppc64le, riscv64 and "
                            "loongarch64)",
                            m->machine);
    uint64_t shoff = le64(h + 40);
    uint16_t shentsize = le16(h + 58);
    uint64_t shnum = le16(h + 60);
    if (shoff == 0)
        return tk_error_set(err, TK_EMALFORMED, 40, TK_NO_RECORD,
                            "no section headers, so no xray_instr_map "
                            "section (XRay instrumentation map)");
    if (shentsize != sizeof(Elf64_Shdr))
        return tk_error_set(err, TK_EMALFORMED, 58, TK_NO_RECORD,
                            "invalid section header size %u", shentsize);
    if (shnum == 0)
        shnum = 1; /* the real count is in section 0; libelf checks it */
    if (shoff > m->file_size || shnum * shentsize > m->file_size - shoff)
        return tk_error_set(err, TK_EMALFORMED, shoff, TK_NO_RECORD,
                            "section header table (%" PRIu64
                            " entries at offset 0x%" PRIx64
                            ") extends past the end of the file (%" PRIu64
                            " bytes): truncated?",
                            shnum, shoff, m->file_size);
    return TK_OK;
}

static tk_status read_map_section(elfctx *c, Elf_Scn *scn,
                                  const GElf_Shdr *sh, size_t *cap,
                                  assigns *as, int32_t *func_id,
                                  uint64_t *cur_fn)
{
    tk_xray_map *m = c->m;
    tk_error *err = c->err;
    size_t ndx = elf_ndxscn(scn);
    if (sh->sh_type == SHT_NOBITS)
        return tk_error_set(err, TK_EMALFORMED, sh->sh_offset, TK_NO_RECORD,
                            "xray_instr_map section %zu has no contents "
                            "(SHT_NOBITS)", ndx);
    if (sh->sh_flags & SHF_COMPRESSED)
        return tk_error_set(err, TK_EUNSUPPORTED, sh->sh_offset, TK_NO_RECORD,
                            "compressed xray_instr_map section %zu", ndx);
    if (sh->sh_offset > m->file_size ||
        sh->sh_size > m->file_size - sh->sh_offset)
        return tk_error_set(err, TK_EMALFORMED, sh->sh_offset, TK_NO_RECORD,
                            "xray_instr_map section (%" PRIu64
                            " bytes at offset 0x%" PRIx64
                            ") extends past the end of the file (%" PRIu64
                            " bytes): truncated?",
                            (uint64_t)sh->sh_size, (uint64_t)sh->sh_offset,
                            m->file_size);
    if (sh->sh_size % SLED_SIZE != 0)
        return tk_error_set(err, TK_EMALFORMED, sh->sh_offset, TK_NO_RECORD,
                            "xray_instr_map section size %" PRIu64
                            " is not a multiple of the %d-byte sled entry "
                            "size",
                            (uint64_t)sh->sh_size, SLED_SIZE);
    if (sh->sh_size == 0)
        return TK_OK;
    Elf_Data *d = elf_rawdata(scn, NULL);
    if (!d || !d->d_buf || d->d_size != sh->sh_size)
        return tk_error_set(err, TK_EMALFORMED, sh->sh_offset, TK_NO_RECORD,
                            "cannot read xray_instr_map section: %s",
                            elf_errmsg(-1));
    relocs r = {0};
    tk_status st = collect_relocs(c, ndx, sh->sh_addr, sh->sh_size, &r);
    if (st != TK_OK) {
        free(r.v);
        return st;
    }
    size_t count = sh->sh_size / SLED_SIZE;
    if (sleds_reserve(m, cap, count) != 0) {
        free(r.v);
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                            "out of memory");
    }
    uint32_t text = m->etype == ET_REL ? sh->sh_link : 0;
    const unsigned char *p = d->d_buf;
    for (size_t i = 0; i < count; i++, p += SLED_SIZE) {
        uint64_t off = (uint64_t)i * SLED_SIZE;
        uint64_t addr = le64(p), fn = le64(p + 8);
        if (addr == 0)
            reloc_find(&r, off, &addr);
        if (fn == 0)
            reloc_find(&r, off + 8, &fn);
        uint8_t kind = p[16];
        if (kind > TK_XRAY_SLED_TYPED_EVENT) {
            free(r.v);
            return tk_error_set(err, TK_EMALFORMED, sh->sh_offset + off + 16,
                                m->n,
                                "sled %zu has an unknown kind %u (0-5 are "
                                "known)",
                                m->n, kind);
        }
        uint8_t version = p[18];
        if (version >= 2) { /* PC-relative */
            addr += sh->sh_addr + off;
            fn += sh->sh_addr + off + 8;
        }
        /* Ids as llvm-xray and the runtime assign them: 1 for the first
         * sled, +1 whenever the function changes. (llvm-xray uses function
         * address 0 as "none yet", so in a .o file the function at offset 0
         * would share its id with the next one; we do not.) */
        int fail = 0;
        if (m->n == 0) {
            *cur_fn = fn;
            fail |= assigns_push(as, *func_id, fn, text, NULL);
        } else if (fn != *cur_fn) {
            ++*func_id;
            *cur_fn = fn;
            fail |= assigns_push(as, *func_id, fn, text, NULL);
        }
        if (fail) {
            free(r.v);
            return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                                "out of memory");
        }
        m->sleds[m->n++] = (tk_xray_sled){*func_id, addr, fn,
                                          (tk_xray_sled_kind)kind, p[17] != 0,
                                          version};
    }
    free(r.v);
    return TK_OK;
}

static tk_status open_elf(tk_xray_map *m, const unsigned char *hdr, size_t n,
                          tk_error *err)
{
    tk_status st = check_ehdr(m, hdr, n, err);
    if (st != TK_OK)
        return st;
    elf_version(EV_CURRENT);
    m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
    if (!m->elf)
        return tk_error_set(err, TK_EMALFORMED, 0, TK_NO_RECORD,
                            "cannot read ELF file: %s", elf_errmsg(-1));
    elfctx c = {m, 0, err, NULL, 0};
    size_t shstrndx;
    if (elf_getshdrnum(m->elf, &c.shnum) != 0 ||
        elf_getshdrstrndx(m->elf, &shstrndx) != 0)
        return tk_error_set(err, TK_EMALFORMED, le64(hdr + 40), TK_NO_RECORD,
                            "cannot read ELF section headers: %s",
                            elf_errmsg(-1));
    if (index_relsecs(&c) != 0) {
        free(c.relsecs);
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                            "out of memory");
    }
    size_t cap = 0;
    assigns as = {0};
    int32_t func_id = 1;
    uint64_t cur_fn = 0;
    int found = 0;
    for (Elf_Scn *scn = elf_nextscn(m->elf, NULL); scn && st == TK_OK;
         scn = elf_nextscn(m->elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        const char *name = elf_strptr(m->elf, shstrndx, sh.sh_name);
        if (!name || strcmp(name, "xray_instr_map") != 0)
            continue;
        found = 1;
        st = read_map_section(&c, scn, &sh, &cap, &as, &func_id, &cur_fn);
    }
    free(c.relsecs);
    if (st == TK_OK && !found)
        st = tk_error_set(err, TK_EMALFORMED, TK_NO_OFFSET, TK_NO_RECORD,
                          "no xray_instr_map section (XRay instrumentation "
                          "map): not built with -fxray-instrument?");
    if (st == TK_OK && assigns_finish(m, &as) != 0)
        st = tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                          "out of memory");
    assigns_free(&as);
    return st;
}

/* ----------------------------------------------------------- YAML input */

/* llvm::getAsUnsignedInteger with radix 0: 0x, 0b, 0o prefixes, a leading
 * 0 means octal. */
static int parse_u64(const char *s, uint64_t *out)
{
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    } else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
        base = 2;
        s += 2;
    } else if (s[0] == '0' && s[1] == 'o') {
        base = 8;
        s += 2;
    } else if (s[0] == '0' && s[1] >= '0' && s[1] <= '9') {
        base = 8;
        s += 1;
    }
    if (!*s)
        return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        unsigned dgt;
        if (*s >= '0' && *s <= '9')
            dgt = (unsigned)(*s - '0');
        else if (*s >= 'a' && *s <= 'z')
            dgt = (unsigned)(*s - 'a' + 10);
        else if (*s >= 'A' && *s <= 'Z')
            dgt = (unsigned)(*s - 'A' + 10);
        else
            return -1;
        if (dgt >= base || v > (UINT64_MAX - dgt) / base)
            return -1;
        v = v * base + dgt;
    }
    *out = v;
    return 0;
}

static int parse_i32(const char *s, int32_t *out)
{
    int neg = *s == '-';
    uint64_t v;
    if (parse_u64(s + neg, &v) != 0)
        return -1;
    if (neg ? v > (uint64_t)INT32_MAX + 1 : v > INT32_MAX)
        return -1;
    *out = neg ? (int32_t)(-(int64_t)v) : (int32_t)v;
    return 0;
}

typedef struct yctx {
    yaml_document_t doc;
    tk_error *err;
} yctx;

static tk_status yerr(yctx *y, const yaml_node_t *node, const char *fmt,
                      const char *arg)
{
    char msg[200];
    snprintf(msg, sizeof msg, fmt, arg);
    return tk_error_set_text(y->err, TK_EMALFORMED,
                             node ? node->start_mark.line + 1 : 0,
                             node ? node->start_mark.column + 1 : 0,
                             TK_NO_RECORD, "YAML instrumentation map: %s",
                             msg);
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
                                            : NULL;
}

static tk_status yaml_sled(yctx *y, tk_xray_map *m, yaml_node_t *item,
                           size_t *cap, assigns *as)
{
    if (item->type != YAML_MAPPING_NODE)
        return yerr(y, item, "a sled must be a mapping%s", "");
    enum { F_ID = 1, F_ADDR = 2, F_FN = 4, F_KIND = 8, F_ALWAYS = 16 };
    unsigned have = 0;
    int32_t id = 0;
    tk_xray_sled s = {0};
    const char *fname = NULL;
    for (yaml_node_pair_t *p = item->data.mapping.pairs.start;
         p < item->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = yaml_document_get_node(&y->doc, p->key);
        yaml_node_t *vn = yaml_document_get_node(&y->doc, p->value);
        const char *k = scalar(kn), *v = scalar(vn);
        if (!k)
            return yerr(y, kn, "keys must be scalars%s", "");
        if (!v)
            return yerr(y, vn, "the value of '%s' must be a scalar", k);
        uint64_t u;
        if (!strcmp(k, "id")) {
            if (parse_i32(v, &id) != 0)
                return yerr(y, vn, "invalid id '%s'", v);
            have |= F_ID;
        } else if (!strcmp(k, "address")) {
            if (parse_u64(v, &s.address) != 0)
                return yerr(y, vn, "invalid address '%s'", v);
            have |= F_ADDR;
        } else if (!strcmp(k, "function")) {
            if (parse_u64(v, &s.function) != 0)
                return yerr(y, vn, "invalid function address '%s'", v);
            have |= F_FN;
        } else if (!strcmp(k, "kind")) {
            int kind = -1;
            for (int i = 0; i <= TK_XRAY_SLED_TYPED_EVENT; i++)
                if (!strcmp(v, tk_xray_sled_kind_name((tk_xray_sled_kind)i)))
                    kind = i;
            if (kind < 0)
                return yerr(y, vn, "unknown sled kind '%s'", v);
            s.kind = (tk_xray_sled_kind)kind;
            have |= F_KIND;
        } else if (!strcmp(k, "always-instrument")) {
            if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE"))
                s.always_instrument = 1;
            else if (strcmp(v, "false") && strcmp(v, "False") &&
                     strcmp(v, "FALSE"))
                return yerr(y, vn, "invalid boolean '%s'", v);
            have |= F_ALWAYS;
        } else if (!strcmp(k, "function-name")) {
            fname = v;
        } else if (!strcmp(k, "version")) {
            if (parse_u64(v, &u) != 0 || u > 255)
                return yerr(y, vn, "invalid version '%s'", v);
            s.version = (uint8_t)u;
        } else {
            return yerr(y, kn, "unknown key '%s'", k);
        }
    }
    static const char *const req[] = {"id", "address", "function", "kind",
                                      "always-instrument"};
    for (int i = 0; i < 5; i++)
        if (!(have & (1u << i)))
            return yerr(y, item, "missing required key '%s'", req[i]);
    s.id = id;
    char *name = NULL;
    if (fname && *fname && !(name = strdup(fname)))
        return tk_error_set(y->err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                            "out of memory");
    if (sleds_reserve(m, cap, 1) != 0 ||
        assigns_push(as, id, s.function, 0, name) != 0) {
        free(name);
        return tk_error_set(y->err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                            "out of memory");
    }
    m->sleds[m->n++] = s;
    return TK_OK;
}

static tk_status open_yaml(tk_xray_map *m, tk_error *err)
{
    if (m->file_size == 0)
        return tk_error_set(err, TK_EMALFORMED, 0, TK_NO_RECORD,
                            "empty file: not an ELF file nor a YAML "
                            "instrumentation map");
    FILE *f = fdopen(dup(m->fd), "rb");
    if (!f)
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                            "cannot read: %s", strerror(errno));
    yaml_parser_t parser;
    yctx y = {.err = err};
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                            "out of memory");
    }
    yaml_parser_set_input_file(&parser, f);
    tk_status st = TK_OK;
    if (!yaml_parser_load(&parser, &y.doc)) {
        st = tk_error_set_text(
            err, TK_EMALFORMED, parser.problem_mark.line + 1,
            parser.problem_mark.column + 1, TK_NO_RECORD,
            "not an ELF file nor a YAML instrumentation map (YAML: %s)",
            parser.problem ? parser.problem : "syntax error");
        yaml_parser_delete(&parser);
        fclose(f);
        return st;
    }
    yaml_parser_delete(&parser);
    fclose(f);
    yaml_node_t *root = yaml_document_get_root_node(&y.doc);
    if (!root || root->type != YAML_SEQUENCE_NODE) {
        st = tk_error_set_text(
            err, TK_EMALFORMED, root ? root->start_mark.line + 1 : 1,
            root ? root->start_mark.column + 1 : 1, TK_NO_RECORD,
            "not an ELF file nor a YAML instrumentation map (YAML: not a "
            "sequence of sleds)");
        yaml_document_delete(&y.doc);
        return st;
    }
    m->yaml = 1;
    size_t cap = 0;
    assigns as = {0};
    for (yaml_node_item_t *it = root->data.sequence.items.start;
         it < root->data.sequence.items.top && st == TK_OK; it++)
        st = yaml_sled(&y, m, yaml_document_get_node(&y.doc, *it), &cap, &as);
    yaml_document_delete(&y.doc);
    if (st == TK_OK && assigns_finish(m, &as) != 0)
        st = tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                          "out of memory");
    assigns_free(&as);
    return st;
}

/* ----------------------------------------------------------------- open */

static tk_xray_map *map_open(const char *path, tk_error *err)
{
    tk_error_clear(err);
    tk_xray_map *m = map_new(path);
    if (!m) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                     "out of memory");
        return NULL;
    }
    m->fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat stbuf;
    if (m->fd < 0 || fstat(m->fd, &stbuf) != 0) {
        tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "cannot open: %s",
                     strerror(errno));
        tk_xray_map_free(m);
        return NULL;
    }
    if (!S_ISREG(stbuf.st_mode)) {
        tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                     "not a regular file");
        tk_xray_map_free(m);
        return NULL;
    }
    m->file_size = (uint64_t)stbuf.st_size;
    unsigned char hdr[sizeof(Elf64_Ehdr)];
    ssize_t got = pread(m->fd, hdr, sizeof hdr, 0);
    if (got < 0) {
        tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "cannot read: %s",
                     strerror(errno));
        tk_xray_map_free(m);
        return NULL;
    }
    tk_status st;
    if (got >= SELFMAG && memcmp(hdr, ELFMAG, SELFMAG) == 0)
        st = open_elf(m, hdr, (size_t)got, err);
    else
        st = open_yaml(m, err);
    if (st != TK_OK) {
        tk_xray_map_free(m);
        return NULL;
    }
    return m;
}

tk_xray_map *tk_xray_map_open(const char *path, tk_error *err)
{
    tk_xray_map *m = map_open(path, err);
    if (!m) /* the map is to blame, not the trace it names functions for */
        tk_error_set_file(err, path);
    return m;
}

/* ---------------------------------------------------------- YAML output */

static int is_numeric(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || !strcmp(s, "+") || !strcmp(s, "-"))
        return 0;
    if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN"))
        return 1;
    const char *t = (*s == '-' || *s == '+') ? s + 1 : s;
    if (!strcmp(t, ".inf") || !strcmp(t, ".Inf") || !strcmp(t, ".INF"))
        return 1;
    if (!strncmp(s, "0o", 2))
        return n > 2 && strspn(s + 2, "01234567") == n - 2;
    if (!strncmp(s, "0x", 2))
        return n > 2 && strspn(s + 2, "0123456789abcdefABCDEF") == n - 2;
    s = t;
    if (*s == '.' && !(s[1] >= '0' && s[1] <= '9'))
        return 0;
    if (*s == 'e' || *s == 'E')
        return 0;
    s += strspn(s, "0123456789");
    if (!*s)
        return 1;
    if (*s == '.') {
        s++;
        s += strspn(s, "0123456789");
        if (!*s)
            return 1;
    }
    if (*s != 'e' && *s != 'E')
        return 0;
    s++;
    if (!*s)
        return 0;
    if (*s == '+' || *s == '-') {
        s++;
        if (!*s)
            return 0;
    }
    return s[strspn(s, "0123456789")] == '\0';
}

/* LLVM's yaml::needsQuotes: 0 plain, 1 single, 2 double. */
static int needs_quotes(const char *s)
{
    if (!*s)
        return 1;
    int q = 0;
    size_t n = strlen(s);
    if (s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r' ||
        s[0] == '\v' || s[0] == '\f' || s[n - 1] == ' ' || s[n - 1] == '\t' ||
        s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == '\v' ||
        s[n - 1] == '\f')
        q = 1;
    if (!strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL") ||
        !strcmp(s, "~") || !strcmp(s, "true") || !strcmp(s, "True") ||
        !strcmp(s, "TRUE") || !strcmp(s, "false") || !strcmp(s, "False") ||
        !strcmp(s, "FALSE") || is_numeric(s))
        q = 1;
    if (strchr("-?:\\,[]{}#&*!|>'\"%@`", s[0]))
        q = 1;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
            (c >= 'A' && c <= 'Z'))
            continue;
        switch (c) {
        case '_': case '-': case '^': case '.': case ',': case ' ': case '\t':
            continue;
        case '\n': case '\r':
            q = 1;
            continue;
        case 0x7f:
            return 2;
        default:
            if (c <= 0x1f || (c & 0x80))
                return 2;
            q = 1;
        }
    }
    return q;
}

static void put_scalar(FILE *out, const char *s)
{
    int q = needs_quotes(s);
    if (q == 0) {
        fputs(s, out);
    } else if (q == 1) {
        fputc('\'', out);
        for (; *s; s++) {
            if (*s == '\'')
                fputc('\'', out);
            fputc(*s, out);
        }
        fputc('\'', out);
    } else {
        fputc('"', out);
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
            switch (*p) {
            case '"': fputs("\\\"", out); break;
            case '\\': fputs("\\\\", out); break;
            case '\0': fputs("\\0", out); break;
            case '\a': fputs("\\a", out); break;
            case '\b': fputs("\\b", out); break;
            case '\t': fputs("\\t", out); break;
            case '\n': fputs("\\n", out); break;
            case '\v': fputs("\\v", out); break;
            case '\f': fputs("\\f", out); break;
            case '\r': fputs("\\r", out); break;
            case 0x1b: fputs("\\e", out); break;
            default:
                if (*p < 0x20 || *p == 0x7f)
                    fprintf(out, "\\x%02X", *p);
                else
                    fputc(*p, out);
            }
        }
        fputc('"', out);
    }
}

tk_status tk_xray_map_write_yaml(tk_xray_map *m, FILE *out, int symbolize,
                                 tk_error *err)
{
    tk_error_clear(err);
    fputs("---\n", out);
    if (!m || m->n == 0)
        fputs("[]\n", out);
    for (size_t i = 0; m && i < m->n; i++) {
        const tk_xray_sled *s = &m->sleds[i];
        int32_t id = s->id;
        tk_xray_map_function_id(m, s->function, &id);
        fprintf(out,
                "- { id: %" PRId32 ", address: 0x%" PRIX64
                ", function: 0x%" PRIX64
                ", kind: %s, always-instrument: %s, function-name: ",
                id, s->address, s->function, tk_xray_sled_kind_name(s->kind),
                s->always_instrument ? "true" : "false");
        put_scalar(out, symbolize ? tk_xray_map_name(m, id) : "");
        if (s->version)
            fprintf(out, ", version: %u", s->version);
        fputs(" }\n", out);
    }
    fputs("...\n", out);
    if (ferror(out) || fflush(out) != 0)
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                            "cannot write the YAML map: %s", strerror(errno));
    return TK_OK;
}
