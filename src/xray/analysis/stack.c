/* Call-stack tries per thread (llvm-xray stack). Nodes keep the count and
 * sum of their durations as a leaf ("terminal") and as a caller
 * ("intermediate"); the tries grow with distinct call paths, not calls. */
#include <stdlib.h>
#include <string.h>

#include <tracekit/sink.h>
#include <tracekit/xray_stack.h>

#include "core/hashmap.h"
#include "xray/analysis/llvm_densemap.h"
#include "xray/analysis/stack_thread.h"
#include "xray/xray_int.h"

#define NONE UINT32_MAX

typedef struct node {
    int32_t func;
    uint32_t parent;
    uint32_t *callees;
    uint32_t ncallees, cap;
    uint64_t term_n, term_sum, mid_n, mid_sum;
} node;

typedef tk_xs_open open_call;
typedef tk_xs_thread thread;

struct tk_xray_stacks {
    node *nodes;
    uint32_t n, cap;
    tk_map threads;     /* tid -> thread */
    tk_map roots;       /* tid << 32 | func -> root node + 1, for threads
                           with two roots or more */
    tk_map kids;        /* node << 32 | func -> callee node + 1 */
    tk_densemap order;  /* llvm-xray's Roots map: its thread order */
    uint32_t merged_from; /* nodes from here on were made by the merging of
                             the current aggregate walk, each in one tree */
    int oom;
};

tk_xray_stacks *tk_xray_stacks_new(tk_error *err)
{
    tk_xray_stacks *s = calloc(1, sizeof *s);
    if (!s) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    tk_map_init(&s->threads, sizeof(thread));
    tk_map_init(&s->roots, sizeof(uint32_t));
    tk_map_init(&s->kids, sizeof(uint32_t));
    return s;
}

void tk_xray_stacks_free(tk_xray_stacks *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n; i++)
        free(s->nodes[i].callees);
    for (size_t i = 0; i < s->threads.n; i++) {
        thread *t = tk_map_value(&s->threads, i);
        tk_xs_thread_free(t);
    }
    free(s->nodes);
    tk_map_free(&s->threads);
    tk_map_free(&s->roots);
    tk_map_free(&s->kids);
    tk_densemap_free(&s->order);
    free(s);
}

int tk_xray_stacks_empty(const tk_xray_stacks *s) { return s->n == 0; }

static int push_u32(uint32_t **v, uint32_t *n, uint32_t *cap, uint32_t x)
{
    if (*n == *cap) {
        uint32_t c = *cap ? *cap * 2 : 4;
        uint32_t *nv = realloc(*v, c * sizeof *nv);
        if (!nv)
            return -1;
        *v = nv;
        *cap = c;
    }
    (*v)[(*n)++] = x;
    return 0;
}

static uint32_t new_node(tk_xray_stacks *s, int32_t func, uint32_t parent)
{
    if (s->n == s->cap) {
        uint32_t c = s->cap ? s->cap * 2 : 256;
        node *nv = realloc(s->nodes, c * sizeof *nv);
        if (!nv || c < s->cap)
            return NONE;
        s->nodes = nv;
        s->cap = c;
    }
    node *x = &s->nodes[s->n];
    memset(x, 0, sizeof *x);
    x->func = func;
    x->parent = parent;
    return s->n++;
}

static uint64_t diff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

#define NEW (UINT32_MAX - 1)

/* The node of `func` under `parent` (a thread's roots or a node's callees,
 * by `key`'s high half), looked up in `m`: its id, NEW when it was just
 * made (the last node), NONE when out of memory. A hash lookup, not a
 * scan: a million distinct roots or callees stay linear. */
static uint32_t find_or_add(tk_xray_stacks *s, tk_map *m, uint64_t key, int32_t func,
                            uint32_t parent)
{
    uint32_t *slot = tk_map_u64(m, key | (uint32_t)func);
    if (!slot)
        return NONE;
    if (*slot)
        return *slot - 1;
    uint32_t id = new_node(s, func, parent);
    if (id == NONE || id >= NEW)
        return NONE;
    *slot = id + 1;
    return NEW;
}

