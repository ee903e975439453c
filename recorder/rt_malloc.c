/* The allocator, interposed: the runtime is linked into the executable, so
 * its malloc, free, ... are the ones the whole process uses (glibc's own
 * internal allocations included). They call glibc's __libc_* entry points,
 * which need no dlsym bootstrap, and record (rt_alloc.c) an RTTA_ADD of
 * "void*" per block (malloc: size×1; calloc/reallocarray: size×count) and
 * an RTTA_REMOVE before each free. "void*" is what the original runtime
 * recorded for untyped allocations; cacheray_record.h relabels them with
 * real types. */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>

#include "rt_alloc.h"
#include "rt_internal.h"

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

/* What the records' blocks come from (rt_alloc.c, rt_annotate.c). */
void *rt_sys_malloc(size_t size)
{
    return __libc_malloc(size);
}

void *rt_sys_realloc(void *p, size_t size)
{
    return __libc_realloc(p, size);
}

RT_EXPORT void *malloc(size_t size)
{
    void *p = __libc_malloc(size);
    rt_note_alloc(p, size, 1, rt_untyped);
    return p;
}

RT_EXPORT void *calloc(size_t n, size_t size)
{
    void *p = __libc_calloc(n, size);
    rt_note_alloc(p, size, n, rt_untyped);
    return p;
}

RT_EXPORT void *realloc(void *p, size_t size)
{
    return rt_realloc_as(p, size, 1, rt_untyped);
}

RT_EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    return rt_realloc_as(p, size, n, rt_untyped);
}

RT_EXPORT void free(void *p)
{
    rt_note_free(p);
    __libc_free(p);
}

RT_EXPORT void *memalign(size_t align, size_t size)
{
    void *p = __libc_memalign(align, size);
    rt_note_alloc(p, size, 1, rt_untyped);
    return p;
}

RT_EXPORT void *aligned_alloc(size_t align, size_t size)
{
    if (align == 0 || (align & (align - 1))) {
        errno = EINVAL;
        return NULL;
    }
    return memalign(align, size);
}

RT_EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    int saved = errno;
    void *p = __libc_memalign(align, size);
    if (!p)
        return ENOMEM;
    errno = saved;
    rt_note_alloc(p, size, 1, rt_untyped);
    *out = p;
    return 0;
}

RT_EXPORT void *valloc(size_t size)
{
    void *p = __libc_valloc(size);
    rt_note_alloc(p, size, 1, rt_untyped);
    return p;
}

RT_EXPORT void *pvalloc(size_t size)
{
    void *p = __libc_pvalloc(size);
    rt_note_alloc(p, size, 1, rt_untyped);
    return p;
}
