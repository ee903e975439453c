/* Selections on XRay traces (docs/formats/xray.md, "Selection").
 *
 * --thread keeps the records of those tids. --range and --func select
 * calls: an entry that passes (its TSC in the window, its function the
 * one asked for) opens a call that is kept whole, with everything its
 * thread does until the call's exit, even past the window's end. So the
 * records kept nest as they do in the trace: account, stack and graph
 * count each selected call once with its full duration, and never meet
 * an exit whose entry was left out. Each thread keeps the stack of the
 * functions open in its selected calls: memory grows with call depth. */
#include <stdlib.h>
#include <string.h>

#include <tracekit/xray_map.h>

#include "core/hashmap.h"
#include "core/select.h"
#include "core/spool.h"
#include "xray/xray_int.h"

typedef struct xf_thread {
    int32_t *stack; /* functions open in the selected calls, innermost last */
    uint32_t n, cap;
} xf_thread;

struct tk_xr_filter {
    tk_span *threads;
    size_t nthreads;
    int calls;           /* --range or --func: calls are followed */
    int timed;           /* entries must start in [lo, hi) ticks after base */
    uint64_t base, lo, hi;
    int has_func;
    int32_t *funcs;      /* the ids --func names, sorted */
    size_t nfuncs;
    tk_map threads_state; /* pid << 32 | tid -> xf_thread */
};

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

void tk_xr_filter_free(tk_xr_filter *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->threads_state.n; i++)
        free(((xf_thread *)tk_map_value(&f->threads_state, i))->stack);
    tk_map_free(&f->threads_state);
    free(f->threads);
    free(f->funcs);
    free(f);
}

/* ---- the window in ticks */

/* ceil(ns * freq / 1e9), saturated. */
static uint64_t ns_to_ticks(uint64_t ns, uint64_t freq)
{
    unsigned __int128 t = ((unsigned __int128)ns * freq + 999999999u) / 1000000000u;
    return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

static tk_status set_window(tk_xr_filter *f, const tk_selection *s, uint64_t freq,
                            tk_error *err)
{
    if (s->range_kinds & TK_SEL_SCALED)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--range '%s': XRay ranges are times since the trace's first TSC "
                            "(10ms, 2.5s, or plain ns), not counts with K, M or G",
                            s->range_text);
    if (!freq && (s->range_kinds & TK_SEL_TIME))
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--range '%s': the trace has no cycle frequency, so its range "
                            "counts TSC ticks: give plain numbers",
                            s->range_text);
    f->timed = 1;
    f->lo = freq ? ns_to_ticks(s->from, freq) : s->from;
    f->hi = s->to == UINT64_MAX ? UINT64_MAX : freq ? ns_to_ticks(s->to, freq) : s->to;
    return TK_OK;
}

/* The smallest TSC of the records `r` has left (info's tsc.min; 0 when
 * there are none). */
static tk_status first_tsc(tk_xray_reader *r, uint64_t *tsc, tk_error *err)
{
    tk_xray_record rec;
    uint64_t min = UINT64_MAX;
    int rc;
    while ((rc = tk_xray_next(r, &rec, err)) > 0)
        min = rec.tsc < min ? rec.tsc : min;
    *tsc = min == UINT64_MAX ? 0 : min;
    return rc < 0 ? err->status : TK_OK;
}

/* ---- --func */

static int cmp_id(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* "42" or "#42": the id; -1 for a name. */
static int64_t func_id_of(const char *v)
{
    const char *p = v + (v[0] == '#');
    int64_t id = 0;
    if (!*p)
        return -1;
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || id > INT32_MAX / 10)
            return -1;
        id = id * 10 + (*p - '0');
    }
    return id <= INT32_MAX ? id : -1;
}

int tk_xr_func_is_name(const char *v) { return func_id_of(v) < 0; }

static tk_status add_func(tk_xr_filter *f, int32_t id, tk_error *err)
{
    int32_t *v = realloc(f->funcs, (f->nfuncs + 1) * sizeof *v);
    if (!v)
        return oom(err);
    f->funcs = v;
    f->funcs[f->nfuncs++] = id;
    return TK_OK;
}

/* The ids of the function named `name` in the map (every id: a function
 * can have several, and names need not be unique). */
static tk_status resolve(tk_xr_filter *f, const char *name, tk_xray_map *map, tk_error *err)
{
    if (!map)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--func %s: a name needs the instrumentation map (-m BINARY, "
                            "which convert, report, account, stack and graph take); give "
                            "the function's id instead",
                            name);
    for (int64_t id = 1; id <= tk_xray_map_max_id(map); id++) {
        const char *n = tk_xray_map_name(map, (int32_t)id);
        if (n && strcmp(n, name) == 0 && add_func(f, (int32_t)id, err) != TK_OK)
            return err->status;
    }
    if (!f->nfuncs)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--func %s: the instrumentation map has no function of that "
                            "name",
                            name);
    qsort(f->funcs, f->nfuncs, sizeof *f->funcs, cmp_id);
    return TK_OK;
}

