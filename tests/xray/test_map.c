/* XRay instrumentation maps and symbolization, compared with llvm-xray 14 on
 * programs compiled at test time (tests/xray/programs/map_*): executables
 * with and without PIE and debug info, a shared object, x86-64 and AArch64
 * relocatable objects, a C++ program (demangling), typed-event sleds;
 * synthetic ELF files for the relocation kinds clang does not emit; the YAML
 * form; and the errors. Skips (77) when clang or llvm-xray is missing. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools.h"
#include "testutil.h"
#include <tracekit/xray_map.h>

#define PROG_DIR TK_XRAY_TEST_DIR "/programs"
#define XRAY_FLAGS "-fxray-instrument -fxray-instruction-threshold=1"

static char *tmp; /* the temp dir holding every compiled file */

/* ------------------------------------------------------------ helpers */


/* stdout of a command (stderr discarded); *status gets its exit code. */
static char *capture(int *status, const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    strncat(cmd, " 2>/dev/null", sizeof cmd - strlen(cmd) - 1);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    tu_capture c;
    tu_capture_open(&c);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        fwrite(buf, 1, n, c.fp);
    int st = pclose(p);
    if (status)
        *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    return tu_capture_close(&c);
}

/* `llvm-xray extract <opts> <file>`, asserting success. */
static char *llvm_extract(const char *opts, const char *file)
{
    int st;
    char *out = capture(&st, "%s extract %s '%s'", TK_LLVM_XRAY, opts, file);
    if (st != 0)
        fail_msg("llvm-xray extract %s %s failed (%d)", opts, file, st);
    return out;
}

static char *our_yaml(tk_xray_map *m, int symbolize)
{
    tu_capture c;
    tk_error err;
    tu_capture_open(&c);
    assert_int_equal(tk_xray_map_write_yaml(m, c.fp, symbolize, &err), TK_OK);
    return tu_capture_close(&c);
}

static tk_xray_map *open_ok(const char *path)
{
    tk_error err;
    tk_xray_map *m = tk_xray_map_open(path, &err);
    if (!m)
        fail_msg("%s: %s", path, err.message);
    return m;
}

static const char *tmp_path(const char *name)
{
    return tu_path(tmp, name);
}

/* Compile programs/<src> into <tmp>/<out>. */
static void build(const char *compiler, const char *flags, const char *src,
                  const char *out)
{
    char o[4096];
    snprintf(o, sizeof o, "%s", tmp_path(out));
    if (run("%s %s %s '%s/%s' -o '%s'", compiler, XRAY_FLAGS, flags, PROG_DIR,
            src, o) != 0)
        fail_msg("cannot compile %s (%s)", src, flags);
}

/* The line number of the first source line containing `needle`. */
static int line_of(const char *src, const char *needle)
{
    size_t n;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", PROG_DIR, src);
    char *text = (char *)tu_read_file(path, &n);
    assert_non_null(text);
    char *hit = strstr(text, needle);
    assert_non_null(hit);
    int line = 1;
    for (char *p = text; p < hit; p++)
        line += *p == '\n';
    free(text);
    return line;
}

/* The id of the function named `name` (0 if none). */
static int32_t id_named(tk_xray_map *m, const char *name)
{
    for (int32_t id = 1; id <= tk_xray_map_max_id(m); id++)
        if (!strcmp(tk_xray_map_name(m, id), name))
            return id;
    return 0;
}

/* Sled lines of an extract document ("---\n" ... "...\n"): the text
 * between the markers. */
static const char *body_of(const char *doc, size_t *len)
{
    assert_true(!strncmp(doc, "---\n", 4));
    size_t n = strlen(doc);
    assert_true(n >= 8 && !strcmp(doc + n - 4, "...\n"));
    *len = n - 8;
    return doc + 4;
}

/* Parse llvm-xray's extract lines and compare them with the sled list. */
static void assert_sleds_match(tk_xray_map *m, const char *doc)
{
    size_t i = 0;
    const char *p = doc;
    while ((p = strstr(p, "\n- { id: ")) != NULL) {
        p++;
        int id;
        unsigned long long addr, fn;
        char kind[32], always[8];
        int used = 0;
        assert_int_equal(sscanf(p,
                                "- { id: %d, address: 0x%llX, function: "
                                "0x%llX, kind: %31[^,], always-instrument: "
                                "%7[^,],%n",
                                &id, &addr, &fn, kind, always, &used),
                         5);
        const char *eol = strchr(p, '\n');
        const char *ver = strstr(p, "version: ");
        unsigned version = ver && ver < eol ? (unsigned)atoi(ver + 9) : 0;
        const tk_xray_sled *s = tk_xray_map_sled(m, i);
        assert_non_null(s);
        int32_t fid = 0;
        assert_true(tk_xray_map_function_id(m, s->function, &fid));
        assert_int_equal(fid, id);
        assert_int_equal(s->address, addr);
        assert_int_equal(s->function, fn);
        assert_string_equal(tk_xray_sled_kind_name(s->kind), kind);
        assert_int_equal(s->always_instrument, !strcmp(always, "true"));
        assert_int_equal(s->version, version);
        uint64_t faddr = 0;
        assert_true(tk_xray_map_function_address(m, s->id, &faddr));
        assert_int_equal(faddr, s->function);
        i++;
    }
    assert_int_equal(i, tk_xray_map_count(m));
    assert_null(tk_xray_map_sled(m, i));
}

/* ------------------------------------------------ ELF files by clang */

