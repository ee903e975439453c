/* The live regions' slots sorted by address at the end of a Parquet
 * conversion (parquet_regions.c), in place: qsort's merge sort would take
 * a buffer the size of the slots (32 MB at a million live regions).
 * Regions allocated in address order, the common case, are found sorted
 * in one pass; otherwise an introsort (quicksort, heapsort past a depth
 * limit, insertion sort for short runs): O(n log n), no allocation.
 * Addresses are unique (live regions never share a start), so the order
 * is the one any sort gives. */
#include "cacheray/parquet_int.h"

#define SHORT_RUN 16

static void swap(tk_crpq_slot *a, tk_crpq_slot *b)
{
    tk_crpq_slot t = *a;
    *a = *b;
    *b = t;
}

static void insertion(tk_crpq_slot *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        tk_crpq_slot x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1].addr > x.addr; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* Move v[i] down the max-heap v[0, n). */
static void sift(tk_crpq_slot *v, size_t i, size_t n)
{
    for (size_t c; (c = 2 * i + 1) < n; i = c) {
        if (c + 1 < n && v[c + 1].addr > v[c].addr)
            c++;
        if (v[i].addr >= v[c].addr)
            return;
        swap(&v[i], &v[c]);
    }
}

static void heap_sort(tk_crpq_slot *v, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift(v, i, n);
    for (size_t end = n - 1; end > 0; end--) {
        swap(&v[0], &v[end]);
        sift(v, 0, end);
    }
}

/* Hoare's partition of v[0, n) (n > 2) around the median of the first,
 * middle and last addresses: returns j, with v[0, j] <= pivot <= v[j+1, n)
 * and 0 <= j < n - 1, so both parts are shorter than n. */
static size_t partition(tk_crpq_slot *v, size_t n)
{
    size_t m = (n - 1) / 2;
    if (v[m].addr < v[0].addr)
        swap(&v[m], &v[0]);
    if (v[n - 1].addr < v[0].addr)
        swap(&v[n - 1], &v[0]);
    if (v[n - 1].addr < v[m].addr)
        swap(&v[n - 1], &v[m]);
    uint64_t p = v[m].addr;
    size_t i = 0, j = n - 1;
    for (;;) {
        while (v[i].addr < p)
            i++;
        while (v[j].addr > p)
            j--;
        if (i >= j)
            return j;
        swap(&v[i], &v[j]);
        i++;
        j--;
    }
}

/* Recursion on the shorter part only: depth O(log n) even without the
 * limit, which bounds the work at O(n log n). */
static void intro(tk_crpq_slot *v, size_t n, unsigned depth)
{
    while (n > SHORT_RUN) {
        if (depth-- == 0) {
            heap_sort(v, n);
            return;
        }
        size_t left = partition(v, n) + 1;
        if (left < n - left) {
            intro(v, left, depth);
            v += left;
            n -= left;
        } else {
            intro(v + left, n - left, depth);
            n = left;
        }
    }
    insertion(v, n);
}

void tk_crpq_sort_slots(tk_crpq_slot *v, size_t n)
{
    size_t i = 1;
    while (i < n && v[i - 1].addr < v[i].addr)
        i++;
    if (i >= n)
        return;
    unsigned depth = 0;
    for (size_t k = n; k; k >>= 1)
        depth += 2;
    intro(v, n, depth);
}
