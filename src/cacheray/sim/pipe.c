/* The levels below the first on a second core. Without an inclusive
 * level nothing a level does reaches back up (stream.c), so the first
 * level can go on with the next batches while a worker thread serves the
 * requests the earlier ones made to the levels below. Batches go round a
 * ring of slots: the main thread decodes one into a slot, takes it
 * through the first level (its requests to level 2 land in the slot's
 * queue), hands it over, and runs false sharing and reuse on it; the
 * worker takes the slot's queue through levels 2..n, adding their misses
 * to the batch's masks (the main thread works out the 3C classes of
 * level 2's requests, queue3c.c, before the hand-over); then the main
 * thread counts the batch per type and thread (which needs those masks).
 * Each level sees exactly the
 * requests, in the order, it sees in one thread: the results are
 * identical. TRACEKIT_CACHESIM_THREADS=1 (or TRACEKIT_THREADS=1) keeps
 * everything on one thread, and so does a process allowed one CPU (the
 * threads would take turns on it).
 *
 * With one level and 3C there is nothing below to hand over, and the 3C
 * shadow costs as much as the rest on traffic without locality (all
 * misses): the worker then takes the whole level (split3c.h), with the
 * count of its misses per type and thread, and the main thread everything
 * else. With more levels and locality the levels below see few requests
 * and the worker idles: on the locality bench trace, 3 levels, the main
 * thread had ~72% of the work. There the worker takes every level
 * (split3c.h) as well. Moving the first level over helps exactly when the
 * levels below (B) cost less than what the main thread does besides the
 * first level (D: decoding, counting, false sharing, and reuse, which
 * only makes the split pay more often than the rule says): the pipe then
 * takes max(D + L1, B) per access, the split max(D, L1 + B). B goes with
 * the requests the levels below get, D with the accesses; callgrind per
 * thread on the bench traces (and random ones over 48K and 2M) put a
 * request below at 300-500 instructions and D at 150-210 per access: the
 * split pays below ~0.4 requests per access (locality bench 0.27, random
 * over 48K 0.5 (even), random 1.9-2.5). So the pipe starts as above; after
 * SPLIT_AT batches the main thread waits for the worker to serve
 * everything handed over, and with fewer than SPLIT_PCT requests below
 * per 100 first-level accesses moves the levels to it and goes on in
 * split mode. Either way each level sees the same requests in the same
 * order: the results are identical. For tests only,
 * TRACEKIT_CACHESIM_SPLIT=K,P chooses after K batches with P for
 * SPLIT_PCT (0: never split, 1000000: always).
 *
 * Hand-over: `head` (slots handed over) and `done` (slots served) only
 * grow; each side sleeps on a condition variable only after announcing
 * it (sleeping flag, then a look at the counter, all sequentially
 * consistent), so a wake-up is never lost. Each side sleeps until a
 * quarter of the ring is ready for it (a wake-up costs more than the
 * first level takes for one batch of a trace with locality, and on a
 * busy machine the woken thread may wait for a time slice), so the
 * threads do not take turns batch by batch; before sleeping, each spins
 * only a few microseconds (spinning longer, the idle worker of a trace
 * with locality burnt as much CPU as the main thread, which on a shared
 * machine is CPU taken from someone). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cacheray/sim/hierarchy.h"
#include "cacheray/sim/split3c.h"

enum {
    SLOTS = 64,         /* batches in the ring */
    WAKE_AFTER = 16,    /* slots waiting before the worker is woken */
    SPIN = 64,          /* looks at the counter before sleeping: a few us */
    SPLIT_AT = 32,      /* batches before the choice of split mode (8 K accesses) */
    SPLIT_PCT = 40      /* split below this many requests below per 100 accesses */
};

typedef struct slot {
    cs_batch b;
    cs_queue q;         /* the batch's requests to level 2 */
} slot;

struct cs_pipe {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t wake_worker, wake_main;
    atomic_size_t head, done;
    atomic_int worker_sleeps, main_sleeps, stop;
    atomic_size_t main_wants;  /* done the sleeping main thread waits for */
    size_t counted;     /* main thread: slots whose count pass ran */
    tk_cachesim *s;
    int split;          /* the worker has every level (split3c.h) */
    size_t split_at;    /* head at which to choose (0: chosen) */
    uint64_t split_pct;
    cs_split3c cls;
    slot ring[SLOTS];
};

/* TRACEKIT_CACHESIM_THREADS=1, or TRACEKIT_THREADS=1 (which the other
 * two-thread commands follow: src/xray/cmd/threads.h): one thread. */
