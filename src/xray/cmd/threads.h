/* How many threads the XRay commands that read two traces at once (diff,
 * graph-diff) use: 2, or 1 when TRACEKIT_THREADS=1 (the tests compare the
 * two; results are the same). */
#ifndef TK_XRAY_CMD_THREADS_H
#define TK_XRAY_CMD_THREADS_H

#include <stdlib.h>
#include <string.h>

static inline int tk_xray_cmd_threads(void)
{
    const char *v = getenv("TRACEKIT_THREADS");
    return v && strcmp(v, "1") == 0 ? 1 : 2;
}

#endif
