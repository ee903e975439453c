/* Cacheray recorder runtime: state shared by its files.
 *
 * Every record goes into one process-wide buffer under one spin lock, so
 * the file holds the records of all threads in a single order: the order
 * in which they took the lock. Records are encoded little-endian (the
 * order of every known Cacheray producer and reader) whatever the host.
 *
 * This code is linked into instrumented programs and must never be
 * instrumented itself (recorder/CMakeLists.txt strips sanitizer flags). */
#ifndef TK_CACHERAY_RT_INTERNAL_H
#define TK_CACHERAY_RT_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define RT_HIDDEN __attribute__((visibility("hidden")))
#define RT_EXPORT __attribute__((visibility("default")))
#define RT_TLS __thread __attribute__((tls_model("initial-exec")))
#define RT_LIKELY(x) __builtin_expect(!!(x), 1)
#define RT_UNLIKELY(x) __builtin_expect(!!(x), 0)

enum {
    RT_READ = 0x00,
    RT_WRITE = 0x01,
    RT_RTTA_ADD = 0x02,
    RT_RTTA_REMOVE = 0x03,
    RT_ATOMIC = 0x40,
    RT_UNALIGNED = 0x80,
    RT_ACCESS_SIZE = 18,
    RT_ADD_FIXED = 29,
    RT_REMOVE_SIZE = 17,
    RT_NAME_MAX = 4096,       /* longer type names are cut */
    RT_BUF_SIZE = 1 << 20     /* ≈ 58 000 access records per write(2) */
};

/* Lifecycle (rt_state). */
enum { RT_UNINIT, RT_STARTING, RT_ON, RT_OFF };

/* Per thread: the cached kernel thread id and the reentrancy guard. */
struct rt_thread {
    uint32_t tid;  /* gettid(), 0 until first needed (and after fork) */
    int busy;      /* inside the runtime: events from here are dropped */
};
extern RT_TLS struct rt_thread rt_self RT_HIDDEN;

/* 1 while events are recorded: started, enabled, not paused. The one
 * global the hooks read before doing anything. */
extern atomic_int rt_active RT_HIDDEN;
extern atomic_int rt_state RT_HIDDEN;
/* Holder's thread id, 0 when free (so a signal handler can tell whether
 * its own thread holds it). */
extern atomic_int rt_lock_word RT_HIDDEN;

/* Buffer, protected by the lock: rt_len bytes encoded, the first rt_wpos
 * of them already written out. */
extern uint8_t rt_buf[RT_BUF_SIZE] RT_HIDDEN;
extern size_t rt_len RT_HIDDEN, rt_wpos RT_HIDDEN;

/* ---- rt_buffer.c */
RT_HIDDEN uint32_t rt_tid_slow(void);
RT_HIDDEN void rt_lock_slow(uint32_t tid);
/* Write rt_buf[rt_wpos..rt_len) out and empty it (lock held). */
RT_HIDDEN void rt_flush_locked(void);
RT_HIDDEN void rt_commit_slow(void);
RT_HIDDEN void rt_emit_add_locked(uint64_t addr, uint32_t tid, uint32_t elemsize,
                                  uint32_t elemcount, const char *name);
RT_HIDDEN void rt_emit_remove_locked(uint64_t addr, uint32_t tid);
RT_HIDDEN void rt_count_dropped(void);
RT_HIDDEN uint64_t rt_dropped_count(void);
RT_HIDDEN extern int rt_write_through; /* after the exit flush */
RT_HIDDEN extern uint64_t rt_records, rt_bytes_total;

/* ---- rt_init.c */
/* Start if not started yet; safe to call from any hook. */
RT_HIDDEN void rt_start(void);
RT_HIDDEN extern int rt_fd;
RT_HIDDEN extern int rt_owner_pid;
RT_HIDDEN void rt_set_paused(int paused);
RT_HIDDEN int rt_is_paused(void);
/* Flush everything now and switch to writing each later record through
 * (the exit paths). */
RT_HIDDEN void rt_finish(void);

/* ---- rt_signals.c */
RT_HIDDEN void rt_install_signal_handlers(void);

/* ---- inline hot path */
static inline uint32_t rt_tid(void)
{
    uint32_t t = rt_self.tid;
    return RT_LIKELY(t) ? t : rt_tid_slow();
}

static inline void rt_lock(uint32_t tid)
{
    int expect = 0;
    if (RT_LIKELY(atomic_compare_exchange_weak_explicit(
            &rt_lock_word, &expect, (int)tid, memory_order_acquire,
            memory_order_relaxed)))
        return;
    rt_lock_slow(tid);
}

static inline void rt_unlock(void)
{
    atomic_store_explicit(&rt_lock_word, 0, memory_order_release);
}

/* Enter the runtime for an event: 0 = drop it (not recording, or this
 * thread is already inside, e.g. a signal handler interrupted a hook).
 * On 1 the caller holds the lock and must call rt_leave. */
static inline int rt_enter(uint32_t *tid)
{
    if (RT_UNLIKELY(!atomic_load_explicit(&rt_active, memory_order_relaxed))) {
        if (atomic_load_explicit(&rt_state, memory_order_relaxed) == RT_UNINIT)
            rt_start();
        if (!atomic_load_explicit(&rt_active, memory_order_relaxed))
            return 0;
    }
    if (RT_UNLIKELY(rt_self.busy)) {
        rt_count_dropped();
        return 0;
    }
    rt_self.busy = 1;
    /* The flag must be set before the lock is taken: a signal handler
     * running in between would otherwise spin on our own lock. */
    atomic_signal_fence(memory_order_seq_cst);
    *tid = rt_tid();
    rt_lock(*tid);
    return 1;
}

static inline void rt_leave(void)
{
    rt_unlock();
    atomic_signal_fence(memory_order_seq_cst);
    rt_self.busy = 0;
}

static inline void rt_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void rt_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Room for `n` bytes at the end of the buffer (lock held). */
static inline uint8_t *rt_reserve(size_t n)
{
    if (RT_UNLIKELY(rt_len + n > RT_BUF_SIZE))
        rt_flush_locked();
    return rt_buf + rt_len;
}

/* Publish the record just encoded. rt_len moves only after the bytes are
 * in place, so a signal handler flushing from this thread never writes a
 * half-encoded record. */
static inline void rt_commit(size_t n)
{
    atomic_signal_fence(memory_order_seq_cst);
    rt_len += n;
    rt_records++;
    if (RT_UNLIKELY(rt_write_through))
        rt_commit_slow();
}

static inline void rt_put_access(uint8_t tag, uint64_t addr, uint8_t size,
                                 uint32_t tid)
{
    if (addr & (uint64_t)(size - 1))
        tag |= RT_UNALIGNED;
    uint8_t *p = rt_reserve(RT_ACCESS_SIZE);
    p[0] = tag;
    rt_put64(p + 1, addr);
    p[9] = size;
    rt_put64(p + 10, tid);
    rt_commit(RT_ACCESS_SIZE);
}

/* One READ or WRITE from an instrumentation hook. The unaligned flag is
 * set when the address is not a multiple of the size. */
static inline void rt_access(uint8_t tag, const void *addr, uint8_t size)
{
    uint32_t tid;
    if (!rt_enter(&tid))
        return;
    rt_put_access(tag, (uint64_t)(uintptr_t)addr, size, tid);
    rt_leave();
}

#endif
