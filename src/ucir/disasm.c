/* Unicorn arch/mode to capstone, and one-instruction decoding. capstone
 * (libcapstone) rather than a decoder of our own: it covers every
 * architecture Unicorn emulates and is what Unicorn's users already use.
 *
 * It is loaded with dlopen on first use: its tables carry ~77 000 dynamic
 * relocations, which would add milliseconds to the start of every tracekit
 * command (a replay seek's whole budget is 50 ms). Without the library
 * (or in a fully static program: core/dl.h) the dump shows no
 * disassembly. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <capstone/capstone.h>
#include <tracekit/ucir.h>
#include <tracekit/ucir_replay.h>

#include "core/dl.h"
#include "ucir/disasm.h"

#ifndef TK_CAPSTONE_SONAME
#define TK_CAPSTONE_SONAME "libcapstone.so.4"
#endif

static struct {
    cs_err (*open)(cs_arch, cs_mode, csh *);
    cs_err (*close)(csh *);
    cs_insn *(*malloc)(csh);
    void (*free)(cs_insn *, size_t);
    bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
    int ok;
} cs;

static pthread_once_t cs_once = PTHREAD_ONCE_INIT;

static void cs_load(void)
{
    void *h = tk_dlopen(TK_CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    /* POSIX: dlsym's object pointer converts to a function pointer */
    *(void **)&cs.open = dlsym(h, "cs_open");
    *(void **)&cs.close = dlsym(h, "cs_close");
    *(void **)&cs.malloc = dlsym(h, "cs_malloc");
    *(void **)&cs.free = dlsym(h, "cs_free");
    *(void **)&cs.disasm_iter = dlsym(h, "cs_disasm_iter");
    cs.ok = cs.open && cs.close && cs.malloc && cs.free && cs.disasm_iter;
}

struct ucir_disasm {
    csh handle;
    cs_insn *insn;
};

/* Unicorn mode bits (notes/usercorn.md §3). */
enum { UC_THUMB = 16, UC_MCLASS = 32, UC_V8 = 64, UC_BIG = 1 << 30 };

static int capstone_machine(uint32_t arch, uint32_t mode, cs_arch *ca, cs_mode *cm)
{
    int m = (mode & UC_BIG) ? CS_MODE_BIG_ENDIAN : CS_MODE_LITTLE_ENDIAN;
    switch (arch) {
    case TK_UCIR_ARCH_X86:
        *ca = CS_ARCH_X86;
        m = mode & TK_UCIR_MODE_64 ? CS_MODE_64 : mode & TK_UCIR_MODE_16 ? CS_MODE_16 : CS_MODE_32;
        break;
    case TK_UCIR_ARCH_ARM:
        *ca = CS_ARCH_ARM;
        m |= mode & UC_THUMB ? CS_MODE_THUMB : CS_MODE_ARM;
        m |= mode & UC_MCLASS ? CS_MODE_MCLASS : 0;
        m |= mode & UC_V8 ? CS_MODE_V8 : 0;
        break;
    case TK_UCIR_ARCH_ARM64:
        *ca = CS_ARCH_ARM64;
        break;
    case TK_UCIR_ARCH_MIPS:
        *ca = CS_ARCH_MIPS;
        m |= mode & TK_UCIR_MODE_64 ? CS_MODE_MIPS64 : CS_MODE_MIPS32;
        break;
    case TK_UCIR_ARCH_PPC:
        *ca = CS_ARCH_PPC;
        m = CS_MODE_BIG_ENDIAN | (mode & TK_UCIR_MODE_64 ? CS_MODE_64 : CS_MODE_32);
        break;
    case TK_UCIR_ARCH_SPARC:
        *ca = CS_ARCH_SPARC;
        m = CS_MODE_BIG_ENDIAN | (mode & TK_UCIR_MODE_64 ? CS_MODE_V9 : 0);
        break;
    case TK_UCIR_ARCH_M68K:
        *ca = CS_ARCH_M68K;
        m = CS_MODE_BIG_ENDIAN | CS_MODE_M68K_040;
        break;
    default:
        return -1;
    }
    *cm = (cs_mode)m;
    return 0;
}

ucir_disasm *ucir_disasm_new(uint32_t uc_arch, uint32_t uc_mode)
{
    cs_arch ca;
    cs_mode cm;
    if (capstone_machine(uc_arch, uc_mode, &ca, &cm) != 0 ||
        pthread_once(&cs_once, cs_load) != 0 || !cs.ok)
        return NULL;
    ucir_disasm *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    if (cs.open(ca, cm, &d->handle) != CS_ERR_OK) {
        free(d);
        return NULL;
    }
    d->insn = cs.malloc(d->handle);
    if (!d->insn) {
        cs.close(&d->handle);
        free(d);
        return NULL;
    }
    return d;
}

void ucir_disasm_free(ucir_disasm *d)
{
    if (!d)
        return;
    cs.free(d->insn, 1);
    cs.close(&d->handle);
    free(d);
}

size_t ucir_disasm_one(ucir_disasm *d, uint64_t pc, const uint8_t *code, size_t n, char *text,
                       size_t cap)
{
    const uint8_t *p = code;
    size_t left = n;
    uint64_t at = pc;
    if (!cs.disasm_iter(d->handle, &p, &left, &at, d->insn))
        return 0;
    if (d->insn->op_str[0])
        snprintf(text, cap, "%s %s", d->insn->mnemonic, d->insn->op_str);
    else
        snprintf(text, cap, "%s", d->insn->mnemonic);
    return n - left;
}

/* As many known bytes at pc as memory has, up to `size` (or
 * TK_UCIR_CODE_MAX when the size is not known yet, as in .uc traces). */
static size_t code_bytes(struct tk_ucir_replay *rp, uint64_t pc, uint64_t size, uint8_t *code,
                         tk_error *err)
{
    uint8_t known[TK_UCIR_CODE_MAX];
    size_t n = size && size < TK_UCIR_CODE_MAX ? (size_t)size : TK_UCIR_CODE_MAX;
    if (pc > UINT64_MAX - n)
        n = (size_t)(UINT64_MAX - pc);
    if (tk_ucir_replay_read(rp, pc, n, code, known, err) != TK_OK)
        return 0;
    size_t k = 0;
    while (k < n && known[k])
        k++;
    return k;
}

size_t tk_ucir_disasm_code(ucir_disasm *d, struct tk_ucir_replay *rp, uint64_t pc,
                           uint64_t size, uint8_t *code, char *text, size_t cap,
                           tk_error *err)
{
    text[0] = '\0';
    size_t n = code_bytes(rp, pc, size, code, err);
    if (!n || !d)
        return n;
    size_t len = ucir_disasm_one(d, pc, code, n, text, cap);
    if (!len || (size && len != size)) /* cut short, or not what was run */
        text[0] = '\0';
    return size && size < n ? (size_t)size : len ? len : n;
}
