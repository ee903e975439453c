/* C++ names as llvm-xray prints them. Only Itanium names (_Z...) are
 * demangled, as LLVM's symbolizer does (LLVMSymbolizer::DemangleName), and
 * with LLVM's own demangler, llvm::itaniumDemangle, from libLLVM: GCC's
 * (libiberty) spells many names differently ({lambda(int)#1} for
 * 'lambda'(int), "operator< <char>", "> >", inheriting constructors named
 * after the base) and gets some wrong ("thread<main::$_0, , void>").
 *
 * libLLVM is loaded with dlopen on the first Itanium name, never for C
 * programs: it is big (libLLVM-14: 110 MB, 335 000 relocations, ~15 ms to
 * load), too slow to load at every start. Without it (or with
 * TRACEKIT_NO_LLVM_DEMANGLE set, or in a fully static program: core/dl.h)
 * the fallback is libiberty's cplus_demangle_v3 when linked in
 * (TK_HAVE_LIBIBERTY), else libstdc++'s __cxa_demangle loaded at run time
 * (both are GCC's cp-demangle.c), else names stay mangled. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef TK_HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

#include <tracekit/xray_map.h>

#include "core/dl.h"

/* char *llvm::itaniumDemangle(const char *mangled, char *buf, size_t *n,
 * int *status) and std::__cxa_demangle share this signature: the result is
 * malloc'd, *status 0 on success. A libLLVM where the C++ signature (and
 * so the symbol) is another is skipped. */
typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* LLVM 14 first: llvm-xray-14 and llvm-cxxfilt-14 are the reference. */
static const char *const llvm_libs[] = {
    "libLLVM-14.so.1", "libLLVM-14.so", "libLLVM-15.so.1", "libLLVM-15.so",
    "libLLVM-16.so.1", "libLLVM-16.so", "libLLVM.so"};

static struct {
    demangle_fn fn;
    const char *lib; /* the soname loaded, reported by tk_xray_map_demangler */
} llvm;
static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

static void llvm_load(void)
{
    const char *off = getenv("TRACEKIT_NO_LLVM_DEMANGLE");
    if (off && *off)
        return;
    for (size_t i = 0; i < sizeof llvm_libs / sizeof *llvm_libs; i++) {
        void *h = tk_dlopen(llvm_libs[i], RTLD_LAZY | RTLD_LOCAL);
        if (!h)
            continue;
        void *sym = dlsym(h, "_ZN4llvm15itaniumDemangleEPKcPcPmPi");
        if (sym) {
            /* POSIX: dlsym's object pointer converts to a function pointer.
             * The library stays loaded (libLLVM is NODELETE anyway). */
            memcpy(&llvm.fn, &sym, sizeof sym);
            llvm.lib = llvm_libs[i];
            return;
        }
        dlclose(h);
    }
}

#ifndef TK_HAVE_LIBIBERTY
static demangle_fn cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void cxa_load(void)
{
    void *h = tk_dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    if (!h)
        return;
    void *sym = dlsym(h, "__cxa_demangle");
    if (sym)
        memcpy(&cxa_demangle, &sym, sizeof sym);
    /* stays loaded: the function pointer is kept */
}
#endif

/* A malloc'd demangling through fn, or NULL on failure. */
static char *call_demangler(demangle_fn fn, const char *name)
{
    int status = -1;
    char *d = fn(name, NULL, NULL, &status);
    if (d && status == 0)
        return d;
    free(d);
    return NULL;
}

static char *fallback_demangle(const char *name)
{
#ifdef TK_HAVE_LIBIBERTY
    return cplus_demangle_v3(name, DMGL_PARAMS | DMGL_ANSI);
#else
    pthread_once(&cxa_once, cxa_load);
    return cxa_demangle ? call_demangler(cxa_demangle, name) : NULL;
#endif
}

/* LLVM's demangler recurses once per nesting level, with no depth limit,
 * using up to ~175 bytes of stack per byte of name (measured, LLVM 14): a
 * long name (crafted, or from heavy template code) would overflow the
 * caller's stack (llvm-cxxfilt crashes on 80 KB names). Long names are
 * demangled on a thread whose stack is sized to them. */
enum { INLINE_MAX = 2048, STACK_PER_BYTE = 512, STACK_BASE = 256 << 10 };

struct llvm_job {
    const char *name;
    char *out;
};

static void *llvm_job_run(void *arg)
{
    struct llvm_job *j = arg;
    j->out = call_demangler(llvm.fn, j->name);
    return NULL;
}

static char *llvm_demangle(const char *name)
{
    size_t len = strlen(name);
    if (len <= INLINE_MAX)
        return call_demangler(llvm.fn, name);
    struct llvm_job j = {name, NULL};
    pthread_attr_t attr;
    pthread_t t;
    if (len > (SIZE_MAX - STACK_BASE) / STACK_PER_BYTE ||
        pthread_attr_init(&attr) != 0)
        return fallback_demangle(name);
    size_t stack = STACK_BASE + len * STACK_PER_BYTE;
    int ok = pthread_attr_setstacksize(&attr, stack) == 0 &&
             pthread_create(&t, &attr, llvm_job_run, &j) == 0;
    pthread_attr_destroy(&attr);
    if (!ok) /* GCC's demangler has a recursion limit */
        return fallback_demangle(name);
    pthread_join(t, NULL);
    return j.out;
}

const char *tk_xray_map_demangler(void)
{
    pthread_once(&llvm_once, llvm_load);
    if (llvm.fn)
        return llvm.lib;
#ifdef TK_HAVE_LIBIBERTY
    return "libiberty";
#else
    pthread_once(&cxa_once, cxa_load);
    return cxa_demangle ? "libstdc++" : NULL;
#endif
}

char *tk_xray_demangle(const char *name, tk_error *err)
{
    if (name[0] == '_' && name[1] == 'Z') {
        pthread_once(&llvm_once, llvm_load);
        char *d = llvm.fn ? llvm_demangle(name) : fallback_demangle(name);
        if (d)
            return d;
    }
    char *copy = strdup(name);
    if (!copy)
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return copy;
}