static int one_thread(void)
{
    const char *v = getenv("TRACEKIT_CACHESIM_THREADS"), *w = getenv("TRACEKIT_THREADS");
    return (v && !strcmp(v, "1")) || (w && !strcmp(w, "1"));
}

/* A short wait in a spin loop (x86: `pause`, ~40-140 cycles, which also
 * leaves the core to its other hyperthread). */
static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void wait_until(cs_pipe *p, atomic_size_t *counter, size_t want, atomic_int *sleeps,
                       pthread_cond_t *cv)
{
    for (int i = 0; i < SPIN; i++) {
        if (atomic_load(counter) >= want || atomic_load(&p->stop))
            return;
        relax();
    }
    pthread_mutex_lock(&p->mu);
    atomic_store(sleeps, 1);
    while (atomic_load(counter) < want && !atomic_load(&p->stop))
        pthread_cond_wait(cv, &p->mu);
    atomic_store(sleeps, 0);
    pthread_mutex_unlock(&p->mu);
}

static void wake(cs_pipe *p, pthread_cond_t *cv)
{
    pthread_mutex_lock(&p->mu);
    pthread_cond_signal(cv);
    pthread_mutex_unlock(&p->mu);
}

static void *worker(void *arg)
{
    cs_pipe *p = arg;
    for (size_t next = 0;; next++) {
        wait_until(p, &p->head, next + 1, &p->worker_sleeps, &p->wake_worker);
        if (atomic_load(&p->head) <= next) /* stopped, all served */
            return NULL;
        slot *sl = &p->ring[next % SLOTS];
        if (p->split) {
            cs_split3c_batch(&p->cls, &sl->b, !p->s->layouts && !p->s->warming);
        } else {
            memset(sl->b.below, 0, sl->b.n);
            cs_stream_levels(p->s, sl->b.below, &sl->q);
        }
        atomic_store(&p->done, next + 1);
        if (atomic_load(&p->main_sleeps) && next + 1 >= atomic_load(&p->main_wants))
            wake(p, &p->wake_main);
    }
}

/* When to choose split mode: SPLIT_AT and SPLIT_PCT, or for tests
 * TRACEKIT_CACHESIM_SPLIT=K,P. */
static void split_rule(cs_pipe *p)
{
    const char *v = getenv("TRACEKIT_CACHESIM_SPLIT");
    char *end;
    p->split_at = SPLIT_AT;
    p->split_pct = SPLIT_PCT;
    if (!v)
        return;
    unsigned long k = strtoul(v, &end, 10), pct;
    if (*end != ',' || k == 0 || k > 1000000)
        return;
    pct = strtoul(end + 1, &end, 10);
    if (*end || pct > 1000000)
        return;
    p->split_at = k;
    p->split_pct = pct;
}

/* Whether the process may run on one CPU only (taskset -c N). */
static int one_cpu(void)
{
#ifdef __linux__
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) < 2;
#else
    return 0;
#endif
}

int cs_pipe_start(tk_cachesim *s)
{
    if (s->warming || s->pipe || one_thread())
        return 0;
    int split = !s->stream && cs_split3c_ok(s);
    if ((!s->stream && !split) || one_cpu())
        return 0;
    cs_pipe *p = calloc(1, sizeof *p);
    if (!p)
        return 0; /* one thread it is: the same results */
    p->s = s;
    if (split && cs_split3c_start(s, &p->cls) != 0)
        goto fail;
    p->split = split;
    if (!split)
        split_rule(p);
    /* level 2's classes (queue3c.c) on the main thread, whose share is
     * the smaller on traffic that misses: random over 128 MiB, 3 levels,
     * the threads' CPU 0.58 s and 0.90 s, then 0.79 s and 0.74 s, and the
     * run 1.02 s, then 0.85 s */
    s->classes2_main = !split && s->lv[1].queued;
    if (pthread_mutex_init(&p->mu, NULL) != 0)
        goto fail;
    if (pthread_cond_init(&p->wake_worker, NULL) != 0 ||
        pthread_cond_init(&p->wake_main, NULL) != 0 ||
        pthread_create(&p->thread, NULL, worker, p) != 0) {
        pthread_mutex_destroy(&p->mu);
        goto fail;
    }
    s->pipe = p;
    return 0;
fail:
    if (p->split)
        cs_split3c_stop(s, &p->cls);
    free(p); /* one thread it is: the same results */
    return 0;
}

