/* CPU features (cpu.h), asked once. */
#include <stdatomic.h>
#include <stdlib.h>

#include "core/cpu.h"

static int detect_avx2(void)
{
    const char *off = getenv("TRACEKIT_NO_AVX2");
    if (off && *off)
        return 0;
#if defined(__x86_64__) && defined(__GNUC__)
    return __builtin_cpu_supports("avx2") != 0;
#else
    return 0;
#endif
}

int tk_cpu_avx2(void)
{
    /* the answer cannot change: threads racing here store the same value */
    static atomic_int known = -1;
    int v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v < 0) {
        v = detect_avx2();
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return v;
}
