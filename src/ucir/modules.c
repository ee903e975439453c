/* drcov's modules (modules.h): the first module holding an address, with
 * the union of the modules to find, in amortized O(1) steps, the parts a
 * new module is the first to hold. */
#include <stdlib.h>
#include <string.h>

#include "ucir/modules.h"

void tk_ucir_modules_free(tk_ucir_modules *m)
{
    tk_ucir_atree_free(&m->own);
    tk_ucir_atree_free(&m->cover);
    free(m->owned);
    free(m->cover_last);
    memset(m, 0, sizeof *m);
}

int64_t tk_ucir_modules_find(tk_ucir_modules *m, uint64_t addr)
{
    uint32_t k = tk_ucir_atree_floor(&m->own, addr);
    return k && m->owned[k].last >= addr ? (int64_t)m->owned[k].mod : -1;
}

/* [lo, last] goes to mod. */
static int own(tk_ucir_modules *m, uint64_t lo, uint64_t last, uint32_t mod)
{
    void *e = m->owned;
    int rc = tk_ucir_atree_reserve(&m->own, &e, sizeof *m->owned);
    m->owned = e;
    if (rc != 0)
        return -1;
    m->owned[tk_ucir_atree_insert(&m->own, lo)] = (tk_ucir_owned){last, mod};
    return 0;
}

int tk_ucir_modules_add(tk_ucir_modules *m, uint64_t lo, uint64_t last, uint32_t mod)
{
    /* room first for the union interval replacing those merged below */
    void *e = m->cover_last;
    int rc = tk_ucir_atree_reserve(&m->cover, &e, sizeof *m->cover_last);
    m->cover_last = e;
    if (rc != 0)
        return -1;
    tk_ucir_atree *c = &m->cover;
    uint32_t k = tk_ucir_atree_floor(c, lo);
    if (!k || m->cover_last[k] < lo)
        k = k ? tk_ucir_atree_next(c, k) : tk_ucir_atree_first(c);
    uint64_t at = lo, ulo = lo, ulast = last; /* at: the first address not owned yet */
    int done = 0;                             /* all of [lo, last] is owned */
    while (k && c->nodes[k].key <= last) {
        uint64_t klo = c->nodes[k].key, klast = m->cover_last[k];
        m->visits++;
        if (klo > at && own(m, at, klo - 1, mod) != 0)
            return -1;
        if (klo < ulo)
            ulo = klo;
        if (klast >= last) { /* the last one it overlaps */
            ulast = klast;
            done = 1;
        } else {
            at = klast + 1;
        }
        uint32_t next = tk_ucir_atree_next(c, k);
        tk_ucir_atree_erase(c, k);
        k = next;
    }
    if (!done && own(m, at, last, mod) != 0)
        return -1;
    m->cover_last[tk_ucir_atree_insert(c, ulo)] = ulast;
    return 0;
}
