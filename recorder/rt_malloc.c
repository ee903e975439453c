/* The allocator, interposed: the runtime is linked into the executable, so
 * its malloc, free, ... are the ones the whole process uses (glibc's own
 * internal allocations included). They call glibc's __libc_* entry points,
 * which need no dlsym bootstrap, and record:
 *   allocation → RTTA_ADD(block, thread, elemsize, elemcount, "void*")
 *                (malloc: size×1; calloc/reallocarray: size×count),
 *   free       → RTTA_REMOVE(block), emitted before the block is released
 *                so no other thread's RTTA_ADD of the reused block can
 *                precede it in the trace,
 *   realloc    → RTTA_REMOVE(old) then RTTA_ADD(new).
 * "void*" is what the original runtime recorded for untyped allocations;
 * cacheray_record.h relabels them with real types. */
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

const char rt_untyped[] = "void*";

/* The format's u32 fields: a region too large for them is recorded as
 * power-of-two elements covering it (rounded up). */
static void fit_u32(size_t elemsize, size_t elemcount, uint32_t *es, uint32_t *ec)
{
    if (elemsize <= UINT32_MAX && elemcount <= UINT32_MAX) {
        *es = (uint32_t)elemsize;
        *ec = (uint32_t)elemcount;
        return;
    }
    uint64_t total = (uint64_t)elemsize * elemcount, unit = 1;
    while ((total + unit - 1) / unit > UINT32_MAX)
        unit <<= 1;
    *es = (uint32_t)unit;
    *ec = (uint32_t)((total + unit - 1) / unit);
}

void rt_note_alloc(const void *p, size_t elemsize, size_t elemcount, const char *name)
{
    uint32_t tid, es, ec;
    if (!p || !rt_enter(&tid))
        return;
    fit_u32(elemsize, elemcount, &es, &ec);
    rt_emit_add_locked((uint64_t)(uintptr_t)p, tid, es, ec, name);
    rt_leave();
}

void rt_note_free(const void *p)
{
    uint32_t tid;
    if (!p || !rt_enter(&tid))
        return;
    rt_emit_remove_locked((uint64_t)(uintptr_t)p, tid);
    rt_leave();
}

void *rt_realloc_as(void *p, size_t elemsize, size_t elemcount, const char *name)
{
    size_t size = elemsize * elemcount; /* callers checked for overflow */
    if (!p) {
        void *q = __libc_malloc(size);
        rt_note_alloc(q, elemsize, elemcount, name);
        return q;
    }
    rt_note_free(p);
    void *q = __libc_realloc(p, size);
    if (q)
        rt_note_alloc(q, elemsize, elemcount, name);
    else if (size) /* failed: p is still there, its type is lost */
        rt_note_alloc(p, malloc_usable_size(p), 1, rt_untyped);
    return q;
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
