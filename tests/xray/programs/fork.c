/* A forked child that exits normally flushes its copy of the parent's
 * basic-mode buffer: the parent's first records appear twice in the trace
 * (tests/xray/real_shapes.sh). */
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int work(int x) { return x * 3; }
__attribute__((noinline)) int child(void) { return work(1); }
__attribute__((noinline)) int spawn(void)
{
    pid_t p = fork();
    if (p == 0)
        return child() == 3 ? -1 : -2; /* the child returns through main */
    int st = 0;
    waitpid(p, &st, 0);
    return st;
}

int main(void)
{
    work(2);
    if (spawn() < 0)
        return 0;
    work(3);
    return 0;
}
