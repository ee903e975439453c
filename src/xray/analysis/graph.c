/* Function call graphs (llvm-xray graph).
 *
 * llvm-xray sorts all records by TSC and walks them once, keeping a stack
 * per thread; each return adds its duration to the edge caller -> callee
 * and to the callee, in DenseMaps whose iteration order is the output
 * order. Here each thread's records are walked as they come (threads are
 * independent, so errors are found while reading), and every call that
 * returns becomes an event keyed by the thread's TSC so far (its running
 * maximum: equal to the TSC when the thread's clock never goes back) and
 * its arrival. At the end the events are replayed into their edges. The
 * order-dependent parts of llvm-xray's statistics (the running min with 0
 * as "unset", the floating-point sums) need its order only when a call took
 * 0 ticks or the durations add up to 2^53: then the events are first merged
 * in key order, llvm-xray's sorted order. Edges are ordered by their first
 * call in that order (the smallest key, then arrival) and vertices by the
 * key of their first entry. Memory: 24 bytes per call; per function
 * called once at top level (a vertex and an edge), about 128 at the peak:
 * entries without copies of their keys, a single call's duration in its
 * edge, the first calls kept where statistics go later, and the orders
 * made one DenseMap at a time once the calls are gone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/xray_graph.h>

#include "xray/analysis/graph_int.h"
#include "xray/analysis/llvm_densemap.h"

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

tk_xray_graph *tk_xray_graph_new(const tk_xray_graph_options *o, tk_error *err)
{
    tk_xray_graph *g = calloc(1, sizeof *g);
    if (!g) {
        oom(err);
        return NULL;
    }
    if (o)
        g->opt = *o;
    tk_map_init(&g->threads, sizeof(thread));
    size_t calls = g->opt.streaming ? sizeof(tk_xg_calls) : 0;
    tk_map_init(&g->vertices, sizeof(vertex) + calls);
    tk_map_init(&g->edges, sizeof(edge) + calls);
    tk_lat_pool_init(&g->pool, g->opt.memory_limit);
    /* llvm-xray's GraphRenderer starts with G[0] = {} */
    if (!tk_map_u64(&g->vertices, 0)) {
        tk_xray_graph_free(g);
        oom(err);
        return NULL;
    }
    return g;
}

void tk_xray_graph_free(tk_xray_graph *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->threads.n; i++)
        free(((thread *)tk_map_value(&g->threads, i))->stack);
    tk_map_free(&g->threads);
    for (size_t i = 0; g->opt.streaming && i < g->vertices.n; i++)
        tk_lat_list_free(&g->pool, &tk_xg_vcalls(tk_map_value(&g->vertices, i))->lat);
    for (size_t i = 0; g->opt.streaming && i < g->edges.n; i++)
        tk_lat_list_free(&g->pool, &tk_xg_ecalls(tk_map_value(&g->edges, i))->lat);
    tk_lat_pool_free(&g->pool);
    tk_map_free(&g->vertices);
    tk_map_free(&g->edges);
    free(g->ev);
    free(g->timings);
    free(g->vorder);
    free(g->eorder);
    free(g);
}

const char *tk_xray_graph_failure_text(tk_xray_graph_failure f)
{
    switch (f) {
    case TK_XRAY_GRAPH_OK: return "ok";
    case TK_XRAY_GRAPH_NO_MATCHING_ENTRY: return "No matching ENTRY record";
    case TK_XRAY_GRAPH_NOT_IN_STACK: return "No matching Entry record in stack";
    case TK_XRAY_GRAPH_TSC_BACK: return TK_XR_TSC_BACK_TEXT;
    }
    return "unknown failure";
}

/* Index of the map entry holding `v` (a pointer returned by tk_map_u64). */
size_t tk_xg_entry_index(const tk_map *m, const void *v)
{
    return (size_t)((const unsigned char *)v - m->values) / m->value_size;
}

static uint64_t diff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

static thread *thread_of(tk_xray_graph *g, uint32_t tid)
{
    if (g->have_last && g->last_tid == tid)
        return tk_map_value(&g->threads, g->last_thread);
    size_t before = g->threads.n;
    thread *t = tk_map_u64(&g->threads, tid);
    if (!t)
        return NULL;
    size_t idx = g->threads.n > before ? g->threads.n - 1 : tk_xg_entry_index(&g->threads, t);
    g->have_last = 1;
    g->last_tid = tid;
    g->last_thread = idx;
    return t;
}

static int push_event(tk_xray_graph *g, uint64_t key, uint64_t timing, int32_t from,
                      int32_t to)
{
    if (g->opt.streaming)
        return tk_xg_stream_event(g, from, to, timing);
    if (g->nev == g->evcap) {
        size_t c = g->evcap ? g->evcap * 2 : 1024;
        if (c > SIZE_MAX / sizeof(event))
            return -1;
        event *nv = realloc(g->ev, c * sizeof *nv);
        if (!nv)
            return -1;
        g->ev = nv;
        g->evcap = c;
    }
    g->ev[g->nev++] = (event){key, timing, from, to};
    g->zero_timing |= timing == 0;
    g->total = g->total + timing < g->total ? UINT64_MAX : g->total + timing;
    return 0;
}