/* The root of `func` on thread t, as find_or_add. A thread's first root
 * is found without the map (a million threads of one root each); the map
 * holds a thread's roots once it has two. */
static uint32_t root_of(tk_xray_stacks *s, thread *t, uint32_t tid, int32_t func)
{
    uint64_t key = (uint64_t)tid << 32;
    if (t->nroots == 0) {
        uint32_t id = new_node(s, func, NONE);
        return id == NONE || id >= NEW ? NONE : NEW;
    }
    if (t->nroots == 1) {
        uint32_t first = tk_xs_roots(t)[0];
        if (s->nodes[first].func == func)
            return first;
        uint32_t *slot = tk_map_u64(&s->roots, key | (uint32_t)s->nodes[first].func);
        if (!slot)
            return NONE;
        *slot = first + 1;
    }
    return find_or_add(s, &s->roots, key, func, NONE);
}

/* tk_xray_stacks_add without the error: -1 is out of memory. */
static int add(tk_xray_stacks *s, const tk_xray_record *r)
{
    if (r->kind >= TK_XRAY_CUSTOM_EVENT)
        return 0;
    thread *t = tk_map_u64(&s->threads, r->tid);
    if (!t)
        return -1;
    if (tk_xr_clock_behind(&t->clock, r->tsc))
        return 2;
    if (r->kind == TK_XRAY_ENTER || r->kind == TK_XRAY_ENTER_ARG) {
        t->last_was_exit = 0;
        uint32_t id;
        if (t->depth == 0) {
            tk_densemap_insert(&s->order, r->tid);
            id = root_of(s, t, r->tid, r->func_id);
            if (id == NEW) {
                id = s->n - 1;
                if (tk_xs_push_root(t, id) != 0)
                    return -1;
            }
        } else {
            uint32_t top = tk_xs_calls(t)[t->depth - 1].node;
            id = find_or_add(s, &s->kids, (uint64_t)top << 32, r->func_id, top);
            if (id == NEW) {
                id = s->n - 1;
                node *p = &s->nodes[top];
                if (push_u32(&p->callees, &p->ncallees, &p->cap, id) != 0)
                    return -1;
            }
        }
        if (id == NONE)
            return -1;
        if (tk_xs_push_call(t, (open_call){id, r->tsc}) != 0)
            return -1;
        return s->oom ? -1 : 0;
    }
    int was_exit = t->last_was_exit;
    t->last_was_exit = 1;
    if (t->depth == 0)
        return 1;
    open_call *stack = tk_xs_calls(t);
    /* Unwind to the matching entry, or everything when there is none. */
    size_t from = t->depth;
    while (from > 0 && s->nodes[stack[from - 1].node].func != r->func_id)
        from--;
    int status = 0;
    if (from == 0)
        status = 1;
    else
        from--;
    for (size_t i = from; i + 1 < t->depth; i++) {
        node *x = &s->nodes[stack[i].node];
        x->mid_n++;
        x->mid_sum += diff(stack[i].tsc, r->tsc);
    }
    open_call *deep = &stack[t->depth - 1];
    node *x = &s->nodes[deep->node];
    if (was_exit) {
        x->mid_n++;
        x->mid_sum += diff(deep->tsc, r->tsc);
    } else {
        x->term_n++;
        x->term_sum += diff(deep->tsc, r->tsc);
    }
    t->depth = from;
    return status;
}

int tk_xray_stacks_add(tk_xray_stacks *s, const tk_xray_record *r, tk_error *err)
{
    int rc = add(s, r);
    if (rc < 0)
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return rc;
}

/* ------------------------------------------------------------- merging */

/* Nodes l and r (the same function) merged into m, made already; the
 * callees both have become work items (merged later into the nodes made
 * for them here), so deep trees need no deep recursion. */