static const char *const map_funcs[] = {"map_leaf", "map_mid",    "map_always",
                                        "map_logged", "map_event", "map_callee",
                                        "map_tail"};
enum { N_FUNCS = sizeof map_funcs / sizeof *map_funcs };

/* Executables, PIE and a shared object: sleds, ids, addresses and names
 * byte-for-byte as `llvm-xray extract` and `extract -symbolize`. */
static void test_linked_vs_llvm(void **state)
{
    (void)state;
    static const char *const files[] = {"np", "pie", "so.so", "o2", "cxx"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        const char *path = tmp_path(files[f]);
        char p[4096];
        snprintf(p, sizeof p, "%s", path);
        tk_xray_map *m = open_ok(p);
        assert_false(tk_xray_map_is_yaml(m));
        char *want = llvm_extract("", p), *got = our_yaml(m, 0);
        assert_string_equal(got, want);
        assert_sleds_match(m, want);
        free(want);
        free(got);
        want = llvm_extract("-symbolize", p);
        got = our_yaml(m, 1);
        assert_string_equal(got, want);
        free(want);
        free(got);
        tk_xray_map_free(m);
    }
}

static void test_linked_contents(void **state)
{
    (void)state;
    char p[4096];
    snprintf(p, sizeof p, "%s", tmp_path("np"));
    tk_xray_map *m = open_ok(p);
    /* 7 functions + main, an entry (or log-args entry) and an exit each,
     * plus the custom-event sled */
    assert_int_equal(tk_xray_map_max_id(m), N_FUNCS + 1);
    assert_int_equal(tk_xray_map_count(m), 2 * (N_FUNCS + 1) + 1);
    int seen[6] = {0};
    for (size_t i = 0; i < tk_xray_map_count(m); i++) {
        const tk_xray_sled *s = tk_xray_map_sled(m, i);
        seen[s->kind]++;
        assert_int_equal(s->version, 2);
        const char *name = tk_xray_map_name(m, s->id);
        int always = !strcmp(name, "map_always") || !strcmp(name, "map_logged");
        assert_int_equal(s->always_instrument, always);
        if (s->kind == TK_XRAY_SLED_LOG_ARGS_ENTER)
            assert_string_equal(name, "map_logged");
        if (s->kind == TK_XRAY_SLED_CUSTOM_EVENT)
            assert_string_equal(name, "map_event");
        /* non-PIE x86-64 code lives above 0x400000 */
        assert_true(s->function >= 0x400000);
        assert_true(s->address >= s->function);
    }
    assert_int_equal(seen[TK_XRAY_SLED_ENTRY], N_FUNCS);
    assert_int_equal(seen[TK_XRAY_SLED_LOG_ARGS_ENTER], 1);
    assert_int_equal(seen[TK_XRAY_SLED_EXIT], N_FUNCS + 1);
    assert_int_equal(seen[TK_XRAY_SLED_CUSTOM_EVENT], 1);
    for (int i = 0; i < N_FUNCS; i++)
        assert_int_not_equal(id_named(m, map_funcs[i]), 0);
    uint64_t a;
    assert_false(tk_xray_map_function_address(m, 0, &a));
    assert_false(tk_xray_map_function_address(m, N_FUNCS + 2, &a));
    int32_t id;
    assert_false(tk_xray_map_function_id(m, 1, &id));
    tk_xray_map_free(m);

    /* -O2: map_tail's call of the noinline map_callee is a tail call */
    snprintf(p, sizeof p, "%s", tmp_path("o2"));
    m = open_ok(p);
    int32_t tail = id_named(m, "map_tail");
    assert_int_not_equal(tail, 0);
    int tails = 0;
    for (size_t i = 0; i < tk_xray_map_count(m); i++) {
        const tk_xray_sled *s = tk_xray_map_sled(m, i);
        if (s->kind == TK_XRAY_SLED_TAIL) {
            assert_int_equal(s->id, tail);
            tails++;
        }
    }
    assert_int_equal(tails, 1);
    tk_xray_map_free(m);
}

/* Relocatable objects (x86-64 and AArch64): fields come from relocations.
 * llvm-xray 14 reads only the first xray_instr_map section (clang emits one
 * per function): its output must be a prefix of ours, and ours must have the
 * sleds of every function, at the offsets the linker kept. */
/* st_value of symbol `name` in an ELF64 LE file, read by hand. */
static uint64_t symbol_value(const char *path, const char *name)
{
    size_t n;
    uint8_t *d = tu_read_file(path, &n);
    assert_non_null(d);
    Elf64_Ehdr eh;
    memcpy(&eh, d, sizeof eh);
    for (size_t i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr s, str;
        memcpy(&s, d + eh.e_shoff + i * sizeof s, sizeof s);
        if (s.sh_type != SHT_SYMTAB)
            continue;
        memcpy(&str, d + eh.e_shoff + s.sh_link * sizeof str, sizeof str);
        for (size_t k = 1; k < s.sh_size / sizeof(Elf64_Sym); k++) {
            Elf64_Sym sym;
            memcpy(&sym, d + s.sh_offset + k * sizeof sym, sizeof sym);
            if (!strcmp((const char *)d + str.sh_offset + sym.st_name, name)) {
                free(d);
                return sym.st_value;
            }
        }
    }
    fail_msg("%s: no symbol %s", path, name);
    return 0;
}