/* tk_xray_graph_add without the error: -1 is out of memory. */
static int add(tk_xray_graph *g, const tk_xray_record *r)
{
    if (g->broken)
        return -1;
    if (g->finished)
        return 0;
    uint64_t seq = g->seq++;
    if (r->kind != TK_XRAY_ENTER && r->kind != TK_XRAY_ENTER_ARG && r->kind != TK_XRAY_EXIT &&
        r->kind != TK_XRAY_TAIL_EXIT)
        return 0; /* events */
    thread *t = thread_of(g, r->tid);
    if (!t)
        return -1;
    if (tk_xr_clock_behind(&t->clock, r->tsc))
        return TK_XRAY_GRAPH_TSC_BACK;
    uint64_t key = t->clock.max;
    if (r->kind == TK_XRAY_ENTER || r->kind == TK_XRAY_ENTER_ARG) {
        if (r->func_id != 0 && !g->edges_only) {
            size_t before = g->vertices.n;
            vertex *v = tk_map_u64(&g->vertices, (uint32_t)r->func_id);
            if (!v)
                return -1;
            if (g->vertices.n > before) {
                v->u.first.key = key;
                v->u.first.seq = seq;
            } else if (key < v->u.first.key) { /* another thread was earlier */
                v->u.first.key = key;
                v->u.first.seq = seq;
            }
        }
        if (t->depth == t->cap) {
            /* one call in malloc's smallest block: threads may be millions */
            uint32_t c = t->cap ? t->cap * 2 : 1;
            if (c <= t->cap)
                return -1;
            frame *nv = realloc(t->stack, c * sizeof *nv);
            if (!nv)
                return -1;
            t->stack = nv;
            t->cap = c;
        }
        t->stack[t->depth++] = (frame){r->func_id, r->tsc};
        return TK_XRAY_GRAPH_OK;
    }
    if (t->depth == 0 || t->stack[t->depth - 1].func != r->func_id) {
        if (!g->opt.deduce_sibling_calls)
            return TK_XRAY_GRAPH_NO_MATCHING_ENTRY;
        size_t at = t->depth;
        while (at > 0 && t->stack[at - 1].func != r->func_id)
            at--;
        if (at == 0)
            return TK_XRAY_GRAPH_NOT_IN_STACK;
        /* every frame above the match returns here (deduced sibling calls) */
        while (t->stack[t->depth - 1].func != r->func_id) {
            frame top = t->stack[--t->depth];
            if (push_event(g, key, diff(top.tsc, r->tsc), t->stack[t->depth - 1].func,
                           top.func) != 0)
                return -1;
        }
    }
    frame top = t->stack[--t->depth];
    int32_t from = t->depth ? t->stack[t->depth - 1].func : 0;
    return push_event(g, key, diff(top.tsc, r->tsc), from, r->func_id) != 0 ? -1 : 0;
}

int tk_xray_graph_add(tk_xray_graph *g, const tk_xray_record *r, tk_error *err)
{
    int rc = add(g, r);
    if (rc < 0)
        oom(err);
    return rc;
}

size_t tk_xray_graph_stack(const tk_xray_graph *g, uint32_t tid, int32_t *funcs, size_t cap)
{
    for (size_t i = 0; i < g->threads.n; i++)
        if (g->threads.ukeys[i] == tid) {
            const thread *t = tk_map_value(&g->threads, i);
            for (size_t k = 0; k < t->depth && k < cap; k++)
                funcs[k] = t->stack[k].func;
            return t->depth;
        }
    return 0;
}

/* ------------------------------------------------------------ statistics */

/* llvm-xray's updateStat(TimeStat &, int64_t): the duration is converted to
 * int64_t, Min treats 0 as unset, Sum adds doubles. */
void tk_xg_update_stat(tstat *s, uint64_t d)
{
    int64_t i = d <= (uint64_t)INT64_MAX ? (int64_t)d : -(int64_t)(UINT64_MAX - d) - 1;
    double l = (double)i;
    s->count++;
    if (s->min > l || s->min == 0)
        s->min = l;
    if (s->max < l)
        s->max = l;
    s->sum += l;
}

/* getStats: elements count/2, count*9/10 and count*99/100 of the sorted
 * values (n = s->count), found by selection (v is reordered). */
static int order_stats(tstat *s, uint64_t *v, uint64_t n)
{
    if (n == 0)
        return 0;
    uint64_t c = (uint64_t)s->count, q[3];
    if (c > n) /* cannot happen: one update per timing */
        c = n;
    uint64_t k[3] = {c / 2, c * 9 / 10 < n ? c * 9 / 10 : n - 1,
                     c * 99 / 100 < n ? c * 99 / 100 : n - 1};
    if (tk_lat_select_array(v, (size_t)n, k, q) != 0)
        return -1;
    s->med = (double)q[0];
    s->p90 = (double)q[1];
    s->p99 = (double)q[2];
    return 0;
}

