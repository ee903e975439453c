/* Many threads recording at once (programs/stress.c): see rec_stress.c. */
#ifndef TK_REC_STRESS_H
#define TK_REC_STRESS_H

#include "rec_util.h"

enum { MAX_STRESS_THREADS = 64 };

typedef struct rec_stress {
    int threads, rounds; /* workers, and writes each */
    int churn;           /* also allocate and free every round */
    const char *end;     /* join, fork, abort, segv, kill (stress.c) */
    int plain_free;      /* free() is not recorded (rec_build_under_tsan) */
} rec_stress;

/* Run rec_dir/PROG (stress.c built) as `s` says, with TSAN_OPTIONS set to
 * `tsan_options` (NULL: empty), and check its traces: exact per-thread
 * counts (tracekit info) and order for join and fork, a valid prefix of
 * each worker's writes after a fatal signal or SIGKILL. A
 * "ThreadSanitizer" line on its stderr fails. */
void rec_stress_run(const char *prog, const rec_stress *s, const char *tsan_options);

#endif
