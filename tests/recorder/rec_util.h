/* Helpers of the recorder tests: build programs with the build-tree
 * tracekit-cc, run them with a chosen environment, read their traces and
 * count records. Everything happens in one temporary directory (rec_dir). */
#ifndef TK_REC_UTIL_H
#define TK_REC_UTIL_H

#include <stdint.h>
#include <sys/types.h>

#include "testutil.h"

extern char *rec_dir;

/* Printf-style command run by sh; returns its exit status (-1 if it did
 * not exit). */
int rec_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* tracekit-cc FLAGS -Wall -Wextra -Werror SRC -o rec_dir/OUT; asserts success.
 * SRC is relative to the source tree. */
void rec_build(const char *out, const char *src, const char *flags);

/* SRC built with ThreadSanitizer and the recorder's SanitizerCoverage
 * hooks, linked with the runtime built with ThreadSanitizer too (without
 * its malloc, which TSan's must be: recorder/rt_sys_plain.c), so that races
 * in the runtime's buffer, lock, flush, fork and signal paths, and in the
 * program, are reported. tracekit-cc cannot do this (it links its runtime
 * instead of TSan's); asserts success. */
void rec_build_under_tsan(const char *out, const char *src, const char *flags);

/* Run rec_dir/PROG ARGS... (NULL-terminated) in rec_dir with only PATH and
 * the NULL-terminated `env` entries set; stdout goes to rec_dir/PROG.out,
 * stderr to rec_dir/PROG.err. Returns the raw wait status. */
int rec_run(const char *prog, const char *const *env, const char *const *args);

/* The whole of rec_dir/NAME as a string (NULL if missing). */
char *rec_text(const char *name);
int rec_exists(const char *name);

/* Read rec_dir/NAME (asserting it is a clean trace) and check it with
 * `tracekit validate --strict` (no warnings allowed). */
void rec_load(const char *name, tu_recs *out);

/* Index of the n-th (0-based) RTTA_ADD named `type`, or -1. */
long rec_find_add(const tu_recs *r, const char *type, int nth);
/* Index of the first RTTA_REMOVE of `addr` after `from`, or -1. */
long rec_find_remove(const tu_recs *r, uint64_t addr, size_t from);

/* Accesses of `type` (READ or WRITE) in [lo, hi) (hi 0: anywhere) with
 * the given size and thread (0: any) and exactly these flags (0: none;
 * -1: any). */
typedef struct rec_filter {
    tk_cacheray_type type;
    uint64_t lo, hi;
    int size;
    uint64_t thread;
    int flags;
} rec_filter;
size_t rec_count(const tu_recs *r, rec_filter f);

#endif