static double dmax(double a, double b) { return a < b ? b : a; }

void tk_xg_update_max(const tstat *s, tstat *m)
{
    m->count = m->count < s->count ? s->count : m->count;
    m->min = dmax(m->min, s->min);
    m->med = dmax(m->med, s->med);
    m->p90 = dmax(m->p90, s->p90);
    m->p99 = dmax(m->p99, s->p99);
    m->max = dmax(m->max, s->max);
    m->sum = dmax(m->sum, s->sum);
}

static void normalize(tstat *s, double f)
{
    s->min /= f;
    s->med /= f;
    s->p90 /= f;
    s->p99 /= f;
    s->max /= f;
    s->sum /= f;
}

/* The k-way merge's heap of runs, ordered by their next event's key, ties
 * by run (the earlier run first: a stable merge). */
typedef struct run_heap {
    const event *ev;
    size_t *pos, *end; /* per run: next event, end */
    uint32_t *h;       /* runs, a binary min-heap */
    size_t n;
} run_heap;

static int run_before(const run_heap *q, uint32_t a, uint32_t b)
{
    uint64_t ka = q->ev[q->pos[a]].key, kb = q->ev[q->pos[b]].key;
    return ka < kb || (ka == kb && a < b);
}

static void run_sift_down(run_heap *q, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < q->n && run_before(q, q->h[l], q->h[m]))
            m = l;
        if (l + 1 < q->n && run_before(q, q->h[l + 1], q->h[m]))
            m = l + 1;
        if (m == i)
            return;
        uint32_t t = q->h[i];
        q->h[i] = q->h[m];
        q->h[m] = t;
        i = m;
    }
}

/* Stable sort of the events by key (they come sorted per thread). */
static int sort_events(tk_xray_graph *g)
{
    size_t n = g->nev, nruns = 0;
    /* each thread's events come sorted, so the runs are the stretches
     * between thread switches (FDR buffers): merged k ways */
    for (size_t i = 1; i < n; i++)
        nruns += g->ev[i - 1].key > g->ev[i].key;
    if (nruns == 0)
        return 0;
    nruns++;
    if (nruns > UINT32_MAX)
        return -1;
    event *tmp = malloc(n * sizeof *tmp);
    size_t *pos = malloc(nruns * sizeof *pos), *end = malloc(nruns * sizeof *end);
    uint32_t *h = malloc(nruns * sizeof *h);
    int rc = -1;
    if (tmp && pos && end && h) {
        pos[0] = 0;
        for (size_t i = 1, r = 1; i < n; i++)
            if (g->ev[i - 1].key > g->ev[i].key) {
                end[r - 1] = i;
                pos[r++] = i;
            }
        end[nruns - 1] = n;
        run_heap q = {g->ev, pos, end, h, nruns};
        for (size_t r = 0; r < nruns; r++)
            h[r] = (uint32_t)r;
        for (size_t i = nruns / 2; i-- > 0;)
            run_sift_down(&q, i);
        for (size_t k = 0; q.n; k++) {
            uint32_t r = q.h[0];
            tmp[k] = g->ev[q.pos[r]++];
            if (q.pos[r] == q.end[r])
                q.h[0] = q.h[--q.n];
            run_sift_down(&q, 0);
        }
        free(g->ev);
        g->ev = tmp;
        g->evcap = n;
        tmp = NULL;
        rc = 0;
    }
    free(tmp);
    free(pos);
    free(end);
    free(h);
    return rc;
}

uint64_t tk_xg_edge_key(int32_t from, int32_t to)
{
    return (uint64_t)(uint32_t)from << 32 | (uint32_t)to;
}

/* The edge from -> to, created (with its callee's vertex) when new. */
edge *tk_xg_edge_of(tk_xray_graph *g, int32_t from, int32_t to)
{
    size_t before = g->edges.n;
    edge *e = tk_map_u64(&g->edges, tk_xg_edge_key(from, to));
    if (!e || g->edges.n == before)
        return e;
    if (g->edges_only) /* to_vertex stays 0 (the root), never read */
        return e;
    size_t vb = g->vertices.n;
    vertex *v = tk_map_u64(&g->vertices, (uint32_t)to);
    if (!v)
        return NULL;
    if (g->vertices.n > vb) { /* unreachable: `to` was entered */
        v->u.first.key = v->u.first.seq = UINT64_MAX;
    }
    e = tk_map_value(&g->edges, g->edges.n - 1);
    e->to_vertex = (uint32_t)tk_xg_entry_index(&g->vertices, v);
    return e;
}

