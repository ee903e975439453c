/* Custom and typed events for rw_work.c, compiled with -O0 on purpose:
 * LLVM 14's __xray_CustomEvent trampoline assumes the stack is 16-byte
 * aligned at the sled, which a frameless -O2 function does not guarantee
 * (the FDR handler then segfaults in a movaps), and clang 14 crashes
 * compiling an optnone function whose event size is not a constant. */
#include <stdio.h>

void rw_event(int thread, int i, int kinds)
{
    char msg[32];
    int n = snprintf(msg, sizeof msg, "ev_t%d_i%d", thread, i);
    if (kinds & 1)
        __xray_customevent(msg, (unsigned long)n);
    if (kinds & 2)
        __xray_typedevent((unsigned short)(40 + thread), msg, (unsigned long)n);
}
