/* What got slower between two XRay traces (include/tracekit/xray_diff.h).
 *
 * One pass over each trace: calls are matched as account matches them
 * (tk_xr_calls), and each call's latency goes, with its self time
 * (latency minus the latencies of the calls it made, as stack's self),
 * into its function's node and, with stacks, its call path's node. Each
 * trace has its own nodes, ids, threads and latency pool (account's
 * bounded lists, half the memory limit each, spilling past it), so the two
 * traces can be read by two threads at once. At the end the nodes are
 * joined by key — the function's name when it has one (builds with
 * different ids match), else "#<id>"; for paths the frames' keys joined by
 * ';' — and diff_rank.c ranks each pair's two lists together by value
 * windows for the quantiles and the Mann-Whitney U, holding at most 1/8 of
 * a pool's budget at a time besides the lists; with the threads option two
 * threads rank different pairs at once (each holding that much). The
 * test is diff_test.c. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/xray_account.h>
#include <tracekit/xray_diff.h>

#include "core/hashmap.h"
#include "core/strbuf.h"
#include "xray/analysis/diff_int.h"
#include "xray/xray_int.h"

#define DIRECT_IDS (1u << 20) /* ids below: a direct table */
#define NO_NODE UINT32_MAX

/* What every call touches (the sums, and the list's write pointer and
 * count, its first fields) is the node's first cache line: nodes are 64
 * bytes aligned. */
typedef struct node {
    _Alignas(64) uint64_t count;
    uint64_t sum, self, min, max;
    tk_lat_list lat;
    char *name;      /* functions: NULL when unnamed */
    int32_t id;      /* functions: the id */
    uint32_t func;   /* paths: the leaf's function node */
    uint32_t parent; /* paths: the caller's path, NO_NODE at a root */
} node;

typedef struct nodes {
    node *v;
    size_t n, cap;
} nodes;

typedef struct frame_extra {
    uint64_t child; /* latencies of the calls it made */
    uint32_t func, path;
} frame_extra;

typedef struct thread_state {
    tk_xr_clock clock;
    tk_xr_calls calls;
    frame_extra *x; /* parallel to calls, xcap of them */
    uint32_t xcap;
} thread_state;

/* Everything of one trace: tk_xray_diff_add touches nothing else. */
typedef struct side {
    tk_map threads; /* tid -> thread_state */
    uint32_t last_tid;
    thread_state *last;
    uint32_t *direct; /* id -> function node + 1 (0: not yet) */
    size_t ndirect;
    tk_map other;     /* other ids -> function node + 1 */
    tk_map by_name;   /* name -> function node + 1 (ids of one name: one) */
    nodes funcs, paths;
    tk_map path_of;   /* (parent + 1) << 32 | function node -> path + 1 */
    char **labels;    /* keys of the paths, made at the end */
    tk_lat_pool pool;
    double scale;     /* ticks to units */
    int scaled;       /* scale is not 1 */
    int fed;          /* records came: no more names */
    const char *(*name)(void *ctx, int32_t func_id);
    void *name_ctx;
} side;

struct tk_xray_diff {
    tk_xray_diff_options opt;
    side side[2];
    double units;
    tk_xray_diff_row *rows[2]; /* computed: functions, paths */
    size_t nrows[2];
    tk_status failed;
    int done;
};

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

tk_xray_diff *tk_xray_diff_new(const tk_xray_diff_options *o, tk_error *err)
{
    tk_xray_diff *d = calloc(1, sizeof *d);
    if (!d) {
        oom(err);
        return NULL;
    }
    if (o)
        d->opt = *o;
    if (!(d->opt.alpha > 0 && d->opt.alpha < 1))
        d->opt.alpha = 0.05;
    const uint64_t *f = d->opt.freq;
    int differ = f[0] && f[1] && f[0] != f[1];
    d->units = differ ? 1e12 : f[0] ? (double)f[0] : (double)f[1];
    uint64_t limit = d->opt.memory_limit ? d->opt.memory_limit : (uint64_t)64 << 20;
    for (int s = 0; s < 2; s++) {
        side *sd = &d->side[s];
        tk_map_init(&sd->threads, sizeof(thread_state));
        tk_map_init(&sd->other, sizeof(uint32_t));
        tk_map_init(&sd->path_of, sizeof(uint32_t));
        tk_map_init(&sd->by_name, sizeof(uint32_t));
        tk_lat_pool_init(&sd->pool, limit / 2 ? limit / 2 : 1);
        sd->scale = differ ? 1e12 / (double)f[s] : 1.0;
        sd->scaled = sd->scale != 1.0;
        sd->name = d->opt.name[s];
        sd->name_ctx = d->opt.name_ctx[s];
    }
    return d;
}

