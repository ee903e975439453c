/* Register names of the Unicorn enums usercorn traces use (Unicorn 1.0.x
 * numbering, unchanged in 2.x for these ranges), and architecture names.
 * Numbered runs (xmm0..xmm31) are spelled out once, on first use. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "ucir/ucir_int.h"

#define MAX_REG 300
enum { T_X86, T_ARM, T_ARM64, T_MIPS, NTABLES };

static char names[NTABLES][MAX_REG][16];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* names[t][first + i] = prefix + (base + i), for i < count */
static void run(int t, unsigned first, unsigned count, const char *prefix, unsigned base)
{
    for (unsigned i = 0; i < count; i++)
        snprintf(names[t][first + i], sizeof names[t][0], "%s%u", prefix, base + i);
}

static void list(int t, unsigned first, const char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        snprintf(names[t][first + i], sizeof names[t][0], "%s", v[i]);
}

#define LIST(t, first, ...)                                                  \
    do {                                                                     \
        static const char *const v_[] = {__VA_ARGS__};                       \
        list(t, first, v_, sizeof v_ / sizeof v_[0]);                        \
    } while (0)

static void init(void)
{
    LIST(T_X86, 1, "ah", "al", "ax", "bh", "bl", "bp", "bpl", "bx", "ch", "cl", "cs", "cx",
         "dh", "di", "dil", "dl", "ds", "dx", "eax", "ebp", "ebx", "ecx", "edi", "edx",
         "eflags", "eip", "eiz", "es", "esi", "esp", "fpsw", "fs", "gs", "ip", "rax", "rbp",
         "rbx", "rcx", "rdi", "rdx", "rip", "riz", "rsi", "rsp", "si", "sil", "sp", "spl", "ss");
    run(T_X86, 50, 16, "cr", 0);
    run(T_X86, 66, 16, "dr", 0);
    run(T_X86, 82, 8, "fp", 0);
    run(T_X86, 90, 8, "k", 0);
    run(T_X86, 98, 8, "mm", 0);
    run(T_X86, 106, 8, "r", 8);
    run(T_X86, 114, 8, "st", 0);
    run(T_X86, 122, 32, "xmm", 0);
    run(T_X86, 154, 32, "ymm", 0);
    run(T_X86, 186, 32, "zmm", 0);
    for (unsigned i = 0; i < 8; i++) {
        snprintf(names[T_X86][218 + i], 16, "r%ub", 8 + i);
        snprintf(names[T_X86][226 + i], 16, "r%ud", 8 + i);
        snprintf(names[T_X86][234 + i], 16, "r%uw", 8 + i);
    }
    LIST(T_X86, 242, "idtr", "gdtr", "ldtr", "tr", "fpcw", "fptag", "msr", "mxcsr",
         "fs_base", "gs_base");

    LIST(T_ARM, 1, "apsr", "apsr_nzcv", "cpsr", "fpexc", "fpinst", "fpscr", "fpscr_nzcv",
         "fpsid", "itstate", "lr", "pc", "sp", "spsr");
    run(T_ARM, 14, 32, "d", 0);
    LIST(T_ARM, 46, "fpinst2", "mvfr0", "mvfr1", "mvfr2");
    run(T_ARM, 50, 16, "q", 0);
    run(T_ARM, 66, 13, "r", 0);
    run(T_ARM, 79, 32, "s", 0);
    LIST(T_ARM, 111, "c1_c0_2", "c13_c0_2", "c13_c0_3", "ipsr", "msp", "psp", "control");

    LIST(T_ARM64, 1, "x29", "x30", "nzcv", "sp", "wsp", "wzr", "xzr");
    run(T_ARM64, 8, 32, "b", 0);
    run(T_ARM64, 40, 32, "d", 0);
    run(T_ARM64, 72, 32, "h", 0);
    run(T_ARM64, 104, 32, "q", 0);
    run(T_ARM64, 136, 32, "s", 0);
    run(T_ARM64, 168, 31, "w", 0);
    run(T_ARM64, 199, 29, "x", 0);
    run(T_ARM64, 228, 32, "v", 0);
    LIST(T_ARM64, 260, "pc", "cpacr_el1", "tpidr_el0", "tpidrro_el0", "tpidr_el1", "pstate");
    run(T_ARM64, 266, 4, "elr_el", 0);
    run(T_ARM64, 270, 4, "sp_el", 0);
    LIST(T_ARM64, 274, "ttbr0_el1", "ttbr1_el1");
    run(T_ARM64, 276, 4, "esr_el", 0);
    run(T_ARM64, 280, 4, "far_el", 0);
    LIST(T_ARM64, 284, "par_el1", "mair_el1");
    run(T_ARM64, 286, 4, "vbar_el", 0);

    LIST(T_MIPS, 1, "pc", "zero", "at", "v0", "v1", "a0", "a1", "a2", "a3", "t0", "t1", "t2",
         "t3", "t4", "t5", "t6", "t7", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "t8",
         "t9", "k0", "k1", "gp", "sp", "s8", "ra");
    LIST(T_MIPS, 34, "dspccond", "dspcarry", "dspefi", "dspoutflag", "dspoutflag16_19",
         "dspoutflag20", "dspoutflag21", "dspoutflag22", "dspoutflag23", "dsppos", "dspscount");
    run(T_MIPS, 45, 4, "ac", 0);
    run(T_MIPS, 49, 8, "cc", 0);
    run(T_MIPS, 57, 32, "f", 0);
    run(T_MIPS, 89, 8, "fcc", 0);
    run(T_MIPS, 97, 32, "w", 0);
    LIST(T_MIPS, 129, "hi", "lo", "p0", "p1", "p2", "mpl0", "mpl1", "mpl2", "cp0_config3",
         "cp0_userlocal");
}

