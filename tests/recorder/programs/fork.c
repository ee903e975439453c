/* fork.c — the parent writes 10 ints, forks; the child writes 20 ints of
 * its own array and exits; the parent waits and writes 10 more. Prints
 * "PARENT_PID CHILD_PID". With %p in the trace path each process gets
 * its own trace; without it the child records nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tracekit/cacheray_record.h>

int main(void)
{
    int *v = TK_CACHERAY_NEW(int, 20);
    if (!v)
        return 1;
    for (int i = 0; i < 10; i++)
        v[i] = i;
    fflush(stdout);
    pid_t child = fork();
    if (child < 0)
        return 1;
    if (child == 0) {
        int *w = TK_CACHERAY_NEW(int, 20);
        for (int i = 0; i < 20; i++)
            w[i] = i;
        free(w);
        exit(0);
    }
    waitpid(child, NULL, 0);
    for (int i = 10; i < 20; i++)
        v[i] = i;
    printf("%d %d\n", (int)getpid(), (int)child);
    free(v);
    return 0;
}
