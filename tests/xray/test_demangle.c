/* C++ names exactly as LLVM prints them: tk_xray_demangle against
 * llvm-cxxfilt on every Itanium symbol of C++ programs compiled now
 * (programs/names.cc holds the shapes GCC's demangler spells differently:
 * lambdas, operator templates, `>>`, inheriting constructors, std::thread
 * started with a lambda; programs/map_prog.cc and acct_fdr.cc), the
 * instrumentation-map names against `llvm-xray extract -symbolize`, first
 * use from several threads at once, and names nested deeper than a thread
 * stack would hold. Skips (77) without clang++, llvm-cxxfilt, llvm-xray or
 * a libLLVM exporting llvm::itaniumDemangle. */
#include <dlfcn.h>
#include <gelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools.h"
#include "testutil.h"
#include <tracekit/xray_map.h>

#define PROG_DIR TK_XRAY_TEST_DIR "/programs"
#define XRAY_FLAGS "-fxray-instrument -fxray-instruction-threshold=1"

static char *tmp;

/* The programs, their compiler flags, and the map names that must be
 * there (the troublesome shapes, in LLVM's spelling). */
static const struct {
    const char *src, *flags, *out;
} programs[] = {
    {"names.cc", "-O0 -pthread", "names"},
    {"names.cc", "-O2 -pthread", "names_o2"},
    {"map_prog.cc", "-O0 -g", "map_cxx"},
    {"acct_fdr.cc", "-O0", "acct_fdr"},
};
enum { N_PROGRAMS = sizeof programs / sizeof *programs };

/* Every distinct Itanium symbol name of the programs, and llvm-cxxfilt's
 * line for each. */
static char **names, **want;
static size_t n_names, cap_names;

/* ------------------------------------------------------------ helpers */


/* The libLLVM tracekit should find (its first choices), as the skip test:
 * 1 if one of them loads and exports llvm::itaniumDemangle. */
static int llvm_present(void)
{
    static const char *const libs[] = {"libLLVM-14.so.1", "libLLVM-15.so.1",
                                       "libLLVM-16.so.1"};
    for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
        void *h = dlopen(libs[i], RTLD_LAZY | RTLD_LOCAL);
        int ok = h && dlsym(h, "_ZN4llvm15itaniumDemangleEPKcPcPmPi");
        if (h)
            dlclose(h);
        if (ok)
            return 1;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_name(const char *s)
{
    if (n_names == cap_names) {
        cap_names = cap_names ? 2 * cap_names : 1024;
        names = realloc(names, cap_names * sizeof *names);
        assert_non_null(names);
    }
    names[n_names] = strdup(s);
    assert_non_null(names[n_names]);
    n_names++;
}

/* The _Z... names of the symbols the file defines (.symtab and .dynsym),
 * the names symbolization can meet. (Undefined ones carry their version in
 * .symtab, "name@GLIBCXX_3.4", which llvm-cxxfilt splits.) */
static void collect_symbols(const char *path)
{
    size_t size;
    uint8_t *img = tu_read_file(path, &size);
    assert_non_null(img);
    assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
    Elf *e = elf_memory((char *)img, size);
    assert_non_null(e);
    size_t before = n_names;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        assert_non_null(gelf_getshdr(scn, &sh));
        if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        assert_non_null(d);
        for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym s;
            assert_non_null(gelf_getsym(d, (int)i, &s));
            const char *name = elf_strptr(e, sh.sh_link, s.st_name);
            if (s.st_shndx != SHN_UNDEF && name && name[0] == '_' && name[1] == 'Z')
                add_name(name);
        }
    }
    elf_end(e);
    free(img);
    if (n_names - before < 50)
        fail_msg("%s: only %zu Itanium symbols", path, n_names - before);
}

/* Sort and drop duplicates. */
static void unique_names(void)
{
    qsort(names, n_names, sizeof *names, cmp_str);
    size_t j = 0;
    for (size_t i = 0; i < n_names; i++) {
        if (j && !strcmp(names[j - 1], names[i])) {
            free(names[i]);
            continue;
        }
        names[j++] = names[i];
    }
    n_names = j;
}