static int func_selected(const tk_xr_filter *f, int32_t id)
{
    return !f->has_func || bsearch(&id, f->funcs, f->nfuncs, sizeof id, cmp_id) != NULL;
}

/* ---- the filter */

tk_xr_filter *tk_xr_filter_new(const tk_selection *s, uint64_t freq, tk_xray_map *map,
                               tk_error *err)
{
    tk_xr_filter *f = calloc(1, sizeof *f);
    if (!f) {
        oom(err);
        return NULL;
    }
    tk_map_init(&f->threads_state, sizeof(xf_thread));
    f->calls = s->has_range || s->func;
    if (s->nthreads && !(f->threads = malloc(s->nthreads * sizeof *f->threads)))
        goto nomem;
    if (s->nthreads)
        memcpy(f->threads, s->threads, s->nthreads * sizeof *f->threads);
    f->nthreads = s->nthreads;
    if (s->has_range && set_window(f, s, freq, err) != TK_OK)
        goto fail;
    if (s->func) {
        int64_t id = func_id_of(s->func);
        f->has_func = 1;
        if (id >= 0 ? add_func(f, (int32_t)id, err) : resolve(f, s->func, map, err))
            goto fail;
    }
    return f;
nomem:
    oom(err);
fail:
    tk_xr_filter_free(f);
    return NULL;
}

static int push(xf_thread *t, int32_t id)
{
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? 2 * t->cap : 16;
        int32_t *v = realloc(t->stack, cap * sizeof *v);
        if (!v)
            return -1;
        t->stack = v;
        t->cap = cap;
    }
    t->stack[t->n++] = id;
    return 1;
}

/* An exit inside selected calls closes the innermost open call of its
 * function and those above it; one whose function is not open is kept
 * too (the whole trace has it unmatched just the same). */
static int pop(xf_thread *t, int32_t id)
{
    for (uint32_t k = t->n; k > 0; k--)
        if (t->stack[k - 1] == id) {
            t->n = k - 1;
            break;
        }
    return 1;
}

int tk_xr_filter_keep(tk_xr_filter *f, const tk_xray_record *rec)
{
    if (f->nthreads && !tk_spans_hit(f->threads, f->nthreads, rec->tid))
        return 0;
    if (!f->calls)
        return 1;
    xf_thread *t = tk_map_u64(&f->threads_state, (uint64_t)rec->pid << 32 | rec->tid);
    if (!t)
        return -1;
    uint64_t at = rec->tsc - f->base;
    int in_window = !f->timed || (rec->tsc >= f->base && at >= f->lo && at < f->hi);
    switch (rec->kind) {
    case TK_XRAY_ENTER:
    case TK_XRAY_ENTER_ARG:
        if (t->n || (in_window && func_selected(f, rec->func_id)))
            return push(t, rec->func_id);
        return 0;
    case TK_XRAY_EXIT:
    case TK_XRAY_TAIL_EXIT:
        return t->n ? pop(t, rec->func_id) : 0;
    default: /* events: inside selected calls, or in the window */
        return t->n || (in_window && !f->has_func);
    }
}

/* ---- the reader */

tk_xray_reader *tk_xray_reader_new_selected(tk_input *in, const tk_selection *sel,
                                            tk_xray_map *map, tk_error *err)
{
    if (tk_selection_empty(sel))
        return tk_xray_reader_new(in, err);
    if (sel->naddrs) {
        tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                     "--addr does not apply to xray traces");
        return NULL;
    }
    tk_spool sp = {NULL, -1, NULL};
    /* the window counts from the first TSC, which takes a pass of its own */
    if (sel->has_range && tk_input_size(in) < 0) {
        if (tk_spool_open(&sp, in, "xray-range", "the trace", err) != 0)
            return NULL;
        in = sp.in;
    }
    tk_xray_reader *r = tk_xray_reader_new(in, err);
    tk_xr_filter *f = r ? tk_xr_filter_new(sel, tk_xray_reader_header(r)->cycle_frequency,
                                           map, err)
                        : NULL;
    if (f && sel->has_range) { /* the header checked the range: now the pass */
        tk_status st = first_tsc(r, &f->base, err);
        tk_xray_reader_free(r);
        r = st == TK_OK && tk_input_rewind(in, err) == TK_OK ? tk_xray_reader_new(in, err)
                                                               : NULL;
    }
    if (!r || !f) {
        tk_xr_filter_free(f);
        tk_xray_reader_free(r);
        tk_spool_close(&sp);
        return NULL;
    }
    tk_xr_reader_attach(r, f, &sp);
    return r;
}
