/* Reuse distances (LRU stack distances) by Olken's method: every line has
 * a mark at the time of its last access in a Fenwick tree over time, so
 * the distinct lines touched since a line's previous access are the marks
 * after it, counted in O(log n). When time runs out of slots, the live
 * marks are renumbered 0..n-1 in order (compaction), so memory follows the
 * number of distinct lines, not the length of the trace. */
#include <stdlib.h>
#include <string.h>

#include "cacheray/sim/sim_int.h"
#include "core/fenwick.h"
#include "core/hugemem.h"

#define NO_LINE UINT64_MAX

struct cs_reuse {
    tk_linemap when;         /* line -> time of its last access */
    uint64_t *owner;         /* time -> line, NO_LINE when moved on */
    uint32_t *fen;           /* Fenwick tree over time, 1-based */
    uint32_t cap, now;
    uint64_t last;           /* +1: the line accessed last */
    tk_cachesim_reuse h;
};

void cs_reuse_reset_counts(cs_reuse *r) { memset(&r->h, 0, sizeof r->h); }


static void free_tables(cs_reuse *r)
{
    tk_table_free(r->owner, r->cap, sizeof *r->owner);
    tk_table_free(r->fen, (size_t)r->cap + 1, sizeof *r->fen);
}

/* Renumber the live marks 0..n-1 into tables of `cap` slots. */
static int compact(cs_reuse *r, uint32_t cap)
{
    uint64_t *owner = tk_table_calloc(cap, sizeof *owner);
    uint32_t *fen = tk_table_calloc((size_t)cap + 1, sizeof *fen);
    if (!owner || !fen) {
        tk_table_free(owner, cap, sizeof *owner);
        tk_table_free(fen, (size_t)cap + 1, sizeof *fen);
        return -1;
    }
    uint32_t k = 0;
    for (uint32_t t = 0; t < r->now; t++)
        if (r->owner[t] != NO_LINE) {
            owner[k] = r->owner[t];
            *tk_linemap_find(&r->when, owner[k]) = k;
            k++;
        }
    for (uint32_t i = k; i < cap; i++)
        owner[i] = NO_LINE;
    /* all ones below k: build in O(cap) */
    for (uint32_t i = 1; i <= cap; i++) {
        fen[i] += i <= k;
        uint32_t up = i + (i & -i);
        if (up <= cap)
            fen[up] += fen[i];
    }
    free_tables(r);
    r->owner = owner;
    r->fen = fen;
    r->cap = cap;
    r->now = k;
    return 0;
}

cs_reuse *cs_reuse_new(void)
{
    cs_reuse *r = calloc(1, sizeof *r);
    if (!r || tk_linemap_init(&r->when, 1024) != 0 || compact(r, 1024) != 0) {
        cs_reuse_free(r);
        return NULL;
    }
    return r;
}

void cs_reuse_free(cs_reuse *r)
{
    if (!r)
        return;
    tk_linemap_free(&r->when);
    free_tables(r);
    free(r);
}

static unsigned bucket_of(uint64_t d)
{
    return d ? 64 - (unsigned)__builtin_clzll(d) : 0;
}

int cs_reuse_access(cs_reuse *r, uint64_t line)
{
    if (line + 1 == r->last) { /* nothing in between: distance 0 */
        r->h.bucket[0]++;
        return 0;
    }
    r->last = line + 1;
    if (r->now == r->cap) {
        uint64_t want = 2 * (uint64_t)r->when.n + 1024;
        if (want > UINT32_MAX - 1 || compact(r, (uint32_t)want) != 0)
            return -1;
    }
    int added;
    uint32_t *t = tk_linemap_upsert(&r->when, line, r->now, &added);
    if (!t)
        return -1;
    if (added) {
        r->h.cold++;
    } else {
        uint32_t d = tk_fenwick_prefix(r->fen, r->now - 1) - tk_fenwick_prefix(r->fen, *t);
        r->h.bucket[bucket_of(d)]++;
        tk_fenwick_add(r->fen, r->cap, *t, (uint32_t)-1);
        r->owner[*t] = NO_LINE;
        *t = r->now;
    }
    tk_fenwick_add(r->fen, r->cap, r->now, 1);
    r->owner[r->now++] = line;
    return 0;
}

void cs_reuse_get(const cs_reuse *r, tk_cachesim_reuse *out)
{
    *out = r->h;
    out->nbuckets = 0;
    for (size_t k = 0; k < TK_CACHESIM_REUSE_BUCKETS; k++)
        if (out->bucket[k])
            out->nbuckets = k + 1;
}
