/* forever.c — writes ints into an annotated array until killed: the
 * recorder's buffer fills and is written out again and again, so a
 * SIGKILL lands at any point of that, a write(2) included. */
#include <stdlib.h>

int main(void)
{
    enum { N = 4096 };
    volatile int *a = malloc(N * sizeof *a);
    if (!a)
        return 1;
    for (unsigned long i = 0;; i++)
        a[i % N] = (int)i;
}
