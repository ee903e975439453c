/* SanitizerCoverage load/store callbacks (clang -fsanitize-coverage=
 * func,trace-loads,trace-stores): the compiler calls these before every
 * load and store of 1, 2, 4, 8 or 16 bytes, with the address. Every access
 * is reported, a load before a store to the same place included (unlike
 * ThreadSanitizer's instrumentation). Atomic loads and stores arrive here
 * as plain ones; read-modify-write atomics are not reported. */
#include "rt_internal.h"

#define RT_SANCOV(n)                                                        \
    RT_EXPORT void __sanitizer_cov_load##n(void *addr);                     \
    RT_EXPORT void __sanitizer_cov_store##n(void *addr);                    \
    void __sanitizer_cov_load##n(void *addr) { rt_access(RT_READ, addr, n); } \
    void __sanitizer_cov_store##n(void *addr) { rt_access(RT_WRITE, addr, n); }

RT_SANCOV(1)
RT_SANCOV(2)
RT_SANCOV(4)
RT_SANCOV(8)
RT_SANCOV(16)
