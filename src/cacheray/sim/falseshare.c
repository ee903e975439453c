/* False sharing: per L1 line, which bytes each thread wrote. A line
 * written by one thread is one 32-byte slot of a hash table (writer, bytes,
 * writes: one cache miss to update); the second writer turns it into a
 * shared line with one record per thread and the count of alternations
 * (consecutive writes by different threads). Lines whose writers never
 * wrote a common byte are reported. Bytes are tracked in 64 chunks per line
 * (one byte each for lines up to 64 bytes). */
#include <stdlib.h>
#include <string.h>

#include "cacheray/sim/sim_int.h"
#include "core/hugemem.h"

static int alloc_table(cs_falseshare *f, size_t slots)
{
    f->tab = tk_table_calloc(slots, sizeof *f->tab);
    if (!f->tab)
        return -1;
    f->slots = slots;
    f->tab_shift = 64 - (unsigned)__builtin_ctzll(slots);
    return 0;
}

int cs_fs_init(cs_falseshare *f, unsigned line_shift)
{
    memset(f, 0, sizeof *f);
    f->shift = line_shift;
    f->chunk_shift = line_shift > 6 ? line_shift - 6 : 0;
    return alloc_table(f, 1024);
}

static void free_report(cs_falseshare *f)
{
    free(f->order);
    free(f->out);
    free(f->out_at);
    f->order = NULL;
    f->out = NULL;
    f->out_at = NULL;
    f->norder = 0;
}

void cs_fs_free(cs_falseshare *f)
{
    for (size_t i = 0; i < f->nshared; i++)
        free(f->shared[i].v);
    free(f->shared);
    tk_table_free(f->tab, f->slots, sizeof *f->tab);
    free_report(f);
    memset(f, 0, sizeof *f);
}

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 64;
    void *p = realloc(*v, c * size);
    if (!p)
        return -1;
    *v = p;
    *cap = c;
    return 0;
}

/* Address of the lowest chunk in `mask` of `line`. */
static uint64_t first_byte(const cs_falseshare *f, uint64_t line, uint64_t mask)
{
    return (line << f->shift) + ((uint64_t)__builtin_ctzll(mask) << f->chunk_shift);
}

static void locate(cs_falseshare *f, tk_cachesim *s, uint64_t line, cs_fs_sharer *w)
{
    cs_types_locate(s, first_byte(f, line, w->mask), &w->type, &w->offset, &w->field);
}

/* The second thread writes a line so far written by e->thread: record it
 * in `shared`, leaving e pointing there. */
static int share(cs_falseshare *f, tk_cachesim *s, cs_fs_entry *e)
{
    if (grow((void **)&f->shared, &f->cap_shared, f->nshared, sizeof *f->shared) != 0)
        return -1;
    cs_fs_line *L = &f->shared[f->nshared];
    memset(L, 0, sizeof *L);
    L->v = malloc(2 * sizeof *L->v);
    if (!L->v)
        return -1;
    L->line = e->line1 - 1;
    L->writes = e->writes;
    L->last_thread = e->thread;
    L->v[0] = (cs_fs_sharer){.thread = e->thread, .mask = e->mask, .writes = e->writes};
    locate(f, s, L->line, &L->v[0]);
    L->n = 1;
    e->mask = 0; /* now shared: writes holds the index + 1 */
    e->writes = ++f->nshared;
    return 0;
}

static int shared_write(cs_falseshare *f, tk_cachesim *s, cs_fs_line *L,
                        uint64_t thread, uint64_t mask)
{
    L->writes++;
    if (L->last_thread != thread) {
        L->alternations++;
        L->last_thread = thread;
    }
    size_t i = 0;
    while (i < L->n && L->v[i].thread != thread)
        i++;
    if (i == L->n) {
        if ((L->n & (L->n - 1)) == 0 && L->n >= 2) { /* grow at powers of two */
            cs_fs_sharer *v = realloc(L->v, 2 * L->n * sizeof *v);
            if (!v)
                return -1;
            L->v = v;
        }
        L->v[i] = (cs_fs_sharer){.thread = thread};
        L->n++;
    }
    cs_fs_sharer *w = &L->v[i];
    uint64_t lower = mask & (w->mask ? ((w->mask & -w->mask) - 1) : ~0ULL);
    w->mask |= mask;
    w->writes++;
    if (lower) /* a new lowest byte: where it lies now */
        locate(f, s, L->line, w);
    return 0;
}