const char *tk_ucir_reg_name(uint32_t arch, uint32_t mode, uint32_t num)
{
    (void)mode; /* the enums are shared by every mode of an architecture */
    int t;
    switch (arch) {
    case TK_UCIR_ARCH_X86: t = T_X86; break;
    case TK_UCIR_ARCH_ARM: t = T_ARM; break;
    case TK_UCIR_ARCH_ARM64: t = T_ARM64; break;
    case TK_UCIR_ARCH_MIPS: t = T_MIPS; break;
    default: return NULL;
    }
    if (num >= MAX_REG)
        return NULL;
    pthread_once(&once, init);
    return names[t][num][0] ? names[t][num] : NULL;
}

const char *tk_ucir_reg_label(uint32_t arch, uint32_t mode, uint32_t num, char *buf,
                              size_t size)
{
    const char *n = tk_ucir_reg_name(arch, mode, num);
    if (n)
        return n;
    if (size)
        snprintf(buf, size, "reg%u", num);
    return buf;
}

static const char *const arch_names[] = {NULL, "arm", "arm64", "mips", "x86", "ppc", "sparc",
                                         "m68k", "riscv", "s390x", "tricore"};

const char *tk_ucir_arch_name(uint32_t arch)
{
    return arch < sizeof arch_names / sizeof arch_names[0] ? arch_names[arch] : NULL;
}

/* usercorn's architecture strings and the Unicorn arch/mode they run as. */
static const struct {
    const char *name;
    uint32_t arch, mode;
} uc_arches[] = {
    {"x86", TK_UCIR_ARCH_X86, TK_UCIR_MODE_32},
    {"x86_64", TK_UCIR_ARCH_X86, TK_UCIR_MODE_64},
    {"x86_16", TK_UCIR_ARCH_X86, TK_UCIR_MODE_16},
    {"arm", TK_UCIR_ARCH_ARM, 0},
    {"arm64", TK_UCIR_ARCH_ARM64, 0},
    {"mips", TK_UCIR_ARCH_MIPS, TK_UCIR_MODE_32},
    {"sparc", TK_UCIR_ARCH_SPARC, TK_UCIR_MODE_32 | TK_UCIR_MODE_BIG_ENDIAN},
    {"m68k", TK_UCIR_ARCH_M68K, TK_UCIR_MODE_BIG_ENDIAN},
};

int ucir_arch_from_name(const char *name, uint32_t *arch, uint32_t *mode)
{
    for (size_t i = 0; i < sizeof uc_arches / sizeof uc_arches[0]; i++)
        if (strcmp(uc_arches[i].name, name) == 0) {
            *arch = uc_arches[i].arch;
            *mode = uc_arches[i].mode;
            return 1;
        }
    *arch = *mode = 0;
    return 0;
}