typedef struct merge_item {
    uint32_t l, r, m;
} merge_item;

typedef struct merge_work {
    merge_item *v;
    size_t n, cap;
} merge_work;

/* The node that l and r merge into: l itself when merging made it (it is
 * in no other tree, and its old self is not wanted: a million threads'
 * roots of one function merge into one node, not a chain of a million),
 * or a new node. */
static uint32_t merge_later(tk_xray_stacks *s, merge_work *w, uint32_t l, uint32_t r,
                            uint32_t parent)
{
    uint32_t m = l >= s->merged_from ? l : new_node(s, s->nodes[l].func, parent);
    if (m == l)
        s->nodes[l].parent = parent;
    if (m == NONE) {
        s->oom = 1;
        return l;
    }
    if (w->n == w->cap) {
        size_t c = w->cap ? w->cap * 2 : 16;
        merge_item *v = realloc(w->v, c * sizeof *v);
        if (!v) {
            s->oom = 1;
            return l;
        }
        w->v = v;
        w->cap = c;
    }
    w->v[w->n++] = (merge_item){l, r, m};
    return m;
}

static void merge_one(tk_xray_stacks *s, merge_work *w, merge_item it)
{
    uint32_t l = it.l, r = it.r, m = it.m;
    node *L = &s->nodes[l], *R = &s->nodes[r], *M = &s->nodes[m];
    uint32_t *lcallees = L->callees, nl = L->ncallees;
    if (m == l) { /* merged in place: M's callees are made anew */
        M->callees = NULL;
        M->ncallees = M->cap = 0;
    }
    M->term_n = L->term_n + R->term_n;
    M->term_sum = L->term_sum + R->term_sum;
    M->mid_n = L->mid_n + R->mid_n;
    M->mid_sum = L->mid_sum + R->mid_sum;
    /* As llvm's mergeTrieNodes: right callees in order (merged with the
     * left callee of the same function), then the unmatched left callees
     * in the order of its DenseMap. `by_func` finds a left callee by its
     * function without a scan. */
    tk_densemap left = {0};
    tk_map by_func;
    tk_map_init(&by_func, sizeof(uint32_t));
    for (uint32_t i = 0; i < nl; i++) {
        uint32_t c = lcallees[i];
        uint32_t *at = tk_map_u64(&by_func, (uint32_t)s->nodes[c].func);
        if (!at)
            s->oom = 1;
        else
            *at = c;
        tk_densemap_insert(&left, (uint32_t)s->nodes[c].func);
    }
    for (uint32_t i = 0; i < s->nodes[r].ncallees && !s->oom; i++) {
        uint32_t rc = s->nodes[r].callees[i], child = rc;
        uint32_t f = (uint32_t)s->nodes[rc].func;
        if (tk_densemap_contains(&left, f)) {
            tk_densemap_erase(&left, f);
            child = merge_later(s, w, *(uint32_t *)tk_map_find_u64(&by_func, f), rc, m);
        }
        node *mm = &s->nodes[m];
        if (push_u32(&mm->callees, &mm->ncallees, &mm->cap, child) != 0)
            s->oom = 1;
    }
    uint32_t *rest = malloc((left.entries ? left.entries : 1) * sizeof *rest);
    size_t nrest = rest ? tk_densemap_keys(&left, rest) : 0;
    s->oom |= !rest || left.oom;
    for (size_t i = 0; i < nrest && !s->oom; i++) {
        const uint32_t *c = tk_map_find_u64(&by_func, rest[i]);
        node *mm = &s->nodes[m];
        if (c && push_u32(&mm->callees, &mm->ncallees, &mm->cap, *c) != 0)
            s->oom = 1;
    }
    free(rest);
    tk_densemap_free(&left);
    tk_map_free(&by_func);
    if (m == l)
        free(lcallees);
}

