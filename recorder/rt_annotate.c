/* The annotation API behind include/tracekit/cacheray_record.h (whose
 * inline wrappers reach these through weak references). */
#include <errno.h>
#include <stdint.h>

#include "rt_alloc.h"
#include "rt_internal.h"

RT_EXPORT void tk_cacheray_rt_annotate(const void *p, const char *type_name,
                                 uint32_t elemsize, uint32_t elemcount);
RT_EXPORT void tk_cacheray_rt_region_add(const void *p, const char *type_name,
                                   uint32_t elemsize, uint32_t elemcount);
RT_EXPORT void tk_cacheray_rt_region_remove(const void *p);
RT_EXPORT void *tk_cacheray_rt_malloc(size_t elemsize, size_t elemcount, const char *type_name);
RT_EXPORT void *tk_cacheray_rt_realloc(void *p, size_t elemsize, size_t elemcount,
                                 const char *type_name);
RT_EXPORT void tk_cacheray_rt_flush(void);
RT_EXPORT int tk_cacheray_rt_set_recording(int on);

/* REMOVE and ADD under one lock hold: no other record comes between. */
void tk_cacheray_rt_annotate(const void *p, const char *type_name, uint32_t elemsize,
                       uint32_t elemcount)
{
    uint32_t tid;
    if (!p || !rt_enter(&tid))
        return;
    rt_emit_remove_locked((uint64_t)(uintptr_t)p, tid);
    rt_emit_add_locked((uint64_t)(uintptr_t)p, tid, elemsize, elemcount, type_name);
    rt_leave();
}

void tk_cacheray_rt_region_add(const void *p, const char *type_name, uint32_t elemsize,
                         uint32_t elemcount)
{
    uint32_t tid;
    if (!rt_enter(&tid))
        return;
    rt_emit_add_locked((uint64_t)(uintptr_t)p, tid, elemsize, elemcount, type_name);
    rt_leave();
}

void tk_cacheray_rt_region_remove(const void *p)
{
    uint32_t tid;
    if (!rt_enter(&tid))
        return;
    rt_emit_remove_locked((uint64_t)(uintptr_t)p, tid);
    rt_leave();
}

void *tk_cacheray_rt_malloc(size_t elemsize, size_t elemcount, const char *type_name)
{
    if (elemsize && elemcount > SIZE_MAX / elemsize) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = rt_sys_malloc(elemsize * elemcount);
    rt_note_alloc(p, elemsize, elemcount, type_name);
    return p;
}

void *tk_cacheray_rt_realloc(void *p, size_t elemsize, size_t elemcount, const char *type_name)
{
    if (elemsize && elemcount > SIZE_MAX / elemsize) {
        errno = ENOMEM;
        return NULL;
    }
    return rt_realloc_as(p, elemsize, elemcount, type_name);
}

void tk_cacheray_rt_flush(void)
{
    if (atomic_load(&rt_state) != RT_ON)
        return;
    uint32_t tid = rt_tid();
    if (rt_self.busy)
        return;
    rt_self.busy = 1;
    rt_lock(tid);
    rt_flush_locked();
    rt_leave();
}

int tk_cacheray_rt_set_recording(int on)
{
    int was = !rt_is_paused();
    rt_set_paused(!on);
    return was;
}