static void check_object(const char *obj, const char *linked, int events)
{
    char p[4096], q[4096];
    snprintf(p, sizeof p, "%s", tmp_path(obj));
    snprintf(q, sizeof q, "%s", tmp_path(linked));
    tk_xray_map *m = open_ok(p);
    for (int sym = 0; sym < 2; sym++) {
        char *want = llvm_extract(sym ? "-symbolize" : "", p);
        char *got = our_yaml(m, sym);
        size_t wl, gl;
        const char *wb = body_of(want, &wl), *gb = body_of(got, &gl);
        assert_true(wl > 0 && wl < gl);
        assert_memory_equal(wb, gb, wl);
        free(want);
        free(got);
    }
    assert_int_equal(tk_xray_map_max_id(m), N_FUNCS + 1);
    assert_int_equal(tk_xray_map_count(m), 2 * (N_FUNCS + 1) + events);
    /* function addresses are the symbols' offsets in .text */
    for (int i = 0; i < N_FUNCS; i++) {
        uint64_t a;
        assert_true(tk_xray_map_function_address(m, id_named(m, map_funcs[i]), &a));
        assert_int_equal(a, symbol_value(p, map_funcs[i]));
    }
    const tk_xray_sled *first = tk_xray_map_sled(m, 0);
    assert_int_equal(first->function, 0);
    assert_int_equal(first->address, 0);
    assert_int_equal(first->id, 1);
    /* function ids and names in .text order; offsets in .text grow */
    uint64_t prev = 0;
    for (int32_t id = 1; id <= tk_xray_map_max_id(m); id++) {
        uint64_t a;
        assert_true(tk_xray_map_function_address(m, id, &a));
        if (id > 1)
            assert_true(a > prev);
        prev = a;
        const char *name = tk_xray_map_name(m, id);
        int known = !strcmp(name, "main");
        for (int i = 0; i < N_FUNCS; i++)
            known |= !strcmp(name, map_funcs[i]);
        if (!known)
            fail_msg("%s: unexpected name '%s' for id %d", obj, name, id);
        /* no DWARF; the static map_leaf has the file of its STT_FILE */
        assert_string_equal(tk_xray_map_location(m, id),
                            !strcmp(name, "map_leaf") ? "map_prog.c:0:0"
                                                      : "<invalid>:0:0");
    }
    if (linked) {
        /* linked alone, the object's .text keeps its layout: each function
         * is at the same distance from map_mid */
        tk_xray_map *l = open_ok(q);
        uint64_t om, lm, oa, la;
        assert_true(tk_xray_map_function_address(m, id_named(m, "map_mid"), &om));
        assert_true(tk_xray_map_function_address(l, id_named(l, "map_mid"), &lm));
        for (int i = 0; i < N_FUNCS; i++) {
            assert_true(tk_xray_map_function_address(m, id_named(m, map_funcs[i]), &oa));
            assert_true(tk_xray_map_function_address(l, id_named(l, map_funcs[i]), &la));
            assert_int_equal(oa - om, la - lm);
        }
        for (size_t i = 0; i < tk_xray_map_count(m); i++) {
            const tk_xray_sled *s = tk_xray_map_sled(m, i), *t = tk_xray_map_sled(l, i);
            assert_int_equal(s->address - s->function, t->address - t->function);
            assert_int_equal(s->kind, t->kind);
            assert_int_equal(s->id, t->id);
        }
        tk_xray_map_free(l);
    }
    tk_xray_map_free(m);
}

static void test_objects(void **state)
{
    (void)state;
    check_object("x.o", "xlinked", 1);
    check_object("a64.o", NULL, 0); /* no custom-event sleds on AArch64 */
}

/* A .o with debug info: its DWARF is relocated before use. */
static void test_object_dwarf(void **state)
{
    (void)state;
    char p[4096];
    snprintf(p, sizeof p, "%s", tmp_path("xg.o"));
    tk_xray_map *m = open_ok(p);
    char want[64];
    for (int i = 0; i < N_FUNCS; i++) {
        char needle[64];
        snprintf(needle, sizeof needle, "int %s(", map_funcs[i]);
        snprintf(want, sizeof want, "map_prog.c:%d:0", line_of("map_prog.c", needle));
        assert_string_equal(tk_xray_map_location(m, id_named(m, map_funcs[i])), want);
    }
    tk_xray_map_free(m);
}

/* Locations: file:line:column from DWARF; without DWARF "<invalid>:0:0",
 * except that a static function takes the file of its STT_FILE symbol (as
 * llvm-xray 14 prints "map_prog.c:0:0"). */
static void test_locations(void **state)
{
    (void)state;
    char p[4096];
    snprintf(p, sizeof p, "%s", tmp_path("np"));
    tk_xray_map *m = open_ok(p);
    char want[64], needle[64];
    for (int i = 0; i < N_FUNCS; i++) {
        snprintf(needle, sizeof needle, "int %s(", map_funcs[i]);
        snprintf(want, sizeof want, "map_prog.c:%d:0", line_of("map_prog.c", needle));
        int32_t id = id_named(m, map_funcs[i]);
        assert_string_equal(tk_xray_map_location(m, id), want);
        /* cached: the same pointer */
        assert_ptr_equal(tk_xray_map_location(m, id), tk_xray_map_location(m, id));
    }
    /* main's body starts on the line of its brace */
    snprintf(want, sizeof want, "map_prog.c:%d:0", line_of("map_prog.c", "int main(") + 1);
    assert_string_equal(tk_xray_map_location(m, id_named(m, "main")), want);
    /* ids not in the map */
    assert_string_equal(tk_xray_map_location(m, 0), "(unknown)");
    assert_string_equal(tk_xray_map_location(m, 1000), "(unknown)");
    assert_string_equal(tk_xray_map_name(m, 1000), "#1000");
    assert_string_equal(tk_xray_map_name(m, -3), "#-3");
    const char *n1 = tk_xray_map_name(m, 1000);
    assert_ptr_equal(tk_xray_map_name(m, 1000), n1);
    tk_xray_map_free(m);

    snprintf(p, sizeof p, "%s", tmp_path("pie"));
    m = open_ok(p);
    for (int i = 0; i < N_FUNCS; i++) {
        int32_t id = id_named(m, map_funcs[i]);
        assert_int_not_equal(id, 0);
        assert_string_equal(tk_xray_map_location(m, id),
                            !strcmp(map_funcs[i], "map_leaf") ? "map_prog.c:0:0"
                                                              : "<invalid>:0:0");
    }
    tk_xray_map_free(m);

    /* no map at all */
    assert_string_equal(tk_xray_map_name(NULL, 7), "#7");
    assert_string_equal(tk_xray_map_location(NULL, 7), "(unknown)");
    const char *a = tk_xray_map_name(NULL, 1), *b = tk_xray_map_name(NULL, 2);
    assert_string_equal(a, "#1");
    assert_string_equal(b, "#2");
}

