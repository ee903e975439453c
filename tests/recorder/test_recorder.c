/* Recorder tests (ctest recorder.GROUP): real programs built now with the
 * build-tree tracekit-cc, run, and their traces read back with the tracekit
 * library; every trace must also pass `tracekit validate --strict`.
 *
 *   items    examples/cacheray/programs/items.c at -O0, -O1, -O2: the typed
 *            RTTA_ADD, each field of each element written exactly once and
 *            key/value read exactly once, RTTA_REMOVE after the last access
 *   threads  false_sharing.c: distinct real thread ids with their counts,
 *            records in program order across threads; stress.c: concurrent
 *            allocation churn leaves no overlapping regions
 *   stress   stress.c, 32 threads x 20 000 writes (TK_RECORDER_STRESS_ROUNDS:
 *            more, make test-tsan: 1 000 000, but for segv and kill): exact
 *            per-thread counts, a fork midway (both traces exact), abort,
 *            SIGSEGV and SIGKILL midway (each thread's writes a whole
 *            prefix); rec_stress.c
 *   under_tsan  the same, and the threads group's runs, with the runtime and
 *            the programs under ThreadSanitizer: no report (make test-tsan)
 *   crash    crash.c ending by abort, SIGSEGV, SIGTERM, _exit and return:
 *            every write before the end is in the trace
 *   options  TRACEKIT_CACHERAY, CACHERAY_OPTIONS tracefile=/enabled=0/
 *            verbose=1/unknown keys, the default path, %p and fork
 *   tsan     tracekit-cc --tsan: same counts, atomics flagged and adjacent
 *   api      every call of cacheray_record.h, and tk_cacheray_flush before SIGKILL
 *   build    no-op annotations without the runtime, separate compile and
 *            link, an uninstrumented and unsanitized runtime
 *
 * Exit 77 (skip) when clang is missing. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rec_stress.h"
#include "rec_util.h"

#define ITEMS "examples/cacheray/programs/items.c"
#define FALSE_SHARING "examples/cacheray/programs/false_sharing.c"
#define PROGRAMS "tests/recorder/programs/"

static int exited(int st, int code)
{
    return WIFEXITED(st) && WEXITSTATUS(st) == code;
}

/* What items.c prints for n: the sum of key * value = i * (3i + 1). */
static char *items_output(long n)
{
    static char buf[64];
    long s = 0;
    for (long i = 0; i < n; i++)
        s += i * (3 * i + 1);
    snprintf(buf, sizeof buf, "%ld items, score %ld\n", n, s);
    return buf;
}

/* ================================================================ items */

/* items.c's promises, for n elements. */
static void check_items_trace(const char *trace, int n)
{
    tu_recs r;
    rec_load(trace, &r);
    long add = rec_find_add(&r, "struct item", 0);
    assert_true(add >= 0);
    assert_int_equal(rec_find_add(&r, "struct item", 1), -1);
    const tk_cacheray_record *a = &r.v[add];
    assert_int_equal(a->elemsize, 16); /* sizeof(struct item) */
    assert_int_equal(a->elemcount, n);
    uint64_t main_tid = a->thread;
    assert_true(main_tid != 0);
    uint64_t lo = a->addr, hi = lo + 16u * (uint64_t)n;

    long rm = rec_find_remove(&r, lo, (size_t)add + 1);
    assert_true(rm > add);

    /* Every element's key, value and weight written once; key and value
     * read once; nothing else; all between the ADD and the REMOVE. */
    unsigned char *w = calloc((size_t)n * 16, 1), *rd = calloc((size_t)n * 16, 1);
    assert_non_null(w);
    assert_non_null(rd);
    size_t inside = 0;
    for (size_t i = 0; i < r.n; i++) {
        const tk_cacheray_record *x = &r.v[i];
        if (x->type > TK_CACHERAY_WRITE || x->addr < lo || x->addr >= hi)
            continue;
        inside++;
        assert_true((long)i > add && (long)i < rm);
        assert_int_equal(x->thread, main_tid);
        assert_int_equal(x->flags, 0);
        uint64_t off = x->addr - lo;
        assert_int_equal(x->size, off % 16 == 8 ? 8 : 4);
        (x->type == TK_CACHERAY_WRITE ? w : rd)[off]++;
    }
    assert_int_equal(inside, 5u * (size_t)n);
    for (int e = 0; e < n; e++) {
        assert_int_equal(w[e * 16 + 0], 1);
        assert_int_equal(w[e * 16 + 4], 1);
        assert_int_equal(w[e * 16 + 8], 1);
        assert_int_equal(rd[e * 16 + 0], 1);
        assert_int_equal(rd[e * 16 + 4], 1);
        assert_int_equal(rd[e * 16 + 8], 0);
    }
    free(w);
    free(rd);
    /* One thread only: the program has no others. */
    for (size_t i = 0; i < r.n; i++)
        assert_int_equal(r.v[i].thread, main_tid);
    tu_recs_free(&r);
}

