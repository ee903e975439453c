/* Helpers shared by the cache simulator tests. */
#ifndef TK_TEST_SIMTEST_H
#define TK_TEST_SIMTEST_H

#include <tracekit/cachesim.h>

#include "testutil.h"

/* A configuration from --level specs (NULL-terminated) and write options
 * applied to every level. */
tk_cachesim_config st_config(const char *const *specs, int write_back,
                             int write_allocate, int inclusive, unsigned flags);
/* A simulator for `c` (asserting success). */
tk_cachesim *st_new(const tk_cachesim_config *c);
/* Feed one access / RTTA record (asserting success). */
void st_access(tk_cachesim *s, uint64_t addr, unsigned size, int write, uint64_t thread);
void st_read(tk_cachesim *s, uint64_t addr, unsigned size);
void st_write(tk_cachesim *s, uint64_t addr, unsigned size);
void st_add(tk_cachesim *s, uint64_t addr, uint32_t elemsize, uint32_t elemcount,
            const char *type);
void st_remove(tk_cachesim *s, uint64_t addr);

/* Level k's counters, compared one by one (named in failure messages). */
typedef struct st_level {
    uint64_t reads, writes, read_misses, write_misses;
    uint64_t compulsory, capacity, conflict, writebacks, invalidations;
} st_level;
void st_expect_level(const tk_cachesim *s, size_t k, st_level want);
void st_expect_stats(const char *what, const tk_cachesim_level_stats *got,
                     const tk_cachesim_level_stats *want);
/* The type named `name` (failing when absent). */
void st_type(const tk_cachesim *s, const char *name, tk_cachesim_type *out);
/* Its field `name` (failing when absent). */
const tk_cachesim_field *st_field(const tk_cachesim_type *t, const char *name);

#endif
