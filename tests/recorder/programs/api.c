/* api.c — every call of <tracekit/cacheray_record.h>, then tk_cacheray_flush()
 * and SIGKILL (which no handler sees): whatever is in the trace got there
 * through the flush. Prints tk_cacheray_present() and the addresses involved:
 * "PRESENT D TABLE OLD NEW". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <tracekit/cacheray_record.h>

struct row {
    int x;
    int y;
};

static struct row table[4];

int main(void)
{
    /* Relabel a plain block. */
    volatile double *d = malloc(10 * sizeof(double));
    TK_CACHERAY_ANNOTATE((void *)d, double, 10);
    d[3] = 1.0;

    /* A region that is not a heap block. */
    TK_CACHERAY_REGION_ADD(table, struct row, 4);
    ((volatile struct row *)table)[2].y = 7;
    TK_CACHERAY_REGION_REMOVE(table);

    /* Typed resize. */
    int *v = TK_CACHERAY_NEW(int, 4);
    void *old = v;
    v = TK_CACHERAY_RESIZE(v, int, 100000); /* large enough to move */
    ((volatile int *)v)[99999] = 1;

    /* Paused: not recorded. */
    int was = tk_cacheray_set_recording(0);
    d[4] = 2.0;
    tk_cacheray_set_recording(was);
    d[5] = 3.0;

    printf("%d %p %p %p %p\n", tk_cacheray_present(), (void *)d, (void *)table, old, (void *)v);
    fflush(stdout);
    tk_cacheray_flush();
    raise(SIGKILL);
    return 1;
}
