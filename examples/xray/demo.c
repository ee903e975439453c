/* The program `make demo` records with XRay: two worker threads and the
 * main thread calling nested and recursive functions. */
#include <pthread.h>
__attribute__((noinline)) int leaf(int x) { return x * 2 + 1; }
__attribute__((noinline)) int mid(int x)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += leaf(x + i);
    return s;
}
__attribute__((noinline)) int rec(int n) { return n <= 0 ? 0 : 1 + rec(n - 1); }
static void *worker(void *arg)
{
    long s = (long)arg;
    for (int i = 0; i < 50; i++)
        s += mid(i);
    s += rec(5);
    return (void *)s;
}
int main(void)
{
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], 0, worker, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], 0);
    return (long)worker(0) < 0; /* 0: the sum is positive */
}