static void free_nodes(tk_lat_pool *p, nodes *ns)
{
    for (size_t i = 0; i < ns->n; i++) {
        tk_lat_list_free(p, &ns->v[i].lat);
        free(ns->v[i].name);
    }
    free(ns->v);
}

static void free_side(side *sd)
{
    for (size_t i = 0; i < sd->threads.n; i++) {
        thread_state *t = tk_map_value(&sd->threads, i);
        tk_xr_calls_free(&t->calls);
        free(t->x);
    }
    for (size_t i = 0; sd->labels && i < sd->paths.n; i++)
        free(sd->labels[i]);
    free(sd->labels);
    free_nodes(&sd->pool, &sd->funcs);
    free_nodes(&sd->pool, &sd->paths);
    tk_lat_pool_free(&sd->pool);
    tk_map_free(&sd->threads);
    tk_map_free(&sd->other);
    tk_map_free(&sd->path_of);
    tk_map_free(&sd->by_name);
    free(sd->direct);
}

void tk_xray_diff_free(tk_xray_diff *d)
{
    if (!d)
        return;
    for (int s = 0; s < 2; s++) {
        free_side(&d->side[s]);
        free(d->rows[s]);
    }
    free(d);
}

/* A new node; NO_NODE when out of memory. */
static uint32_t node_new(nodes *ns)
{
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? ns->cap * 2 : 64;
        node *v = cap < NO_NODE ? aligned_alloc(_Alignof(node), cap * sizeof *v) : NULL;
        if (!v)
            return NO_NODE;
        if (ns->n)
            memcpy(v, ns->v, ns->n * sizeof *v);
        free(ns->v);
        ns->v = v;
        ns->cap = cap;
    }
    memset(&ns->v[ns->n], 0, sizeof ns->v[0]);
    return (uint32_t)ns->n++;
}

/* The slot of an id (function node + 1, 0 when unset); NULL out of memory. */
static uint32_t *slot_of(side *sd, int32_t func)
{
    uint32_t id = (uint32_t)func;
    if (id >= DIRECT_IDS)
        return tk_map_u64(&sd->other, id);
    if (id >= sd->ndirect) {
        void *v = sd->direct;
        int rc = tk_array_grow_zeroed(&v, &sd->ndirect, id, sizeof *sd->direct, 256);
        sd->direct = v;
        if (rc != 0)
            return NULL;
    }
    return &sd->direct[id];
}

/* The function node of id `func` (whose slot exists), made (named `name`);
 * NO_NODE out of memory. */
static uint32_t func_make(side *sd, int32_t func, const char *name)
{
    uint32_t *named = name ? tk_map_str(&sd->by_name, name, strlen(name)) : NULL;
    if (name && !named)
        return NO_NODE;
    if (named && *named) { /* another id of a known name */
        *slot_of(sd, func) = *named; /* the slot exists: the map may have moved */
        return *named - 1;
    }
    char *copy = name ? strdup(name) : NULL;
    uint32_t n = (name && !copy) ? NO_NODE : node_new(&sd->funcs);
    if (n == NO_NODE) {
        free(copy);
        return NO_NODE;
    }
    sd->funcs.v[n].name = copy;
    sd->funcs.v[n].id = func;
    *slot_of(sd, func) = n + 1;
    if (name)
        *(uint32_t *)tk_map_find_str(&sd->by_name, name, strlen(name)) = n + 1;
    return n;
}

tk_status tk_xray_diff_name(tk_xray_diff *d, int side_no, int32_t func_id, const char *name,
                            tk_error *err)
{
    side *sd = &d->side[side_no ? 1 : 0];
    uint32_t *slot = slot_of(sd, func_id);
    if (!slot)
        return oom(err);
    if (*slot || sd->fed)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "function %d of trace %c named twice or after its records",
                            func_id, side_no ? 'B' : 'A');
    return func_make(sd, func_id, name) == NO_NODE ? oom(err) : TK_OK;
}

/* The function node of an id seen before, through the slot; NO_NODE out
 * of memory. */