static int cmp_first(const void *a, const void *b)
{
    const tk_xg_first *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Whether (ka, sa) comes strictly before (kb, sb): a sorted list needs no
 * sort (ties are left to qsort, as before). */
static int first_before(uint64_t ka, uint64_t sa, uint64_t kb, uint64_t sb)
{
    return ka < kb || (ka == kb && sa < sb);
}

/* The vertex entries (root first) in llvm-xray's insertion order into vm:
 * by their first entry. Entry order already is that order when the trace
 * has one thread, so the sort (24 bytes a vertex) is only for the rest. */
static int vertex_insertion(tk_xray_graph *g, tk_densemap *vm)
{
    size_t nv = g->vertices.n, sorted = 1;
    for (size_t i = 2; i < nv && sorted; i++) {
        const vertex *a = tk_map_value(&g->vertices, i - 1), *b = tk_map_value(&g->vertices, i);
        sorted = first_before(a->u.first.key, a->u.first.seq, b->u.first.key, b->u.first.seq);
    }
    if (sorted) {
        for (size_t i = 0; i < nv; i++)
            tk_densemap_insert(vm, (uint32_t)tk_xg_vertex_func(g, i));
        return 0;
    }
    tk_xg_first *vk = malloc(nv * sizeof *vk);
    if (!vk)
        return -1;
    for (size_t i = 0; i < nv; i++) {
        const vertex *v = tk_map_value(&g->vertices, i);
        vk[i] = (tk_xg_first){v->u.first.key, v->u.first.seq, i};
    }
    /* entry 0 is the root, inserted first */
    qsort(vk + 1, nv - 1, sizeof *vk, cmp_first);
    for (size_t i = 0; i < nv; i++)
        tk_densemap_insert(vm, (uint32_t)tk_xg_vertex_func(g, vk[i].entry));
    free(vk);
    return 0;
}

/* g->vorder: the vertices in the DenseMap's order (its keys, turned into
 * entries in place); the DenseMap is gone before the edges' is built. */
static int vertex_order(tk_xray_graph *g)
{
    size_t nv = g->vertices.n;
    tk_densemap vm = {0};
    g->vorder = malloc((nv ? nv : 1) * sizeof *g->vorder);
    int rc = g->vorder && nv ? vertex_insertion(g, &vm) : -1;
    if (rc == 0 && vm.oom)
        rc = -1;
    size_t n = rc == 0 ? tk_densemap_keys(&vm, g->vorder) : 0;
    tk_densemap_free(&vm);
    /* med and p90 as before the first entries were kept there: a vertex
     * never returned from keeps them */
    for (size_t i = 0; i < nv; i++) {
        vertex *v = tk_map_value(&g->vertices, i);
        v->u.s.med = v->u.s.p90 = 0;
    }
    g->nvorder = 0;
    for (size_t i = 0; i < n; i++) {
        if (g->vorder[i] == 0) {
            g->root_at = g->nvorder; /* graph-diff walks the root too */
            continue;
        }
        const vertex *v = tk_map_find_u64(&g->vertices, g->vorder[i]);
        g->vorder[g->nvorder++] = (uint32_t)tk_xg_entry_index(&g->vertices, v);
    }
    return rc;
}

static void insert_edge(tk_xray_graph *g, tk_densemap *em, size_t i)
{
    tk_densemap_pair_insert(em, (uint32_t)tk_xg_edge_from(g, i), (uint32_t)tk_xg_edge_to(g, i));
}

/* The edge entries in llvm-xray's insertion order into em: by their first
 * call (streaming: as created). Entry order often is that order already;
 * the sort (24 bytes an edge) is only for the rest. */
static int edge_insertion(tk_xray_graph *g, tk_densemap *em)
{
    size_t ne = g->edges.n, sorted = 1;
    for (size_t i = 1; !g->opt.streaming && i < ne && sorted; i++) {
        const edge *a = tk_map_value(&g->edges, i - 1), *b = tk_map_value(&g->edges, i);
        sorted = first_before(a->u.first.key, a->u.first.seq, b->u.first.key, b->u.first.seq);
    }
    if (sorted) {
        for (size_t i = 0; i < ne; i++)
            insert_edge(g, em, i);
        return em->oom ? -1 : 0;
    }
    tk_xg_first *f = malloc(ne * sizeof *f);
    if (!f)
        return -1;
    for (size_t i = 0; i < ne; i++) {
        const edge *e = tk_map_value(&g->edges, i);
        f[i] = (tk_xg_first){e->u.first.key, e->u.first.seq, i};
    }
    qsort(f, ne, sizeof *f, cmp_first);
    for (size_t i = 0; i < ne; i++)
        insert_edge(g, em, f[i].entry);
    free(f);
    return em->oom ? -1 : 0;
}

/* g->eorder: the edges in their DenseMap's order (none when edges only:
 * they are read in entry order). Before the edges' order statistics: it
 * reads their first calls. */
static int edge_order(tk_xray_graph *g)
{
    size_t ne = g->edges.n;
    tk_densemap em = {0};
    if (g->edges_only)
        return 0;
    if (edge_insertion(g, &em) != 0) {
        tk_densemap_free(&em);
        return -1;
    }
    uint64_t *ekeys = malloc((ne ? ne : 1) * sizeof *ekeys);
    size_t n = ekeys ? tk_densemap_pair_keys(&em, ekeys) : 0;
    tk_densemap_free(&em);
    if (!ekeys)
        return -1;
    /* the keys become entries in place: entry i's 4 bytes lie over key
     * i / 2's, already read */
    unsigned char *buf = (unsigned char *)ekeys;
    for (size_t i = 0; i < n; i++) {
        const edge *e = tk_map_find_u64(&g->edges, ekeys[i]);
        uint32_t at = (uint32_t)tk_xg_entry_index(&g->edges, e);
        memcpy(buf + i * sizeof at, &at, sizeof at);
    }
    uint32_t *shrunk = realloc(buf, (n ? n : 1) * sizeof *shrunk);
    g->eorder = shrunk ? shrunk : (uint32_t *)(void *)buf;
    return 0;
}

static tk_status finish(tk_xray_graph *g, uint64_t cycle_frequency);

tk_status tk_xray_graph_finish(tk_xray_graph *g, uint64_t cycle_frequency, tk_error *err)
{
    if (g->broken)
        return oom(err);
    if (g->finished)
        return TK_OK;
    tk_status st = finish(g, cycle_frequency);
    if (st != TK_OK) {
        g->broken = 1;
        return oom(err);
    }
    g->finished = 1;
    return TK_OK;
}

/* Whether the events' order can change a statistic: llvm-xray's running
 * min takes 0 as "unset" (a 0 duration makes it order-dependent), and its
 * double sums are exact, so the same in any order, while every partial sum
 * stays below 2^53. */
static int order_matters(const tk_xray_graph *g)
{
    return g->zero_timing || g->total >= ((uint64_t)1 << 53);
}

/* Events into their edges (created as first met) and statistics, in the
 * order they lie; each edge keeps its first event in llvm-xray's order:
 * the smallest (key, arrival), arrival being the index when unsorted and
 * the sorted position (key order already) otherwise. */
static tk_status replay(tk_xray_graph *g)
{
    for (size_t i = 0; i < g->nev; i++) {
        event *ev = &g->ev[i];
        edge *e = tk_xg_edge_of(g, ev->from, ev->to);
        if (!e)
            return TK_ENOMEM;
        if (e->u.s.count == 0 || ev->key < e->u.first.key) {
            e->u.first.key = ev->key;
            e->u.first.seq = i;
        }
        tk_xg_update_stat(&e->u.s, ev->timing);
        tk_xg_update_stat(&((vertex *)tk_map_value(&g->vertices, e->to_vertex))->u.s, ev->timing);
        ev->from = (int32_t)tk_xg_entry_index(&g->edges, e); /* for the grouping */
    }
    return TK_OK;
}

/* An edge's timings: a single call's is kept in the edge (a million
 * functions called once need no array). */
static uint64_t *timings_of(const tk_xray_graph *g, edge *e)
{
    return e->u.s.count == 1 ? &e->u.first.off : g->timings + e->u.first.off;
}

/* The events' timings grouped by edge into g->timings (u.first.off), those of
 * edges called more than once; frees the events. */
static tk_status group_timings(tk_xray_graph *g)
{
    uint64_t off = 0;
    for (size_t i = 0; i < g->edges.n; i++) {
        edge *e = tk_map_value(&g->edges, i);
        if (e->u.s.count > 1) {
            e->u.first.off = off;
            off += (uint64_t)e->u.s.count;
        }
    }
    g->timings = malloc((off ? off : 1) * sizeof *g->timings);
    if (!g->timings)
        return TK_ENOMEM;
    for (size_t i = 0; i < g->nev; i++) {
        edge *e = tk_map_value(&g->edges, (size_t)(uint32_t)g->ev[i].from);
        if (e->u.s.count == 1)
            e->u.first.off = g->ev[i].timing;
        else
            g->timings[e->u.first.off++] = g->ev[i].timing;
    }
    for (size_t i = 0; i < g->edges.n; i++) {
        edge *e = tk_map_value(&g->edges, i);
        if (e->u.s.count > 1)
            e->u.first.off -= (uint64_t)e->u.s.count;
    }
    free(g->ev);
    g->ev = NULL;
    g->evcap = 0;
    return TK_OK;
}

/* Edges: order statistics of their calls (their timings' place is lost:
 * it was kept where p99 goes). */
static tk_status edge_stats(tk_xray_graph *g)
{
    for (size_t i = 0; i < g->edges.n; i++) {
        edge *e = tk_map_value(&g->edges, i);
        if (order_stats(&e->u.s, timings_of(g, e), (uint64_t)e->u.s.count) != 0)
            return TK_ENOMEM;
        tk_xg_update_max(&e->u.s, &g->edge_max);
    }
    return TK_OK;
}

/* Vertices' order statistics over the calls of all their in-edges (before
 * the edges' own: those overwrite where the timings are), then the
 * edges'; a vertex with one in-edge has that edge's. */
static tk_status vertex_stats(tk_xray_graph *g)
{
    size_t nv = g->vertices.n, ne = g->edges.n;
    /* entry indexes fit in 32 bits (tk_map) */
    uint32_t *start = calloc(nv + 2, sizeof *start);
    uint32_t *by_vertex = malloc((ne ? ne : 1) * sizeof *by_vertex);
    uint64_t *tmp = NULL;
    tk_status st = TK_ENOMEM;
    if (!start || !by_vertex)
        goto out;
    uint64_t biggest = 0;
    /* counting sort of the edges by destination vertex */
    for (size_t i = 0; i < ne; i++)
        start[((edge *)tk_map_value(&g->edges, i))->to_vertex + 2]++;
    for (size_t i = 0; i < nv; i++)
        start[i + 2] += start[i + 1];
    for (size_t i = 0; i < ne; i++)
        by_vertex[start[((edge *)tk_map_value(&g->edges, i))->to_vertex + 1]++] = (uint32_t)i;
    for (size_t v = 1; v < nv; v++) {
        vertex *vx = tk_map_value(&g->vertices, v);
        biggest = start[v + 1] - start[v] > 1 && (uint64_t)vx->u.s.count > biggest
                      ? (uint64_t)vx->u.s.count
                      : biggest;
    }
    tmp = malloc((biggest ? biggest : 1) * sizeof *tmp);
    if (!tmp)
        goto out;
    for (size_t v = 1; v < nv; v++) {
        vertex *vx = tk_map_value(&g->vertices, v);
        if (start[v + 1] - start[v] == 1)
            continue;
        uint64_t n = 0;
        for (uint32_t k = start[v]; k < start[v + 1]; k++) {
            edge *e = tk_map_value(&g->edges, by_vertex[k]);
            memcpy(tmp + n, timings_of(g, e), (size_t)e->u.s.count * sizeof *tmp);
            n += (uint64_t)e->u.s.count;
        }
        if (order_stats(&vx->u.s, tmp, n) != 0)
            goto out;
    }
    if (edge_stats(g) != TK_OK)
        goto out;
    for (size_t v = 1; v < nv; v++) {
        vertex *vx = tk_map_value(&g->vertices, v);
        if (start[v + 1] - start[v] == 1) {
            const edge *e = tk_map_value(&g->edges, by_vertex[start[v]]);
            vx->u.s.med = e->u.s.med;
            vx->u.s.p90 = e->u.s.p90;
            vx->u.s.p99 = e->u.s.p99;
        }
        tk_xg_update_max(&vx->u.s, &g->vertex_max);
    }
    st = TK_OK;
out:
    free(start);
    free(by_vertex);
    free(tmp);
    return st;
}

static tk_status finish(tk_xray_graph *g, uint64_t cycle_frequency)
{
    /* the orders before the order statistics: they read the first calls,
     * kept where med and p90 go; one DenseMap at a time, the events gone */
    if (g->opt.streaming)
        return vertex_order(g) != 0 || tk_xg_stream_finish(g) != TK_OK ||
                       edge_order(g) != 0 || tk_xg_finish_common(g, cycle_frequency) != 0
                   ? TK_ENOMEM
                   : TK_OK;
    /* replay in llvm-xray's order where the order could show */
    if (order_matters(g) && sort_events(g) != 0)
        return TK_ENOMEM;
    if (replay(g) != TK_OK || group_timings(g) != TK_OK || edge_order(g) != 0 ||
        vertex_order(g) != 0)
        return TK_ENOMEM;
    if (vertex_stats(g) != TK_OK)
        return TK_ENOMEM;
    /* the statistics are made: the orders need no timings */
    free(g->timings);
    g->timings = NULL;
    return tk_xg_finish_common(g, cycle_frequency) != 0 ? TK_ENOMEM : TK_OK;
}

int tk_xg_finish_common(tk_xray_graph *g, uint64_t cycle_frequency)
{
    if (cycle_frequency) {
        double f = (double)cycle_frequency;
        for (size_t i = 0; i < g->edges.n; i++)
            normalize(&((edge *)tk_map_value(&g->edges, i))->u.s, f);
        for (size_t i = 0; i < g->vertices.n; i++)
            normalize(&((vertex *)tk_map_value(&g->vertices, i))->u.s, f);
        normalize(&g->edge_max, f);
        normalize(&g->vertex_max, f);
    }
    return 0;
}

static void public_stats(const tstat *s, tk_xray_graph_stats *out)
{
    if (!out)
        return;
    out->count = (uint64_t)s->count;
    out->min = s->min;
    out->med = s->med;
    out->p90 = s->p90;
    out->p99 = s->p99;
    out->max = s->max;
    out->sum = s->sum;
}

size_t tk_xray_graph_vertices(const tk_xray_graph *g) { return g->finished ? g->nvorder : 0; }

int tk_xray_graph_vertex(const tk_xray_graph *g, size_t i, int32_t *func_id,
                         tk_xray_graph_stats *stats)
{
    if (!g->finished || i >= g->nvorder)
        return -1;
    const vertex *v = tk_map_value(&g->vertices, g->vorder[i]);
    if (func_id)
        *func_id = tk_xg_vertex_func(g, g->vorder[i]);
    public_stats(&v->u.s, stats);
    return 0;
}

size_t tk_xray_graph_edges(const tk_xray_graph *g) { return g->finished ? g->edges.n : 0; }

int tk_xray_graph_edge(const tk_xray_graph *g, size_t i, int32_t *from, int32_t *to,
                       tk_xray_graph_stats *stats)
{
    if (!g->finished || i >= g->edges.n)
        return -1;
    size_t at = g->edges_only ? i : g->eorder[i];
    const edge *e = tk_map_value(&g->edges, at);
    if (from)
        *from = tk_xg_edge_from(g, at);
    if (to)
        *to = tk_xg_edge_to(g, at);
    public_stats(&e->u.s, stats);
    return 0;
}

/* ---------------------------------------------------------------- output */

tk_status tk_xray_graph_parse_stat(const char *name, tk_xray_graph_stat *stat,
                                   tk_error *err)
{
    static const char *const names[] = {"none", "count", "min", "med",
                                        "90p",  "99p",   "max", "sum"};
    for (int i = 0; i < 8; i++)
        if (name && strcmp(name, names[i]) == 0) {
            *stat = (tk_xray_graph_stat)i;
            return TK_OK;
        }
    return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                        "unknown statistic '%s' (none, count, min, med, 90p, 99p, max "
                        "or sum)", name ? name : "");
}