static uint32_t merge(tk_xray_stacks *s, uint32_t l, uint32_t r, uint32_t parent)
{
    merge_work w = {0};
    uint32_t m = merge_later(s, &w, l, r, parent);
    while (w.n && !s->oom)
        merge_one(s, &w, w.v[--w.n]);
    free(w.v);
    return m;
}

/* Roots in llvm-xray's order: threads as its Roots DenseMap iterates them,
 * each thread's roots in order of appearance; merged across threads when
 * aggregating (mergeAcrossThreads). */
static uint32_t *root_values(tk_xray_stacks *s, int aggregate, size_t *n)
{
    size_t total = 0;
    for (size_t i = 0; i < s->threads.n; i++)
        total += ((thread *)tk_map_value(&s->threads, i))->nroots;
    uint32_t *v = malloc((total ? total : 1) * sizeof *v);
    uint32_t *tids = malloc((s->order.entries ? s->order.entries : 1) * sizeof *tids);
    *n = 0;
    if (!v || !tids) {
        free(v);
        free(tids);
        return NULL;
    }
    s->merged_from = s->n;
    /* aggregating: where each function's root is in v (+1); a merged root
     * leaves a hole (NONE) and goes to the end, as llvm-xray moves it */
    tk_map at;
    tk_map_init(&at, sizeof(size_t));
    size_t nt = tk_densemap_keys(&s->order, tids);
    for (size_t k = 0; k < nt && !s->oom; k++) {
        thread *t = tk_map_u64(&s->threads, tids[k]);
        for (uint32_t i = 0; t && i < t->nroots && !s->oom; i++) {
            uint32_t root = tk_xs_roots(t)[i];
            size_t *pos = aggregate ? tk_map_u64(&at, (uint32_t)s->nodes[root].func) : NULL;
            if (aggregate && !pos) {
                s->oom = 1;
            } else if (pos && *pos) {
                uint32_t m = merge(s, v[*pos - 1], root, NONE);
                v[*pos - 1] = NONE;
                v[(*n)++] = m;
                *pos = *n;
            } else {
                v[(*n)++] = root;
                if (pos)
                    *pos = *n;
            }
        }
    }
    tk_map_free(&at);
    free(tids);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++)
        if (v[i] != NONE)
            v[kept++] = v[i];
    *n = kept;
    return v;
}

typedef struct printer {
    tk_xray_stacks *s;
    FILE *out;
    const tk_xray_stacks_print_options *o;
    char buf[32];
} printer;

static const char *name_of(printer *p, int32_t id)
{
    const char *n = p->o->name ? p->o->name(p->o->name_ctx, id) : NULL;
    if (n)
        return n;
    snprintf(p->buf, sizeof p->buf, "#%d", id);
    return p->buf;
}

/* A stack from its root down to `leaf`, as llvm-xray's printStack. */
static void print_stack(printer *p, uint32_t leaf)
{
    node *nodes = p->s->nodes;
    uint32_t chain[4096];
    size_t depth = 0;
    for (uint32_t x = leaf; x != NONE && depth < 4096; x = nodes[x].parent)
        chain[depth++] = x;
    fprintf(p->out, "%-5s %-60s %12s %16s\n", "lvl", "function", "count", "sum");
    for (size_t i = depth; i-- > 0;) {
        const node *x = &nodes[chain[i]];
        const char *nm = name_of(p, x->func);
        char cut[61];
        if (strlen(nm) > 60) {
            snprintf(cut, sizeof cut, "%.57s...", nm);
            nm = cut;
        }
        int is_leaf = i == 0;
        fprintf(p->out, "#%-4zu %-60s %12llu %16lld\n", depth - 1 - i, nm,
                (unsigned long long)(is_leaf ? x->term_n : x->mid_n),
                (long long)(is_leaf ? x->term_sum : x->mid_sum));
    }
    fputc('\n', p->out);
}