/* C++: demangled as llvm-xray does (and kept raw with -no-demangle). */
static void test_demangle(void **state)
{
    (void)state;
    tk_error err;
    assert_non_null(tk_xray_map_demangler());
    char p[4096];
    snprintf(p, sizeof p, "%s", tmp_path("cxx"));
    tk_xray_map *m = open_ok(p);
    static const char *const names[] = {
        "int outer::inner::twice<int>(int)",
        "double outer::inner::twice<double>(double)",
        "(anonymous namespace)::hidden(int)",
        "outer::inner::Widget::Widget(int)",
        "outer::inner::Widget::~Widget()",
        "outer::inner::Widget::get() const",
        "outer::inner::Widget::operator+=(int)",
        "outer::inner::Widget::make(char const*, unsigned long)",
        "Pair<int, Pair<long, char>*>::sum()",
        "map_c_linkage",
        "main"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!id_named(m, names[i]))
            fail_msg("no function named '%s'", names[i]);
    int32_t twice = id_named(m, "int outer::inner::twice<int>(int)");
    int32_t widget = id_named(m, "outer::inner::Widget::Widget(int)");
    char want[64];
    snprintf(want, sizeof want, "map_prog.cc:%d:0",
             line_of("map_prog.cc", "template <typename T> T twice("));
    assert_string_equal(tk_xray_map_location(m, twice), want);

    tk_xray_map_set_demangle(m, 0);
    assert_string_equal(tk_xray_map_name(m, twice), "_ZN5outer5inner5twiceIiEET_S2_");
    assert_string_equal(tk_xray_map_name(m, widget), "_ZN5outer5inner6WidgetC2Ei");
    assert_string_equal(tk_xray_map_name(m, id_named(m, "map_c_linkage")), "map_c_linkage");
    char *want_doc = llvm_extract("-symbolize -no-demangle", p);
    char *got = our_yaml(m, 1);
    assert_string_equal(got, want_doc);
    free(want_doc);
    free(got);
    tk_xray_map_set_demangle(m, 1);
    assert_string_equal(tk_xray_map_name(m, twice), "int outer::inner::twice<int>(int)");
    tk_xray_map_free(m);

    char *d = tk_xray_demangle("_ZN5outer5inner5twiceIiEET_S2_", &err);
    assert_string_equal(d, "int outer::inner::twice<int>(int)");
    free(d);
    d = tk_xray_demangle("_Z3fooPKcm", &err);
    assert_string_equal(d, "foo(char const*, unsigned long)");
    free(d);
    d = tk_xray_demangle("_Znot_mangled", &err);
    assert_string_equal(d, "_Znot_mangled");
    free(d);
    d = tk_xray_demangle("main", &err);
    assert_string_equal(d, "main");
    free(d);
}

/* Typed-event sleds (kind 5): clang emits them, llvm-xray 14 rejects them
 * ("Exec format error"); tracekit reads them. */
static void test_typed_event(void **state)
{
    (void)state;
    char p[4096];
    snprintf(p, sizeof p, "%s", tmp_path("typed.o"));
    int st;
    free(capture(&st, "%s extract '%s'", TK_LLVM_XRAY, p));
    assert_int_not_equal(st, 0);
    tk_xray_map *m = open_ok(p);
    assert_int_equal(tk_xray_map_count(m), 3);
    assert_int_equal(tk_xray_map_sled(m, 0)->kind, TK_XRAY_SLED_ENTRY);
    assert_int_equal(tk_xray_map_sled(m, 1)->kind, TK_XRAY_SLED_TYPED_EVENT);
    assert_int_equal(tk_xray_map_sled(m, 2)->kind, TK_XRAY_SLED_EXIT);
    assert_string_equal(tk_xray_map_name(m, 1), "map_typed");
    char *y = our_yaml(m, 1);
    assert_non_null(strstr(y, "kind: typed-event, always-instrument: false, "
                              "function-name: map_typed, version: 2 }"));
    free(y);
    tk_xray_map_free(m);
}

/* ------------------------------------------------- synthetic ELF files
 * Sections: null, xray_instr_map, relocations, .symtab (one global
 * function symbol in section 1), .strtab, .shstrtab. */

typedef struct syn_sled {
    uint64_t addr, fn;
    uint8_t kind, always, version;
} syn_sled;

typedef struct syn_rel {
    uint64_t off;
    uint32_t sym, type;
    int64_t addend;
} syn_rel;

