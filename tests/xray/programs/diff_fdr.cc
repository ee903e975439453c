// diff_prog.c recorded in FDR mode (the log interface driven from C++, as
// acct_fdr.cc does).
#include <xray/xray_log_interface.h>

extern "C" int diff_run(void);

int main()
{
    __xray_log_select_mode("xray-fdr");
    __xray_log_init_mode("xray-fdr", "buffer_size=16384:buffer_max=64:func_duration_threshold_us=0");
    __xray_patch();
    int rc = diff_run();
    __xray_log_finalize();
    __xray_log_flushLog();
    return rc;
}
