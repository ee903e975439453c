/* Many threads recording at once (programs/stress.c): exact per-thread
 * counts as `tracekit info` counts them, a fork while they run, and a
 * fatal signal or SIGKILL while they run. test_recorder runs them with
 * tracekit-cc's runtime (group stress) and with the runtime itself under
 * ThreadSanitizer (group under_tsan, rec_build_under_tsan). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "rec_stress.h"

/* A killed run loses at most one buffer (recorder/rt_internal.h,
 * RT_BUF_SIZE) of 18-byte access records. */
#define BUFFER_RECORDS ((1u << 20) / 18)

/* `tracekit info --json` of rec_dir/TRACE: each listed thread's records. */
static size_t info_threads(const char *trace, uint64_t *tid, uint64_t *recs, size_t max)
{
    char out[64];
    snprintf(out, sizeof out, "%s.info", trace);
    assert_int_equal(rec_sh("cd '%s' && '%s' info --json '%s' >'%s'", rec_dir, TK_TRACEKIT,
                            trace, out), 0);
    char *json = rec_text(out);
    assert_non_null(json);
    const char *p = strstr(json, "\"threads\":[");
    assert_non_null(p);
    size_t n = 0;
    unsigned long long t, r;
    while ((p = strstr(p, "{\"thread\":")) &&
           sscanf(p, "{\"thread\":%llu,\"records\":%llu}", &t, &r) == 2) {
        assert_true(n < max);
        tid[n] = t, recs[n++] = r;
        p++;
    }
    free(json);
    return n;
}

static uint64_t records_of(const uint64_t *tid, const uint64_t *recs, size_t n, uint64_t t)
{
    for (size_t i = 0; i < n; i++)
        if (tid[i] == t)
            return recs[i];
    return 0;
}

/* The workers' "ARRAY TID" lines; returns how many were read. */
static int read_workers(const char *out, int threads, uint64_t *arr, uint64_t *tid)
{
    char *text = rec_text(out);
    assert_non_null(text);
    const char *p = text;
    int n = 0, used;
    unsigned long long a;
    int t;
    while (n < threads && sscanf(p, "%llx %d\n%n", &a, &t, &used) == 2) {
        arr[n] = a, tid[n++] = (uint64_t)t;
        p += used;
    }
    free(text);
    return n;
}

/* What one pass over a trace found of the workers' arrays: the first
 * `threads` RTTA_ADDs of "int" (main makes them in worker order). */
typedef struct arrays {
    int n;
    uint64_t lo[MAX_STRESS_THREADS], tid[MAX_STRESS_THREADS], got[MAX_STRESS_THREADS];
    int order[MAX_STRESS_THREADS]; /* array indices by address */
} arrays;

static int is_int_add(const tk_cacheray_record *x)
{
    return x->type == TK_CACHERAY_RTTA_ADD && x->typename_len == 3 &&
           !memcmp(x->type_name, "int", 3);
}

static void note_array(arrays *a, uint64_t lo)
{
    int i = a->n++;
    a->lo[i] = lo;
    while (i > 0 && a->lo[a->order[i - 1]] > lo) {
        a->order[i] = a->order[i - 1];
        i--;
    }
    a->order[i] = a->n - 1;
}

/* The array whose `rounds` ints hold `addr`, or -1. */
static int array_of(const arrays *a, uint64_t addr, int rounds)
{
    int lo = 0, hi = a->n;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (a->lo[a->order[mid]] <= addr)
            lo = mid;
        else
            hi = mid;
    }
    if (a->n == 0 || addr < a->lo[a->order[lo]] ||
        addr >= a->lo[a->order[lo]] + 4u * (uint64_t)rounds)
        return -1;
    return a->order[lo];
}

/* One pass over rec_dir/TRACE (streamed: it may hold 32 M records). Every
 * write into a worker's array must be its next element, all by one
 * thread. `cut_ok`: the trace may end inside a record (SIGKILL). */