/* ---- counts per type and thread, in two parts: what the first level
 * knows (reads, writes, bytes, its misses; each access's type noted) as
 * the batch is handed over, the misses below once the worker served it.
 * RTTA records then change the regions without waiting for the worker.
 * With per-field counts (whose misses below need the region) the whole
 * count pass waits for the worker instead, and so do RTTA records. */

/* ---- counts of what the first level knows (cs_count_first, sim_int.h).
 * An access's counts in one word: 16-bit lanes of accesses, writes,
 * bytes and first-level misses; a batch has at most 256 accesses of at
 * most 255 bytes, so summed over a batch no lane overflows. */
static inline uint64_t count_word(unsigned write, unsigned size, unsigned miss)
{
    return 1 | (uint64_t)write << 16 | (uint64_t)size << 32 | (uint64_t)miss << 48;
}

static void add_word(tk_cachesim_counts *c, uint64_t w)
{
    const uint64_t n = w & 0xFFFF, writes = w >> 16 & 0xFFFF;
    c->reads += n - writes;
    c->writes += writes;
    c->bytes += w >> 32 & 0xFFFF;
    c->misses[0] += w >> 48;
}

static void thread_add(tk_cachesim *s, uint64_t id, uint64_t w)
{
    tk_cachesim_counts *tc = cs_threads_get(&s->threads, id);
    if (!tc)
        s->oom = 1;
    else
        add_word(tc, w);
}

enum { FEW_TYPES = 16 }; /* types summed per batch in words (FEW_TYPES words) */

/* The thread summed beside a batch's first (a): the other of the last
 * batch's two, or any id but a's. */
static uint64_t other_thread(const cs_threads *th, uint64_t a)
{
    const uint64_t o = th->pair[0] != a ? th->pair[0] : th->pair[1];
    return o != a ? o : a + 1;
}

/* The batch's types (noted for the misses below and the worker) and
 * counts per type; the sums of threads a and o (any other id) returned
 * and in *so. With few types, each type's counts are summed in a word
 * too, in sum[type]. */
__attribute__((always_inline)) static inline uint64_t
count_types(tk_cachesim *s, cs_batch *b, const int mask0, const int few, uint64_t *sum,
            uint64_t a, uint64_t o, uint64_t *so)
{
    cs_type *const v = s->types.v;
    cs_regions *const g = s->regions;
    const size_t n = b->n;
    uint64_t sa = 0, sb = 0;
    for (size_t j = 0; j < n; j++) {
        const uint64_t tid = b->thread[j];
        const unsigned size = b->size[j], write = b->write[j];
        const unsigned miss = mask0 ? b->mask[j] & 1 : 0;
        const cs_region *r;
        const uint32_t type = cs_regions_find_type(g, b->addr[j], &r);
        const uint64_t w = count_word(write, size, miss);
        b->type[j] = type;
        if (few) {
            sum[type] += w;
        } else {
            tk_cachesim_counts *c = &v[type].pub.c;
            c->reads += !write;
            c->writes += write;
            c->bytes += size;
            c->misses[0] += miss;
        }
        sa += tid == a ? w : 0;
        sb += tid == o ? w : 0;
    }
    *so = sb;
    return sa;
}

/* Per thread, run by run: batches of more than two threads. Returns a
 * thread other than the first's (the first's when none). */
static uint64_t count_runs(tk_cachesim *s, const cs_batch *b, const int mask0)
{
    const size_t n = b->n;
    uint64_t other = b->thread[0];
    for (size_t i = 0, j; i < n; i = j) {
        const uint64_t id = b->thread[i];
        uint64_t w = 0;
        for (j = i; j < n && b->thread[j] == id; j++)
            w += count_word(b->write[j], b->size[j], mask0 ? b->mask[j] & 1 : 0);
        thread_add(s, id, w);
        if (id != b->thread[0])
            other = id;
    }
    return other;
}

/* Per thread, two threads are summed in the loop over the accesses
 * without a branch on the thread: the batch's first thread (a) and the
 * other of the last batch's two (o). Random traffic of two threads
 * changes thread at every other access, which a loop over runs
 * mispredicted. When the two hold all the batch's accesses their sums go
 * to their counts (a first: threads are added in order of their first
 * access); else the batch is counted run by run. */
