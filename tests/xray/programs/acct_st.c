/* Single-threaded workload for account comparisons: nested calls and
 * recursion (single-threaded, so llvm-xray's global TSC floor is not hit). */
__attribute__((noinline)) int leaf(int x) { return x * 2 + 1; }
__attribute__((noinline)) int mid(int x)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += leaf(x + i);
    return s;
}
__attribute__((noinline)) int rec(int n) { return n <= 0 ? 0 : 1 + rec(n - 1); }
int main(void)
{
    long s = 0;
    for (int i = 0; i < 500; i++)
        s += mid(i) + rec(i % 7);
    return (int)(s & 1);
}
