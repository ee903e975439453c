/* stress.c — 4 threads allocating and freeing concurrently (malloc, calloc,
 * realloc, strdup from inside libc) while each writes `rounds` ints
 * (argv[1], default 20000) into its own annotated array. Freed blocks are
 * reused at once by other threads, so the trace is only free of
 * overlapping RTTA regions if every RTTA_REMOVE precedes the next
 * RTTA_ADD of its block. Prints each worker's thread id. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracekit/cacheray_record.h>

enum { THREADS = 4 };

/* Blocks are published here so the compiler cannot drop a malloc/free pair. */
static void *volatile sink;

struct job {
    int rounds;
    int *mine;
    pid_t tid;
};

static void *work(void *arg)
{
    struct job *j = arg;
    j->tid = gettid();
    for (int r = 0; r < j->rounds; r++) {
        j->mine[r] = r;
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
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20000;
    struct job jobs[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i].rounds = rounds;
        jobs[i].mine = TK_CACHERAY_NEW(int, rounds);
        if (!jobs[i].mine || pthread_create(&t[i], NULL, work, &jobs[i]))
            return 1;
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        printf("%p %d\n", (void *)jobs[i].mine, (int)jobs[i].tid);
        free(jobs[i].mine);
    }
    return 0;
}