typedef struct ranked {
    uint32_t node;
    uint64_t value;
} ranked;

/* Insert keeping descending order, before equal values, at most 10. */
static void rank(ranked *top, size_t *n, uint32_t id, uint64_t value)
{
    size_t at = 0;
    while (at < *n && top[at].value > value)
        at++;
    if (at >= 10)
        return;
    size_t keep = *n < 10 ? *n : 9;
    memmove(&top[at + 1], &top[at], (keep - at) * sizeof *top);
    top[at] = (ranked){id, value};
    *n = keep + 1;
}

static int print_top(printer *p, const uint32_t *roots, size_t nroots)
{
    node *nodes = p->s->nodes;
    ranked by_sum[11], by_count[11];
    size_t nsum = 0, ncount = 0;
    uint64_t unique = 0;
    uint32_t *stack = malloc((p->s->n ? p->s->n : 1) * sizeof *stack);
    if (!stack)
        return -1;
    for (size_t r = 0; r < nroots; r++) {
        size_t sp = 0;
        stack[sp++] = roots[r];
        while (sp) {
            uint32_t x = stack[--sp];
            if (nodes[x].term_n) {
                unique++;
                rank(by_sum, &nsum, x, nodes[x].term_sum);
                rank(by_count, &ncount, x, nodes[x].term_n);
            }
            for (uint32_t c = 0; c < nodes[x].ncallees && sp < p->s->n; c++)
                stack[sp++] = nodes[x].callees[c];
        }
    }
    free(stack);
    fprintf(p->out, "\nUnique Stacks: %llu\nTop 10 Stacks by leaf sum:\n\n",
            (unsigned long long)unique);
    for (size_t i = 0; i < nsum; i++) {
        fprintf(p->out, "Sum: %llu\n", (unsigned long long)by_sum[i].value);
        print_stack(p, by_sum[i].node);
    }
    fprintf(p->out, "\nTop 10 Stacks by leaf count:\n\n");
    for (size_t i = 0; i < ncount; i++) {
        fprintf(p->out, "Count: %llu\n", (unsigned long long)by_count[i].value);
        print_stack(p, by_count[i].node);
    }
    fputc('\n', p->out);
    return 0;
}

static uint64_t total_of(const node *x, int count)
{
    return count ? x->term_n + x->mid_n : x->term_sum + x->mid_sum;
}

static uint64_t self_of(const tk_xray_stacks *s, const node *x)
{
    uint64_t t = total_of(x, 0), children = 0;
    for (uint32_t c = 0; c < x->ncallees; c++)
        children += total_of(&s->nodes[x->callees[c]], 0);
    return t > children ? t - children : 0;
}

/* Folded-stack names must not contain ';' or line breaks. */
static void put_name(FILE *out, const char *nm)
{
    for (; *nm; nm++)
        fputc(*nm == ';' ? ':' : (*nm == '\n' || *nm == '\r') ? ' ' : *nm, out);
}

typedef struct walk_frame {
    uint32_t node;
    size_t depth;
} walk_frame;

/* Room for `more` frames on the walk's stack (grown as needed, not sized
 * by the whole trie: a walk per thread of a million threads): 0, or -1. */
static int walk_room(walk_frame **stack, size_t *cap, size_t sp, size_t more)
{
    if (sp + more <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < sp + more)
        c *= 2;
    walk_frame *v = realloc(*stack, c * sizeof *v);
    if (!v)
        return -1;
    *stack = v;
    *cap = c;
    return 0;
}

/* Every node under `roots`, depth first as llvm-xray's printAll walks
 * them, given to `fn` with its path. 0, -1 when out of memory, 1 when `fn`
 * stopped the walk. */
