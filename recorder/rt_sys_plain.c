/* The allocator underneath the records in the runtime's ThreadSanitizer-
 * checked test build (tests/recorder, "under_tsan"): the process's own
 * malloc, which is TSan's. That build leaves out rt_malloc.c: TSan's
 * allocator must see every block, so malloc is not interposed and only
 * the annotation API's blocks are recorded. */
#include <stdlib.h>

#include "rt_alloc.h"

void *rt_sys_malloc(size_t size)
{
    return malloc(size);
}

void *rt_sys_realloc(void *p, size_t size)
{
    return realloc(p, size);
}
