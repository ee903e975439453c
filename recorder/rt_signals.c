/* Fatal signals: write the buffered records out, then die as the program
 * would have (the previous disposition is restored and the signal raised
 * again). Only signals still at their default action get a handler, so a
 * program's own handlers and ignored signals are left alone.
 *
 * Not covered: SIGKILL (nothing can run), a stack overflow in a thread
 * other than the one that started the runtime (only that thread gets an
 * alternate signal stack). */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "rt_internal.h"

static const int rt_fatal[] = {SIGSEGV, SIGBUS,  SIGILL,  SIGFPE,  SIGABRT,
                               SIGTRAP, SIGSYS,  SIGTERM, SIGINT,  SIGHUP,
                               SIGQUIT, SIGPIPE, SIGXCPU, SIGXFSZ};
static struct sigaction rt_previous[NSIG];
static char rt_altstack[1 << 16];

/* Flush from a signal handler: async-signal-safe calls only. */
static void flush_for_signal(void)
{
    if (atomic_load(&rt_state) != RT_ON)
        return;
    uint32_t tid = rt_tid();
    if ((uint32_t)atomic_load(&rt_lock_word) == tid) {
        /* Interrupted inside the runtime: the buffer up to rt_len holds
         * whole records (a record being encoded is not counted yet). */
        rt_flush_locked();
        rt_write_through = 1;
        return;
    }
    /* Another thread holds the lock; it lets go within microseconds unless
     * it is writing. Give up after about two seconds rather than hang. */
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 2000; i++) {
        int expect = 0;
        if (atomic_compare_exchange_strong(&rt_lock_word, &expect, (int)tid)) {
            rt_flush_locked();
            rt_write_through = 1;
            rt_unlock();
            return;
        }
        nanosleep(&ms, NULL);
    }
}

static void on_fatal_signal(int sig)
{
    int saved = errno;
    int busy = rt_self.busy;
    rt_self.busy = 1;
    flush_for_signal();
    rt_self.busy = busy;
    /* Raised again with the old action: delivered when we return (the
     * signal is blocked while its handler runs), for a fault before the
     * faulting instruction runs again. */
    sigaction(sig, &rt_previous[sig], NULL);
    raise(sig);
    errno = saved;
}

void rt_install_signal_handlers(void)
{
    stack_t old;
    if (sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE)) {
        stack_t ss = {.ss_sp = rt_altstack, .ss_size = sizeof rt_altstack};
        sigaltstack(&ss, NULL);
    }
    for (size_t i = 0; i < sizeof rt_fatal / sizeof rt_fatal[0]; i++) {
        int sig = rt_fatal[i];
        struct sigaction cur;
        if (sigaction(sig, NULL, &cur) != 0 || cur.sa_handler != SIG_DFL ||
            (cur.sa_flags & SA_SIGINFO))
            continue;
        struct sigaction sa = {0};
        sa.sa_handler = on_fatal_signal;
        sa.sa_flags = SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        rt_previous[sig] = cur;
        sigaction(sig, &sa, NULL);
    }
}
