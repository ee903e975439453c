/* The levels below the first, level by level. A level's requests (fetches
 * of the lines the level above missed, writebacks, forwarded writes) are
 * queued while the level above takes the batch, then served in order in
 * one loop. Without an inclusive level (the only way a level changes the
 * one above it), each level sees exactly the requests, in exactly the
 * order, it would see served one at a time: the results are the same.
 * What is gained is the loop: the sets, stamps and 3C times of the
 * requests a few places ahead are fetched while the current one is
 * served, where each random access to a big level's tables was a wait
 * for memory of its own. */
#include <stdlib.h>

#include "cacheray/sim/stream_pass.h"
#include "core/cpu.h"

void cs_stream_init(tk_cachesim *s)
{
    s->stream = s->nlevels > 1;
    for (size_t k = 1; k < s->nlevels; k++)
        if (s->lv[k].inclusive)
            s->stream = 0;
    /* a request is then one line of the level (queue3c.c) */
    for (size_t k = 1; k < s->nlevels; k++)
        s->lv[k].queued = s->stream && s->lv[k].classify && s->lv[k].shift >= s->lv[k - 1].shift;
}

void cs_stream_free(tk_cachesim *s)
{
    for (size_t k = 0; k < TK_CACHESIM_MAX_LEVELS; k++)
        free(s->queue[k].v);
}

int cs_stream_grow(cs_queue *q)
{
    size_t cap = q->cap ? 2 * q->cap : 2 * CS_BATCH;
    cs_req *v = realloc(q->v, cap * sizeof *v);
    if (!v)
        return -1;
    q->v = v;
    q->cap = cap;
    return 0;
}

#ifdef TK_CACHESIM_AVX2
extern const cs_serve_fn cs_serve_passes_avx2[3][3]; /* stream_avx2.c */
#endif

static void serve_any(tk_cachesim *s, size_t k, uint8_t *m, cs_queue *q)
{
    serve(s, k, m, q, WAYS_ANY);
}

static cs_serve_fn serve_for(const cs_level *L)
{
    static const cs_serve_fn plain[3][3] = CS_SERVE_PASSES;
    const cs_serve_fn(*passes)[3] = plain;
#ifdef TK_CACHESIM_AVX2
    if (tk_cpu_avx2())
        passes = cs_serve_passes_avx2;
#endif
    const cs_cache *c = &L->c;
    if (c->hashed || c->policy != TK_CACHESIM_LRU || !c->pow2 || !L->write_back ||
        !L->write_allocate)
        return serve_any;
    int cls = L->queued ? 2 : L->classify != 0;
    switch (c->ways) {
    case 4: return passes[0][cls];
    case 8: return passes[1][cls];
    case 16: return passes[2][cls];
    default: return serve_any;
    }
}

int cs_stream_classify(tk_cachesim *s, size_t k, cs_queue *q)
{
    cs_level *L = &s->lv[k];
    if (L->classify)
        cs_shadow_settle(&L->shadow);
    return L->queued ? cs_queue3c(L, q) : 0;
}

void cs_stream_run(tk_cachesim *s, cs_batch *b) { cs_stream_levels(s, b->mask, &s->queue[1]); }

void cs_stream_levels(tk_cachesim *s, uint8_t *masks, cs_queue *q1)
{
    for (size_t k = 1; k < s->nlevels; k++) {
        cs_queue *q = k == 1 ? q1 : &s->queue[k];
        if ((k > 1 || !s->classes2_main) && cs_stream_classify(s, k, q))
            s->lv[k].oom = 1;
        serve_for(&s->lv[k])(s, k, masks, q);
    }
}
