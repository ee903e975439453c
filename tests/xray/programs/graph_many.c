/* Workload for `graph` comparisons (vs_llvm.sh): 80 instrumented functions
 * calling each other through a table in a fixed pattern, on the main
 * thread and two workers, so llvm-xray's vertex and edge DenseMaps grow
 * past their first 64 buckets and collide (their iteration order is the
 * output order). Built with -DGRAPH_NO_MAIN for the FDR driver
 * graph_fdr.cc. */
#include <pthread.h>

#define N 80
typedef int (*fn)(int);
static fn table[N];

#define DEF(i)                                                                         \
    __attribute__((noinline)) int g##i(int d)                                          \
    {                                                                                  \
        return d <= 0 ? i : table[(i * 7 + 3) % N](d - 1) + table[(i * 13 + 5) % N](d - 1) + 1; \
    }
#define R10(p) DEF(p##0) DEF(p##1) DEF(p##2) DEF(p##3) DEF(p##4) \
               DEF(p##5) DEF(p##6) DEF(p##7) DEF(p##8) DEF(p##9)
R10() R10(1) R10(2) R10(3) R10(4) R10(5) R10(6) R10(7)

#define SET(i) table[i] = g##i;
#define S10(p) SET(p##0) SET(p##1) SET(p##2) SET(p##3) SET(p##4) \
               SET(p##5) SET(p##6) SET(p##7) SET(p##8) SET(p##9)

__attribute__((noinline)) long graph_work(int salt)
{
    long s = 0;
    for (int i = 0; i < N; i++)
        s += table[(i * 3 + salt) % N](i % 4);
    return s;
}

static void *worker(void *arg) { return (void *)graph_work((int)(long)arg); }

long graph_run(void)
{
    S10() S10(1) S10(2) S10(3) S10(4) S10(5) S10(6) S10(7)
    pthread_t t[2];
    long s = 0;
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], 0, worker, (void *)(i + 1));
    s += graph_work(0);
    for (int i = 0; i < 2; i++) {
        void *r;
        pthread_join(t[i], &r);
        s += (long)r;
    }
    return s;
}

#ifndef GRAPH_NO_MAIN
int main(void) { return graph_run() == -1; }
#endif
