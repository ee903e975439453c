/* Huge-page-backed allocations (see hugemem.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/hugemem.h"

static size_t round_up(size_t size)
{
    return (size + TK_HUGE_PAGE - 1) & ~(TK_HUGE_PAGE - 1);
}

void *tk_huge_alloc(size_t size)
{
    size_t n = round_up(size);
    if (n < size || n + TK_HUGE_PAGE < n)
        return NULL;
    /* map one huge page more, then trim to an aligned range */
    uint8_t *raw = mmap(NULL, n + TK_HUGE_PAGE, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    uintptr_t at = ((uintptr_t)raw + TK_HUGE_PAGE - 1) & ~(uintptr_t)(TK_HUGE_PAGE - 1);
    uint8_t *p = (uint8_t *)at;
    if (p > raw)
        munmap(raw, (size_t)(p - raw));
    if (raw + TK_HUGE_PAGE > p)
        munmap(p + n, (size_t)(raw + TK_HUGE_PAGE - p));
#ifdef MADV_HUGEPAGE
    madvise(p, n, MADV_HUGEPAGE); /* advice only: fine when refused */
#endif
    return p;
}

void tk_huge_free(void *p, size_t size)
{
    if (p)
        munmap(p, round_up(size));
}

void *tk_table_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    if (n * size >= TK_HUGE_PAGE)
        return tk_huge_alloc(n * size);
    /* cache-line aligned: a set of 8 ways is one line, not two */
    size_t bytes = (n * size + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, bytes ? bytes : 64);
    if (p)
        memset(p, 0, bytes);
    return p;
}

void tk_table_free(void *p, size_t n, size_t size)
{
    if (n * size >= TK_HUGE_PAGE)
        tk_huge_free(p, n * size);
    else
        free(p);
}