/* All names through one llvm-cxxfilt process: one output line each. */
static void cxxfilt_all(void)
{
    char in[4096], out[4096];
    snprintf(in, sizeof in, "%s", tu_path(tmp, "names.txt"));
    snprintf(out, sizeof out, "%s", tu_path(tmp, "cxxfilt.txt"));
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    for (size_t i = 0; i < n_names; i++)
        fprintf(f, "%s\n", names[i]);
    assert_int_equal(fclose(f), 0);
    if (run("'%s' < '%s' > '%s'", TK_LLVM_CXXFILT, in, out) != 0)
        fail_msg("llvm-cxxfilt failed");
    size_t n;
    char *text = (char *)tu_read_file(out, &n);
    assert_non_null(text);
    text[n] = '\0';
    want = calloc(n_names, sizeof *want);
    assert_non_null(want);
    char *p = text;
    for (size_t i = 0; i < n_names; i++) {
        char *nl = strchr(p, '\n');
        if (!nl)
            fail_msg("llvm-cxxfilt printed %zu lines for %zu names", i, n_names);
        *nl = '\0';
        want[i] = strdup(p);
        p = nl + 1;
    }
    assert_string_equal(p, "");
    free(text);
}

/* Names whose demangling differs from llvm-cxxfilt's; the first few are
 * printed. */
static size_t count_differences(int print)
{
    tk_error err;
    size_t bad = 0;
    for (size_t i = 0; i < n_names; i++) {
        char *got = tk_xray_demangle(names[i], &err);
        if (!got || strcmp(got, want[i]) != 0) {
            if (print && bad < 5)
                print_message("  %s\n    tracekit:     %s\n    llvm-cxxfilt: %s\n",
                              names[i], got ? got : "(null)", want[i]);
            bad++;
        }
        free(got);
    }
    return bad;
}

/* ------------------------------------------------------------- tests */

static void *thread_differences(void *arg)
{
    *(size_t *)arg = count_differences(0);
    return NULL;
}

/* The first use (which loads libLLVM) from 4 threads at once. Runs first. */
static void test_first_use_threads(void **state)
{
    (void)state;
    pthread_t t[4];
    size_t bad[4];
    int started = 0, joined = 0;
    while (started < 4 &&
           pthread_create(&t[started], NULL, thread_differences, &bad[started]) == 0)
        started++;
    for (int i = 0; i < started; i++) /* all joined before an assertion leaves */
        joined += pthread_join(t[i], NULL) == 0;
    assert_int_equal(started, 4);
    assert_int_equal(joined, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(bad[i], 0);
}

/* Every Itanium symbol of the programs, as llvm-cxxfilt prints it. */
static void test_vs_cxxfilt(void **state)
{
    (void)state;
    const char *which = tk_xray_map_demangler();
    assert_non_null(which);
    if (strncmp(which, "libLLVM-", 8) != 0)
        fail_msg("demangler in use: %s (libLLVM expected)", which);
    size_t bad = count_differences(1);
    print_message("demangler %s: %zu names compared with llvm-cxxfilt, "
                  "%zu identical\n", which, n_names, n_names - bad);
    assert_int_equal(bad, 0);
    /* the shapes GCC's demangler spells differently are among them */
    static const char *const shapes[] = {
        "shapes::Derived::Derived(int)",
        "shapes::Derived::Derived(int, char const*)",
        "bool shapes::operator<<char>(shapes::Box<char> const&, "
        "shapes::Box<char> const&)",
        "int shapes::operator<<<int>(shapes::Box<int> const&, int)",
        "shapes::nested(int)::'lambda'(int)::operator()(int) const::"
        "'lambda'(int)::operator()(int) const",
        "int shapes::apply_twice<int>(int)::'lambda'(int)::operator()(int) const",
        "auto shapes::generic(int)::'lambda'(auto, auto)::"
        "operator()<int, int>(auto, auto) const",
        "std::thread::thread<main::$_0, void>(main::$_0&&)",
        "int shapes::depth<int>(std::vector<std::vector<int, std::allocator<int> >, "
        "std::allocator<std::vector<int, std::allocator<int> > > > const&)",
        "void std::_Construct<std::vector<int, std::allocator<int> > >"
        "(std::vector<int, std::allocator<int> >*)",
        "int shapes::constant<3, true, (char)120>()",
        "(anonymous namespace)::Hidden::twice() const",
    };
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        size_t i = 0;
        while (i < n_names && strcmp(want[i], shapes[s]) != 0)
            i++;
        if (i == n_names)
            fail_msg("no symbol demangles to '%s'", shapes[s]);
    }
}

