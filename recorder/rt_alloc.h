/* Allocation records (rt_alloc.c), shared by the interposed allocator
 * (rt_malloc.c) and the annotation API (rt_annotate.c). */
#ifndef TK_CACHERAY_RT_ALLOC_H
#define TK_CACHERAY_RT_ALLOC_H

#include <stddef.h>

#include "rt_internal.h"

/* The type name of allocations nobody annotated. */
RT_HIDDEN extern const char rt_untyped[];

/* RTTA_ADD for a new block (nothing for NULL). */
RT_HIDDEN void rt_note_alloc(const void *p, size_t elemsize, size_t elemcount,
                             const char *name);
/* RTTA_REMOVE, before the block is released (nothing for NULL). */
RT_HIDDEN void rt_note_free(const void *p);
/* realloc that labels the result `name`, elemcount × elemsize (their
 * product must not overflow). */
RT_HIDDEN void *rt_realloc_as(void *p, size_t elemsize, size_t elemcount,
                              const char *name);

/* The allocator the records' blocks come from: glibc's own entry points
 * where the runtime interposes malloc (rt_malloc.c), the process's malloc
 * in the ThreadSanitizer-checked test build (rt_sys_plain.c). */
RT_HIDDEN void *rt_sys_malloc(size_t size);
RT_HIDDEN void *rt_sys_realloc(void *p, size_t size);

#endif
