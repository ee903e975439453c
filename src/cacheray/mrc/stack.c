/* LRU stack distances by Olken's method: each line has a mark at the time
 * of its last access in a Fenwick tree over time; the distinct lines
 * touched since a line's previous access are the marks after it. When
 * time runs out of slots the live marks are renumbered 0..n-1 in order,
 * so memory follows the lines held, not the trace's length. */
#include <stdlib.h>

#include "cacheray/mrc/mrc_int.h"
#include "core/fenwick.h"
#include "core/hugemem.h"


/* Renumber the live marks 0..n-1 into tables of `cap` slots. */
static int compact(mrc_stack *s, uint32_t cap)
{
    uint64_t *owner = tk_table_calloc(cap, sizeof *owner);
    uint32_t *fen = tk_table_calloc((size_t)cap + 1, sizeof *fen);
    if (!owner || !fen) {
        tk_table_free(owner, cap, sizeof *owner);
        tk_table_free(fen, (size_t)cap + 1, sizeof *fen);
        return -1;
    }
    uint32_t k = 0;
    for (uint32_t t = 0; t < s->now; t++)
        if (s->owner[t]) {
            owner[k] = s->owner[t];
            *mrc_map_find(&s->when, owner[k] - 1) = k;
            k++;
        }
    for (uint32_t i = 1; i <= cap; i++) { /* ones below k, built in O(cap) */
        fen[i] += i <= k;
        uint32_t up = i + (i & -i);
        if (up <= cap)
            fen[up] += fen[i];
    }
    tk_table_free(s->owner, s->cap, sizeof *s->owner);
    tk_table_free(s->fen, (size_t)s->cap + 1, sizeof *s->fen);
    s->owner = owner;
    s->fen = fen;
    s->cap = cap;
    s->now = k;
    return 0;
}

int mrc_stack_init(mrc_stack *s)
{
    *s = (mrc_stack){0};
    if (mrc_map_init(&s->when, 1024) != 0 || compact(s, 1024) != 0) {
        mrc_stack_free(s);
        return -1;
    }
    return 0;
}

void mrc_stack_free(mrc_stack *s)
{
    mrc_map_free(&s->when);
    tk_table_free(s->owner, s->cap, sizeof *s->owner);
    tk_table_free(s->fen, (size_t)s->cap + 1, sizeof *s->fen);
    s->owner = NULL;
    s->fen = NULL;
}

int mrc_stack_access(mrc_stack *s, uint64_t line, uint64_t *dist)
{
    if (line + 1 == s->last) { /* again, nothing in between: the order stays */
        *dist = 0;
        return 0;
    }
    s->last = line + 1;
    if (s->now == s->cap) {
        uint64_t want = 2 * (uint64_t)s->when.n + 1024;
        if (want > UINT32_MAX - 1 || compact(s, (uint32_t)want) != 0)
            return -1;
    }
    int added;
    uint32_t *t = mrc_map_upsert(&s->when, line, s->now, &added);
    if (!t)
        return -1;
    if (!added) {
        /* the marks after t: all marks but those up to t */
        *dist = (uint64_t)(s->when.n - tk_fenwick_prefix(s->fen, *t));
        tk_fenwick_add(s->fen, s->cap, *t, (uint32_t)-1);
        s->owner[*t] = 0;
        *t = s->now;
    }
    tk_fenwick_add(s->fen, s->cap, s->now, 1);
    s->owner[s->now++] = line + 1;
    return added;
}

void mrc_stack_remove(mrc_stack *s, uint64_t line)
{
    uint32_t *t = mrc_map_find(&s->when, line);
    if (line + 1 == s->last)
        s->last = 0;
    if (!t)
        return;
    tk_fenwick_add(s->fen, s->cap, *t, (uint32_t)-1);
    s->owner[*t] = 0;
    mrc_map_remove(&s->when, line);
}
