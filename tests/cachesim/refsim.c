/* The reference simulator (refsim.h): written for obviousness, not speed. */
#include <stdlib.h>
#include <string.h>

#include "refsim.h"

typedef struct way {
    int valid, dirty;
    uint64_t line;
    uint64_t stamp; /* LRU: last use; FIFO: insertion */
} way;

typedef struct level {
    tk_cachesim_level c;
    uint64_t nsets, ways, line_bytes;
    way *w;              /* nsets * ways */
    int *tree;           /* PLRU: (ways - 1) node bits per set */
    uint64_t rng;
    way *shadow;         /* fully associative LRU, nsets * ways lines */
    uint64_t *seen;      /* every line referenced */
    size_t nseen, capseen;
    tk_cachesim_level_stats st;
} level;

struct ref_sim {
    size_t n;
    level lv[TK_CACHESIM_MAX_LEVELS];
    int classify;
    uint64_t clock;
};

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

ref_sim *ref_new(const tk_cachesim_config *c)
{
    ref_sim *r = calloc(1, sizeof *r);
    r->n = c->nlevels;
    r->classify = !(c->flags & TK_CACHESIM_NO_3C);
    for (size_t k = 0; k < r->n; k++) {
        level *L = &r->lv[k];
        L->c = c->levels[k];
        L->line_bytes = L->c.line;
        uint64_t lines = L->c.size / L->c.line;
        L->ways = L->c.ways ? L->c.ways : lines;
        L->nsets = lines / L->ways;
        L->w = calloc(lines, sizeof *L->w);
        L->tree = calloc(L->nsets * L->ways, sizeof *L->tree);
        L->rng = c->seed + k;
        L->shadow = calloc(lines, sizeof *L->shadow);
    }
    return r;
}

void ref_free(ref_sim *r)
{
    for (size_t k = 0; k < r->n; k++) {
        free(r->lv[k].w);
        free(r->lv[k].tree);
        free(r->lv[k].shadow);
        free(r->lv[k].seen);
    }
    free(r);
}

void ref_level_stats(const ref_sim *r, size_t k, tk_cachesim_level_stats *out)
{
    *out = r->lv[k].st;
}

/* ---- tree PLRU over ways [lo, hi): node bit 0 = the victim is in the
 * lower half, 1 = in the upper half; nodes numbered as a heap. */

static void plru_touch(int *tree, uint64_t ways, uint64_t w)
{
    uint64_t node = 0, lo = 0, hi = ways;
    while (hi - lo > 1) {
        uint64_t mid = (lo + hi) / 2;
        if (w < mid) { /* used the lower half: point at the upper */
            tree[node] = 1;
            node = 2 * node + 1;
            hi = mid;
        } else {
            tree[node] = 0;
            node = 2 * node + 2;
            lo = mid;
        }
    }
}

static uint64_t plru_victim(const int *tree, uint64_t ways)
{
    uint64_t node = 0, lo = 0, hi = ways;
    while (hi - lo > 1) {
        uint64_t mid = (lo + hi) / 2;
        if (tree[node]) {
            node = 2 * node + 2;
            lo = mid;
        } else {
            node = 2 * node + 1;
            hi = mid;
        }
    }
    return lo;
}

/* ---- one level's sets */

static way *find(level *L, uint64_t line)
{
    way *set = L->w + (line % L->nsets) * L->ways;
    for (uint64_t i = 0; i < L->ways; i++)
        if (set[i].valid && set[i].line == line)
            return &set[i];
    return NULL;
}

static uint64_t choose_victim(ref_sim *r, level *L, uint64_t set)
{
    way *s = L->w + set * L->ways;
    for (uint64_t i = 0; i < L->ways; i++)
        if (!s[i].valid)
            return i;
    switch (L->c.policy) {
    case TK_CACHESIM_PLRU: return plru_victim(L->tree + set * L->ways, L->ways);
    case TK_CACHESIM_RANDOM: return splitmix(&L->rng) % L->ways;
    default: { /* LRU and FIFO: the oldest stamp */
        uint64_t best = 0;
        for (uint64_t i = 1; i < L->ways; i++)
            if (s[i].stamp < s[best].stamp)
                best = i;
        return best;
    }
    }
    (void)r;
}

/* ---- 3C: a fully associative LRU shadow and the lines seen */

