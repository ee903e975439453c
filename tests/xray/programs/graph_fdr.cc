// FDR driver for graph_many.c (LLVM 14 initialises FDR only through the
// C++ log interface; see docs/formats/xray.md).
#include <xray/xray_log_interface.h>

extern "C" long graph_run(void);

int main()
{
    __xray_log_select_mode("xray-fdr");
    __xray_log_init_mode("xray-fdr", "buffer_size=4096:buffer_max=128:func_duration_threshold_us=0");
    __xray_patch();
    long s = graph_run();
    __xray_log_finalize();
    __xray_log_flushLog();
    return s == -1;
}