static uint32_t func_slow(side *sd, int32_t func)
{
    uint32_t *slot = slot_of(sd, func);
    if (!slot)
        return NO_NODE;
    if (*slot)
        return *slot - 1;
    return func_make(sd, func, sd->name ? sd->name(sd->name_ctx, func) : NULL);
}

/* The function node of an id; NO_NODE out of memory. Every call does
 * this: a known small id is one load. */
static inline uint32_t func_of(side *sd, int32_t func)
{
    uint32_t id = (uint32_t)func;
    if (id < sd->ndirect && sd->direct[id])
        return sd->direct[id] - 1;
    return func_slow(sd, func);
}

/* The path node of function `fn` called from path `parent`; NO_NODE out of
 * memory. */
static uint32_t path_of(side *sd, uint32_t parent, uint32_t fn)
{
    uint64_t pk = ((uint64_t)(parent == NO_NODE ? 0 : parent + 1) << 32) | fn;
    uint32_t *slot = tk_map_u64(&sd->path_of, pk);
    if (!slot)
        return NO_NODE;
    if (*slot)
        return *slot - 1;
    uint32_t n = node_new(&sd->paths);
    if (n == NO_NODE)
        return NO_NODE;
    sd->paths.v[n].func = fn;
    sd->paths.v[n].parent = parent;
    *slot = n + 1;
    return n;
}

static inline int record(side *sd, node *x, uint64_t lat, uint64_t self)
{
    if (x->count == 0)
        x->min = x->max = lat;
    if (tk_lat_add(&sd->pool, &x->lat, lat) != 0)
        return -1;
    x->count++;
    x->sum += lat;
    x->self += self;
    x->min = lat < x->min ? lat : x->min;
    x->max = lat > x->max ? lat : x->max;
    return 0;
}

static thread_state *thread_of(side *sd, uint32_t tid)
{
    if (sd->last && sd->last_tid == tid)
        return sd->last;
    thread_state *t = tk_map_u64(&sd->threads, tid);
    sd->last = t; /* a new key may move the values: cache after the lookup */
    sd->last_tid = tid;
    return t;
}

static int enter(side *sd, int stacks, thread_state *t, const tk_xray_record *rec)
{
    uint32_t fn = func_of(sd, rec->func_id);
    if (fn == NO_NODE || tk_xr_calls_push(&t->calls, rec->func_id, 1, rec->tsc) != 0)
        return -1;
    if (t->xcap < t->calls.cap) {
        frame_extra *x = realloc(t->x, t->calls.cap * sizeof *x);
        if (!x)
            return -1;
        t->x = x;
        t->xcap = t->calls.cap;
    }
    uint32_t depth = t->calls.depth;
    frame_extra *f = &t->x[depth - 1];
    f->child = 0;
    f->func = fn;
    f->path = NO_NODE;
    if (stacks &&
        (f->path = path_of(sd, depth > 1 ? t->x[depth - 2].path : NO_NODE, fn)) == NO_NODE)
        return -1;
    return 0;
}

static int leave(side *sd, int deduce, thread_state *t, const tk_xray_record *rec)
{
    tk_xr_calls *c = &t->calls;
    long at = tk_xr_calls_exit(c, rec->func_id, deduce);
    if (at < 0)
        return (int)-at;
    for (uint32_t i = c->depth; i-- > (uint32_t)at;) {
        uint64_t lat = rec->tsc > c->tscs[i] ? rec->tsc - c->tscs[i] : c->tscs[i] - rec->tsc;
        if (sd->scaled)
            lat = (uint64_t)llround((double)lat * sd->scale);
        frame_extra *f = &t->x[i];
        uint64_t self = lat > f->child ? lat - f->child : 0;
        if (record(sd, &sd->funcs.v[f->func], lat, self) != 0 ||
            (f->path != NO_NODE && record(sd, &sd->paths.v[f->path], lat, self) != 0))
            return -1;
        if (i > 0)
            t->x[i - 1].child += lat;
    }
    c->depth = (uint32_t)at;
    return 0;
}

