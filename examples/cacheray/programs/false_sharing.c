/* false_sharing.c — two threads, two counters, one cache line.
 *
 * `struct counters` holds two adjacent longs (a @0, b @8) and comes from
 * TK_CACHERAY_NEW: RTTA_ADD "struct counters", elemsize 16, elemcount 1. Each
 * thread zeroes its own counter, waits for the other, then increments it
 * `iters` times (20000 unless given as the first argument): the threads
 * never touch the same bytes, yet both hammer the same 64-byte line —
 * false sharing (`tracekit report` lists the line). The counters are
 * reached through volatile pointers, so every increment is one 8-byte read
 * and one 8-byte write at any -O. Expected inside the region:
 *     thread A:  iters + 1 writes and iters reads of a
 *     thread B:  iters + 1 writes and iters reads of b
 *     main:      1 read of each after joining both
 * with A, B and main three distinct kernel thread ids (the original
 * Cacheray runtime wrote 0 for every thread).
 *
 *     build/tracekit-cc -O1 -g examples/cacheray/programs/false_sharing.c -o fs
 *     TRACEKIT_CACHERAY=fs.trace ./fs
 *     build/tracekit report fs.trace
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <tracekit/cacheray_record.h>

struct counters {
    long a;
    long b;
};

struct job {
    volatile long *counter;
    long iters;
};

/* Both threads start counting together, so their accesses interleave. */
static pthread_barrier_t start;

static void *work(void *arg)
{
    const struct job *j = arg;
    volatile long *c = j->counter;
    long n = j->iters; /* read once: the volatile writes could alias it */
    *c = 0;
    pthread_barrier_wait(&start);
    for (long i = 0; i < n; i++)
        (*c)++;
    return NULL;
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    struct counters *c = TK_CACHERAY_NEW(struct counters, 1);
    if (!c)
        return 1;
    struct job ja = {&c->a, iters}, jb = {&c->b, iters};
    pthread_t ta, tb;
    pthread_barrier_init(&start, NULL, 2);
    if (pthread_create(&ta, NULL, work, &ja) || pthread_create(&tb, NULL, work, &jb))
        return 1;
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    printf("a=%ld b=%ld\n", c->a, c->b);
    free(c);
    return 0;
}
