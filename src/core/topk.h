/* The first k of n items in an order, without sorting all n: a heap of k
 * item indexes whose root is the last of them, O(n log k) time and k
 * indexes of memory (a million threads, of which a table shows 20, were a
 * copy of them all, sorted). Items are indexes 0..n-1; the caller's
 * `before` orders them, a strict total order (break ties, e.g. by index). */
#ifndef TK_CORE_TOPK_H
#define TK_CORE_TOPK_H

#include <stddef.h>

/* 1 when item a comes before item b. */
typedef int (*tk_topk_before)(const void *ctx, size_t a, size_t b);

/* The first min(k, n) items, first to last, in a malloc'd array (free it)
 * of *count entries; NULL when out of memory. */
size_t *tk_topk(size_t n, size_t k, tk_topk_before before, const void *ctx, size_t *count);

#endif