double tk_xg_stat(const tk_xray_graph_stats *s, tk_xray_graph_stat t)
{
    switch (t) {
    case TK_XRAY_GRAPH_NONE: return 0.0;
    case TK_XRAY_GRAPH_COUNT: return (double)s->count;
    case TK_XRAY_GRAPH_MIN: return s->min;
    case TK_XRAY_GRAPH_MED: return s->med;
    case TK_XRAY_GRAPH_P90: return s->p90;
    case TK_XRAY_GRAPH_P99: return s->p99;
    case TK_XRAY_GRAPH_MAX: return s->max;
    case TK_XRAY_GRAPH_SUM: return s->sum;
    }
    return 0.0;
}

static double stat_value(const tstat *s, tk_xray_graph_stat t)
{
    tk_xray_graph_stats p;
    public_stats(s, &p);
    return tk_xg_stat(&p, t);
}

/* TimeStat::getString: a count, or the double as raw_ostream prints it
 * (llvm::write_double, FloatStyle::Exponent: %.6e, "nan", "INF"). */
static void put_stat(FILE *out, const tstat *s, tk_xray_graph_stat t)
{
    if (t == TK_XRAY_GRAPH_NONE)
        return;
    if (t == TK_XRAY_GRAPH_COUNT) {
        fprintf(out, "%lld", (long long)s->count);
        return;
    }
    double v = stat_value(s, t);
    if (isnan(v))
        fputs("nan", out);
    else if (isinf(v))
        fputs(signbit(v) ? "-INF" : "INF", out);
    else
        fprintf(out, "%e", v);
}