int tk_xray_diff_add(tk_xray_diff *d, int s, const tk_xray_record *rec, tk_error *err)
{
    if (rec->kind >= TK_XRAY_CUSTOM_EVENT)
        return TK_XRAY_ACCOUNT_OK;
    side *sd = &d->side[s ? 1 : 0];
    sd->fed = 1;
    thread_state *t = thread_of(sd, rec->tid);
    if (!t) {
        oom(err);
        return -1;
    }
    if (tk_xr_clock_behind(&t->clock, rec->tsc))
        return TK_XRAY_ACCOUNT_TSC_BACK;
    int rc = rec->kind == TK_XRAY_ENTER || rec->kind == TK_XRAY_ENTER_ARG
                 ? enter(sd, d->opt.stacks, t, rec)
                 : leave(sd, d->opt.deduce_sibling_calls, t, rec);
    if (rc < 0)
        oom(err);
    return rc;
}

uint64_t tk_xray_diff_spilled(const tk_xray_diff *d)
{
    return d->side[0].pool.spilled + d->side[1].pool.spilled;
}

double tk_xray_diff_units_per_second(const tk_xray_diff *d) { return d->units; }

/* ---------------------------------------------------------------- rows */

/* The key of function node x: its name, or "#<id>" in buf. */
static const char *func_key(const node *x, char *buf, size_t cap)
{
    if (x->name)
        return x->name;
    snprintf(buf, cap, "#%d", x->id);
    return buf;
}

/* Path x's key: its frames' keys, root first, joined by ';' (';' and line
 * breaks in names replaced). NULL out of memory. */
static char *path_label(const side *sd, uint32_t x)
{
    size_t len = 0, at;
    char id[24];
    for (uint32_t p = x; p != NO_NODE; p = sd->paths.v[p].parent)
        len += strlen(func_key(&sd->funcs.v[sd->paths.v[p].func], id, sizeof id)) + 1;
    char *buf = len ? malloc(len) : NULL;
    if (!buf)
        return NULL;
    at = len - 1;
    buf[at] = 0;
    for (uint32_t p = x; p != NO_NODE; p = sd->paths.v[p].parent) {
        const char *k = func_key(&sd->funcs.v[sd->paths.v[p].func], id, sizeof id);
        size_t n = strlen(k);
        at -= n;
        for (size_t i = 0; i < n; i++)
            buf[at + i] = k[i] == ';' ? ':' : (k[i] == '\n' || k[i] == '\r') ? ' ' : k[i];
        if (at)
            buf[--at] = ';';
    }
    return buf;
}

static int make_labels(side *sd)
{
    if (!(sd->labels = calloc(sd->paths.n ? sd->paths.n : 1, sizeof *sd->labels)))
        return -1;
    for (size_t i = 0; i < sd->paths.n; i++)
        if (!(sd->labels[i] = path_label(sd, (uint32_t)i)))
            return -1;
    return 0;
}

static void fill_stats(tk_xray_diff_stats *o, const node *x, const uint64_t q[3])
{
    memset(o, 0, sizeof *o);
    if (!x || !x->count)
        return;
    o->count = x->count;
    o->sum = x->sum;
    o->self = x->self;
    o->min = x->min;
    o->max = x->max;
    o->med = q[0];
    o->p90 = q[1];
    o->p99 = q[2];
}

/* The row of nodes x[0] (A) and x[1] (B), either NULL: the statistics and
 * the test (their latencies are left for the caller to free). 0, -1 or -2
 * (as tk_xd_rank_lists). */
static int fill_row(tk_xray_diff *d, node *const x[2], tk_xray_diff_row *r)
{
    tk_lat_list none[2] = {{0}};
    tk_lat_list *const l[2] = {x[0] ? &x[0]->lat : &none[0], x[1] ? &x[1]->lat : &none[1]};
    tk_lat_pool *const pools[2] = {&d->side[0].pool, &d->side[1].pool};
    const uint64_t mn[2] = {x[0] ? x[0]->min : 0, x[1] ? x[1]->min : 0};
    const uint64_t mx[2] = {x[0] ? x[0]->max : 0, x[1] ? x[1]->max : 0};
    tk_xd_rank rk;
    int rc = tk_xd_rank_lists(pools, l, mn, mx, d->side[0].pool.budget / 8, &rk);
    if (rc != 0)
        return rc;
    memset(r, 0, sizeof *r);
    fill_stats(&r->a, x[0], rk.q[0]);
    fill_stats(&r->b, x[1], rk.q[1]);
    r->p = 1;
    if (!r->a.count || !r->b.count) {
        r->verdict = r->a.count ? TK_XRAY_DIFF_ONLY_A : TK_XRAY_DIFF_ONLY_B;
        return 0;
    }
    r->u = (double)rk.u2 / 2;
    r->p = tk_xray_diff_mwu_p(r->u, r->a.count, r->b.count, rk.ties, &r->z, &r->exact);
    double mu = (double)r->a.count * (double)r->b.count / 2;
    if (r->p < d->opt.alpha && r->u != mu) /* A ranking low: B is slower */
        r->verdict = r->u < mu ? TK_XRAY_DIFF_SLOWER : TK_XRAY_DIFF_FASTER;
    return 0;
}

