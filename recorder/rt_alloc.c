/* Allocation records, shared by the interposed allocator (rt_malloc.c) and
 * the annotation API (rt_annotate.c):
 *   allocation → RTTA_ADD(block, thread, elemsize, elemcount, name),
 *   free       → RTTA_REMOVE(block), emitted before the block is released
 *                so no other thread's RTTA_ADD of the reused block can
 *                precede it in the trace,
 *   realloc    → RTTA_REMOVE(old) then RTTA_ADD(new).
 * The blocks come from rt_sys_malloc/rt_sys_realloc (rt_alloc.h). */
#include <malloc.h>

#include "rt_alloc.h"
#include "rt_internal.h"

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
        void *q = rt_sys_malloc(size);
        rt_note_alloc(q, elemsize, elemcount, name);
        return q;
    }
    rt_note_free(p);
    void *q = rt_sys_realloc(p, size);
    if (q)
        rt_note_alloc(q, elemsize, elemcount, name);
    else if (size) /* failed: p is still there, its type is lost */
        rt_note_alloc(p, malloc_usable_size(p), 1, rt_untyped);
    return q;
}
