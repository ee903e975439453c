/* The first level's fast passes (toplevel_pass.h) for any CPU, the choice
 * between them and the AVX2 ones, and the general pass for every other
 * shape of level. */
#include "cacheray/sim/toplevel_pass.h"
#include "core/cpu.h"

#ifdef TK_CACHESIM_AVX2
extern const cs_pass_fn cs_top_passes_avx2[3][4]; /* toplevel_avx2.c */
#endif

/* The general pass: every access through the hierarchy. With 3C in
 * pages, after a batch that missed mostly (toplevel_pass.h's look-ahead)
 * the words of the accesses 8 ahead are asked for: without, each miss
 * waited for memory (a PLRU level on random traffic took 1.75x the time
 * of the map's). */
static void any_pass(tk_cachesim *s, cs_batch *b)
{
    cs_settle_top(s);
    cs_level *L = &s->lv[0];
    const int ahead = L->ahead && L->classify && L->shadow.paged;
    size_t nmiss = 0;
    for (size_t i = 0; i < b->n; i++) {
        if (ahead && i + AHEAD < b->n)
            cs_shadow_prefetch_word(&L->shadow, b->addr[i + AHEAD] >> L->shift);
        unsigned size = b->size[i];
        b->mask[i] = 0;
        if (size == 0) {
            s->tot.zero_size++;
            continue;
        }
        uint64_t addr = b->addr[i], last = addr + (size - 1u);
        if (last < addr) /* runs past the address space: stop at its end */
            last = UINT64_MAX;
        L->origin = (int32_t)i;
        b->mask[i] = (uint8_t)cs_access(s, addr, last, b->write[i]);
        nmiss += b->mask[i] & 1;
    }
    L->ahead = nmiss * 4 >= b->n * 3 && nmiss;
}

cs_pass_fn cs_top_pass(const tk_cachesim *s)
{
    static const cs_pass_fn plain[3][4] = CS_TOP_PASSES;
    const cs_pass_fn(*passes)[4] = plain;
#ifdef TK_CACHESIM_AVX2
    if (tk_cpu_avx2())
        passes = cs_top_passes_avx2;
#endif
    const cs_level *L = &s->lv[0];
    const cs_cache *c = &L->c;
    if (c->hashed || c->policy != TK_CACHESIM_LRU || !c->pow2 || !L->write_back ||
        !L->write_allocate)
        return any_pass;
    int variant = (L->classify ? 1 : 0) + (s->nlevels == 1 ? 2 : 0);
    switch (c->ways) {
    case 4: return passes[0][variant];
    case 8: return passes[1][variant];
    case 16: return passes[2][variant];
    default: return any_pass;
    }
}
