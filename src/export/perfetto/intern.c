/* Interning: one table per kind of string for the whole file, and per
 * sequence the set of ids it has defined since its state was cleared.
 * Sets are bounded (TK_PERFETTO_SEQ_INTERN_MAX per sequence,
 * TK_PERFETTO_INTERN_BUDGET for all): past a bound the sequence, or all,
 * start over, so memory does not grow with the number of threads. */
#include <stdlib.h>
#include <string.h>

#include "export/perfetto/perfetto_int.h"

static uint64_t oom(tk_error *err)
{
    tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return 0;
}

void tk_pf_table_free(tk_pf_table *t)
{
    free(t->bytes);
    free(t->off);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static const char *str_of(const tk_pf_table *t, size_t i, size_t *n)
{
    uint64_t at = t->off[i] & ~TK_PF_UNHASHED;
    *n = (size_t)((t->off[i + 1] & ~TK_PF_UNHASHED) - at) - 1; /* less the NUL */
    return t->bytes + at;
}

/* Append string i = t->n; -1 when out of memory (nothing added). */
static int append(tk_pf_table *t, const char *s, size_t n, int hashed)
{
    if (t->n + 2 > t->off_cap) {
        size_t cap = t->off_cap ? t->off_cap * 2 : 64;
        uint64_t *o = realloc(t->off, cap * sizeof *o);
        if (!o)
            return -1;
        t->off = o;
        t->off_cap = cap;
    }
    if (n >= SIZE_MAX / 2 - t->len)
        return -1;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *b = realloc(t->bytes, cap);
        if (!b)
            return -1;
        t->bytes = b;
        t->cap = cap;
    }
    if (t->n == 0)
        t->off[0] = 0;
    if (n)
        memcpy(t->bytes + t->len, s, n);
    t->bytes[t->len + n] = '\0';
    t->len += n + 1;
    if (!hashed)
        t->off[t->n] |= TK_PF_UNHASHED;
    t->off[++t->n] = t->len;
    return 0;
}

/* A twice bigger index (the first: 64 slots) over the hashed strings. */
static int rehash(tk_pf_table *t)
{
    size_t nslots = t->nslots ? t->nslots * 2 : 64;
    uint64_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        if (t->off[i] & TK_PF_UNHASHED)
            continue;
        size_t n;
        const char *s = str_of(t, i, &n);
        uint64_t h = tk_hash_bytes(s, n);
        size_t j = h & (nslots - 1);
        while (slots[j])
            j = (j + 1) & (nslots - 1);
        slots[j] = (h & 0xffffffff00000000u) | (i + 1);
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    return 0;
}

uint64_t tk_pf_intern(tk_perfetto *p, int kind, const char *s, size_t n, tk_error *err)
{
    tk_pf_table *t = &p->strings[kind];
    if (!s)
        s = "";
    if ((t->hashed + 1) * 4 > t->nslots * 3 && rehash(t) != 0)
        return oom(err);
    uint64_t h = tk_hash_bytes(s, n);
    size_t j = h & (t->nslots - 1);
    for (uint64_t e; (e = t->slots[j]) != 0; j = (j + 1) & (t->nslots - 1)) {
        if ((e ^ h) >> 32)
            continue;
        size_t len, i = (uint32_t)e - 1;
        const char *have = str_of(t, i, &len);
        if (len == n && memcmp(have, s, n) == 0)
            return i + 1;
    }
    if (t->n >= UINT32_MAX - 1 || append(t, s, n, 1) != 0) /* a slot holds 32 bits */
        return oom(err);
    t->slots[j] = (h & 0xffffffff00000000u) | t->n;
    t->hashed++;
    return t->n;
}

uint64_t tk_pf_intern_new(tk_perfetto *p, int kind, const char *s, size_t n, tk_error *err)
{
    tk_pf_table *t = &p->strings[kind];
    if (!s)
        s = "";
    if (t->n >= UINT32_MAX - 1 || append(t, s, n, 0) != 0)
        return oom(err);
    return t->n;
}

const char *tk_pf_interned(const tk_perfetto *p, int kind, uint64_t iid, size_t *n)
{
    return str_of(&p->strings[kind], iid - 1, n);
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
