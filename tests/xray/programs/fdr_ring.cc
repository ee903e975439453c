// FDR with a ring of four 4 KiB buffers that wraps: the runtime writes the
// buffers in ring order, so the file does not list them in time order
// (tests/xray/real_shapes.sh).
#include <xray/xray_log_interface.h>

#include "work.h"

int main()
{
    __xray_log_select_mode("xray-fdr");
    __xray_log_init_mode("xray-fdr",
                         "buffer_size=4096:buffer_max=4:func_duration_threshold_us=0");
    __xray_patch();
    long s = 0;
    for (int i = 0; i < 300; i++) /* about 4.7 buffers: the ring wraps once */
        s += mid(i);
    __xray_log_finalize();
    __xray_log_flushLog();
    return (int)(s & 1);
}
