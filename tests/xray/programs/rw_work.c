/* Workload for test_read.c (compiled with -O2 -fxray-instrument
 * -fxray-instruction-threshold=1): worker threads making many calls, real
 * recursion, tail calls (functions ending in a call become jumps at -O2),
 * a function logging its first argument (ENTER_ARG + call argument), and
 * custom and typed events (rw_events.c). Shared by rw_basic.c and
 * rw_fdr.cc. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

volatile int rw_sink;

__attribute__((noinline)) int rw_leaf(int x)
{
    rw_sink = x;
    return x * 2 + 1;
}

__attribute__((noinline)) int rw_mid(int x)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += rw_leaf(x + i);
    return s;
}

/* Not a tail call: the store after the call keeps the recursion. */
__attribute__((noinline)) int rw_rec(int n)
{
    if (n <= 0)
        return 0;
    int r = rw_rec(n - 1);
    rw_sink = r;
    return r + n;
}

/* Each ends in a call: at -O2 a jmp, so XRay records a tail exit. */
__attribute__((noinline)) int rw_tail1(int x) { return rw_leaf(x ^ 5); }
__attribute__((noinline)) int rw_tail2(int x) { return rw_tail1(x + 1); }

__attribute__((noinline, xray_always_instrument, xray_log_args(1))) int rw_arg(long x)
{
    rw_sink = (int)x;
    return (int)x + 1;
}

void rw_event(int thread, int i, int kinds); /* rw_events.c */

struct job {
    int thread, iters, events;
    long sum;
};

__attribute__((noinline)) static void *worker(void *p)
{
    struct job *j = p;
    long s = 0;
    for (int i = 0; i < j->iters; i++) {
        s += rw_mid(i) + rw_rec(i % 6) + rw_tail2(i) + rw_arg(1000L * j->thread + i);
        if (j->events && i % 4 == 0)
            rw_event(j->thread, i, j->events);
    }
    j->sum = s;
    return NULL;
}

/* Run `threads` workers (plus a few calls on the calling thread); with
 * threads = 0 the work runs on the calling thread. events: 1 custom
 * events, 2 typed events (bits). */
long rw_run(int threads, int iters, int events)
{
    pthread_t t[16];
    struct job jobs[16];
    if (threads > 16)
        threads = 16;
    long s = rw_tail2(3) + rw_arg(-1);
    if (threads == 0) {
        struct job j = {0, iters, events, 0};
        worker(&j);
        /* pure function records last (see rw_fdr.cc) */
        for (int i = 0; i < 64; i++)
            s += rw_leaf(i);
        return s + j.sum;
    }
    for (int i = 0; i < threads; i++) {
        jobs[i] = (struct job){i + 1, iters, events, 0};
        pthread_create(&t[i], NULL, worker, &jobs[i]);
    }
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        s += jobs[i].sum;
    }
    return s;
}
