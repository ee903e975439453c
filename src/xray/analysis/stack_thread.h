/* A thread of the call-stack tries (stack.c): its roots and its open
 * calls, the first of each held in place. Threads can be millions, most
 * with one call: they allocate nothing. */
#ifndef TK_XRAY_STACK_THREAD_H
#define TK_XRAY_STACK_THREAD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xray/xray_int.h"

typedef struct tk_xs_open {
    uint32_t node;
    uint64_t tsc;
} tk_xs_open;

typedef struct tk_xs_thread {
    tk_xr_clock clock;
    union {
        uint32_t *heap;
        uint32_t one;
    } roots;                  /* in place while roots_cap <= 1 */
    uint32_t nroots, roots_cap;
    union {
        tk_xs_open *heap;
        tk_xs_open one;
    } open;                   /* in place while open_cap <= 1 */
    uint32_t depth, open_cap;
    int last_was_exit;
} tk_xs_thread;

static inline uint32_t *tk_xs_roots(tk_xs_thread *t)
{
    return t->roots_cap > 1 ? t->roots.heap : &t->roots.one;
}

static inline tk_xs_open *tk_xs_calls(tk_xs_thread *t)
{
    return t->open_cap > 1 ? t->open.heap : &t->open.one;
}

/* Room for one more of `n` items of `size` bytes whose first is in place
 * (`one`) while *cap <= 1: 0, or -1 when out of memory. */
static inline int tk_xs_room(void **heap, void *one, uint32_t n, uint32_t *cap, size_t size)
{
    if (*cap == 0) {
        *cap = 1;
        return 0;
    }
    if (n < *cap)
        return 0;
    uint32_t c = *cap * 2;
    if (c <= *cap)
        return -1;
    void *v = realloc(*cap > 1 ? *heap : NULL, (size_t)c * size);
    if (!v)
        return -1;
    if (*cap == 1)
        memcpy(v, one, size);
    *heap = v;
    *cap = c;
    return 0;
}

static inline int tk_xs_push_root(tk_xs_thread *t, uint32_t root)
{
    void *heap = t->roots.heap;
    uint32_t one = t->roots.one;
    if (tk_xs_room(&heap, &one, t->nroots, &t->roots_cap, sizeof one) != 0)
        return -1;
    if (t->roots_cap > 1)
        t->roots.heap = heap;
    tk_xs_roots(t)[t->nroots++] = root;
    return 0;
}

static inline int tk_xs_push_call(tk_xs_thread *t, tk_xs_open call)
{
    void *heap = t->open.heap;
    tk_xs_open one = t->open.one;
    if (tk_xs_room(&heap, &one, t->depth, &t->open_cap, sizeof one) != 0)
        return -1;
    if (t->open_cap > 1)
        t->open.heap = heap;
    tk_xs_calls(t)[t->depth++] = call;
    return 0;
}

static inline void tk_xs_thread_free(tk_xs_thread *t)
{
    if (t->roots_cap > 1)
        free(t->roots.heap);
    if (t->open_cap > 1)
        free(t->open.heap);
}

#endif