__attribute__((always_inline)) static inline void count_first_as(tk_cachesim *s, cs_batch *b,
                                                                 const int mask0)
{
    const size_t n = b->n, ntypes = s->types.n;
    if (n == 0)
        return;
    cs_threads *th = &s->threads;
    const uint64_t a = b->thread[0];
    uint64_t o = other_thread(th, a);
    uint64_t sum[FEW_TYPES], so, sa;
    if (ntypes <= FEW_TYPES) {
        memset(sum, 0, sizeof sum);
        sa = count_types(s, b, mask0, 1, sum, a, o, &so);
        for (size_t t = 0; t < ntypes; t++)
            if (sum[t])
                add_word(&s->types.v[t].pub.c, sum[t]);
    } else {
        sa = count_types(s, b, mask0, 0, sum, a, o, &so);
    }
    if ((sa & 0xFFFF) + (so & 0xFFFF) == n) {
        thread_add(s, a, sa);
        if (so)
            thread_add(s, o, so);
    } else {
        o = count_runs(s, b, mask0);
    }
    th->pair[0] = a;
    th->pair[1] = o;
}

/* mask0: the first level's misses are known (b->mask), else the worker
 * counts them (split3c.h), by the types noted here. */
void cs_count_first(tk_cachesim *s, cs_batch *b, int mask0)
{
    if (mask0)
        count_first_as(s, b, 1);
    else
        count_first_as(s, b, 0);
}

/* ---- counts of the misses below (once the worker served the batch) */

/* An access's misses at levels 1..4 below the first in 16-bit lanes (a
 * batch's sums stay below 2^16), like count_word. */
static inline uint64_t below_word(unsigned mask)
{
    return (uint64_t)(mask >> 1 & 1) | (uint64_t)(mask >> 2 & 1) << 16 |
           (uint64_t)(mask >> 3 & 1) << 32 | (uint64_t)(mask >> 4 & 1) << 48;
}

static void add_below(tk_cachesim_counts *c, uint64_t w)
{
    for (unsigned k = 1; k <= 4; k++)
        c->misses[k] += w >> (16 * (k - 1)) & 0xFFFF;
}

/* As count_first_as, for up to 5 levels: per type in words (few types)
 * and per thread the batch's first thread and one other summed without a
 * branch; random traffic misses below at nearly every access, which
 * count_below took one at a time (a thread's look-up each). Returns 0
 * when the batch has more than those two threads (count_below then). */
static int count_below_sums(tk_cachesim *s, const cs_batch *b)
{
    const size_t n = b->n, ntypes = s->types.n;
    if (n == 0)
        return 1;
    const uint64_t a = b->thread[0], o = other_thread(&s->threads, a);
    uint64_t sum[FEW_TYPES] = {0}, sa = 0, so = 0;
    size_t na = 0, no = 0;
    const int few = ntypes <= FEW_TYPES;
    for (size_t j = 0; j < n; j++) {
        const uint64_t tid = b->thread[j], w = below_word(b->below[j]);
        if (few)
            sum[b->type[j]] += w;
        else if (w)
            add_below(&s->types.v[b->type[j]].pub.c, w);
        sa += tid == a ? w : 0;
        so += tid == o ? w : 0;
        na += tid == a;
        no += tid == o;
    }
    for (size_t t = 0; few && t < ntypes; t++)
        if (sum[t])
            add_below(&s->types.v[t].pub.c, sum[t]);
    if (na + no != n)
        return 0;
    tk_cachesim_counts *tc = cs_threads_get(&s->threads, a);
    tk_cachesim_counts *oc = no ? cs_threads_get(&s->threads, o) : NULL;
    if (!tc || (no && !oc)) {
        s->oom = 1;
        return 1;
    }
    add_below(tc, sa);
    if (oc)
        add_below(oc, so);
    return 1;
}

/* Per thread only when `threads_only` (count_below_sums counted the
 * types), else per type too. */
static void count_below_each(tk_cachesim *s, const cs_batch *b, int threads_only)
{
    for (size_t i = cs_next_set(b->below, 0, b->n); i < b->n;
         i = cs_next_set(b->below, i + 1, b->n)) {
        const unsigned mask = b->below[i];
        tk_cachesim_counts *c = &s->types.v[b->type[i]].pub.c;
        tk_cachesim_counts *tc = cs_threads_get(&s->threads, b->thread[i]);
        if (!tc) {
            s->oom = 1;
            continue;
        }
        for (size_t k = 1; k < s->nlevels; k++) {
            if (!threads_only)
                c->misses[k] += mask >> k & 1;
            tc->misses[k] += mask >> k & 1;
        }
    }
}

static void count_below(tk_cachesim *s, const cs_batch *b)
{
    if (s->nlevels > 5)
        count_below_each(s, b, 0);
    else if (!count_below_sums(s, b))
        count_below_each(s, b, 1);
}

