/* Miniature caches (Waldspurger et al., ATC 2017): a real geometry's ways
 * and policy with its sets scaled down by the sampling rate. The sample
 * is of sets, not lines: the sets whose index hashes lowest (as many as
 * the rate asks for, at least MIN_SETS or all of a smaller cache) are
 * simulated whole and the others not at all, so the lines that conflict
 * in a real set conflict in its miniature (a line sample would split a
 * thrashing set's lines between sets that no longer thrash). The
 * policies are cachesim's: a miss fills the first empty way, else the
 * victim is the least recently used (LRU), the oldest filled (FIFO), the
 * one the tree's bits point to (PLRU: a bit per node, 1 = the victim is
 * on the right) or one drawn by splitmix64 (random). */
#include <math.h>
#include <stdlib.h>

#include "cacheray/mrc/mrc_int.h"
#include "core/hugemem.h"

#define MIN_SETS 32
#define NO_SLOT UINT32_MAX

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* slot[set]: the miniature set of a sampled set, NO_SLOT for the others:
 * the msets sets of lowest hash. */
static int choose_sets(mrc_mini *c)
{
    size_t n = (size_t)c->sets;
    uint32_t *h = malloc(n * sizeof *h);
    c->slot = tk_table_calloc(n, sizeof *c->slot);
    if (!h || !c->slot) {
        free(h);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        h[i] = mrc_hash32(i);
    qsort(h, n, sizeof *h, cmp_u32);
    uint32_t cut = h[c->msets - 1];
    free(h);
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++)
        c->slot[i] = mrc_hash32(i) <= cut && k < c->msets ? k++ : NO_SLOT;
    return 0;
}

int mrc_mini_init(mrc_mini *c, uint64_t size, uint32_t line, uint32_t ways,
                  tk_cachesim_policy policy, double rate, uint64_t seed)
{
    *c = (mrc_mini){.size = size, .ways = ways, .policy = policy, .rng = seed};
    c->sets = size / line / ways;
    double m = floor((double)c->sets * rate + 0.5);
    uint64_t least = c->sets < MIN_SETS ? c->sets : MIN_SETS;
    c->msets = m < (double)least ? least : m > (double)c->sets ? c->sets : (uint64_t)m;
    size_t slots = (size_t)(c->msets * ways);
    c->tag = tk_table_calloc(slots, sizeof *c->tag);
    if (policy == TK_CACHESIM_LRU || policy == TK_CACHESIM_PLRU)
        c->stamp = tk_table_calloc(policy == TK_CACHESIM_LRU ? slots : (size_t)c->msets,
                                   sizeof *c->stamp);
    if (policy == TK_CACHESIM_FIFO)
        c->next = tk_table_calloc((size_t)c->msets, sizeof *c->next);
    if (!c->tag || (!c->stamp && !c->next && policy != TK_CACHESIM_RANDOM) ||
        choose_sets(c) != 0) {
        mrc_mini_free(c);
        return -1;
    }
    return 0;
}

void mrc_mini_free(mrc_mini *c)
{
    size_t slots = (size_t)(c->msets * c->ways);
    tk_table_free(c->tag, slots, sizeof *c->tag);
    if (c->stamp)
        tk_table_free(c->stamp, c->policy == TK_CACHESIM_LRU ? slots : (size_t)c->msets,
                      sizeof *c->stamp);
    if (c->next)
        tk_table_free(c->next, (size_t)c->msets, sizeof *c->next);
    if (c->slot)
        tk_table_free(c->slot, (size_t)c->sets, sizeof *c->slot);
    c->tag = c->stamp = NULL;
    c->next = c->slot = NULL;
}

/* PLRU: walk from the leaf of `way` to the root pointing every node away. */
static void plru_touch(uint64_t *tree, uint32_t ways, uint32_t way)
{
    for (uint32_t node = ways - 1 + way; node > 0;) {
        uint32_t parent = (node - 1) / 2;
        if (node == 2 * parent + 1)
            *tree |= 1ULL << parent;
        else
            *tree &= ~(1ULL << parent);
        node = parent;
    }
}

static uint32_t plru_victim(uint64_t tree, uint32_t ways)
{
    uint32_t node = 0;
    while (node < ways - 1)
        node = 2 * node + 1 + (uint32_t)(tree >> node & 1);
    return node - (ways - 1);
}

static uint32_t victim(mrc_mini *c, uint64_t set, uint64_t *tags)
{
    for (uint32_t w = 0; w < c->ways; w++)
        if (!tags[w])
            return w;
    switch (c->policy) {
    case TK_CACHESIM_LRU: {
        const uint64_t *st = c->stamp + set * c->ways;
        uint32_t v = 0;
        for (uint32_t w = 1; w < c->ways; w++)
            if (st[w] < st[v])
                v = w;
        return v;
    }
    case TK_CACHESIM_FIFO: {
        uint32_t v = c->next[set];
        c->next[set] = v + 1 == c->ways ? 0 : v + 1;
        return v;
    }
    case TK_CACHESIM_PLRU:
        return plru_victim(c->stamp[set], c->ways);
    default:
        return (uint32_t)(splitmix(&c->rng) % c->ways);
    }
}

static void touch(mrc_mini *c, uint64_t set, uint32_t w)
{
    if (c->policy == TK_CACHESIM_LRU)
        c->stamp[set * c->ways + w] = ++c->clock;
    else if (c->policy == TK_CACHESIM_PLRU)
        plru_touch(&c->stamp[set], c->ways, w);
}

void mrc_mini_access(mrc_mini *c, uint64_t line)
{
    uint32_t slot = c->slot[line % c->sets];
    if (slot == NO_SLOT)
        return;
    uint64_t set = slot, *tags = c->tag + set * c->ways;
    c->accesses++;
    for (uint32_t w = 0; w < c->ways; w++)
        if (tags[w] == line + 1) {
            touch(c, set, w);
            return;
        }
    c->misses++;
    uint32_t w = victim(c, set, tags);
    tags[w] = line + 1;
    touch(c, set, w);
}