static void test_items(void **state)
{
    (void)state;
    const char *opts[] = {"-O0 -g", "-O1 -g", "-O2"};
    for (int i = 0; i < 3; i++) {
        rec_build("items", ITEMS, opts[i]);
        const char *env[] = {"TRACEKIT_CACHERAY=items.trace", NULL};
        const char *args[] = {"700", NULL};
        assert_true(exited(rec_run("items", env, args), 0));
        char *out = rec_text("items.out");
        assert_string_equal(out, items_output(700));
        free(out);
        check_items_trace("items.trace", 700);
    }
}

/* ============================================================== threads */

static void test_false_sharing(void **state)
{
    (void)state;
    enum { ITERS = 20000 };
    rec_build("fs", FALSE_SHARING, "-O1 -g");
    const char *env[] = {"TRACEKIT_CACHERAY=fs.trace", NULL};
    const char *args[] = {"20000", NULL};
    assert_true(exited(rec_run("fs", env, args), 0));
    tu_recs r;
    rec_load("fs.trace", &r);
    long add = rec_find_add(&r, "struct counters", 0);
    assert_true(add >= 0);
    assert_int_equal(r.v[add].elemsize, 16);
    assert_int_equal(r.v[add].elemcount, 1);
    uint64_t main_tid = r.v[add].thread, a = r.v[add].addr, b = a + 8;

    /* The thread that wrote each counter. */
    uint64_t ta = 0, tb = 0;
    for (size_t i = 0; i < r.n; i++) {
        const tk_cacheray_record *x = &r.v[i];
        if (x->type == TK_CACHERAY_WRITE && x->addr == a && !ta)
            ta = x->thread;
        if (x->type == TK_CACHERAY_WRITE && x->addr == b && !tb)
            tb = x->thread;
    }
    assert_true(ta != 0 && tb != 0);
    assert_true(ta != tb && ta != main_tid && tb != main_tid);
    /* Each worker: zeroes its counter, then ITERS increments (R + W). */
    rec_filter f = {.type = TK_CACHERAY_WRITE, .lo = a, .hi = a + 8, .size = 8, .thread = ta};
    assert_int_equal(rec_count(&r, f), ITERS + 1);
    f.type = TK_CACHERAY_READ;
    assert_int_equal(rec_count(&r, f), ITERS);
    f.lo = b, f.hi = b + 8, f.thread = tb;
    assert_int_equal(rec_count(&r, f), ITERS);
    f.type = TK_CACHERAY_WRITE;
    assert_int_equal(rec_count(&r, f), ITERS + 1);
    /* Nobody touches the other thread's counter. */
    f = (rec_filter){.type = TK_CACHERAY_WRITE, .lo = a, .hi = a + 16};
    assert_int_equal(rec_count(&r, f), 2 * (ITERS + 1));
    f.type = TK_CACHERAY_READ;
    assert_int_equal(rec_count(&r, f), 2 * ITERS + 2);
    /* main reads each counter once, after joining: program order across
     * threads puts those reads after every worker record. */
    f.thread = main_tid;
    assert_int_equal(rec_count(&r, f), 2);
    size_t first_worker = r.n, last_worker = 0, printed = r.n;
    for (size_t i = 0; i < r.n; i++) {
        const tk_cacheray_record *x = &r.v[i];
        if (x->type > TK_CACHERAY_WRITE || x->addr < a || x->addr >= a + 16)
            continue;
        if (x->thread == main_tid) {
            if (printed == r.n)
                printed = i;
        } else {
            if (first_worker == r.n)
                first_worker = i;
            last_worker = i;
        }
    }
    assert_true((size_t)add < first_worker);
    assert_true(last_worker < printed && printed < r.n);
    tu_recs_free(&r);
}

