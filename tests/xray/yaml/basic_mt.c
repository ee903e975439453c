/* Recorded in basic mode by test_yaml.c: three threads calling nested and
 * recursive functions, a tail call, and a function logging its argument. */
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
__attribute__((noinline, xray_always_instrument, xray_log_args(1))) int logged(int x)
{
    return leaf(x) - 1;
}
static void *worker(void *arg)
{
    long s = (long)arg;
    for (int i = 0; i < 20; i++)
        s += mid(i) + logged(i * 1000 + (int)(long)arg);
    s += rec(4);
    return (void *)s;
}
int main(void)
{
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], 0, worker, (void *)i);
    long s = (long)worker((void *)7);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], 0);
    return s < 0;
}
