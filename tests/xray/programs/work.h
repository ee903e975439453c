/* The instrumented workload shared by the comparison programs: nested
 * calls and recursion. */
#ifdef __cplusplus
extern "C" {
#endif
__attribute__((noinline)) int leaf(int x) { return x * 2 + 1; }
__attribute__((noinline)) int mid(int x)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += leaf(x + i);
    return s;
}
__attribute__((noinline)) int rec(int n) { return n <= 0 ? 0 : 1 + rec(n - 1); }
static long workload(void)
{
    long s = 0;
    for (int i = 0; i < 500; i++)
        s += mid(i) + rec(i % 7);
    return s;
}
#ifdef __cplusplus
}
#endif