static int shadow_access(ref_sim *r, level *L, uint64_t line, int write)
{
    uint64_t lines = L->nsets * L->ways;
    for (uint64_t i = 0; i < lines; i++)
        if (L->shadow[i].valid && L->shadow[i].line == line) {
            L->shadow[i].stamp = ++r->clock;
            return 1;
        }
    if (write && !L->c.write_allocate)
        return 0;
    uint64_t v = 0;
    for (uint64_t i = 0; i < lines; i++) {
        if (!L->shadow[i].valid) {
            v = i;
            break;
        }
        if (L->shadow[i].stamp < L->shadow[v].stamp)
            v = i;
    }
    L->shadow[v] = (way){1, 0, line, ++r->clock};
    return 0;
}

static int seen_before(level *L, uint64_t line)
{
    for (size_t i = 0; i < L->nseen; i++)
        if (L->seen[i] == line)
            return 1;
    if (L->nseen == L->capseen) {
        L->capseen = L->capseen ? 2 * L->capseen : 64;
        L->seen = realloc(L->seen, L->capseen * sizeof *L->seen);
    }
    L->seen[L->nseen++] = line;
    return 0;
}

/* ---- the hierarchy */

static unsigned range(ref_sim *r, size_t k, uint64_t first, uint64_t last, int write);

/* Invalidate [first, last] above level k; 1 if a dirty copy was dropped. */
static int back_invalidate(ref_sim *r, size_t k, uint64_t first, uint64_t last)
{
    int dirty = 0;
    for (size_t j = 0; j < k; j++) {
        level *U = &r->lv[j];
        for (uint64_t a = first / U->line_bytes; a <= last / U->line_bytes; a++) {
            way *w = find(U, a);
            if (!w)
                continue;
            U->st.invalidations++;
            if (w->dirty) {
                U->st.writebacks++;
                dirty = 1;
            }
            w->valid = w->dirty = 0;
        }
    }
    return dirty;
}

static unsigned line_access(ref_sim *r, size_t k, uint64_t line, uint64_t lo,
                            uint64_t hi, int write)
{
    level *L = &r->lv[k];
    if (write)
        L->st.writes++;
    else
        L->st.reads++;
    int shadow_hit = r->classify ? shadow_access(r, L, line, write) : 1;
    uint64_t set = line % L->nsets;
    way *w = find(L, line);
    if (w) {
        if (L->c.policy == TK_CACHESIM_LRU)
            w->stamp = ++r->clock;
        if (L->c.policy == TK_CACHESIM_PLRU)
            plru_touch(L->tree + set * L->ways, L->ways, (uint64_t)(w - (L->w + set * L->ways)));
        if (write && L->c.write_back)
            w->dirty = 1;
        if (write && !L->c.write_back)
            return range(r, k + 1, lo, hi, 1);
        return 0;
    }
    if (write)
        L->st.write_misses++;
    else
        L->st.read_misses++;
    if (r->classify) {
        if (!seen_before(L, line))
            L->st.compulsory++;
        else if (!shadow_hit)
            L->st.capacity++;
        else
            L->st.conflict++;
    }
    unsigned mask = 1u << k;
    if (write && !L->c.write_allocate)
        return mask | range(r, k + 1, lo, hi, 1);
    uint64_t base = line * L->line_bytes;
    mask |= range(r, k + 1, base, base + L->line_bytes - 1, 0);
    uint64_t v = choose_victim(r, L, set);
    way old = L->w[set * L->ways + v];
    L->w[set * L->ways + v] = (way){1, write && L->c.write_back, line, ++r->clock};
    if (L->c.policy == TK_CACHESIM_PLRU)
        plru_touch(L->tree + set * L->ways, L->ways, v);
    if (old.valid) {
        uint64_t ob = old.line * L->line_bytes, ol = ob + L->line_bytes - 1;
        int dirty = old.dirty;
        if (L->c.inclusive && back_invalidate(r, k, ob, ol))
            dirty = 1;
        if (dirty) {
            L->st.writebacks++;
            range(r, k + 1, ob, ol, 1);
        }
    }
    if (write && !L->c.write_back)
        mask |= range(r, k + 1, lo, hi, 1);
    return mask;
}

static unsigned range(ref_sim *r, size_t k, uint64_t first, uint64_t last, int write)
{
    if (k == r->n)
        return 0;
    level *L = &r->lv[k];
    unsigned mask = 0;
    for (uint64_t line = first / L->line_bytes; line <= last / L->line_bytes; line++) {
        uint64_t lo = line * L->line_bytes, hi = lo + L->line_bytes - 1;
        mask |= line_access(r, k, line, lo < first ? first : lo, hi > last ? last : hi, write);
    }
    return mask;
}

unsigned ref_access(ref_sim *r, uint64_t addr, unsigned size, int write)
{
    return range(r, 0, addr, addr + size - 1, write);
}
