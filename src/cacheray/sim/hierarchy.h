/* The hierarchy's entry points (hierarchy.c), with the hit path inline so
 * the simulator's loop (sim.c) runs it without calls. The order of events
 * on a miss is documented in hierarchy.c. */
#ifndef TK_CACHERAY_HIERARCHY_H
#define TK_CACHERAY_HIERARCHY_H

#include "cacheray/sim/sim_int.h"

/* Bytes [first, last] at level k (k == nlevels: memory): one access per
 * line they overlap. Returns the levels missed on the demand path. */
unsigned cs_access_range(tk_cachesim *s, size_t k, uint64_t first, uint64_t last,
                         int write);
/* Queue a request to level k for its stream pass (stream.c); -1 when out
 * of memory. Inline but for the queue's growth (cs_stream_grow). */
int cs_stream_grow(cs_queue *q);
static inline int cs_stream_push(tk_cachesim *s, size_t k, uint64_t lo, uint64_t hi, int write,
                                 int32_t origin)
{
    cs_queue *q = &s->queue[k];
    if (q->n == q->cap && cs_stream_grow(q) != 0)
        return -1;
    q->v[q->n++] = (cs_req){lo, hi, origin, (uint16_t)write, 0};
    return 0;
}

/* Bytes [lo, hi] read or written at level k from the level above, on the
 * demand path of the access being served or not (a writeback): served
 * now, or queued for level k's stream pass. Returns the levels missed
 * now. */
static inline unsigned cs_send(tk_cachesim *s, size_t k, uint64_t lo, uint64_t hi, int write,
                               int demand)
{
    if (!s->stream)
        return cs_access_range(s, k, lo, hi, write);
    cs_level *U = &s->lv[k - 1];
    if (k < s->nlevels && cs_stream_push(s, k, lo, hi, write, demand ? U->origin : -1) != 0)
        U->oom = 1;
    return 0;
}

/* The stream passes: the batch's queued requests level by level, each
 * miss added to its access's mask in `masks` (b->mask, or for pipe.c's
 * worker b->below); level 2's requests from q1 (emptied), the others'
 * from s->queue. */
void cs_stream_levels(tk_cachesim *s, uint8_t *masks, cs_queue *q1);
void cs_stream_run(tk_cachesim *s, cs_batch *b);
void cs_stream_init(tk_cachesim *s);
/* The classes of level L's queued requests (queue3c.c; L->queued).
 * Returns the shadow's out-of-memory flag. */
int cs_queue3c(cs_level *L, cs_queue *q);
/* Before level k serves its queue q: its 3C shadow settled
 * (cs_shadow_settle) and, if queued, the requests' classes. Returns 1
 * when out of memory. */
int cs_stream_classify(tk_cachesim *s, size_t k, cs_queue *q);
void cs_stream_free(tk_cachesim *s);

/* A miss's 3C class (cs_req.cls): bit 0, its line was seen before; bit 1,
 * the shadow held it (and so had seen it). */
static inline unsigned cs_class(int seen, int in) { return (unsigned)seen | (unsigned)in << 1; }

/* Count a miss of class cls in st, without a branch on the class (a coin
 * toss on random traffic). */
static inline void cs_count_3c(tk_cachesim_level_stats *st, unsigned cls)
{
    st->compulsory += !(cls & 1);
    st->capacity += cls == 1;
    st->conflict += cls >> 1;
}

/* A miss at a level with a shadow beside its cache: count its class.
 * Returns the time of the line's event in the shadow, for cs_shadow_fill. k: the shadow's clock (&L->shadow.k,
 * or a pass's copy); w: the line's word or NULL (cs_shadow_miss).
 * Inline, as the shadow's paths are (shadow.h). */
CS_SHADOW_HOT uint64_t cs_classify_miss(cs_level *L, uint64_t line, int write,
                                        cs_shadow_clock *k, uint32_t *w)
{
    int seen, allocate = L->write_allocate || !write;
    uint64_t t;
    const int hit = cs_shadow_miss(&L->shadow, k, line, w, allocate, &seen, &t);
    cs_count_3c(&L->st, cs_class(seen, hit));
    L->oom |= L->shadow.oom;
    return t;
}

/* At a first-level pass's start: the 3C shadows it reaches (the first
 * level's, and with no stream every level's) leave pages found sparse or
 * renumber times near 32 bits (cs_shadow_settle). */
static inline void cs_settle_top(tk_cachesim *s)
{
    const size_t n = s->stream ? 1 : s->nlevels;
    for (size_t k = 0; k < n; k++)
        if (s->lv[k].classify)
            cs_shadow_settle(&s->lv[k].shadow);
}

/* Line `line` missed at level k: count, classify and serve it. */
unsigned cs_miss(tk_cachesim *s, size_t k, uint64_t line, uint64_t lo, uint64_t hi,
                 int write);

/* Line `line` (bytes [lo, hi] of it) at level k. Branch-light: whether an
 * access reads or writes follows no pattern a predictor could learn. */
static inline unsigned cs_access_line(tk_cachesim *s, size_t k, uint64_t line,
                                      uint64_t lo, uint64_t hi, int write)
{
    cs_level *L = &s->lv[k];
    L->st.reads += !write;
    L->st.writes += write;
    uint8_t *e = L->last_slot;
    /* The same line again changes nothing: with 3C that saves the shadow's
     * event; without, a set scan costs less than the branch mispredicts. */
    if (!L->classify || line + 1 != L->last) {
        L->last = 0;
        e = cs_hit(&L->c, line);
        if (!e)
            return cs_miss(s, k, line, lo, hi, write);
        if (L->queued) { /* the shadow took it in the queue's pass */
            L->last = line + 1;
            L->last_slot = e;
        } else if (L->classify) {
            /* the shadow follows the level's allocation policy, not its
             * invalidations */
            int allocate = L->write_allocate || !write;
            if (cs_shadow_hit(&L->shadow, (size_t)(e - L->c.dirty), line, allocate) ||
                allocate) {
                L->last = line + 1;
                L->last_slot = e;
            }
        }
    }
    *e |= (uint8_t)(write & L->write_back);
    return (write & !L->write_back) ? cs_send(s, k + 1, lo, hi, 1, 1) : 0;
}

/* The CPU access of bytes [addr, last]. Returns the levels missed on its
 * demand path (bit k: level k). */
static inline unsigned cs_access(tk_cachesim *s, uint64_t addr, uint64_t last, int write)
{
    unsigned shift = s->lv[0].shift;
    if (addr >> shift == last >> shift) /* the common case */
        return cs_access_line(s, 0, addr >> shift, addr, last, write);
    return cs_access_range(s, 0, addr, last, write);
}

/* The pass taking a batch through the hierarchy (toplevel.c): a fast one
 * for the common shapes of the first level, else access by access. */
cs_pass_fn cs_top_pass(const tk_cachesim *s);

int cs_levels_init(tk_cachesim *s);
void cs_levels_free(tk_cachesim *s);

#endif