static void test_stress(void **state)
{
    (void)state;
    enum { ROUNDS = 20000, THREADS = 4 };
    rec_build("stress", PROGRAMS "stress.c", "-O1 -g");
    /* One arena and no per-thread caches: a block one thread frees is
     * the next another thread gets, which makes a late RTTA_REMOVE show. */
    const char *env[] = {"TRACEKIT_CACHERAY=stress.trace",
                         "GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1",
                         NULL};
    const char *args[] = {"4", "20000", "1", NULL};
    assert_true(exited(rec_run("stress", env, args), 0));
    /* rec_load's validate --strict: no RTTA_ADD overlapping a live region,
     * no RTTA_REMOVE of an unknown one, despite blocks freed by one thread
     * being reused at once by another. */
    tu_recs r;
    rec_load("stress.trace", &r);
    char *out = rec_text("stress.out");
    assert_non_null(out);
    uint64_t tids[THREADS];
    const char *p = out;
    for (int t = 0; t < THREADS; t++) {
        unsigned long long ptr;
        int tid, used;
        assert_int_equal(sscanf(p, "%llx %d\n%n", &ptr, &tid, &used), 2);
        p += used;
        tids[t] = (uint64_t)tid;
        for (int u = 0; u < t; u++)
            assert_true(tids[u] != tids[t]);
        /* The worker's own array: ROUNDS 4-byte writes, all by it. */
        long add = -1;
        for (int k = 0; (add = rec_find_add(&r, "int", k)) >= 0; k++)
            if (r.v[add].addr == ptr)
                break;
        assert_true(add >= 0);
        assert_int_equal(r.v[add].elemcount, ROUNDS);
        rec_filter f = {.type = TK_CACHERAY_WRITE, .lo = ptr, .hi = ptr + 4 * ROUNDS, .size = 4};
        assert_int_equal(rec_count(&r, f), ROUNDS);
        f.thread = tids[t];
        assert_int_equal(rec_count(&r, f), ROUNDS);
    }
    free(out);
    /* Each round: malloc, calloc, strdup (an allocation inside libc) and
     * realloc add a block; three frees and the realloc remove one. */
    size_t adds = 0, removes = 0, calloc_shaped = 0;
    for (size_t i = 0; i < r.n; i++) {
        if (r.v[i].type == TK_CACHERAY_RTTA_ADD) {
            adds++;
            calloc_shaped += r.v[i].elemsize == 8 && r.v[i].elemcount == 4;
        }
        removes += r.v[i].type == TK_CACHERAY_RTTA_REMOVE;
    }
    assert_true(adds >= (size_t)THREADS * ROUNDS * 4);
    assert_true(removes >= (size_t)THREADS * ROUNDS * 4);
    assert_true(calloc_shaped >= (size_t)THREADS * ROUNDS);
    tu_recs_free(&r);
}

/* =============================================================== stress */

static int stress_rounds(void)
{
    const char *v = getenv("TK_RECORDER_STRESS_ROUNDS");
    return v && atoi(v) >= 2 ? atoi(v) : 20000;
}

static void test_many_threads(void **state)
{
    (void)state;
    rec_build("stress", PROGRAMS "stress.c", "-O1 -g");
    static const char *const ends[] = {"join", "fork", "abort", "segv", "kill"};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        /* The full size (make test-tsan) for the exact counts, the fork and
         * one fatal signal; SIGSEGV and SIGKILL take the same paths. */
        int rounds = stress_rounds();
        if (i >= 3 && rounds > 20000)
            rounds = 20000;
        rec_stress s = {.threads = 32, .rounds = rounds, .end = ends[i]};
        rec_stress_run("stress", &s, NULL);
    }
}