static int walk(tk_xray_stacks *s, const uint32_t *roots, size_t nroots, uint32_t tid,
                tk_xray_stacks_visitor fn, void *ctx)
{
    node *nodes = s->nodes;
    walk_frame *stack = NULL;
    size_t stack_cap = 0;
    int32_t *path = NULL;
    size_t path_cap = 0;
    int rc = walk_room(&stack, &stack_cap, 0, 1);
    for (size_t r = 0; r < nroots && rc == 0; r++) {
        size_t sp = 0;
        stack[sp++] = (walk_frame){roots[r], 0};
        while (sp && rc == 0) {
            walk_frame f = stack[--sp];
            if (f.depth >= path_cap) {
                size_t c = path_cap ? path_cap * 2 : 64;
                int32_t *np = realloc(path, c * sizeof *np);
                if (!np) {
                    rc = -1;
                    break;
                }
                path = np;
                path_cap = c;
            }
            const node *x = &nodes[f.node];
            path[f.depth] = x->func;
            tk_xray_stack_path sp_ = {tid, path, f.depth + 1, x->term_n + x->mid_n, x->term_n,
                                      total_of(x, 0), self_of(s, x)};
            if (fn(ctx, &sp_) != 0)
                rc = 1;
            uint32_t nc = x->ncallees; /* x stays valid: fn adds no node */
            if (rc == 0 && walk_room(&stack, &stack_cap, sp, nc) != 0)
                rc = -1;
            for (uint32_t c = 0; rc == 0 && c < nc && sp < s->n; c++)
                stack[sp++] = (walk_frame){x->callees[c], f.depth + 1};
        }
    }
    free(stack);
    free(path);
    return rc;
}

/* The print views as visitors. */
typedef struct view {
    printer *p;
    int report_thread;
    tk_sink *json;
} view;

static int print_path(void *ctx, const tk_xray_stack_path *x)
{
    view *v = ctx;
    printer *p = v->p;
    if (v->json) {
        tk_sink_record_begin(v->json);
        if (v->report_thread)
            tk_sink_u64(v->json, "thread", x->tid, 0);
        tk_sink_array_begin(v->json, "stack");
        for (size_t i = 0; i < x->depth; i++)
            tk_sink_cstr(v->json, NULL, name_of(p, x->funcs[i]), 0);
        tk_sink_array_end(v->json);
        tk_sink_u64(v->json, "calls", x->calls, 0);
        tk_sink_u64(v->json, "leaf_calls", x->leaf_calls, 0);
        tk_sink_u64(v->json, "total_ticks", x->total_ticks, 0);
        tk_sink_u64(v->json, "self_ticks", x->self_ticks, 0);
        tk_sink_record_end(v->json);
    } else if (p->o->view == TK_XRAY_STACKS_FLAME) {
        if (v->report_thread)
            fprintf(p->out, "thread_%u;", x->tid);
        for (size_t i = 0; i < x->depth; i++)
            fprintf(p->out, "%s;", name_of(p, x->funcs[i]));
        fprintf(p->out, " %llu\n",
                (unsigned long long)(p->o->count ? x->calls : x->total_ticks));
    } else if (x->self_ticks) {
        if (v->report_thread)
            fprintf(p->out, "thread_%u;", x->tid);
        for (size_t i = 0; i < x->depth; i++) {
            put_name(p->out, name_of(p, x->funcs[i]));
            if (i + 1 < x->depth)
                fputc(';', p->out);
        }
        fprintf(p->out, " %llu\n", (unsigned long long)x->self_ticks);
    }
    return 0;
}

static int print_all(printer *p, const uint32_t *roots, size_t nroots, int report_thread,
                     uint32_t tid, tk_sink *json)
{
    view v = {p, report_thread, json};
    return walk(p->s, roots, nroots, tid, print_path, &v);
}

/* `fn` on each thread's roots, threads in llvm-xray's order (its Roots
 * DenseMap), roots in order of appearance. 0, -1 when out of memory, or
 * what `fn` returned when not 0. */
typedef int (*thread_fn)(void *ctx, uint32_t tid, const uint32_t *roots, size_t n);