int cs_pipe_rtta_ok(const tk_cachesim *s, unsigned tag)
{
    return !s->layouts && (tag == TK_CACHERAY_RTTA_ADD || tag == TK_CACHERAY_RTTA_REMOVE);
}

/* Count the served slots (their masks are whole). */
static void count_served(tk_cachesim *s, cs_pipe *p)
{
    size_t done = atomic_load(&p->done);
    for (; p->counted < done; p->counted++) {
        cs_batch *b = &p->ring[p->counted % SLOTS].b;
        if (s->warming)
            continue;
        if (s->layouts) {
            if (!p->split) /* split: the worker wrote the masks */
                for (size_t i = 0; i < b->n; i++)
                    b->mask[i] |= b->below[i];
            s->count_pass(s, b);
        } else if (!p->split) { /* split: the worker counted the misses */
            count_below(s, b);
        }
    }
}

static void wait_done(cs_pipe *p, size_t want)
{
    atomic_store(&p->main_wants, want);
    if (atomic_load(&p->worker_sleeps))
        wake(p, &p->wake_worker);
    wait_until(p, &p->done, want, &p->main_sleeps, &p->wake_main);
}

/* Split mode (the header comment) when the levels below the first were
 * sent fewer than split_pct requests per 100 first-level accesses so far. */
static void choose_split(tk_cachesim *s, cs_pipe *p)
{
    p->split_at = 0;
    cs_pipe_drain(s); /* the worker waits: its levels can be read, and moved */
    const uint64_t n = s->lv[0].st.reads + s->lv[0].st.writes;
    uint64_t below = 0;
    for (size_t k = 1; k < s->nlevels; k++)
        below += s->lv[k].st.reads + s->lv[k].st.writes;
    if (n == 0 || below * 100 >= p->split_pct * n)
        return;
    if (cs_split3c_start(s, &p->cls) == 0)
        p->split = 1; /* else (out of memory) the pipe as it was */
}

cs_batch *cs_pipe_batch(tk_cachesim *s)
{
    cs_pipe *p = s->pipe;
    size_t head = atomic_load(&p->head);
    if (p->split_at && head == p->split_at)
        choose_split(s, p);
    if (head - p->counted == SLOTS) { /* the ring is full: the oldest must be served */
        if (atomic_load(&p->done) == p->counted) /* and a few more, or the threads */
            wait_done(p, p->counted + SLOTS / 4); /* would take turns batch by batch */
        count_served(s, p);
    }
    cs_batch *b = &p->ring[head % SLOTS].b;
    b->n = 0;
    return b;
}

void cs_pipe_submit(tk_cachesim *s, cs_batch *b)
{
    cs_pipe *p = s->pipe;
    size_t head = atomic_load(&p->head);
    slot *sl = &p->ring[head % SLOTS];
    const int counts = !s->layouts && !s->warming;
    cs_run_front(s, b, &sl->q);
    if (s->classes2_main && !p->split && cs_stream_classify(s, 1, &sl->q))
        s->oom = 1;
    if (p->split && counts) /* the types before the hand-over: the worker reads them */
        cs_count_first(s, b, 0);
    atomic_store(&p->head, head + 1);
    if (atomic_load(&p->worker_sleeps) && head + 1 - atomic_load(&p->done) >= WAKE_AFTER)
        wake(p, &p->wake_worker);
    cs_run_find(s, b);
    if (!p->split && counts) /* while the false-sharing blocks arrive */
        cs_count_first(s, b, 1);
    count_served(s, p);
    cs_run_side(s, b);
}

void cs_pipe_drain(tk_cachesim *s)
{
    cs_pipe *p = s->pipe;
    if (!p)
        return;
    size_t head = atomic_load(&p->head);
    if (atomic_load(&p->done) < head)
        wait_done(p, head);
    count_served(s, p);
    for (size_t k = 1; k < s->nlevels; k++) /* the worker's, now that it waits */
        if (s->lv[k].oom)
            s->oom = 1;
}

void cs_pipe_stop(tk_cachesim *s)
{
    cs_pipe *p = s->pipe;
    if (!p)
        return;
    cs_pipe_drain(s);
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, 1);
    pthread_cond_signal(&p->wake_worker);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    pthread_cond_destroy(&p->wake_worker);
    pthread_cond_destroy(&p->wake_main);
    pthread_mutex_destroy(&p->mu);
    for (size_t i = 0; i < SLOTS; i++)
        free(p->ring[i].q.v);
    if (p->split)
        cs_split3c_stop(s, &p->cls);
    free(p);
    s->pipe = NULL;
    s->classes2_main = 0;
}
