/* The first k items in an order (topk.h). */
#include <stdlib.h>

#include "core/topk.h"

typedef struct heap {
    size_t *v, n;
    tk_topk_before before;
    const void *ctx;
} heap;

/* 1 when item a goes nearer the root than b: it comes later. */
static int above(const heap *h, size_t a, size_t b) { return h->before(h->ctx, b, a); }

static void sift_down(heap *h, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && above(h, h->v[l], h->v[m]))
            m = l;
        if (r < h->n && above(h, h->v[r], h->v[m]))
            m = r;
        if (m == i)
            return;
        size_t x = h->v[i];
        h->v[i] = h->v[m];
        h->v[m] = x;
        i = m;
    }
}

static void sift_up(heap *h, size_t item)
{
    size_t j = h->n++;
    for (; j > 0 && above(h, item, h->v[(j - 1) / 2]); j = (j - 1) / 2)
        h->v[j] = h->v[(j - 1) / 2];
    h->v[j] = item;
}

size_t *tk_topk(size_t n, size_t k, tk_topk_before before, const void *ctx, size_t *count)
{
    *count = 0;
    if (k > n)
        k = n;
    heap h = {malloc((k ? k : 1) * sizeof *h.v), 0, before, ctx};
    if (!h.v)
        return NULL;
    for (size_t i = 0; k > 0 && i < n; i++) {
        if (h.n < k) {
            sift_up(&h, i);
        } else if (before(ctx, i, h.v[0])) { /* before the last kept: replaces it */
            h.v[0] = i;
            sift_down(&h, 0);
        }
    }
    *count = h.n;
    while (h.n > 1) { /* the last in order to the back */
        size_t x = h.v[0];
        h.v[0] = h.v[--h.n];
        h.v[h.n] = x;
        sift_down(&h, 0);
    }
    return h.v;
}
