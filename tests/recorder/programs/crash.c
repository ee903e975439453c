/* crash.c — writes n ints (argv[2], default 100000: more than one buffer
 * load) into an annotated array, then leaves as argv[1] says:
 *   return | abort | segv | term | _exit
 * The test expects all n writes in the trace however the program ends. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracekit/cacheray_record.h>

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "return";
    int n = argc > 2 ? atoi(argv[2]) : 100000;
    int *v = TK_CACHERAY_NEW(int, n);
    if (!v)
        return 1;
    for (int i = 0; i < n; i++)
        v[i] = i;
    if (!strcmp(how, "abort"))
        abort();
    if (!strcmp(how, "segv")) {
        /* A null pointer the compiler cannot see through. */
        volatile int *p = (volatile int *)(uintptr_t)strtoul("0", NULL, 10);
        *p = 1;
    }
    if (!strcmp(how, "term"))
        raise(SIGTERM);
    if (!strcmp(how, "_exit"))
        _exit(3);
    return 0;
}
