/* The serve loop of a level below the first with the common shape (LRU,
 * a power-of-two number of sets of 4, 8 or 16 ways, write-back,
 * write-allocate) and no 3C shadow beside its cache: without 3C, or with
 * its requests' classes queued (queue3c.c). The level's clock, stats, last
 * line and the next level's queue are kept in locals: as fields, each
 * store through the sets' tables (which may alias them) made the compiler
 * load them again: three levels on random traffic ran 13% more of the
 * worker's instructions (callgrind, 2068 M against 1837 M). The
 * events are fast_line's and cs_lru_miss's (stream_pass.h, lrumiss.h), in
 * their order; a request the fast path does not take goes through
 * cs_access_range with the locals written back. Part of stream_pass.h. */
#ifndef TK_CACHERAY_STREAM_LEAN_H
#define TK_CACHERAY_STREAM_LEAN_H

typedef struct lean_state {
    uint64_t clock, last;    /* the cache's clock; cs_level.last */
    uint8_t *last_slot;
    tk_cachesim_level_stats st; /* counts not yet added to the level's */
    cs_req *nv;              /* the next level's queue (none below the last) */
    size_t nn, ncap;
} lean_state;

static inline void lean_load(tk_cachesim *s, size_t k, lean_state *x)
{
    const cs_level *L = &s->lv[k];
    *x = (lean_state){.clock = L->c.clock, .last = L->last, .last_slot = L->last_slot};
    if (k + 1 < s->nlevels) {
        const cs_queue *q = &s->queue[k + 1];
        x->nv = q->v;
        x->nn = q->n;
        x->ncap = q->cap;
    }
}

static inline void lean_store(tk_cachesim *s, size_t k, const lean_state *x)
{
    cs_level *L = &s->lv[k];
    tk_cachesim_level_stats *st = &L->st;
    L->c.clock = x->clock;
    L->last = x->last;
    L->last_slot = x->last_slot;
    st->reads += x->st.reads;
    st->writes += x->st.writes;
    st->read_misses += x->st.read_misses;
    st->write_misses += x->st.write_misses;
    st->writebacks += x->st.writebacks;
    st->compulsory += x->st.compulsory;
    st->capacity += x->st.capacity;
    st->conflict += x->st.conflict;
    if (k + 1 < s->nlevels)
        s->queue[k + 1].n = x->nn;
}

/* cs_send's queueing of line [lo, hi] to level k + 1 (there is one). */
static inline void lean_push(tk_cachesim *s, size_t k, lean_state *x, uint64_t lo, uint64_t hi,
                             int32_t origin, int write)
{
    if (x->nn == x->ncap) {
        cs_queue *q = &s->queue[k + 1];
        q->n = x->nn;
        if (cs_stream_grow(q) != 0) {
            s->lv[k].oom = 1;
            return;
        }
        x->nv = q->v;
        x->ncap = q->cap;
    }
    x->nv[x->nn++] = (cs_req){lo, hi, origin, (uint16_t)write, 0};
}

/* A miss of request r's `line` in set `at`: cs_lru_miss's events. */
__attribute__((always_inline)) static inline void
lean_miss(tk_cachesim *s, size_t k, lean_state *x, const cs_req *r, uint64_t line, uint64_t at,
          const uint32_t ways, const int classify, const int below)
{
    cs_cache *c = &s->lv[k].c;
    const unsigned shift = s->lv[k].shift;
    const int write = (int)r->write;
    x->st.read_misses += !write;
    x->st.write_misses += write;
    if (classify)
        cs_count_3c(&x->st, r->cls);
    const uint64_t first = line << shift, bytes = 1ULL << shift;
    if (below)
        lean_push(s, k, x, first, first + (bytes - 1), r->origin, 0);
    const uint64_t w = at + lru_way(c->stamp + at, ways);
    c->stamp[w] = ++x->clock;
    const uint64_t victim = c->e[w] ? c->e[w] | (uint64_t)c->dirty[w] << 1 : 0;
    c->e[w] = line << 2 | CS_VALID;
    c->dirty[w] = (uint8_t)write;
    x->last_slot = c->dirty + w;
    if (victim & CS_DIRTY) {
        const uint64_t vfirst = (victim >> 2) << shift;
        x->st.writebacks++;
        if (below)
            lean_push(s, k, x, vfirst, vfirst + (bytes - 1), -1, 1);
    }
}

/* Level k's requests from q, each miss added to its access's mask.
 * classify: 0 (no 3C) or 2 (the classes queued). */
__attribute__((always_inline)) static inline void serve_lean(tk_cachesim *s, size_t k,
                                                             uint8_t *masks, cs_queue *q,
                                                             const uint32_t ways,
                                                             const int classify)
{
    const int below = k + 1 < s->nlevels;
    cs_level *L = &s->lv[k];
    cs_cache *c = &L->c;
    const unsigned shift = L->shift;
    const uint64_t set_mask = c->set_mask;
    const cs_req *v = q->v;
    const size_t n = q->n;
    lean_state x;
    lean_load(s, k, &x);
    for (size_t r = 0; r < n && r < AHEAD; r++)
        prefetch(L, v[r].lo, ways, classify);
    for (size_t r = 0; r < n; r++) {
        if (r + AHEAD < n)
            prefetch(L, v[r + AHEAD].lo, ways, classify);
        const cs_req *y = &v[r];
        const uint64_t line = y->lo >> shift;
        const int write = (int)y->write;
        unsigned m = 0;
        if (line != y->hi >> shift || y->lo > y->hi) { /* the general path */
            lean_store(s, k, &x);
            L->origin = y->origin;
            L->cls = y->cls;
            m = cs_access_range(s, k, y->lo, y->hi, write);
            lean_load(s, k, &x);
        } else if (classify && line + 1 == x.last) { /* the same line again: only the dirty bit */
            x.st.reads += !write;
            x.st.writes += write;
            *x.last_slot |= (uint8_t)write;
        } else {
            x.st.reads += !write;
            x.st.writes += write;
            const uint64_t at = (line & set_mask) * ways;
            const uint64_t match = scan(c->e + at, line << 2 | CS_VALID, ways);
            if (match) {
                const uint64_t w = at + (uint64_t)__builtin_ctzll(match);
                c->stamp[w] = ++x.clock;
                c->dirty[w] |= (uint8_t)write;
                x.last_slot = c->dirty + w;
            } else {
                lean_miss(s, k, &x, y, line, at, ways, classify, below);
                m = 1u << k;
            }
            x.last = line + 1;
        }
        if (y->origin >= 0)
            masks[y->origin] |= (uint8_t)m;
    }
    lean_store(s, k, &x);
    q->n = 0;
}

#endif