/* Map names (tk_xray_map_name) as `llvm-xray extract -symbolize`. */
static void test_map_names(void **state)
{
    (void)state;
    for (size_t p = 0; p < N_PROGRAMS; p++) {
        char path[4096];
        snprintf(path, sizeof path, "%s", tu_path(tmp, programs[p].out));
        tk_error err;
        tk_xray_map *m = tk_xray_map_open(path, &err);
        if (!m)
            fail_msg("%s: %s", path, err.message);
        tu_capture ours;
        tu_capture_open(&ours);
        assert_int_equal(tk_xray_map_write_yaml(m, ours.fp, 1, &err), TK_OK);
        char *got = tu_capture_close(&ours);
        char out[4200];
        snprintf(out, sizeof out, "%s.yaml", path);
        if (run("'%s' extract -symbolize '%s' > '%s' 2>/dev/null", TK_LLVM_XRAY,
                path, out) != 0)
            fail_msg("llvm-xray extract -symbolize %s failed", path);
        size_t n;
        char *doc = (char *)tu_read_file(out, &n);
        assert_non_null(doc);
        doc[n] = '\0';
        assert_string_equal(got, doc);
        /* -O2 inlines the lambdas; YAML doubles the quotes */
        if (!strcmp(programs[p].out, "names"))
            assert_non_null(strstr(got, "::''lambda''(int)::operator()(int) const"));
        free(doc);
        free(got);
        tk_xray_map_free(m);
    }
}

/* "f(int**...*)" with `depth` stars, from _Z1fP...Pi. */
static void assert_deep(size_t depth)
{
    tk_error err;
    char *mangled = malloc(depth + 6), *expect = malloc(depth + 7);
    assert_true(mangled && expect);
    memcpy(mangled, "_Z1f", 4);
    memset(mangled + 4, 'P', depth);
    strcpy(mangled + 4 + depth, "i");
    memcpy(expect, "f(int", 5);
    memset(expect + 5, '*', depth);
    strcpy(expect + 5 + depth, ")");
    char *got = tk_xray_demangle(mangled, &err);
    assert_non_null(got);
    assert_string_equal(got, expect);
    free(got);
    free(mangled);
    free(expect);
}

/* LLVM's demangler recurses per nesting level without a limit
 * (llvm-cxxfilt overflows an 8 MiB stack at ~80 KB): short names, names
 * around the inline limit and a 400 KB one all come out whole. Plus names
 * that are not Itanium, or not valid, stay as they are. */
static void test_deep_and_invalid(void **state)
{
    (void)state;
    tk_error err;
    static const size_t depths[] = {1, 100, 2000, 2043, 2044, 2100, 400000};
    for (size_t i = 0; i < sizeof depths / sizeof *depths; i++)
        assert_deep(depths[i]);
    static const char *const kept[] = {"main", "_Znot_mangled", "_Z", "",
                                       "_ZN5outer", "__Z3foov", "Z3foov"};
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
        char *d = tk_xray_demangle(kept[i], &err);
        assert_non_null(d);
        assert_string_equal(d, kept[i]);
        free(d);
    }
    char *d = tk_xray_demangle("_ZN6__xray13GlobalOptionsE.0", &err);
    assert_string_equal(d, "__xray::GlobalOptions (.0)");
    free(d);
}

/* ------------------------------------------------------------------ main */

static int setup(void **state)
{
    (void)state;
    tmp = tu_tmpdir();
    for (size_t p = 0; p < N_PROGRAMS; p++) {
        char out[4096];
        snprintf(out, sizeof out, "%s", tu_path(tmp, programs[p].out));
        if (run("'%s' %s %s '%s/%s' -o '%s'", TK_CLANGXX, XRAY_FLAGS,
                programs[p].flags, PROG_DIR, programs[p].src, out) != 0)
            fail_msg("cannot compile %s (%s)", programs[p].src, programs[p].flags);
        collect_symbols(out);
    }
    unique_names();
    cxxfilt_all();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < n_names; i++) {
        free(names[i]);
        free(want[i]);
    }
    free(names);
    free(want);
    if (getenv("TK_KEEP_TMP"))
        fprintf(stderr, "kept %s\n", tmp);
    else
        tu_rmdir(tmp);
    return 0;
}

int main(void)
{
    if (!tool_ok(TK_CLANGXX) || !tool_ok(TK_LLVM_CXXFILT) ||
        !tool_ok(TK_LLVM_XRAY) || !llvm_present()) {
        fprintf(stderr, "skipped: clang++, llvm-cxxfilt, llvm-xray or libLLVM "
                        "not found\n");
        return 77;
    }
    unsetenv("TRACEKIT_NO_LLVM_DEMANGLE"); /* read at the first use */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_use_threads),
        cmocka_unit_test(test_vs_cxxfilt),
        cmocka_unit_test(test_map_names),
        cmocka_unit_test(test_deep_and_invalid),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
