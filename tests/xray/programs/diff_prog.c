/* diff_recorded.sh's program: hot() spins twice as long when built with
 * -DSLOW, steady() the same in both builds; two threads call both.
 * -DDIFF_NO_MAIN leaves main to diff_fdr.cc (FDR mode). */
#include <pthread.h>

#ifdef SLOW
#define HOT_WORK 400000UL
#else
#define HOT_WORK 200000UL
#endif
#define STEADY_WORK 50000UL
#define CALLS 16

volatile unsigned long diff_sink;

/* Sums in a local, each thread its own: a sum in the shared diff_sink
 * went from core to core at every step while both threads ran, and a
 * call took 1 to 15 times as long depending on how the two overlapped. */
__attribute__((noinline, xray_never_instrument)) static void spin(unsigned long n)
{
    volatile unsigned long sum = 0;
    for (unsigned long i = 0; i < n; i++)
        sum += i;
    diff_sink += sum;
}

__attribute__((noinline)) void hot(void) { spin(HOT_WORK); }
/* 1/4 to 2 times STEADY_WORK, the same sequence in both builds: its spread
 * within a run dwarfs the drift between runs (separate processes on a
 * shared machine), which is not what the test is about */
__attribute__((noinline)) void steady(int i) { spin(STEADY_WORK * (unsigned long)(1 + (i * 5) % 8) / 4); }

__attribute__((noinline)) static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < CALLS; i++) {
        hot();
        steady(i);
    }
    return 0;
}

int diff_run(void)
{
    pthread_t t[1];
    pthread_create(&t[0], 0, worker, 0);
    worker(0);
    pthread_join(t[0], 0);
    return (int)(diff_sink & 1);
}

#ifndef DIFF_NO_MAIN
int main(void) { return diff_run(); }
#endif
