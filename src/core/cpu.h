/* CPU features the fast paths choose by. TRACEKIT_NO_AVX2 (set, non-empty)
 * hides AVX2, so the portable code can be tested and compared on any
 * machine (as OPENSSL_ia32cap does for OpenSSL). */
#ifndef TK_CORE_CPU_H
#define TK_CORE_CPU_H

/* 1 when the CPU runs AVX2 code (x86-64) and TRACEKIT_NO_AVX2 is unset. */
int tk_cpu_avx2(void);

#endif