/* xray-color-helper.cpp, OrRd sequential scheme. */
static const unsigned char orrd[9][3] = {
    {255, 247, 236}, {254, 232, 200}, {253, 212, 158}, {253, 187, 132}, {252, 141, 89},
    {239, 101, 72},  {215, 48, 31},   {179, 0, 0},     {127, 0, 0}};

static void to_hsv(const unsigned char c[3], double hsv[3])
{
    double s[3] = {c[0] / 255.0, c[1] / 255.0, c[2] / 255.0};
    unsigned mn = 0, mx = 0;
    for (unsigned i = 1; i < 3; ++i) {
        if (s[i] < s[mn])
            mn = i;
        if (s[i] > s[mx])
            mx = i;
    }
    double C = s[mx] - s[mn];
    double hp = (C == 0) ? 0 : (s[(mx + 1) % 3] - s[(mx + 2) % 3]) / C;
    hp = hp + 2.0 * mx;
    hsv[0] = (hp < 0) ? (hp + 6.0) * 60 : hp * 60;
    hsv[2] = s[mx];
    hsv[1] = (hsv[2] == 0.0) ? 0.0 : C / hsv[2];
}

static unsigned char unit_to_byte(double b)
{
    double n = b < 1.0 ? b : 1.0; /* std::max(std::min(B, 1.0), 0.0) */
    n = n < 0.0 ? 0.0 : n;
    if (isnan(n))
        n = 0.0;
    return (unsigned char)(255 * n + 0.5);
}

