/* The checker's held locks: a log may hold a million at once, so a lock
 * is a 40-byte record in chunks (records of released locks are reused)
 * found through an open-addressing index of 32-bit record numbers, with
 * backward-shift deletion so no tombstones build up. */
#include <stdlib.h>
#include <string.h>

#include "casemate/check/check_int.h"
#include "core/hashmap.h"

static cm_lock *rec(const cm_locks *ls, size_t k)
{
    return tk_chunks_at(&ls->recs, k, sizeof(cm_lock));
}

const cm_lock *cm_lock_nth(const tk_casemate_checker *c, size_t k)
{
    return rec(&c->locks, k);
}

static size_t home(const cm_locks *ls, uint64_t addr)
{
    return (size_t)tk_hash_u64(addr) & (ls->nslot - 1);
}

/* Index slot holding `addr`, or the empty one ending its probe run. */
static size_t probe(const cm_locks *ls, uint64_t addr)
{
    size_t i = home(ls, addr);
    while (ls->slot[i] && rec(ls, ls->slot[i] - 1)->addr != addr)
        i = (i + 1) & (ls->nslot - 1);
    return i;
}

cm_lock *cm_lock_find(const tk_casemate_checker *c, uint64_t addr)
{
    const cm_locks *ls = &c->locks;
    if (!ls->n)
        return NULL;
    size_t i = probe(ls, addr);
    return ls->slot[i] ? rec(ls, ls->slot[i] - 1) : NULL;
}

/* Room for one more held lock: a record and an index at most 3/4 full. */
static int room(cm_locks *ls)
{
    if (!ls->free && (ls->top >= UINT32_MAX - 1 ||
                      tk_chunks_reserve(&ls->recs, ls->top, sizeof(cm_lock)) != 0))
        return -1;
    if ((ls->n + 1) * 4 <= ls->nslot * 3)
        return 0;
    size_t nslot = ls->nslot ? 2 * ls->nslot : 64;
    uint32_t *slot = calloc(nslot, sizeof *slot), *old = ls->slot;
    if (!slot)
        return -1;
    size_t nold = ls->nslot;
    ls->slot = slot;
    ls->nslot = nslot;
    for (size_t j = 0; j < nold; j++)
        if (old[j])
            slot[probe(ls, rec(ls, old[j] - 1)->addr)] = old[j];
    free(old);
    return 0;
}

/* A new held lock at `addr` (not held): its record, NULL: no memory. */
cm_lock *cm_lock_add(tk_casemate_checker *c, uint64_t addr)
{
    cm_locks *ls = &c->locks;
    if (room(ls) != 0)
        return NULL;
    size_t k;
    if (ls->free) {
        k = ls->free - 1;
        ls->free = rec(ls, k)->holder;
    } else {
        k = ls->top++;
    }
    cm_lock *l = rec(ls, k);
    *l = (cm_lock){.addr = addr};
    ls->slot[probe(ls, addr)] = (uint32_t)(k + 1);
    ls->n++;
    return l;
}

/* `l` is released: out of the index, its record free. */
void cm_lock_del(tk_casemate_checker *c, cm_lock *l)
{
    cm_locks *ls = &c->locks;
    size_t hole = probe(ls, l->addr), k = ls->slot[hole] - 1;
    /* shift later members of the probe run back into the hole */
    for (size_t j = (hole + 1) & (ls->nslot - 1); ls->slot[j]; j = (j + 1) & (ls->nslot - 1)) {
        size_t h = home(ls, rec(ls, ls->slot[j] - 1)->addr);
        int stays = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j);
        if (stays)
            continue;
        ls->slot[hole] = ls->slot[j];
        hole = j;
    }
    ls->slot[hole] = 0;
    ls->n--;
    *l = (cm_lock){.holder = ls->free}; /* count 0: free */
    ls->free = k + 1;
}

void cm_lockset_free(tk_casemate_checker *c)
{
    cm_locks *ls = &c->locks;
    tk_chunks_free(&ls->recs);
    free(ls->slot);
    memset(ls, 0, sizeof *ls);
}
