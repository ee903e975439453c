/* ThreadSanitizer's compiler callbacks (tracekit-cc --tsan, which compiles
 * with -fsanitize=thread but links this runtime instead of TSan's), as the
 * original Cacheray runtime did:
 *   __tsan_{read,write}N, unaligned and volatile variants → READ/WRITE;
 *   atomics are performed for real and logged with the 0x40 flag:
 *   load → R, store → W, read-modify-write → R then W,
 *   compare_exchange_val → R, and W on success; _strong/_weak →
 *   R(obj), R(expected), then W(obj) on success or W(expected) on failure.
 * An atomic runs while the recorder lock is held, so its records sit in
 * the trace exactly where the operation took effect among all threads.
 * Fences are performed, not logged; function entry/exit are ignored;
 * 128-bit atomics are not provided (a link error names them). */
#include "rt_internal.h"

typedef unsigned char rt_a8;
typedef unsigned short rt_a16;
typedef unsigned int rt_a32;
typedef unsigned long long rt_a64;

#define ADDR(p) ((uint64_t)(uintptr_t)(p))
#define LOG(tag, p) rt_put_access((uint8_t)((tag) | RT_ATOMIC), ADDR(p), sizeof *(p), tid)

/* ---- lifecycle and ignored callbacks */
RT_EXPORT void __tsan_init(void);
RT_EXPORT void __tsan_func_entry(void *pc);
RT_EXPORT void __tsan_func_exit(void);
RT_EXPORT void __tsan_ignore_thread_begin(void);
RT_EXPORT void __tsan_ignore_thread_end(void);

void __tsan_init(void)
{
    rt_start();
}

void __tsan_func_entry(void *pc)
{
    (void)pc;
}

void __tsan_func_exit(void) {}
void __tsan_ignore_thread_begin(void) {}
void __tsan_ignore_thread_end(void) {}

/* ---- plain accesses */
#define RT_TSAN_RW(n)                                                              \
    RT_EXPORT void __tsan_read##n(void *a);                                        \
    RT_EXPORT void __tsan_write##n(void *a);                                       \
    RT_EXPORT void __tsan_unaligned_read##n(void *a);                              \
    RT_EXPORT void __tsan_unaligned_write##n(void *a);                             \
    RT_EXPORT void __tsan_volatile_read##n(void *a);                               \
    RT_EXPORT void __tsan_volatile_write##n(void *a);                              \
    RT_EXPORT void __tsan_unaligned_volatile_read##n(void *a);                     \
    RT_EXPORT void __tsan_unaligned_volatile_write##n(void *a);                    \
    void __tsan_read##n(void *a) { rt_access(RT_READ, a, n); }                     \
    void __tsan_write##n(void *a) { rt_access(RT_WRITE, a, n); }                   \
    void __tsan_unaligned_read##n(void *a) { rt_access(RT_READ, a, n); }           \
    void __tsan_unaligned_write##n(void *a) { rt_access(RT_WRITE, a, n); }         \
    void __tsan_volatile_read##n(void *a) { rt_access(RT_READ, a, n); }            \
    void __tsan_volatile_write##n(void *a) { rt_access(RT_WRITE, a, n); }          \
    void __tsan_unaligned_volatile_read##n(void *a) { rt_access(RT_READ, a, n); }  \
    void __tsan_unaligned_volatile_write##n(void *a) { rt_access(RT_WRITE, a, n); }

RT_TSAN_RW(1)
RT_TSAN_RW(2)
RT_TSAN_RW(4)
RT_TSAN_RW(8)
RT_TSAN_RW(16)

/* A range as aligned pieces of up to 8 bytes. */
static void rt_range(uint8_t tag, const void *p, unsigned long n)
{
    uint32_t tid;
    if (!rt_enter(&tid))
        return;
    uint64_t a = ADDR(p);
    while (n) {
        uint8_t k = 8;
        while (k > n || (a & (k - 1u)))
            k >>= 1;
        rt_put_access(tag, a, k, tid);
        a += k;
        n -= k;
    }
    rt_leave();
}

RT_EXPORT void __tsan_read_range(void *a, unsigned long size);
RT_EXPORT void __tsan_write_range(void *a, unsigned long size);
RT_EXPORT void __tsan_vptr_read(void **vptr_p);
RT_EXPORT void __tsan_vptr_update(void **vptr_p, void *new_val);

void __tsan_read_range(void *a, unsigned long size)
{
    rt_range(RT_READ, a, size);
}

void __tsan_write_range(void *a, unsigned long size)
{
    rt_range(RT_WRITE, a, size);
}

void __tsan_vptr_read(void **vptr_p)
{
    rt_access(RT_READ, vptr_p, sizeof *vptr_p);
}

void __tsan_vptr_update(void **vptr_p, void *new_val)
{
    (void)new_val;
    rt_access(RT_WRITE, vptr_p, sizeof *vptr_p);
}

