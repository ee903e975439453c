/* stress.c — THREADS workers (argv[1], default 4) each write ROUNDS ints
 * (argv[2], default 20000) into their own annotated array, one recorded
 * store per element (put()); with CHURN (argv[3], default 1) each round
 * also allocates and frees concurrently (malloc, calloc, realloc, strdup
 * from inside libc), so freed blocks are reused at once by other threads
 * and the trace is only free of overlapping RTTA regions if every
 * RTTA_REMOVE precedes the next RTTA_ADD of its block; each round ends
 * with a tk_cacheray_set_recording(1). Without churn a worker's only
 * records are its ROUNDS writes.
 *
 * END (argv[4]) is what main does while the workers run:
 *   join   nothing: join them, print, free (default)
 *   fork   once every worker is halfway, fork; the child writes ROUNDS ints
 *          of its own array and exits, the parent waits for it and joins
 *   abort, segv, kill
 *          once every worker is halfway, die by abort(), a null store or
 *          SIGKILL, the workers still writing
 * Workers publish how many elements they have written (after each store's
 * record) in PROGRESS (argv[5]: a file of THREADS × 8 bytes, mapped shared,
 * so it survives the process), or in memory.
 *
 * Prints, per worker, "ARRAY TID" (join and fork), then "pid PID child PID"
 * (fork).
 * main and the workers' loops are not instrumented (no_sanitize): their
 * counters and bookkeeping leave no records. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tracekit/cacheray_record.h>

#define QUIET __attribute__((no_sanitize("coverage")))

enum { MAX_THREADS = 256 };

/* Blocks are published here so the compiler cannot drop a malloc/free
 * pair (per thread: a shared one would be a data race). */
static _Thread_local void *volatile sink;

struct job {
    int rounds, churn;
    int *mine;
    pid_t tid;
    atomic_llong *done;
};

/* The one recorded store of each round. */
__attribute__((noinline)) static void put(int *v, int i)
{
    v[i] = i;
}

__attribute__((noinline)) static void churn(int r)
{
    char *a = malloc((size_t)(16 + r % 200));
    char *b = calloc(4, 8);
    char *c = strdup("a string copied by libc");
    a = realloc(a, (size_t)(300 + r % 100));
    a[0] = b[0] = c[0];
    sink = a;
    sink = b;
    sink = c;
    free(c);
    free(b);
    free(a);
    /* Recording is on: a resume that changes nothing, from every thread at
     * once (the pause flag was once written without the lock). */
    tk_cacheray_set_recording(1);
}

QUIET static void *work(void *arg)
{
    struct job *j = arg;
    j->tid = gettid();
    for (int r = 0; r < j->rounds; r++) {
        put(j->mine, r);
        atomic_store_explicit(j->done, r + 1, memory_order_relaxed);
        if (j->churn)
            churn(r);
    }
    return NULL;
}

/* Every worker at least halfway. */
QUIET static void wait_halfway(atomic_llong *done, int threads, int rounds)
{
    for (int t = 0; t < threads; t++)
        while (atomic_load_explicit(&done[t], memory_order_relaxed) < rounds / 2)
            sched_yield();
}

QUIET static atomic_llong *progress(const char *path, int threads)
{
    static atomic_llong mem[MAX_THREADS];
    if (!path)
        return mem;
    size_t len = (size_t)threads * sizeof(atomic_llong);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ftruncate(fd, (off_t)len) != 0)
        return NULL;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

QUIET static void child_work(int rounds)
{
    int *w = TK_CACHERAY_NEW(int, rounds);
    if (!w)
        _exit(1);
    for (int i = 0; i < rounds; i++)
        put(w, i);
    free(w);
    exit(0);
}

/* fork, abort, segv, kill: 0 when main goes on to join. */
QUIET static int end_midway(const char *how, pid_t *child)
{
    if (!strcmp(how, "fork")) {
        *child = fork();
        return *child < 0;
    }
    if (!strcmp(how, "abort"))
        abort();
    if (!strcmp(how, "segv")) {
        /* A null pointer the compiler cannot see through. */
        volatile int *p = (volatile int *)(uintptr_t)strtoul("0", NULL, 10);
        *p = 1;
    }
    if (!strcmp(how, "kill"))
        raise(SIGKILL);
    return strcmp(how, "join") != 0;
}

QUIET int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    int rounds = argc > 2 ? atoi(argv[2]) : 20000;
    int churning = argc > 3 ? atoi(argv[3]) : 1;
    const char *how = argc > 4 ? argv[4] : "join";
    atomic_llong *done = progress(argc > 5 ? argv[5] : NULL, threads);
    if (threads < 1 || threads > MAX_THREADS || rounds < 2 || !done)
        return 2;
    struct job *jobs = calloc((size_t)threads, sizeof *jobs);
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    if (!jobs || !t)
        return 1;
    for (int i = 0; i < threads; i++) {
        jobs[i] = (struct job){rounds, churning, TK_CACHERAY_NEW(int, rounds), 0, &done[i]};
        if (!jobs[i].mine || pthread_create(&t[i], NULL, work, &jobs[i]))
            return 1;
    }
    pid_t child = 0;
    if (strcmp(how, "join"))
        wait_halfway(done, threads, rounds);
    if (end_midway(how, &child))
        return 2;
    if (child == 0 && !strcmp(how, "fork"))
        child_work(rounds);
    if (child > 0 && waitpid(child, NULL, 0) != child)
        return 1;
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < threads; i++) {
        printf("%p %d\n", (void *)jobs[i].mine, (int)jobs[i].tid);
        free(jobs[i].mine);
    }
    if (child > 0)
        printf("pid %d child %d\n", (int)getpid(), (int)child);
    free(jobs);
    free(t);
    return 0;
}