static int each_thread(tk_xray_stacks *s, thread_fn fn, void *ctx)
{
    uint32_t *tids = malloc((s->order.entries ? s->order.entries : 1) * sizeof *tids);
    if (!tids)
        return -1;
    size_t nt = tk_densemap_keys(&s->order, tids);
    int rc = 0;
    for (size_t k = 0; k < nt && rc == 0; k++) {
        thread *t = tk_map_u64(&s->threads, tids[k]); /* exists: it is in order */
        rc = t ? fn(ctx, tids[k], tk_xs_roots(t), t->nroots) : -1;
    }
    free(tids);
    return rc;
}

typedef struct thread_print {
    printer *p;
    tk_sink *json;
} thread_print;

static int print_thread(void *ctx, uint32_t tid, const uint32_t *roots, size_t n)
{
    thread_print *tp = ctx;
    if (tp->p->o->view != TK_XRAY_STACKS_TOP)
        return print_all(tp->p, roots, n, 1, tid, tp->json);
    fprintf(tp->p->out, "Thread %u:\n", tid);
    int rc = print_top(tp->p, roots, n);
    fputc('\n', tp->p->out);
    return rc;
}

tk_status tk_xray_stacks_print(tk_xray_stacks *s, FILE *out,
                               const tk_xray_stacks_print_options *o, tk_error *err)
{
    printer p = {s, out, o, {0}};
    int per_thread = o->threads == TK_XRAY_STACKS_PER_THREAD;
    int aggregate = o->threads == TK_XRAY_STACKS_AGGREGATE;
    int rc;
    int own = o->view == TK_XRAY_STACKS_JSON && !o->json;
    tk_sink *json = own ? tk_sink_new(out, TK_SINK_JSON, err)
                    : o->view == TK_XRAY_STACKS_JSON ? o->json : NULL;
    if (o->view == TK_XRAY_STACKS_JSON && !json)
        return err->status;
    /* Top stacks report per thread only when asked; the full listings
     * (flame, folded, json) are per thread unless aggregated. */
    int by_thread = o->view == TK_XRAY_STACKS_TOP ? per_thread : !aggregate;
    if (by_thread) {
        thread_print tp = {&p, json};
        rc = each_thread(s, print_thread, &tp);
    } else {
        size_t n;
        uint32_t *roots = root_values(s, aggregate, &n);
        if (!roots)
            rc = -1;
        else if (o->view == TK_XRAY_STACKS_TOP)
            rc = print_top(&p, roots, n);
        else
            rc = print_all(&p, roots, n, 0, 0, json);
        free(roots);
    }
    tk_status st = TK_OK;
    if (own) {
        st = tk_sink_finish(json, err);
        tk_sink_free(json);
    }
    if (rc != 0 || s->oom)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    if (st != TK_OK)
        return st;
    if (fflush(out) != 0 || ferror(out))
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "writing output failed");
    return TK_OK;
}

typedef struct walk_ctx {
    tk_xray_stacks *s;
    tk_xray_stacks_visitor fn;
    void *ctx;
} walk_ctx;

static int walk_thread(void *ctx, uint32_t tid, const uint32_t *roots, size_t n)
{
    walk_ctx *w = ctx;
    return walk(w->s, roots, n, tid, w->fn, w->ctx);
}

tk_status tk_xray_stacks_visit(tk_xray_stacks *s, tk_xray_stacks_threads threads,
                               tk_xray_stacks_visitor fn, void *ctx, tk_error *err)
{
    int rc = 0;
    if (threads == TK_XRAY_STACKS_AGGREGATE) {
        size_t n;
        uint32_t *roots = root_values(s, 1, &n);
        rc = roots ? walk(s, roots, n, 0, fn, ctx) : -1;
        free(roots);
    } else {
        walk_ctx w = {s, fn, ctx};
        rc = each_thread(s, walk_thread, &w);
    }
    if (rc < 0 || s->oom)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return TK_OK;
}