/* ThreadSanitizer checks the runtime's buffer, lock, flushes, fork and
 * fatal-signal paths (and the programs) while they run. handle_segv=0:
 * TSan's own SIGSEGV report would replace the runtime's handler. */
#define TSAN_OPTS "halt_on_error=1:handle_segv=0"

static void test_under_tsan_stress(void **state)
{
    (void)state;
    rec_build_under_tsan("stress", PROGRAMS "stress.c", "-O1 -g");
    static const char *const ends[] = {"join", "fork", "abort", "segv", "kill"};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        rec_stress s = {.threads = 32, .rounds = 5000, .end = ends[i], .plain_free = 1};
        /* The forked child leaves by exit() with its parent's threads
         * unjoined: they do not exist there. */
        rec_stress_run("stress", &s,
                       i == 1 ? TSAN_OPTS ":report_thread_leaks=0" : TSAN_OPTS);
    }
    /* With allocation churn (not recorded here: TSan's malloc is not
     * interposed): the runtime among libc's and TSan's own threads' work. */
    rec_stress s = {.threads = 8, .rounds = 2000, .churn = 1, .end = "join", .plain_free = 1};
    rec_stress_run("stress", &s, TSAN_OPTS);
}

/* ================================================================ crash */

static void test_crash(void **state)
{
    (void)state;
    enum { N = 100000 }; /* 1.8 MB of writes: part flushed, part buffered */
    rec_build("crash", PROGRAMS "crash.c", "-O1 -g");
    static const struct {
        const char *how;
        int sig, code;
    } ends[] = {{"abort", SIGABRT, 0}, {"segv", SIGSEGV, 0}, {"term", SIGTERM, 0},
                {"_exit", 0, 3},       {"return", 0, 0}};
    for (size_t k = 0; k < sizeof ends / sizeof ends[0]; k++) {
        const char *env[] = {"TRACEKIT_CACHERAY=crash.trace", NULL};
        const char *args[] = {ends[k].how, "100000", NULL};
        int st = rec_run("crash", env, args);
        if (ends[k].sig)
            assert_true(WIFSIGNALED(st) && WTERMSIG(st) == ends[k].sig);
        else
            assert_true(exited(st, ends[k].code));
        tu_recs r;
        rec_load("crash.trace", &r);
        long add = rec_find_add(&r, "int", 0);
        assert_true(add >= 0);
        assert_int_equal(r.v[add].elemsize, 4);
        assert_int_equal(r.v[add].elemcount, N);
        uint64_t lo = r.v[add].addr;
        /* Every element written once, in order. */
        uint64_t next = lo;
        for (size_t i = (size_t)add + 1; i < r.n; i++) {
            const tk_cacheray_record *x = &r.v[i];
            if (x->type == TK_CACHERAY_WRITE && x->addr >= lo && x->addr < lo + 4 * N) {
                assert_int_equal(x->addr, next);
                assert_int_equal(x->size, 4);
                next += 4;
            }
        }
        if (next != lo + 4 * N)
            fail_msg("%s: %llu of %d writes in the trace", ends[k].how,
                     (unsigned long long)((next - lo) / 4), N);
        tu_recs_free(&r);
    }
}

/* ============================================================== options */

static void run_items_env(const char *const *env)
{
    const char *args[] = {"50", NULL};
    assert_true(exited(rec_run("items", env, args), 0));
    char *out = rec_text("items.out");
    assert_string_equal(out, items_output(50));
    free(out);
}

static void assert_items_trace(const char *name)
{
    tu_recs r;
    rec_load(name, &r);
    long add = rec_find_add(&r, "struct item", 0);
    assert_true(add >= 0);
    assert_int_equal(r.v[add].elemcount, 50);
    rec_filter f = {.type = TK_CACHERAY_WRITE, .lo = r.v[add].addr,
                    .hi = r.v[add].addr + 16 * 50};
    assert_int_equal(rec_count(&r, f), 150);
    tu_recs_free(&r);
    assert_int_equal(unlink(tu_path(rec_dir, name)), 0);
}