static int rehash(cs_falseshare *f)
{
    cs_fs_entry *old = f->tab;
    size_t n = f->slots;
    if (alloc_table(f, 2 * n) != 0) {
        f->tab = old;
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (old[i].line1) {
            size_t j = cs_fs_home(f, old[i].line1 - 1);
            while (f->tab[j].line1)
                j = (j + 1) & (f->slots - 1);
            f->tab[j] = old[i];
        }
    tk_table_free(old, n, sizeof *old);
    return 0;
}

/* The line's entry, created (written by `thread`, no bytes yet) when new;
 * NULL when out of memory. */
static cs_fs_entry *entry(cs_falseshare *f, uint64_t line, uint64_t thread)
{
    size_t i = cs_fs_home(f, line);
    while (f->tab[i].line1 && f->tab[i].line1 != line + 1)
        i = (i + 1) & (f->slots - 1);
    if (f->tab[i].line1)
        return &f->tab[i];
    if ((f->n + 1) * 2 > f->slots) {
        if (rehash(f) != 0)
            return NULL;
        i = cs_fs_home(f, line);
        while (f->tab[i].line1)
            i = (i + 1) & (f->slots - 1);
    }
    f->tab[i] = (cs_fs_entry){.line1 = line + 1, .thread = thread};
    f->n++;
    return &f->tab[i];
}

static int line_write(cs_falseshare *f, tk_cachesim *s, uint64_t line, uint64_t mask,
                      uint64_t thread)
{
    cs_fs_entry *e = entry(f, line, thread);
    if (!e)
        return -1;
    if (e->mask ? e->thread == thread : !e->writes) { /* new, or still one writer */
        e->mask |= mask;
        e->writes++;
        return 0;
    }
    if (e->mask && share(f, s, e) != 0)
        return -1;
    return shared_write(f, s, &f->shared[e->writes - 1], thread, mask);
}

int cs_fs_write_lines(cs_falseshare *f, tk_cachesim *s, uint64_t addr, uint64_t last,
                      uint64_t thread)
{
    for (uint64_t line = addr >> f->shift;; line++) {
        uint64_t base = line << f->shift, end = base + ((1ULL << f->shift) - 1);
        uint64_t lo = (addr > base ? addr : base) - base;
        uint64_t hi = (last < end ? last : end) - base;
        if (line_write(f, s, line, cs_fs_chunks(f, lo, hi), thread) != 0)
            return -1;
        if (line == last >> f->shift)
            return 0;
    }
}

static int disjoint(const cs_fs_line *L)
{
    uint64_t seen = 0;
    for (size_t i = 0; i < L->n; i++) {
        if (seen & L->v[i].mask)
            return 0;
        seen |= L->v[i].mask;
    }
    return 1;
}

typedef struct rank {
    uint64_t alternations, line;
    size_t index;
} rank;

static int by_alternations(const void *a, const void *b)
{
    const rank *x = a, *y = b;
    if (x->alternations != y->alternations)
        return x->alternations > y->alternations ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static int by_first_byte(const void *a, const void *b)
{
    uint64_t x = ((const cs_fs_sharer *)a)->mask, y = ((const cs_fs_sharer *)b)->mask;
    x &= -x;
    y &= -y;
    return x < y ? -1 : x > y;
}

int cs_fs_finish(cs_falseshare *f, const tk_cachesim *s)
{
    free_report(f);
    size_t nsharers = 0;
    rank *r = malloc((f->nshared + 1) * sizeof *r);
    f->order = malloc((f->nshared + 1) * sizeof *f->order);
    f->out_at = malloc((f->nshared + 1) * sizeof *f->out_at);
    if (!r || !f->order || !f->out_at) {
        free(r);
        return -1;
    }
    for (size_t i = 0; i < f->nshared; i++)
        if (disjoint(&f->shared[i])) {
            r[f->norder++] = (rank){f->shared[i].alternations, f->shared[i].line, i};
            nsharers += f->shared[i].n;
        }
    qsort(r, f->norder, sizeof *r, by_alternations);
    for (size_t i = 0; i < f->norder; i++)
        f->order[i] = r[i].index;
    free(r);
    f->out = malloc((nsharers + 1) * sizeof *f->out);
    if (!f->out)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < f->norder; i++) {
        cs_fs_line *L = &f->shared[f->order[i]];
        qsort(L->v, L->n, sizeof *L->v, by_first_byte);
        f->out_at[i] = k;
        for (size_t j = 0; j < L->n; j++) {
            const cs_fs_sharer *w = &L->v[j];
            const cs_type *T = &s->types.v[w->type];
            unsigned top = 63 - (unsigned)__builtin_clzll(w->mask);
            tk_cachesim_sharer *o = &f->out[k++];
            o->thread = w->thread;
            o->first = first_byte(f, L->line, w->mask);
            o->last = (L->line << f->shift) + (((uint64_t)top + 1) << f->chunk_shift) - 1;
            o->writes = w->writes;
            o->type = w->type ? T->pub.name : NULL;
            o->offset = w->offset;
            o->field = w->field >= 0 ? T->fields[w->field].name : NULL;
        }
    }
    f->out_at[f->norder] = k;
    return 0;
}
