// The same workload recorded in FDR mode (LLVM 14 needs the log interface
// to be driven from C++; see docs/formats/xray.md).
#include <xray/xray_log_interface.h>
extern "C" {
__attribute__((noinline)) int leaf(int x) { return x * 2 + 1; }
__attribute__((noinline)) int mid(int x)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += leaf(x + i);
    return s;
}
__attribute__((noinline)) int rec(int n) { return n <= 0 ? 0 : 1 + rec(n - 1); }
}
int main()
{
    __xray_log_select_mode("xray-fdr");
    __xray_log_init_mode("xray-fdr", "buffer_size=4096:buffer_max=64:func_duration_threshold_us=0");
    __xray_patch();
    long s = 0;
    for (int i = 0; i < 500; i++)
        s += mid(i) + rec(i % 7);
    __xray_log_finalize();
    __xray_log_flushLog();
    return (int)(s & 1);
}
