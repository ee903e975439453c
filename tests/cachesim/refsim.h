/* A deliberately simple reference cache simulator for the tests: per-set
 * arrays of lines with timestamps, linear scans everywhere (the 3C shadow
 * and the set of lines seen included), no shortcuts. It implements the
 * semantics documented in docs/formats/cacheray.md ("Cache simulation")
 * independently of src/cacheray/, so the two can be compared counter by
 * counter on random traces. Only for small caches: every lookup is
 * linear. */
#ifndef TK_TEST_REFSIM_H
#define TK_TEST_REFSIM_H

#include <stdint.h>

#include <tracekit/cachesim.h>

typedef struct ref_sim ref_sim;

ref_sim *ref_new(const tk_cachesim_config *c);
void ref_free(ref_sim *r);
/* One CPU access of `size` (>= 1) bytes; returns the levels missed on its
 * demand path (bit k = level k). */
unsigned ref_access(ref_sim *r, uint64_t addr, unsigned size, int write);
void ref_level_stats(const ref_sim *r, size_t k, tk_cachesim_level_stats *out);

#endif
