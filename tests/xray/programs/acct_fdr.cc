// The same workload recorded in FDR mode (LLVM 14 needs the log interface
// to be driven from C++; see docs/formats/xray.md).
#include <xray/xray_log_interface.h>

#include "work.h"

int main()
{
    __xray_log_select_mode("xray-fdr");
    __xray_log_init_mode("xray-fdr", "buffer_size=4096:buffer_max=64:func_duration_threshold_us=0");
    __xray_patch();
    long s = workload();
    __xray_log_finalize();
    __xray_log_flushLog();
    return (int)(s & 1);
}
