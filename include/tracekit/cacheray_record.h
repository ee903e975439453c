/* tracekit — type annotations for programs recorded with tracekit-cc.
 *
 * A program built with tracekit-cc records every heap block as untyped
 * ("void*", like the original Cacheray runtime). These calls give blocks
 * and other regions their real element type, so analyses can attribute
 * accesses to types and fields:
 *
 *     struct item *v = TK_CACHERAY_NEW(struct item, n);   // RTTA "struct item" × n
 *     v = TK_CACHERAY_RESIZE(v, struct item, 2 * n);      // realloc, keeps the type
 *     TK_CACHERAY_ANNOTATE(buf, double, len);             // relabel a live block
 *     TK_CACHERAY_REGION_ADD(&table, struct row, 64);     // a global or stack array
 *     TK_CACHERAY_REGION_REMOVE(&table);
 *
 * Type names are the spelling of the type argument ("struct item",
 * "double"). Without the recorder runtime — a plain `cc` build — every
 * call is a no-op (the runtime's entry points are weak references that
 * stay null) and TK_CACHERAY_NEW/TK_CACHERAY_RESIZE are plain malloc/realloc, so the
 * annotations can stay in the source. See recorder/README.md.
 *
 * Unlike libtracekit's calls these take no tk_error: they stand in for
 * malloc and realloc inside the program being recorded, so they keep
 * malloc's convention (NULL with errno ENOMEM; the caller frees with
 * free()), and the annotations cannot fail. Every call is thread-safe: the
 * runtime records all threads under one lock, in program order. */
#ifndef TRACEKIT_CACHERAY_RECORD_H
#define TRACEKIT_CACHERAY_RECORD_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TK_CACHERAY_WEAK_ __attribute__((weak))

/* The runtime (libtracekit-cacheray-rt.a). Call the tk_cacheray_* wrappers
 * below, which check that the runtime is there. */
extern void tk_cacheray_rt_annotate(const void *p, const char *type_name,
                              uint32_t elemsize, uint32_t elemcount) TK_CACHERAY_WEAK_;
extern void tk_cacheray_rt_region_add(const void *p, const char *type_name,
                                uint32_t elemsize, uint32_t elemcount) TK_CACHERAY_WEAK_;
extern void tk_cacheray_rt_region_remove(const void *p) TK_CACHERAY_WEAK_;
extern void *tk_cacheray_rt_malloc(size_t elemsize, size_t elemcount,
                             const char *type_name) TK_CACHERAY_WEAK_;
extern void *tk_cacheray_rt_realloc(void *p, size_t elemsize, size_t elemcount,
                              const char *type_name) TK_CACHERAY_WEAK_;
extern void tk_cacheray_rt_flush(void) TK_CACHERAY_WEAK_;
extern int tk_cacheray_rt_set_recording(int on) TK_CACHERAY_WEAK_;

/* Nonzero when the program runs with the recorder runtime linked in. */
static inline int tk_cacheray_present(void)
{
    return tk_cacheray_rt_annotate != 0;
}

/* Relabel the live heap block `p` (a pointer malloc, calloc, realloc, ...
 * returned): RTTA_REMOVE(p) then RTTA_ADD(p, elemsize, elemcount, name). */
static inline void tk_cacheray_annotate(const void *p, const char *type_name,
                                  uint32_t elemsize, uint32_t elemcount)
{
    if (tk_cacheray_rt_annotate)
        tk_cacheray_rt_annotate(p, type_name, elemsize, elemcount);
}

/* Announce a region that is not a heap block (a global, a stack array):
 * RTTA_ADD. End it with tk_cacheray_region_remove before it goes away. */
static inline void tk_cacheray_region_add(const void *p, const char *type_name,
                                    uint32_t elemsize, uint32_t elemcount)
{
    if (tk_cacheray_rt_region_add)
        tk_cacheray_rt_region_add(p, type_name, elemsize, elemcount);
}

static inline void tk_cacheray_region_remove(const void *p)
{
    if (tk_cacheray_rt_region_remove)
        tk_cacheray_rt_region_remove(p);
}

/* malloc(elemsize * elemcount) recorded as `elemcount` elements of
 * `type_name` (one RTTA_ADD). NULL with ENOMEM on overflow. */
static inline void *tk_cacheray_malloc(size_t elemsize, size_t elemcount,
                                 const char *type_name)
{
    if (tk_cacheray_rt_malloc)
        return tk_cacheray_rt_malloc(elemsize, elemcount, type_name);
    if (elemsize && elemcount > SIZE_MAX / elemsize) {
        errno = ENOMEM;
        return NULL;
    }
    return malloc(elemsize * elemcount);
}

/* realloc to elemcount elements of `type_name`. */
static inline void *tk_cacheray_realloc(void *p, size_t elemsize, size_t elemcount,
                                  const char *type_name)
{
    if (tk_cacheray_rt_realloc)
        return tk_cacheray_rt_realloc(p, elemsize, elemcount, type_name);
    if (elemsize && elemcount > SIZE_MAX / elemsize) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, elemsize * elemcount);
}

/* Write the buffered records out now (e.g. before exec, which loses them). */
static inline void tk_cacheray_flush(void)
{
    if (tk_cacheray_rt_flush)
        tk_cacheray_rt_flush();
}

/* Pause (0) or resume (1) recording in all threads; returns the previous
 * setting (1 without the runtime). Allocations made while paused are not
 * recorded, so their frees show as RTTA_REMOVE of unknown regions. */
static inline int tk_cacheray_set_recording(int on)
{
    return tk_cacheray_rt_set_recording ? tk_cacheray_rt_set_recording(on) : 1;
}

#else /* no weak symbols: annotations compile to nothing */
static inline int tk_cacheray_present(void) { return 0; }
#define tk_cacheray_annotate(p, name, es, n) ((void)(p), (void)(name), (void)(es), (void)(n))
#define tk_cacheray_region_add(p, name, es, n) ((void)(p), (void)(name), (void)(es), (void)(n))
#define tk_cacheray_region_remove(p) ((void)(p))
#define tk_cacheray_malloc(es, n, name) ((void)(name), malloc((es) * (n)))
#define tk_cacheray_realloc(p, es, n, name) ((void)(name), realloc((p), (es) * (n)))
#define tk_cacheray_flush() ((void)0)
#define tk_cacheray_set_recording(on) ((void)(on), 1)
#endif

/* Typed shorthands: the type's spelling is its recorded name. */
#define TK_CACHERAY_NEW(T, n) ((T *)tk_cacheray_malloc(sizeof(T), (n), #T))
#define TK_CACHERAY_RESIZE(p, T, n) ((T *)tk_cacheray_realloc((p), sizeof(T), (n), #T))
#define TK_CACHERAY_ANNOTATE(p, T, n) tk_cacheray_annotate((p), #T, (uint32_t)sizeof(T), (uint32_t)(n))
#define TK_CACHERAY_REGION_ADD(p, T, n) tk_cacheray_region_add((p), #T, (uint32_t)sizeof(T), (uint32_t)(n))
#define TK_CACHERAY_REGION_REMOVE(p) tk_cacheray_region_remove(p)

#ifdef __cplusplus
}
#endif
#endif
