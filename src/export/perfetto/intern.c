/* Interning: one table per kind of string for the whole file, and per
 * sequence the set of ids it has defined since its state was cleared.
 * Sets are bounded (TK_PERFETTO_SEQ_INTERN_MAX per sequence,
 * TK_PERFETTO_INTERN_BUDGET for all): past a bound the sequence, or all,
 * start over, so memory does not grow with the number of threads. */
#include <stdlib.h>

#include "export/perfetto/perfetto_int.h"

uint64_t tk_pf_intern(tk_perfetto *p, int kind, const char *s, size_t n, tk_error *err)
{
    tk_map *m = &p->strings[kind];
    unsigned char *v = tk_map_str(m, s, n);
    if (!v) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return 0;
    }
    return (uint64_t)((v - m->values) / m->value_size) + 1;
}

const char *tk_pf_interned(const tk_perfetto *p, int kind, uint64_t iid, size_t *n)
{
    const tk_map *m = &p->strings[kind];
    *n = m->skey_len[iid - 1];
    return m->skeys[iid - 1];
}

/* Insert `key` (not there) into a table with a free slot. */
static void set_put(uint64_t *slots, uint32_t mask, uint64_t key)
{
    tk_pf_idset t = {.mask = mask};
    uint32_t j = tk_pf_slot(&t, key);
    while (slots[j])
        j = (j + 1) & mask;
    slots[j] = key;
}

/* A table twice as big (the first: 8 slots, the inline keys moved in). */
static int set_grow(tk_pf_idset *s)
{
    uint32_t nslots = s->slots ? (s->mask + 1) * 2 : 8;
    uint64_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return -1;
    if (!s->slots)
        for (uint32_t i = 0; i < s->n; i++)
            set_put(slots, nslots - 1, s->inl[i]);
    for (uint32_t i = 0; s->slots && i <= s->mask; i++)
        if (s->slots[i])
            set_put(slots, nslots - 1, s->slots[i]);
    free(s->slots);
    s->slots = slots;
    s->mask = nslots - 1;
    return 0;
}

int tk_pf_use(tk_perfetto_seq *seq, int kind, uint64_t iid)
{
    tk_pf_idset *s = &seq->used;
    uint64_t key = tk_pf_key(kind, iid);
    if (tk_pf_used(seq, kind, iid))
        return 0;
    if (!s->slots && s->n < TK_PF_INLINE) {
        s->inl[s->n++] = key;
    } else {
        if ((!s->slots || (uint64_t)(s->n + 1) * 4 > (uint64_t)(s->mask + 1) * 3) &&
            set_grow(s) != 0)
            return -1;
        set_put(s->slots, s->mask, key);
        s->n++;
    }
    seq->p->used_total++;
    return 1;
}

void tk_pf_forget(tk_perfetto_seq *seq)
{
    tk_perfetto *p = seq->p;
    p->used_total -= p->used_total >= seq->used.n ? seq->used.n : p->used_total;
    free(seq->used.slots);
    seq->used = (tk_pf_idset){0};
}