static void test_options(void **state)
{
    (void)state;
    rec_build("items", ITEMS, "-O1");

    /* No variables: cacheray.trace in the working directory. */
    run_items_env(NULL);
    assert_items_trace("cacheray.trace");

    /* The original's variable. */
    const char *orig[] = {"CACHERAY_OPTIONS=tracefile=orig.trace", NULL};
    run_items_env(orig);
    assert_items_trace("orig.trace");
    assert_false(rec_exists("cacheray.trace"));

    /* TRACEKIT_CACHERAY wins over tracefile=. */
    const char *both[] = {"CACHERAY_OPTIONS=tracefile=orig.trace",
                          "TRACEKIT_CACHERAY=mine.trace", NULL};
    run_items_env(both);
    assert_items_trace("mine.trace");
    assert_false(rec_exists("orig.trace"));

    /* enabled=0: the program runs, nothing is written, no file. */
    const char *off[] = {"CACHERAY_OPTIONS=tracefile=off.trace:enabled=0",
                         "TRACEKIT_CACHERAY=off2.trace", NULL};
    run_items_env(off);
    assert_false(rec_exists("off.trace"));
    assert_false(rec_exists("off2.trace"));
    assert_false(rec_exists("cacheray.trace"));

    /* %% is a percent sign; an unknown key is a warning; verbose=1 reports
     * the exact number of records written. */
    const char *verbose[] = {"CACHERAY_OPTIONS=verbose=1:bogus=2:tracefile=v%%.trace",
                             NULL};
    run_items_env(verbose);
    char *err = rec_text("items.err");
    assert_non_null(strstr(err, "unknown CACHERAY_OPTIONS key 'bogus'"));
    tu_recs r;
    rec_load("v%.trace", &r);
    char want[128];
    snprintf(want, sizeof want, "tracekit-cacheray: %zu records,", r.n);
    assert_non_null(strstr(err, want));
    free(err);
    tu_recs_free(&r);
}

/* Records of thread `tid` (0: any) writing an "int" array's elements. */
static size_t int_writes(const tu_recs *r, int nth, uint64_t tid)
{
    long add = rec_find_add(r, "int", nth);
    if (add < 0)
        return 0;
    rec_filter f = {.type = TK_CACHERAY_WRITE, .lo = r->v[add].addr,
                    .hi = r->v[add].addr + 4ull * r->v[add].elemcount, .thread = tid};
    return rec_count(r, f);
}

static void test_fork(void **state)
{
    (void)state;
    rec_build("fork", PROGRAMS "fork.c", "-O1 -g");
    int parent, child;

    /* %p: one trace per process, each with its own records only. */
    const char *env[] = {"TRACEKIT_CACHERAY=fk.%p.trace", NULL};
    assert_true(exited(rec_run("fork", env, NULL), 0));
    char *out = rec_text("fork.out");
    assert_int_equal(sscanf(out, "%d %d", &parent, &child), 2);
    free(out);
    char name[64];
    tu_recs r;
    snprintf(name, sizeof name, "fk.%d.trace", parent);
    rec_load(name, &r);
    assert_int_equal(int_writes(&r, 0, (uint64_t)parent), 20);
    assert_int_equal(rec_find_add(&r, "int", 1), -1);
    tu_recs_free(&r);
    snprintf(name, sizeof name, "fk.%d.trace", child);
    rec_load(name, &r);
    assert_int_equal(int_writes(&r, 0, (uint64_t)child), 20);
    for (size_t i = 0; i < r.n; i++)
        assert_int_equal(r.v[i].thread, (uint64_t)child);
    tu_recs_free(&r);

    /* Without %p the child records nothing (it would write into its
     * parent's trace). */
    const char *plain[] = {"TRACEKIT_CACHERAY=one.trace", NULL};
    assert_true(exited(rec_run("fork", plain, NULL), 0));
    out = rec_text("fork.out");
    assert_int_equal(sscanf(out, "%d %d", &parent, &child), 2);
    free(out);
    rec_load("one.trace", &r);
    assert_int_equal(int_writes(&r, 0, (uint64_t)parent), 20);
    assert_int_equal(rec_find_add(&r, "int", 1), -1);
    for (size_t i = 0; i < r.n; i++)
        assert_int_equal(r.v[i].thread, (uint64_t)parent);
    tu_recs_free(&r);
}