static void scan_arrays(const char *trace, const rec_stress *s, int cut_ok, arrays *a)
{
    memset(a, 0, sizeof *a);
    tk_error err;
    tk_input *in = tk_input_open(tu_path(rec_dir, trace), &err);
    assert_non_null(in);
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, TK_ENDIAN_LITTLE, &err);
    assert_non_null(r);
    tk_cacheray_record x;
    int rc;
    while ((rc = tk_cacheray_next(r, &x, &err)) > 0) {
        if (is_int_add(&x) && a->n < s->threads)
            note_array(a, x.addr);
        int w = x.type == TK_CACHERAY_WRITE ? array_of(a, x.addr, s->rounds) : -1;
        if (w < 0)
            continue;
        if (x.addr != a->lo[w] + 4 * a->got[w] || (a->got[w] && x.thread != a->tid[w]))
            fail_msg("%s: array %d: write of 0x%llx by %llu after %llu writes", trace, w,
                     (unsigned long long)x.addr, (unsigned long long)x.thread,
                     (unsigned long long)a->got[w]);
        a->tid[w] = x.thread;
        a->got[w]++;
    }
    if (rc != 0 && !cut_ok)
        fail_msg("%s: not a clean trace: %s", trace, err.message);
    tk_cacheray_reader_free(r);
    tk_input_close(in);
    /* After SIGKILL the lost tail may hold the last arrays' RTTA_ADDs (main
     * makes them between starting workers), and so all their writes. */
    assert_true(cut_ok ? a->n <= s->threads : a->n == s->threads);
    assert_int_equal(rec_sh("'%s' validate --strict %s '%s/%s' >/dev/null 2>&1", TK_TRACEKIT,
                            cut_ok ? "--allow-truncated" : "", rec_dir, trace), 0);
}

/* A join or fork run: every worker's records are exactly its `rounds`
 * writes (without churn), its array's are those, element by element in
 * order. */
static void check_exact(const char *trace, const rec_stress *s, const uint64_t *arr,
                        const uint64_t *wtid)
{
    uint64_t tid[MAX_STRESS_THREADS + 8], recs[MAX_STRESS_THREADS + 8];
    size_t n = info_threads(trace, tid, recs, MAX_STRESS_THREADS + 8);
    arrays a;
    scan_arrays(trace, s, 0, &a);
    for (int w = 0; w < s->threads; w++) {
        for (int u = 0; u < w; u++)
            assert_true(wtid[u] != wtid[w]);
        /* With churn a worker also records its allocations' accesses. */
        if (!s->churn && records_of(tid, recs, n, wtid[w]) != (uint64_t)s->rounds)
            fail_msg("%s: thread %llu has %llu records, it made %d", trace,
                     (unsigned long long)wtid[w],
                     (unsigned long long)records_of(tid, recs, n, wtid[w]), s->rounds);
        assert_int_equal(a.lo[w], arr[w]);
        assert_int_equal(a.tid[w], wtid[w]);
        assert_int_equal(a.got[w], (uint64_t)s->rounds);
    }
}

static void check_fork(const rec_stress *s, const uint64_t *arr, const uint64_t *wtid)
{
    char *text = rec_text("stress.out");
    const char *c = text ? strstr(text, "pid ") : NULL;
    int parent, child;
    assert_non_null(c);
    assert_int_equal(sscanf(c, "pid %d child %d", &parent, &child), 2);
    free(text);
    char name[64];
    snprintf(name, sizeof name, "stress.%d.trace", parent);
    check_exact(name, s, arr, wtid);
    /* The child: its own records only: its array's ADD, `rounds` writes
     * in order, its REMOVE (when free() is recorded). */
    snprintf(name, sizeof name, "stress.%d.trace", child);
    tu_recs r;
    rec_load(name, &r);
    long add = rec_find_add(&r, "int", 0);
    assert_true(add >= 0);
    uint64_t next = r.v[add].addr;
    for (size_t i = 0; i < r.n; i++) {
        assert_int_equal(r.v[i].thread, (uint64_t)child);
        if (r.v[i].type == TK_CACHERAY_WRITE) {
            assert_int_equal(r.v[i].addr, next);
            next += 4;
        }
    }
    assert_int_equal(next - r.v[add].addr, 4u * (uint64_t)s->rounds);
    if (!s->plain_free)
        assert_true(rec_find_remove(&r, r.v[add].addr, (size_t)add) > add);
    assert_int_equal(r.n, (size_t)s->rounds + 2 - (s->plain_free != 0));
    tu_recs_free(&r);
}