/* ---- atomics (memory orders are strengthened to seq_cst) */
#define RT_TSAN_RMW(bits, T, name, builtin)                                        \
    RT_EXPORT T __tsan_atomic##bits##_##name(volatile T *a, T v, int mo);          \
    T __tsan_atomic##bits##_##name(volatile T *a, T v, int mo)                     \
    {                                                                              \
        (void)mo;                                                                  \
        uint32_t tid;                                                              \
        int rec = rt_enter(&tid);                                                  \
        T old = builtin(a, v, __ATOMIC_SEQ_CST);                                   \
        if (rec) {                                                                 \
            LOG(RT_READ, a);                                                       \
            LOG(RT_WRITE, a);                                                      \
            rt_leave();                                                            \
        }                                                                          \
        return old;                                                                \
    }

#define RT_TSAN_ATOMIC(bits, T)                                                    \
    RT_EXPORT T __tsan_atomic##bits##_load(const volatile T *a, int mo);           \
    RT_EXPORT void __tsan_atomic##bits##_store(volatile T *a, T v, int mo);        \
    RT_EXPORT T __tsan_atomic##bits##_compare_exchange_val(                        \
        volatile T *a, T c, T v, int mo, int fmo);                                 \
    RT_EXPORT int __tsan_atomic##bits##_compare_exchange_strong(                   \
        volatile T *a, T *c, T v, int mo, int fmo);                                \
    RT_EXPORT int __tsan_atomic##bits##_compare_exchange_weak(                     \
        volatile T *a, T *c, T v, int mo, int fmo);                                \
    T __tsan_atomic##bits##_load(const volatile T *a, int mo)                      \
    {                                                                              \
        (void)mo;                                                                  \
        uint32_t tid;                                                              \
        int rec = rt_enter(&tid);                                                  \
        T v = __atomic_load_n(a, __ATOMIC_SEQ_CST);                                \
        if (rec) {                                                                 \
            LOG(RT_READ, a);                                                       \
            rt_leave();                                                            \
        }                                                                          \
        return v;                                                                  \
    }                                                                              \
    void __tsan_atomic##bits##_store(volatile T *a, T v, int mo)                   \
    {                                                                              \
        (void)mo;                                                                  \
        uint32_t tid;                                                              \
        int rec = rt_enter(&tid);                                                  \
        __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                  \
        if (rec) {                                                                 \
            LOG(RT_WRITE, a);                                                      \
            rt_leave();                                                            \
        }                                                                          \
    }                                                                              \
    T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo,  \
                                                 int fmo)                          \
    {                                                                              \
        (void)mo;                                                                  \
        (void)fmo;                                                                 \
        uint32_t tid;                                                              \
        int rec = rt_enter(&tid);                                                  \
        int ok = __atomic_compare_exchange_n(a, &c, v, 0, __ATOMIC_SEQ_CST,        \
                                             __ATOMIC_SEQ_CST);                    \
        if (rec) {                                                                 \
            LOG(RT_READ, a);                                                       \
            if (ok)                                                                \
                LOG(RT_WRITE, a);                                                  \
            rt_leave();                                                            \
        }                                                                          \
        return c;                                                                  \
    }                                                                              \
    static int rt_cas##bits(volatile T *a, T *c, T v, int weak)                    \
    {                                                                              \
        uint32_t tid;                                                              \
        int rec = rt_enter(&tid);                                                  \
        int ok = __atomic_compare_exchange_n(a, c, v, weak, __ATOMIC_SEQ_CST,      \
                                             __ATOMIC_SEQ_CST);                    \
        if (rec) {                                                                 \
            LOG(RT_READ, a);                                                       \
            LOG(RT_READ, c);                                                       \
            if (ok)                                                                \
                LOG(RT_WRITE, a);                                                  \
            else                                                                   \
                LOG(RT_WRITE, c);                                                  \
            rt_leave();                                                            \
        }                                                                          \
        return ok;                                                                 \
    }                                                                              \
    int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v,    \
                                                      int mo, int fmo)             \
    {                                                                              \
        (void)mo;                                                                  \
        (void)fmo;                                                                 \
        return rt_cas##bits(a, c, v, 0);                                           \
    }                                                                              \
    int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v,      \
                                                    int mo, int fmo)               \
    {                                                                              \
        (void)mo;                                                                  \
        (void)fmo;                                                                 \
        return rt_cas##bits(a, c, v, 1);                                           \
    }                                                                              \
    RT_TSAN_RMW(bits, T, exchange, __atomic_exchange_n)                            \
    RT_TSAN_RMW(bits, T, fetch_add, __atomic_fetch_add)                            \
    RT_TSAN_RMW(bits, T, fetch_sub, __atomic_fetch_sub)                            \
    RT_TSAN_RMW(bits, T, fetch_and, __atomic_fetch_and)                            \
    RT_TSAN_RMW(bits, T, fetch_or, __atomic_fetch_or)                              \
    RT_TSAN_RMW(bits, T, fetch_xor, __atomic_fetch_xor)                            \
    RT_TSAN_RMW(bits, T, fetch_nand, __atomic_fetch_nand)

RT_TSAN_ATOMIC(8, rt_a8)
RT_TSAN_ATOMIC(16, rt_a16)
RT_TSAN_ATOMIC(32, rt_a32)
RT_TSAN_ATOMIC(64, rt_a64)

RT_EXPORT void __tsan_atomic_thread_fence(int mo);
RT_EXPORT void __tsan_atomic_signal_fence(int mo);

void __tsan_atomic_thread_fence(int mo)
{
    (void)mo;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void __tsan_atomic_signal_fence(int mo)
{
    (void)mo;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
