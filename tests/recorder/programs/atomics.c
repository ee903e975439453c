/* atomics.c — two threads each do n atomic increments (argv[1], default
 * 5000) of one shared counter in an annotated struct. Built with
 * tracekit-cc --tsan, every increment is an atomic READ then WRITE of the
 * counter, adjacent in the trace. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <tracekit/cacheray_record.h>

struct shared {
    atomic_long hits;
    long pad;
};

static struct shared *s;
static int n;

static void *work(void *arg)
{
    (void)arg;
    for (int i = 0; i < n; i++)
        atomic_fetch_add(&s->hits, 1);
    return NULL;
}

int main(int argc, char **argv)
{
    n = argc > 1 ? atoi(argv[1]) : 5000;
    s = TK_CACHERAY_NEW(struct shared, 1);
    if (!s)
        return 1;
    atomic_store(&s->hits, 0);
    pthread_t a, b;
    if (pthread_create(&a, NULL, work, NULL) || pthread_create(&b, NULL, work, NULL))
        return 1;
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%p %ld\n", (void *)s, atomic_load(&s->hits));
    free(s);
    return 0;
}