/* ================================================================= tsan */

static void test_tsan_items(void **state)
{
    (void)state;
    rec_build("items", ITEMS, "--tsan -O1 -g");
    const char *env[] = {"TRACEKIT_CACHERAY=items.trace", NULL};
    const char *args[] = {"700", NULL};
    assert_true(exited(rec_run("items", env, args), 0));
    check_items_trace("items.trace", 700);
}

static void atomics_run(const char *flags, tu_recs *r, uint64_t *hits)
{
    rec_build("atomics", PROGRAMS "atomics.c", flags);
    const char *env[] = {"TRACEKIT_CACHERAY=atomics.trace", NULL};
    const char *args[] = {"5000", NULL};
    assert_true(exited(rec_run("atomics", env, args), 0));
    char *out = rec_text("atomics.out");
    unsigned long long p;
    long total;
    assert_int_equal(sscanf(out, "%llx %ld", &p, &total), 2);
    assert_int_equal(total, 10000);
    free(out);
    rec_load("atomics.trace", r);
    long add = rec_find_add(r, "struct shared", 0);
    assert_true(add >= 0);
    assert_int_equal(r->v[add].addr, p);
    *hits = p;
}

static void test_tsan_atomics(void **state)
{
    (void)state;
    tu_recs r;
    uint64_t hits;
    atomics_run("--tsan -O1 -g", &r, &hits);
    rec_filter f = {.type = TK_CACHERAY_READ, .lo = hits, .hi = hits + 8, .size = 8,
                    .flags = TK_CACHERAY_ATOMIC};
    /* 10000 fetch_adds (R then W) plus main's store and final load. */
    assert_int_equal(rec_count(&r, f), 10001);
    f.type = TK_CACHERAY_WRITE;
    assert_int_equal(rec_count(&r, f), 10001);
    f.flags = 0;
    assert_int_equal(rec_count(&r, f), 0);
    /* Each increment's R and W are adjacent: recorded as one step. */
    size_t pairs = 0;
    for (size_t i = 0; i + 1 < r.n; i++) {
        const tk_cacheray_record *x = &r.v[i], *y = &r.v[i + 1];
        if (x->type != TK_CACHERAY_READ || x->addr != hits || !(x->flags & TK_CACHERAY_ATOMIC))
            continue;
        if (y->type == TK_CACHERAY_WRITE && y->addr == hits && y->thread == x->thread &&
            (y->flags & TK_CACHERAY_ATOMIC))
            pairs++;
    }
    assert_int_equal(pairs, 10000);
    tu_recs_free(&r);

    /* SanitizerCoverage does not report read-modify-write atomics: only
     * main's store and load (as plain accesses) are seen. */
    atomics_run("-O1 -g", &r, &hits);
    f = (rec_filter){.type = TK_CACHERAY_WRITE, .lo = hits, .hi = hits + 8, .flags = -1};
    assert_int_equal(rec_count(&r, f), 1);
    f.type = TK_CACHERAY_READ;
    assert_int_equal(rec_count(&r, f), 1);
    tu_recs_free(&r);
}

/* ================================================================== api */

/* One record, compared field by field (name: NULL = not an RTTA_ADD). */
static void assert_rec(const tu_recs *r, long i, tk_cacheray_type type, uint64_t addr,
                       uint32_t elemsize, uint32_t elemcount, const char *name)
{
    assert_true(i >= 0 && (size_t)i < r->n);
    const tk_cacheray_record *x = &r->v[i];
    assert_int_equal(x->type, type);
    assert_int_equal(x->addr, addr);
    if (name) {
        assert_int_equal(x->elemsize, elemsize);
        assert_int_equal(x->elemcount, elemcount);
        assert_int_equal(x->typename_len, strlen(name));
        assert_memory_equal(x->type_name, name, strlen(name));
    }
}