static int cmp_row(const void *x, const void *y)
{
    const tk_xray_diff_row *a = x, *b = y;
    double da = (double)a->b.self - (double)a->a.self, db = (double)b->b.self - (double)b->a.self;
    if (da != db)
        return da > db ? -1 : 1;
    if (a->path && b->path)
        return strcmp(a->path, b->path);
    if (a->name && b->name && strcmp(a->name, b->name))
        return strcmp(a->name, b->name);
    if (!a->name != !b->name)
        return a->name ? -1 : 1;
    int ia = a->func_id[0] >= 0 ? a->func_id[0] : a->func_id[1];
    int ib = b->func_id[0] >= 0 ? b->func_id[0] : b->func_id[1];
    return (ia > ib) - (ia < ib);
}

typedef struct pair {
    uint32_t n[2]; /* node + 1 in each trace, 0: none */
} pair;

/* The nodes of both traces joined by key (`paths`: the path labels). */
static int join(tk_xray_diff *d, int paths, tk_map *m)
{
    char id[24];
    for (int s = 0; s < 2; s++) {
        const side *sd = &d->side[s];
        const nodes *ns = paths ? &sd->paths : &sd->funcs;
        for (size_t i = 0; i < ns->n; i++) {
            if (!ns->v[i].count)
                continue; /* named, never called */
            const char *k = paths ? sd->labels[i] : func_key(&ns->v[i], id, sizeof id);
            pair *p = tk_map_str(m, k, strlen(k));
            if (!p)
                return -1;
            if (!p->n[s]) /* a name spelled "#<id>" meets that id: the first */
                p->n[s] = (uint32_t)i + 1;
        }
    }
    return 0;
}

/* The row's names: the function's (a path: its leaf's) and ids. */
static void name_row(tk_xray_diff *d, int paths, const pair *p, tk_xray_diff_row *r)
{
    for (int s = 0; s < 2; s++) {
        const side *sd = &d->side[s];
        r->func_id[s] = -1;
        if (!p->n[s])
            continue;
        const node *x = paths ? &sd->funcs.v[sd->paths.v[p->n[s] - 1].func]
                              : &sd->funcs.v[p->n[s] - 1];
        r->func_id[s] = x->id;
        if (!r->name)
            r->name = x->name;
        if (paths && !r->path)
            r->path = sd->labels[p->n[s] - 1];
    }
}

/* The rows are filled by up to two threads (tk_xray_diff_options.threads),
 * biggest pairs first so neither waits long for the other at the end;
 * each row is the same whoever fills it. The pools are read by both (pread
 * at offsets: no shared position); freeing lists changes a pool's count,
 * so that is done under the lock. */
typedef struct fill_job {
    tk_xray_diff *d;
    int paths;
    tk_map *m;       /* key -> pair */
    uint32_t *order; /* pair indices, biggest first */
    tk_xray_diff_row *r;
    atomic_size_t next;
    atomic_int stop;
    pthread_mutex_t lock;
    size_t fail_at;  /* the failing pair of the smallest index, m->n if none */
    int rc;          /* its failure (-1, -2), under the lock */
} fill_job;

static void pair_nodes(tk_xray_diff *d, int paths, const pair *p, node *x[2])
{
    for (int s = 0; s < 2; s++) {
        nodes *ns = paths ? &d->side[s].paths : &d->side[s].funcs;
        x[s] = p->n[s] ? &ns->v[p->n[s] - 1] : NULL;
    }
}

static void *fill_rows(void *arg)
{
    fill_job *j = arg;
    size_t k;
    while (!atomic_load(&j->stop) && (k = atomic_fetch_add(&j->next, 1)) < j->m->n) {
        size_t i = j->order[k];
        const pair *p = tk_map_value(j->m, i);
        node *x[2];
        pair_nodes(j->d, j->paths, p, x);
        int rc = fill_row(j->d, x, &j->r[i]);
        pthread_mutex_lock(&j->lock);
        for (int s = 0; s < 2; s++)
            if (x[s])
                tk_lat_list_free(&j->d->side[s].pool, &x[s]->lat);
        if (rc != 0 && i < j->fail_at) {
            j->fail_at = i;
            j->rc = rc;
        }
        pthread_mutex_unlock(&j->lock);
        if (rc != 0)
            atomic_store(&j->stop, 1);
        else
            name_row(j->d, j->paths, p, &j->r[i]);
    }
    return NULL;
}