/* A run that died midway: each worker's records are the first k of its
 * writes, in order, where k is what it had published (the record comes
 * before the count, so k or k + 1), or, after SIGKILL, at most that: the
 * buffer's tail is lost, one buffer at most in all. */
static void check_died(const rec_stress *s, int killed)
{
    size_t len;
    uint8_t *pub = tu_read_file(tu_path(rec_dir, "progress"), &len);
    assert_non_null(pub);
    assert_int_equal(len, (size_t)s->threads * 8);
    arrays a;
    scan_arrays("stress.trace", s, killed, &a);
    uint64_t lost = 0;
    for (int w = 0; w < s->threads; w++) {
        uint64_t k;
        memcpy(&k, pub + 8 * w, 8);
        assert_true(k >= (uint64_t)s->rounds / 2 && k <= (uint64_t)s->rounds);
        if (a.got[w] > k + 1 || (!killed && a.got[w] < k))
            fail_msg("worker %d: %llu writes recorded, %llu made", w,
                     (unsigned long long)a.got[w], (unsigned long long)k);
        lost += a.got[w] < k ? k - a.got[w] : 0;
    }
    assert_true(lost <= BUFFER_RECORDS);
    free(pub);
}

/* Run the stress program (built as `prog`) as `s` says and check it. */
void rec_stress_run(const char *prog, const rec_stress *s, const char *tsan_options)
{
    char threads[16], rounds[16], churn[4], tsan[256];
    snprintf(threads, sizeof threads, "%d", s->threads);
    snprintf(rounds, sizeof rounds, "%d", s->rounds);
    snprintf(churn, sizeof churn, "%d", s->churn);
    snprintf(tsan, sizeof tsan, "TSAN_OPTIONS=%s", tsan_options ? tsan_options : "");
    int forking = !strcmp(s->end, "fork");
    printf("stress: %d threads x %d writes%s, %s%s\n", s->threads, s->rounds,
           s->churn ? " with churn" : "", s->end, tsan_options ? ", under TSan" : "");
    const char *env[] = {forking ? "TRACEKIT_CACHERAY=stress.%p.trace"
                                 : "TRACEKIT_CACHERAY=stress.trace",
                         tsan, NULL};
    const char *args[] = {threads, rounds, churn, s->end, "progress", NULL};
    assert_int_equal(rec_sh("rm -f '%s'/stress.*trace", rec_dir), 0);
    int st = rec_run(prog, env, args);
    char out[64], err[64];
    snprintf(out, sizeof out, "%s.out", prog);
    snprintf(err, sizeof err, "%s.err", prog);
    char *errs = rec_text(err);
    if (errs && strstr(errs, "ThreadSanitizer"))
        fail_msg("%s %s: ThreadSanitizer reported:\n%s", prog, s->end, errs);
    free(errs);
    uint64_t arr[MAX_STRESS_THREADS], wtid[MAX_STRESS_THREADS];
    if (!strcmp(s->end, "join") || forking) {
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            fail_msg("%s %s: exit status 0x%x", prog, s->end, st);
        assert_int_equal(read_workers(out, s->threads, arr, wtid), s->threads);
        if (forking)
            check_fork(s, arr, wtid);
        else
            check_exact("stress.trace", s, arr, wtid);
        return;
    }
    int sig = !strcmp(s->end, "abort") ? SIGABRT : !strcmp(s->end, "segv") ? SIGSEGV : SIGKILL;
    if (!WIFSIGNALED(st) || WTERMSIG(st) != sig)
        fail_msg("%s %s: wait status 0x%x", prog, s->end, st);
    check_died(s, sig == SIGKILL);
}
