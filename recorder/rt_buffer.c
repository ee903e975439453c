/* The global record buffer, its lock and the record encoders.
 *
 * Why one buffer and a lock rather than per-thread buffers: records of
 * different threads must stay in an order consistent with the program
 * (a write before an unlock, a read after the matching lock). Per-thread
 * buffers would lose that order at every flush. The cost is one locked
 * instruction per record and, when several threads record at once, a
 * cache line that moves between their cores. */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt_internal.h"

RT_TLS struct rt_thread rt_self;
atomic_int rt_active;
atomic_int rt_state;
atomic_int rt_lock_word;
uint8_t rt_buf[RT_BUF_SIZE];
size_t rt_len, rt_wpos;
int rt_write_through;
uint64_t rt_records, rt_bytes_total;
static atomic_ullong rt_dropped;

uint32_t rt_tid_slow(void)
{
    uint32_t t = (uint32_t)syscall(SYS_gettid);
    rt_self.tid = t;
    return t;
}

static inline void rt_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Contended: spin a little (the holder copies 18 bytes), then yield (the
 * holder may be in write(2) or preempted). */
void rt_lock_slow(uint32_t tid)
{
    for (unsigned spins = 0;; spins++) {
        int expect = 0;
        if (atomic_load_explicit(&rt_lock_word, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_weak_explicit(&rt_lock_word, &expect, (int)tid,
                                                  memory_order_acquire,
                                                  memory_order_relaxed))
            return;
        if (spins < 100)
            rt_cpu_relax();
        else
            sched_yield();
    }
}

static void rt_warn(const char *what, int err)
{
    char msg[256];
    const char *reason = strerror(err);
    size_t n = 0;
    const char *parts[] = {"tracekit-cacheray: ", what, ": ", reason,
                           "; recording stopped\n"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t k = strlen(parts[i]);
        if (k > sizeof msg - n)
            k = sizeof msg - n;
        memcpy(msg + n, parts[i], k);
        n += k;
    }
    ssize_t w = write(2, msg, n);
    (void)w;
}

void rt_flush_locked(void)
{
    int saved = errno; /* the program may be about to read errno */
    while (rt_wpos < rt_len && rt_fd >= 0) {
        ssize_t n = write(rt_fd, rt_buf + rt_wpos, rt_len - rt_wpos);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rt_warn("writing the trace", n < 0 ? errno : EIO);
            atomic_store(&rt_active, 0);
            atomic_store(&rt_state, RT_OFF);
            break;
        }
        rt_wpos += (size_t)n;
        rt_bytes_total += (uint64_t)n;
    }
    rt_len = rt_wpos = 0;
    errno = saved;
}

void rt_commit_slow(void)
{
    rt_flush_locked();
}

void rt_count_dropped(void)
{
    atomic_fetch_add_explicit(&rt_dropped, 1, memory_order_relaxed);
}

uint64_t rt_dropped_count(void)
{
    return atomic_load(&rt_dropped);
}

void rt_emit_add_locked(uint64_t addr, uint32_t tid, uint32_t elemsize,
                        uint32_t elemcount, const char *name)
{
    size_t len = name ? strnlen(name, RT_NAME_MAX) : 0;
    uint8_t *p = rt_reserve(RT_ADD_FIXED + len);
    p[0] = RT_RTTA_ADD;
    rt_put64(p + 1, addr);
    rt_put64(p + 9, tid);
    rt_put32(p + 17, elemsize);
    rt_put32(p + 21, elemcount);
    rt_put32(p + 25, (uint32_t)len);
    if (len)
        memcpy(p + 29, name, len);
    rt_commit(RT_ADD_FIXED + len);
}

void rt_emit_remove_locked(uint64_t addr, uint32_t tid)
{
    uint8_t *p = rt_reserve(RT_REMOVE_SIZE);
    p[0] = RT_RTTA_REMOVE;
    rt_put64(p + 1, addr);
    rt_put64(p + 9, tid);
    rt_commit(RT_REMOVE_SIZE);
}