static void test_api(void **state)
{
    (void)state;
    rec_build("api", PROGRAMS "api.c", "-O1 -g");
    const char *env[] = {"TRACEKIT_CACHERAY=api.trace", NULL};
    /* SIGKILL: nothing but tk_cacheray_flush() wrote the trace. */
    int st = rec_run("api", env, NULL);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    char *out = rec_text("api.out");
    int present;
    unsigned long long d, table, old, v;
    assert_int_equal(sscanf(out, "%d %llx %llx %llx %llx", &present, &d, &table, &old, &v), 5);
    free(out);
    assert_int_equal(present, 1);
    tu_recs r;
    rec_load("api.trace", &r);

    /* TK_CACHERAY_ANNOTATE: the malloc's untyped ADD, then REMOVE + ADD adjacent. */
    long i = -1;
    for (size_t k = 0; k < r.n && i < 0; k++)
        if (r.v[k].type == TK_CACHERAY_RTTA_ADD && r.v[k].addr == d)
            i = (long)k;
    assert_rec(&r, i, TK_CACHERAY_RTTA_ADD, d, 80, 1, "void*");
    assert_rec(&r, i + 1, TK_CACHERAY_RTTA_REMOVE, d, 0, 0, NULL);
    assert_rec(&r, i + 2, TK_CACHERAY_RTTA_ADD, d, 8, 10, "double");
    /* d[3] and d[5] recorded, d[4] (written while paused) not. */
    rec_filter f = {.type = TK_CACHERAY_WRITE, .lo = d, .hi = d + 80, .size = 8};
    assert_int_equal(rec_count(&r, f), 2);
    f.lo = d + 32, f.hi = d + 40;
    assert_int_equal(rec_count(&r, f), 0);

    /* TK_CACHERAY_REGION_ADD / REMOVE around one write of table[2].y. */
    long add = rec_find_add(&r, "struct row", 0);
    assert_rec(&r, add, TK_CACHERAY_RTTA_ADD, table, 8, 4, "struct row");
    assert_int_equal(r.v[add + 1].type, TK_CACHERAY_WRITE);
    assert_int_equal(r.v[add + 1].addr, table + 20);
    assert_rec(&r, add + 2, TK_CACHERAY_RTTA_REMOVE, table, 0, 0, NULL);

    /* TK_CACHERAY_NEW then TK_CACHERAY_RESIZE: the type survives the move. */
    add = rec_find_add(&r, "int", 0);
    assert_rec(&r, add, TK_CACHERAY_RTTA_ADD, old, 4, 4, "int");
    assert_rec(&r, add + 1, TK_CACHERAY_RTTA_REMOVE, old, 0, 0, NULL);
    assert_rec(&r, add + 2, TK_CACHERAY_RTTA_ADD, v, 4, 100000, "int");
    f = (rec_filter){.type = TK_CACHERAY_WRITE, .lo = v, .hi = v + 400000};
    assert_int_equal(rec_count(&r, f), 1);
    f.lo = v + 399996;
    assert_int_equal(rec_count(&r, f), 1);
    tu_recs_free(&r);
}

/* ================================================================ build */

static void test_without_runtime(void **state)
{
    (void)state;
    /* The annotation header with plain compilers: no-ops, no trace. */
    const char *compilers[] = {TK_CLANG, TK_HOST_CC};
    for (int i = 0; i < 2; i++) {
        int rc = rec_sh("'%s' -std=c11 -O1 -Wall -Wextra -Werror -Wshadow "
                        "-Wstrict-prototypes -I'%s/include' '%s/" ITEMS "' -o '%s/items'",
                        compilers[i], TK_SOURCE_DIR, TK_SOURCE_DIR, rec_dir);
        assert_int_equal(rc, 0);
        const char *env[] = {"TRACEKIT_CACHERAY=none.trace", NULL};
        run_items_env(env);
        assert_false(rec_exists("none.trace"));
    }
}

