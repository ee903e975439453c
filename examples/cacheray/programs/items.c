/* items.c — typed heap data whose access counts follow from the source.
 *
 * An array of n `struct item` (16 bytes: int key @0, int value @4,
 * double weight @8) comes from TK_CACHERAY_NEW, so the trace holds
 *     RTTA_ADD "struct item", elemsize 16, elemcount n
 * then, inside that region and nowhere else in the program:
 *     fill():  n writes of 4 bytes to .key, n to .value, n of 8 bytes to .weight
 *     score(): n reads of 4 bytes of .key and n of .value (.weight untouched)
 * and RTTA_REMOVE at free(): 3n writes and 2n reads at any -O level with
 * clang 14 (in general, -O2 and up may vectorize loops into wider
 * accesses). n is 1000 unless given as the first argument.
 *
 *     build/tracekit-cc -O1 -g examples/cacheray/programs/items.c -o items
 *     TRACEKIT_CACHERAY=items.trace ./items
 *     build/tracekit info items.trace
 */
#include <stdio.h>
#include <stdlib.h>
#include <tracekit/cacheray_record.h>

struct item {
    int key;
    int value;
    double weight;
};

/* noinline: each loop stays a loop of its own accesses. */
__attribute__((noinline)) static void fill(struct item *v, int n)
{
    for (int i = 0; i < n; i++) {
        v[i].key = i;
        v[i].value = 3 * i + 1;
        v[i].weight = i * 0.5;
    }
}

__attribute__((noinline)) static long score(const struct item *v, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += (long)v[i].key * v[i].value;
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    struct item *v = TK_CACHERAY_NEW(struct item, n);
    if (!v)
        return 1;
    fill(v, n);
    long s = score(v, n);
    printf("%d items, score %ld\n", n, s);
    free(v);
    return 0;
}