static void to_rgb(const double hsv[3], unsigned char rgb[3])
{
    double H = hsv[0], S = hsv[1], V = hsv[2];
    double C = V * S;
    double hp = H / 60;
    double X = C * (1 - fabs(fmod(hp, 2.0) - 1));
    double c1[3];
    int hi = (int)hp;
    if (hi < 0 || hi > 6)
        hi = 0;
    if (hi % 2 == 0) {
        c1[(hi / 2) % 3] = C;
        c1[(hi / 2 + 1) % 3] = X;
        c1[(hi / 2 + 2) % 3] = 0.0;
    } else {
        c1[(hi / 2) % 3] = X;
        c1[(hi / 2 + 1) % 3] = C;
        c1[(hi / 2 + 2) % 3] = 0.0;
    }
    double m = V - C;
    for (int i = 0; i < 3; i++)
        rgb[i] = unit_to_byte(c1[i] + m);
}

static double interpolate_hue(double h0, double h1, double t)
{
    double d = h1 - h0;
    if (h0 > h1) {
        double x = h0;
        h0 = h1;
        h1 = x;
        d = -d;
        t = 1 - t;
    }
    if (d <= 180)
        return h0 + t * (h1 - h0);
    h0 = h0 + 360;
    return fmod(h0 + t * (h1 - h0) + 720, 360);
}