static uint64_t pair_size(const pair *p, tk_xray_diff *d, int paths)
{
    node *x[2];
    pair_nodes(d, paths, p, x);
    return (x[0] ? x[0]->count : 0) + (x[1] ? x[1]->count : 0);
}

typedef struct sized {
    uint64_t size;
    uint32_t i;
} sized;

static int cmp_sized(const void *x, const void *y)
{
    const sized *a = x, *b = y;
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* The pairs' indices, biggest first; NULL out of memory. */
static uint32_t *size_order(tk_xray_diff *d, int paths, const tk_map *m)
{
    sized *v = malloc((m->n ? m->n : 1) * sizeof *v);
    uint32_t *o = malloc((m->n ? m->n : 1) * sizeof *o);
    if (v && o) {
        for (size_t i = 0; i < m->n; i++)
            v[i] = (sized){pair_size(tk_map_value(m, i), d, paths), (uint32_t)i};
        qsort(v, m->n, sizeof *v, cmp_sized);
        for (size_t i = 0; i < m->n; i++)
            o[i] = v[i].i;
    } else {
        free(o);
        o = NULL;
    }
    free(v);
    return o;
}

/* Fill every row, on two threads when asked and possible: 0, -1, -2. */
static int fill_all(tk_xray_diff *d, int paths, tk_map *m, tk_xray_diff_row *r)
{
    fill_job j = {.d = d, .paths = paths, .m = m, .r = r, .fail_at = m->n};
    if (!(j.order = size_order(d, paths, m)))
        return -1;
    atomic_init(&j.next, 0);
    atomic_init(&j.stop, 0);
    pthread_mutex_init(&j.lock, NULL);
    pthread_t th;
    int two = d->opt.threads > 1 && m->n > 1 && pthread_create(&th, NULL, fill_rows, &j) == 0;
    fill_rows(&j);
    if (two)
        pthread_join(th, NULL);
    pthread_mutex_destroy(&j.lock);
    free(j.order);
    return j.fail_at < m->n ? j.rc : 0;
}

/* Rows of functions (paths = 0) or paths into d->rows[paths]: 0, -1, -2. */
static int compute(tk_xray_diff *d, int paths)
{
    tk_map m;
    tk_map_init(&m, sizeof(pair));
    int rc = join(d, paths, &m);
    tk_xray_diff_row *r = rc ? NULL : calloc(m.n ? m.n : 1, sizeof *r);
    d->rows[paths] = r;
    if (!r)
        rc = -1;
    if (rc == 0)
        rc = fill_all(d, paths, &m, r);
    if (rc == 0) {
        d->nrows[paths] = m.n;
        qsort(r, m.n, sizeof *r, cmp_row);
    }
    tk_map_free(&m);
    return rc;
}

tk_status tk_xray_diff_rows(tk_xray_diff *d, int stacks, tk_xray_diff_row **rows, size_t *n,
                            tk_error *err)
{
    *rows = NULL;
    *n = 0;
    if (stacks && !d->opt.stacks)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "rows per call path need the stacks option");
    if (!d->done) {
        d->done = 1;
        int rc = make_labels(&d->side[0]) || make_labels(&d->side[1]) ? -1 : 0;
        if (rc == 0)
            rc = compute(d, 0);
        if (rc == 0)
            rc = compute(d, 1);
        d->failed = rc == 0 ? TK_OK : rc == -2 ? TK_EIO : TK_ENOMEM;
    }
    if (d->failed == TK_EIO)
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                            "reading latencies back from their temporary file failed");
    if (d->failed)
        return oom(err);
    size_t k = stacks ? 1 : 0;
    tk_xray_diff_row *r = malloc((d->nrows[k] ? d->nrows[k] : 1) * sizeof *r);
    if (!r)
        return oom(err);
    memcpy(r, d->rows[k], d->nrows[k] * sizeof *r);
    *rows = r;
    *n = d->nrows[k];
    return TK_OK;
}