static void put_shdr(tu_buf *b, uint32_t name, uint32_t type, uint64_t flags,
                     uint64_t addr, uint64_t off, uint64_t size, uint32_t link,
                     uint32_t info, uint64_t align, uint64_t entsize)
{
    Elf64_Shdr s = {name, type, flags, addr, off, size, link, info, align, entsize};
    tu_putn(b, &s, sizeof s);
}

static void pad8(tu_buf *b)
{
    while (b->len % 8)
        tu_put8(b, 0);
}

static void synth(const char *name, uint16_t etype, uint16_t machine,
                  uint64_t map_addr, const syn_sled *sleds, size_t ns,
                  const syn_rel *rels, size_t nr, uint64_t sym_value)
{
    static const char shstr[] = "\0xray_instr_map\0.rela\0.symtab\0.strtab\0.shstrtab";
    static const char strtab[] = "\0fn";
    tu_buf b = {0};
    Elf64_Ehdr eh;
    memset(&eh, 0, sizeof eh);
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = etype;
    eh.e_machine = machine;
    eh.e_version = EV_CURRENT;
    eh.e_ehsize = sizeof eh;
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shnum = 6;
    eh.e_shstrndx = 5;
    tu_putn(&b, &eh, sizeof eh);
    uint64_t off[5], len[5];
    off[0] = b.len;
    for (size_t i = 0; i < ns; i++) {
        tu_put64(&b, sleds[i].addr);
        tu_put64(&b, sleds[i].fn);
        tu_put8(&b, sleds[i].kind);
        tu_put8(&b, sleds[i].always);
        tu_put8(&b, sleds[i].version);
        for (int k = 0; k < 13; k++)
            tu_put8(&b, 0);
    }
    len[0] = b.len - off[0];
    pad8(&b);
    off[1] = b.len;
    for (size_t i = 0; i < nr; i++) {
        Elf64_Rela r = {rels[i].off, ELF64_R_INFO(rels[i].sym, rels[i].type),
                        rels[i].addend};
        tu_putn(&b, &r, sizeof r);
    }
    len[1] = b.len - off[1];
    pad8(&b);
    off[2] = b.len;
    Elf64_Sym sym[2];
    memset(sym, 0, sizeof sym);
    sym[1].st_name = 1;
    sym[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
    sym[1].st_shndx = 1;
    sym[1].st_value = sym_value;
    tu_putn(&b, sym, sizeof sym);
    len[2] = sizeof sym;
    off[3] = b.len;
    tu_putn(&b, strtab, sizeof strtab);
    len[3] = sizeof strtab;
    off[4] = b.len;
    tu_putn(&b, shstr, sizeof shstr);
    len[4] = sizeof shstr;
    pad8(&b);
    uint64_t shoff = b.len;
    memcpy(b.p + offsetof(Elf64_Ehdr, e_shoff), &shoff, sizeof shoff);
    put_shdr(&b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    put_shdr(&b, 1, SHT_PROGBITS, SHF_ALLOC, etype == ET_REL ? 0 : map_addr,
             off[0], len[0], 0, 0, 1, 0);
    put_shdr(&b, 16, SHT_RELA, 0, 0, off[1], len[1], 3, etype == ET_REL ? 1 : 0,
             8, sizeof(Elf64_Rela));
    put_shdr(&b, 22, SHT_SYMTAB, 0, 0, off[2], len[2], 4, 1, 8, sizeof(Elf64_Sym));
    put_shdr(&b, 30, SHT_STRTAB, 0, 0, off[3], len[3], 0, 0, 1, 0);
    put_shdr(&b, 38, SHT_STRTAB, 0, 0, off[4], len[4], 0, 0, 1, 0);
    tu_write_file(tmp_path(name), b.p, b.len);
    tu_buf_free(&b);
}

static void synth_vs_llvm(const char *name, int symbolize)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", tmp_path(name));
    tk_xray_map *m = open_ok(p);
    char *want = llvm_extract(symbolize ? "-symbolize" : "", p);
    char *got = our_yaml(m, symbolize);
    assert_string_equal(got, want);
    assert_sleds_match(m, want);
    free(want);
    free(got);
    tk_xray_map_free(m);
}

static void test_synthetic(void **state)
{
    (void)state;
    /* ET_DYN, version 0, fields 0 + R_X86_64_RELATIVE (addend) */
    syn_sled dyn[] = {{0, 0, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 1, 0}};
    syn_rel dynr[] = {{0x1000, 0, R_X86_64_RELATIVE, 0x2000},
                      {0x1008, 0, R_X86_64_RELATIVE, 0x2000},
                      {0x1020, 0, R_X86_64_RELATIVE, 0x2010},
                      {0x1028, 0, R_X86_64_RELATIVE, 0x2000},
                      {0x1040, 0, R_X86_64_RELATIVE, 0x3000},
                      {0x1048, 0, R_X86_64_RELATIVE, 0x3000}};
    synth("dyn_rel", ET_DYN, EM_X86_64, 0x1000, dyn, 3, dynr, 6, 0x2000);
    synth_vs_llvm("dyn_rel", 0);
    synth_vs_llvm("dyn_rel", 1); /* "fn" (size 0) covers every address */
    /* ET_REL, version 0, R_X86_64_64 = symbol + addend */
    syn_sled rel[] = {{0, 0, 0, 0, 0}, {0, 0, 1, 0, 0}};
    syn_rel relr[] = {{0, 1, R_X86_64_64, 4},
                      {8, 1, R_X86_64_64, 0},
                      {0x20, 1, R_X86_64_64, 0x10},
                      {0x28, 1, R_X86_64_64, 0}};
    synth("rel_abs", ET_REL, EM_X86_64, 0, rel, 2, relr, 4, 0x40);
    synth_vs_llvm("rel_abs", 0);
    /* ET_EXEC, version 1, absolute; a function whose sleds are not
     * contiguous gets two ids, address -> id keeping the last */
    syn_sled ex[] = {{0x401000, 0x401000, 0, 0, 1},
                     {0x401010, 0x401000, 2, 0, 1},
                     {0x402000, 0x402000, 3, 1, 1},
                     {0x401020, 0x401000, 1, 0, 1}};
    synth("exec_v1", ET_EXEC, EM_X86_64, 0x1000, ex, 4, NULL, 0, 0x100);
    synth_vs_llvm("exec_v1", 0);
    /* ET_DYN, version 2: PC-relative stored values */
    syn_sled v2[] = {{(uint64_t)0x500 - 0x1000, (uint64_t)0x500 - 0x1008, 0, 0, 2},
                     {(uint64_t)0x520 - 0x1020, (uint64_t)0x500 - 0x1028, 1, 0, 2}};
    synth("dyn_v2", ET_DYN, EM_X86_64, 0x1000, v2, 2, NULL, 0, 0x100);
    synth_vs_llvm("dyn_v2", 0);
    /* AArch64 ET_REL, version 2, R_AARCH64_PREL64 */
    syn_sled a64[] = {{0, 0, 0, 0, 2}, {0, 0, 1, 0, 2}};
    syn_rel a64r[] = {{0, 1, R_AARCH64_PREL64, 0},
                      {8, 1, R_AARCH64_PREL64, 0},
                      {0x20, 1, R_AARCH64_PREL64, 0x30},
                      {0x28, 1, R_AARCH64_PREL64, 0}};
    synth("a64_rel", ET_REL, EM_AARCH64, 0, a64, 2, a64r, 4, 0x40);
    synth_vs_llvm("a64_rel", 0);
    /* an empty section */
    synth("empty_map", ET_EXEC, EM_X86_64, 0x1000, NULL, 0, NULL, 0, 0x100);
    synth_vs_llvm("empty_map", 0);

    char p[4096];
    snprintf(p, sizeof p, "%s", tmp_path("exec_v1"));
    tk_xray_map *m = open_ok(p);
    assert_int_equal(tk_xray_map_max_id(m), 3);
    int32_t ids[4] = {1, 1, 2, 3};
    for (int i = 0; i < 4; i++)
        assert_int_equal(tk_xray_map_sled(m, (size_t)i)->id, ids[i]);
    uint64_t a;
    assert_true(tk_xray_map_function_address(m, 1, &a));
    assert_int_equal(a, 0x401000);
    assert_true(tk_xray_map_function_address(m, 3, &a));
    assert_int_equal(a, 0x401000);
    int32_t id;
    assert_true(tk_xray_map_function_id(m, 0x401000, &id));
    assert_int_equal(id, 3);
    /* "fn" at 0x100 has size 0: it covers every address above it, as in
     * LLVM's symbolizer */
    assert_string_equal(tk_xray_map_name(m, 2), "fn");
    tk_xray_map_free(m);

    synth("dyn_v2_high", ET_DYN, EM_X86_64, 0x1000, v2, 2, NULL, 0, 0x600);
    snprintf(p, sizeof p, "%s", tmp_path("dyn_v2_high"));
    m = open_ok(p);
    assert_string_equal(tk_xray_map_name(m, 1), "@(500)"); /* below "fn" */
    assert_string_equal(tk_xray_map_location(m, 1), "<invalid>:0:0");
    tk_xray_map_free(m);
}

/* ------------------------------------------------------------- YAML maps */

static void test_yaml_map(void **state)
{
    (void)state;
    char np[4096], y[4096];
    snprintf(np, sizeof np, "%s", tmp_path("np"));
    snprintf(y, sizeof y, "%s", tmp_path("np.yaml"));
    char *doc = llvm_extract("-symbolize", np);
    tu_write_file(y, doc, strlen(doc));
    tk_xray_map *e = open_ok(np), *m = open_ok(y);
    assert_true(tk_xray_map_is_yaml(m));
    assert_int_equal(tk_xray_map_count(m), tk_xray_map_count(e));
    for (size_t i = 0; i < tk_xray_map_count(m); i++) {
        const tk_xray_sled *a = tk_xray_map_sled(m, i), *b = tk_xray_map_sled(e, i);
        assert_int_equal(a->id, b->id);
        assert_int_equal(a->address, b->address);
        assert_int_equal(a->function, b->function);
        assert_int_equal(a->kind, b->kind);
        assert_int_equal(a->always_instrument, b->always_instrument);
        assert_int_equal(a->version, b->version);
    }
    for (int32_t id = 1; id <= tk_xray_map_max_id(e); id++) {
        assert_string_equal(tk_xray_map_name(m, id), tk_xray_map_name(e, id));
        assert_string_equal(tk_xray_map_location(m, id), "<invalid>:0:0");
    }
    assert_string_equal(tk_xray_map_name(m, 99), "#99");
    char *got = our_yaml(m, 1);
    assert_string_equal(got, doc);
    free(got);
    free(doc);
    doc = llvm_extract("", np);
    got = our_yaml(m, 0);
    assert_string_equal(got, doc);
    free(got);
    free(doc);
    tk_xray_map_free(m);
    tk_xray_map_free(e);

    /* ids as written; no name -> "@(hex)"; hex, octal and decimal numbers */
    static const char hand[] =
        "---\n"
        "- { id: 5, address: 0x10, function: 0x10, kind: function-enter, "
        "always-instrument: true }\n"
        "- { id: 5, address: 020, function: 16, kind: tail-exit, "
        "always-instrument: false, function-name: '', version: 2 }\n"
        "- { id: 9, address: 0x30, function: 0x30, kind: typed-event, "
        "always-instrument: false, function-name: _Z3fooi }\n"
        "...\n";
    tu_write_file(y, hand, sizeof hand - 1);
    m = open_ok(y);
    assert_int_equal(tk_xray_map_count(m), 3);
    assert_int_equal(tk_xray_map_max_id(m), 9);
    assert_int_equal(tk_xray_map_sled(m, 1)->address, 16);
    assert_int_equal(tk_xray_map_sled(m, 1)->function, 16);
    assert_int_equal(tk_xray_map_sled(m, 1)->version, 2);
    assert_int_equal(tk_xray_map_sled(m, 0)->always_instrument, 1);
    assert_int_equal(tk_xray_map_sled(m, 2)->kind, TK_XRAY_SLED_TYPED_EVENT);
    assert_string_equal(tk_xray_map_name(m, 5), "@(10)");
    assert_string_equal(tk_xray_map_name(m, 9), "foo(int)");
    assert_string_equal(tk_xray_map_name(m, 6), "#6");
    assert_string_equal(tk_xray_map_location(m, 6), "(unknown)");
    got = our_yaml(m, 1);
    assert_string_equal(got,
        "---\n"
        "- { id: 5, address: 0x10, function: 0x10, kind: function-enter, "
        "always-instrument: true, function-name: '@(10)' }\n"
        "- { id: 5, address: 0x10, function: 0x10, kind: tail-exit, "
        "always-instrument: false, function-name: '@(10)', version: 2 }\n"
        "- { id: 9, address: 0x30, function: 0x30, kind: typed-event, "
        "always-instrument: false, function-name: 'foo(int)' }\n"
        "...\n");
    free(got);
    tk_xray_map_free(m);

    static const char empty[] = "---\n[]\n...\n";
    tu_write_file(y, empty, sizeof empty - 1);
    m = open_ok(y);
    assert_int_equal(tk_xray_map_count(m), 0);
    got = our_yaml(m, 1);
    assert_string_equal(got, empty);
    free(got);
    tk_xray_map_free(m);

    /* errors carry line:column */
    static const struct {
        const char *text, *msg;
        uint64_t line, col;
    } bad[] = {
        {"- { id: 1, address: 0x10, function: 0x10, kind: function-enter }\n",
         "missing required key 'always-instrument'", 1, 3},
        {"- { id: 1, address: 0x10, function: 0x10, kind: enter, "
         "always-instrument: true }\n",
         "unknown sled kind 'enter'", 1, 49},
        {"---\n- { id: 1, address: 0x1G, function: 0x10, kind: function-enter, "
         "always-instrument: true }\n",
         "invalid address '0x1G'", 2, 21},
        {"- { id: 1, adress: 0x10 }\n", "unknown key 'adress'", 1, 12},
        {"- { id: 99999999999, address: 1, function: 1, kind: function-exit, "
         "always-instrument: false }\n", "invalid id", 1, 9},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tu_write_file(y, bad[i].text, strlen(bad[i].text));
        tk_error err;
        assert_null(tk_xray_map_open(y, &err));
        assert_int_equal(err.status, TK_EMALFORMED);
        if (!strstr(err.message, bad[i].msg))
            fail_msg("'%s' lacks '%s'", err.message, bad[i].msg);
        assert_int_equal(err.line, bad[i].line);
        assert_int_equal(err.col, bad[i].col);
    }
}

/* ---------------------------------------------------------------- errors */

/* Offset of the section header of `name` in an ELF64 LE image. */
static size_t shdr_of(const uint8_t *d, size_t n, const char *name)
{
    Elf64_Ehdr eh;
    assert_true(n >= sizeof eh);
    memcpy(&eh, d, sizeof eh);
    Elf64_Shdr strs;
    memcpy(&strs, d + eh.e_shoff + (size_t)eh.e_shstrndx * sizeof strs, sizeof strs);
    for (size_t i = 0; i < eh.e_shnum; i++) {
        size_t off = eh.e_shoff + i * sizeof(Elf64_Shdr);
        Elf64_Shdr s;
        memcpy(&s, d + off, sizeof s);
        if (!strcmp((const char *)d + strs.sh_offset + s.sh_name, name))
            return off;
    }
    fail_msg("no section %s", name);
    return 0;
}

static void expect_error(const char *path, tk_status status, const char *msg,
                         uint64_t offset)
{
    tk_error err;
    tk_xray_map *m = tk_xray_map_open(path, &err);
    if (m)
        fail_msg("%s opened", path);
    assert_int_equal(err.status, status);
    if (!strstr(err.message, msg))
        fail_msg("%s: '%s' lacks '%s'", path, err.message, msg);
    assert_int_equal(err.offset, offset);
}

static void test_errors(void **state)
{
    (void)state;
    char p[4096];
    static const uint8_t junk[] = {0x00, 0x01, 0x02, 0xfe, 0xff, 0x10, 0x7f};
    snprintf(p, sizeof p, "%s", tmp_path("junk.bin"));
    tu_write_file(p, junk, sizeof junk);
    expect_error(p, TK_EMALFORMED, "not an ELF file nor a YAML instrumentation map",
                 TK_NO_OFFSET);
    tu_write_file(p, "", 0);
    expect_error(p, TK_EMALFORMED, "empty file", 0);
    tu_write_file(p, "hello\n", 6);
    expect_error(p, TK_EMALFORMED, "not a sequence of sleds", TK_NO_OFFSET);
    expect_error("/nonexistent/x", TK_EIO, "cannot open", TK_NO_OFFSET);

    const char *nosec = "no xray_instr_map section";
    snprintf(p, sizeof p, "%s", tmp_path("plain.o"));
    expect_error(p, TK_EMALFORMED, nosec, TK_NO_OFFSET);
    if (access("/bin/true", R_OK) == 0)
        expect_error("/bin/true", TK_EMALFORMED, nosec, TK_NO_OFFSET);
    snprintf(p, sizeof p, "%s", tmp_path("m32.o"));
    if (access(p, R_OK) == 0)
        expect_error(p, TK_EUNSUPPORTED, "32-bit ELF", EI_CLASS);
    snprintf(p, sizeof p, "%s", tmp_path("be.o"));
    if (access(p, R_OK) == 0)
        expect_error(p, TK_EUNSUPPORTED, "big-endian ELF", EI_DATA);

    /* damaged copies of np */
    snprintf(p, sizeof p, "%s", tmp_path("np"));
    size_t n;
    uint8_t *d = tu_read_file(p, &n);
    assert_non_null(d);
    size_t sh = shdr_of(d, n, "xray_instr_map");
    Elf64_Shdr s;
    memcpy(&s, d + sh, sizeof s);
    uint8_t *c = malloc(n);
    assert_non_null(c);
    snprintf(p, sizeof p, "%s", tmp_path("damaged"));

    memcpy(c, d, n); /* size not a multiple of 32 */
    Elf64_Shdr t = s;
    t.sh_size -= 8;
    memcpy(c + sh, &t, sizeof t);
    tu_write_file(p, c, n);
    expect_error(p, TK_EMALFORMED, "is not a multiple of the 32-byte sled entry size",
                 s.sh_offset);

    memcpy(c, d, n); /* section past the end of the file */
    t = s;
    t.sh_offset = n - 64;
    memcpy(c + sh, &t, sizeof t);
    tu_write_file(p, c, n);
    expect_error(p, TK_EMALFORMED, "extends past the end of the file", n - 64);

    memcpy(c, d, n); /* unknown kind in sled 1 */
    c[s.sh_offset + 32 + 16] = 9;
    tu_write_file(p, c, n);
    expect_error(p, TK_EMALFORMED, "sled 1 has an unknown kind 9",
                 s.sh_offset + 32 + 16);

    tu_write_file(p, d, 3000); /* truncated file: no section headers left */
    Elf64_Ehdr eh;
    memcpy(&eh, d, sizeof eh);
    expect_error(p, TK_EMALFORMED, "extends past the end of the file", eh.e_shoff);
    tu_write_file(p, d, 40); /* truncated ELF header */
    expect_error(p, TK_EMALFORMED, "truncated ELF header", 40);

    free(c);
    free(d);
}

/* ------------------------------------------------------------------ main */

static int setup(void **state)
{
    (void)state;
    tmp = tu_tmpdir();
    build(TK_CLANG, "-O0 -g -no-pie", "map_prog.c", "np");
    build(TK_CLANG, "-O0 -fPIE -pie", "map_prog.c", "pie");
    build(TK_CLANG, "-O0 -shared -fPIC", "map_prog.c", "so.so");
    build(TK_CLANG, "-O2 -g", "map_prog.c", "o2");
    build(TK_CLANG, "-O0 -c", "map_prog.c", "x.o");
    build(TK_CLANG, "-O0 -g -c", "map_prog.c", "xg.o");
    build(TK_CLANG, "-O0 -no-pie", "map_prog.c", "xlinked");
    build(TK_CLANG, "--target=aarch64-linux-gnu -O0 -c", "map_prog.c", "a64.o");
    build(TK_CLANG, "-O2 -c", "map_typed.c", "typed.o");
    build(TK_CLANGXX, "-O0 -g", "map_prog.cc", "cxx");
    if (run("%s -c '%s/map_typed.c' -o '%s'", TK_CLANG, PROG_DIR, tmp_path("plain.o")) != 0)
        fail_msg("cannot compile plain.o");
    /* optional targets: the tests using them skip when they fail */
    run("%s -m32 -c '%s/map_typed.c' -o '%s' 2>/dev/null", TK_CLANG, PROG_DIR,
        tmp_path("m32.o"));
    run("%s --target=powerpc64-linux-gnu -c '%s/map_typed.c' -o '%s' 2>/dev/null",
        TK_CLANG, PROG_DIR, tmp_path("be.o"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (getenv("TK_KEEP_TMP"))
        fprintf(stderr, "kept %s\n", tmp);
    else
        tu_rmdir(tmp);
    return 0;
}

int main(void)
{
    if (!tool_ok(TK_CLANG) || !tool_ok(TK_CLANGXX) || !tool_ok(TK_LLVM_XRAY)) {
        fprintf(stderr, "skipped: clang, clang++ or llvm-xray not found\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linked_vs_llvm),
        cmocka_unit_test(test_linked_contents),
        cmocka_unit_test(test_objects),
        cmocka_unit_test(test_object_dwarf),
        cmocka_unit_test(test_locations),
        cmocka_unit_test(test_demangle),
        cmocka_unit_test(test_typed_event),
        cmocka_unit_test(test_synthetic),
        cmocka_unit_test(test_yaml_map),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
