// Recorded in FDR mode by test_yaml.c (LLVM 14 needs the log interface
// driven from C++): nested calls, argument logging and custom events whose
// payloads exercise llvm-xray's YAML quoting. No typed events: the LLVM 14
// runtime undercounts their buffer extents and llvm-xray 14 cannot read them.
#include <string.h>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>
extern "C" {
__attribute__((noinline)) int leaf(int x) { return x * 2 + 1; }
__attribute__((noinline, xray_always_instrument, xray_log_args(1))) int logged(int x)
{
    return leaf(x) + 1;
}
__attribute__((noinline)) void emit(int i)
{
    static const char *const msgs[] = {
        "hello", "it's", "a\nb", "caf\xc3\xa9", "x\x01y", "1", "-x", " sp", "tab\there",
        "del\x7f", "\xff\xfe", "say \"hi\"", "back\\slash", "{}", "true", "\xe2\x80\xa8",
    };
    const char *m = msgs[i % (sizeof msgs / sizeof msgs[0])];
    __xray_customevent(m, strlen(m));
}
}
int main()
{
    __xray_log_select_mode("xray-fdr");
    __xray_log_init_mode("xray-fdr", "buffer_size=4096:buffer_max=64:func_duration_threshold_us=0");
    __xray_patch();
    long s = 0;
    for (int i = 0; i < 64; i++) {
        s += logged(i);
        emit(i);
    }
    __xray_log_finalize();
    __xray_log_flushLog();
    return s < 0;
}