static void test_separate_link(void **state)
{
    (void)state;
    /* -c compiles with the hooks and without the runtime... */
    assert_int_equal(rec_sh("'%s' -O1 -c '%s/" ITEMS "' -o '%s/items.o'", TK_CC,
                            TK_SOURCE_DIR, rec_dir), 0);
    assert_int_equal(rec_sh("nm '%s/items.o' | grep -q ' U __sanitizer_cov_store4$'",
                            rec_dir), 0);
    assert_int_equal(rec_sh("nm '%s/items.o' | grep -q ' T malloc$'", rec_dir), 1);
    /* ...and linking the object adds it. */
    assert_int_equal(rec_sh("'%s' '%s/items.o' -o '%s/items'", TK_CC, rec_dir, rec_dir), 0);
    const char *env[] = {"TRACEKIT_CACHERAY=sep.trace", NULL};
    run_items_env(env);
    assert_items_trace("sep.trace");
    /* --tsan compiles with ThreadSanitizer's callbacks. */
    assert_int_equal(rec_sh("'%s' --tsan -O1 -c '%s/" ITEMS "' -o '%s/items.o' && "
                            "nm '%s/items.o' | grep -q ' U __tsan_write4$'",
                            TK_CC, TK_SOURCE_DIR, rec_dir, rec_dir), 0);
}

static void test_runtime_clean(void **state)
{
    (void)state;
    /* The runtime is neither instrumented nor sanitized (whatever the
     * build's TK_SANITIZE): it calls no hook and no sanitizer runtime. */
    assert_int_equal(rec_sh("nm -u '%s' | grep -E '__(asan|ubsan|tsan|sanitizer)_'",
                            TK_RT_LIB), 1);
    assert_int_equal(rec_sh("nm '%s' | grep -q ' T __sanitizer_cov_load4$'", TK_RT_LIB), 0);
}

/* ================================================================= main */

static int setup(void **state)
{
    (void)state;
    rec_dir = tu_tmpdir();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmdir(rec_dir);
    return 0;
}

int main(int argc, char **argv)
{
    if (TK_CLANG[0] == 0 || access(TK_CLANG, X_OK) != 0) {
        printf("SKIP: clang not found (needed to build instrumented programs)\n");
        return 77;
    }
    const char *group = argc > 1 ? argv[1] : "all";
    const struct CMUnitTest items[] = {cmocka_unit_test(test_items)};
    const struct CMUnitTest threads[] = {cmocka_unit_test(test_false_sharing),
                                         cmocka_unit_test(test_stress)};
    const struct CMUnitTest crash[] = {cmocka_unit_test(test_crash)};
    const struct CMUnitTest options[] = {cmocka_unit_test(test_options),
                                         cmocka_unit_test(test_fork)};
    const struct CMUnitTest tsan[] = {cmocka_unit_test(test_tsan_items),
                                      cmocka_unit_test(test_tsan_atomics)};
    const struct CMUnitTest api[] = {cmocka_unit_test(test_api)};
    const struct CMUnitTest stress[] = {cmocka_unit_test(test_many_threads)};
    const struct CMUnitTest under_tsan[] = {cmocka_unit_test(test_under_tsan_stress)};
    const struct CMUnitTest build[] = {cmocka_unit_test(test_without_runtime),
                                       cmocka_unit_test(test_separate_link),
                                       cmocka_unit_test(test_runtime_clean)};
    int all = !strcmp(group, "all"), failed = 0, ran = 0;
#define GROUP(g)                                                           \
    if (all || !strcmp(group, #g)) {                                       \
        failed += cmocka_run_group_tests_name(#g, g, setup, teardown);     \
        ran = 1;                                                           \
    }
    GROUP(items)
    GROUP(threads)
    GROUP(crash)
    GROUP(options)
    GROUP(tsan)
    GROUP(api)
    GROUP(stress)
    GROUP(under_tsan)
    GROUP(build)
    if (!ran) {
        fprintf(stderr, "unknown group %s\n", group);
        return 2;
    }
    return failed ? 1 : 0;
}