void tk_xg_color(const unsigned char (*map)[3], size_t n, double lo, double hi,
                 const unsigned char *below, const unsigned char *above, double point,
                 char buf[8])
{
    unsigned char rgb[3];
    if (isnan(point))
        point = lo;
    if (point < lo) {
        memcpy(rgb, below, 3);
    } else if (point > hi) {
        memcpy(rgb, above, 3);
    } else {
        const size_t max_index = n - 1;
        double width = (hi - lo) / (double)max_index, off = point - lo;
        size_t section = (size_t)floor(off / width);
        if (section > max_index)
            section = max_index;
        double t = (off - section * width) / width;
        double h0[3], h1[3], h[3];
        to_hsv(map[section], h0);
        to_hsv(map[section + 1 < max_index ? section + 1 : max_index], h1);
        h[0] = interpolate_hue(h0[0], h1[0], t);
        h[1] = h0[1] + t * (h1[1] - h0[1]);
        h[2] = h0[2] + t * (h1[2] - h0[2]);
        to_rgb(h, rgb);
    }
    snprintf(buf, 8, "#%02X%02X%02X", rgb[0], rgb[1], rgb[2]);
}

void tk_xray_graph_color(double point, char buf[8])
{
    tk_xg_color(orrd, 9, 0.0, 1.0, orrd[0], orrd[8], point, buf);
}

static void put_color(FILE *out, const tstat *s, const tstat *max, tk_xray_graph_stat t)
{
    char buf[8];
    tk_xray_graph_color(sqrt(stat_value(s, t) / stat_value(max, t)), buf);
    fprintf(out, " color=\"%s\"", buf);
}

/* Labels in a DOT graph must be legal XML: &, < and > escaped. */
static void put_name(FILE *out, const char *name)
{
    size_t len = strlen(name);
    int cut = len > 40;
    if (cut)
        len = 40;
    for (size_t i = 0; i < len; i++) {
        switch (name[i]) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        default: fputc(name[i], out);
        }
    }
    if (cut)
        fputs("...", out);
}

tk_status tk_xray_graph_print_dot(tk_xray_graph *g, FILE *out,
                                  const tk_xray_graph_print_options *o, tk_error *err)
{
    static const tk_xray_graph_print_options none = {0};
    if (!o)
        o = &none;
    tk_status st = tk_xray_graph_finish(g, 0, err); /* nothing if finished */
    if (st != TK_OK)
        return st;
    fputs("digraph xray {\n", out);
    if (o->vertex_label != TK_XRAY_GRAPH_NONE)
        fputs("node [shape=record];\n", out);
    for (size_t i = 0; i < g->edges.n; i++) {
        const edge *e = tk_map_value(&g->edges, g->eorder[i]);
        fprintf(out, "F%d -> F%d [label=\"", tk_xg_edge_from(g, g->eorder[i]),
                tk_xg_edge_to(g, g->eorder[i]));
        put_stat(out, &e->u.s, o->edge_label);
        fputc('"', out);
        if (o->edge_color != TK_XRAY_GRAPH_NONE)
            put_color(out, &e->u.s, &g->edge_max, o->edge_color);
        fputs("];\n", out);
    }
    for (size_t i = 0; i < g->nvorder; i++) {
        const vertex *v = tk_map_value(&g->vertices, g->vorder[i]);
        int32_t func = tk_xg_vertex_func(g, g->vorder[i]);
        const char *name = o->name ? o->name(o->name_ctx, func) : NULL;
        char num[16];
        if (!name) {
            snprintf(num, sizeof num, "#%d", func);
            name = num;
        }
        fprintf(out, "F%d [label=\"%s", func, o->vertex_label != TK_XRAY_GRAPH_NONE ? "{" : "");
        put_name(out, name);
        if (o->vertex_label != TK_XRAY_GRAPH_NONE) {
            fputc('|', out);
            put_stat(out, &v->u.s, o->vertex_label);
            fputs("}\"", out);
        } else {
            fputc('"', out);
        }
        if (o->vertex_color != TK_XRAY_GRAPH_NONE)
            put_color(out, &v->u.s, &g->vertex_max, o->vertex_color);
        fputs("];\n", out);
    }
    fputs("}\n", out);
    if (fflush(out) != 0 || ferror(out))
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "writing output failed");
    return TK_OK;
}
