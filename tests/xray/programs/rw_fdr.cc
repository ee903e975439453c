// FDR driver for rw_work.c. LLVM 14 initialises FDR only through the log
// interface (C++ only): select, init, patch, run, finalize, flush.
//
//   rw_fdr          3 threads, custom events, 4 KiB buffers: many blocks
//   rw_fdr typed    one thread, custom and typed events, one buffer
//
// The LLVM 14 runtime adds only the payload size of a typed event to its
// buffer's extents, not the 16-byte marker, and writes only `extents`
// bytes of each buffer: a full buffer holding typed events is cut short
// and the rest of the file misparses (llvm-xray: "Buffer over-read").
// So typed events go into a single buffer that never fills, and the run
// ends with plain function records so the bytes lost at the end are whole
// records.
#include <xray/xray_log_interface.h>
#include <cstdio>
#include <cstring>

extern "C" long rw_run(int threads, int iters, int events);

int main(int argc, char **argv)
{
    bool typed = argc > 1 && std::strcmp(argv[1], "typed") == 0;
    __xray_log_select_mode("xray-fdr");
    const char *opts = typed ? "buffer_size=16384:buffer_max=4:func_duration_threshold_us=0"
                             : "buffer_size=4096:buffer_max=64:func_duration_threshold_us=0";
    if (__xray_log_init_mode("xray-fdr", opts) != XRayLogInitStatus::XRAY_LOG_INITIALIZED) {
        std::fprintf(stderr, "rw_fdr: FDR init failed\n");
        return 2;
    }
    __xray_patch();
    long s = typed ? rw_run(0, 24, 3) : rw_run(3, 150, 1);
    __xray_log_finalize();
    __xray_log_flushLog();
    return s == -12345 ? 3 : 0; // keep s; exit 0
}
