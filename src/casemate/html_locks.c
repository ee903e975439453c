/* casemate's HTML report: the locks a violation involves -- the lock of
 * each related entry's tree (set_root_lock), the lock a lock operation
 * names, and every lock held at the verdict -- with their holders and the
 * trees they guard. The checker's lock tables are read as its own printer
 * of the state (--print-state) reads them. */
#include <stdlib.h>

#include "casemate/check/check_int.h"
#include "casemate/html_int.h"

/* Rows shown, roots named per lock. */
enum { MAX_LOCKS = 64, MAX_ROOTS = 4 };

static int by_addr(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void add(uint64_t *locks, size_t *n, uint64_t addr)
{
    for (size_t i = 0; i < *n; i++)
        if (locks[i] == addr)
            return;
    if (*n < MAX_LOCKS)
        locks[(*n)++] = addr;
}

/* The roots whose lock is `addr`, as text. */
static void guards(const tk_casemate_checker *c, uint64_t addr, tk_cmx_text *t)
{
    size_t shown = 0, all = 0;
    t->n = 0;
    t->s[0] = '\0';
    for (size_t i = 0; i < c->root_locks.cap; i++) {
        if (!c->root_locks.used[i] || c->root_locks.vals[i] != addr)
            continue;
        if (all++ < MAX_ROOTS) /* 4 short addresses fit */
            t->n += (size_t)snprintf(t->s + t->n, sizeof t->s - t->n, "%s0x%llx",
                                     shown++ ? ", " : "",
                                     (unsigned long long)c->root_locks.keys[i]);
    }
    if (all > shown)
        snprintf(t->s + t->n, sizeof t->s - t->n, " (%zu in all)", all);
}

static void row(tk_html *h, const tk_cmh *x, uint64_t addr)
{
    const tk_casemate_checker *c = x->k;
    const cm_lock *l = cm_lock_find(c, addr);
    const tk_cmh_lock *t = tk_map_find_u64(&x->locks, addr);
    tk_cmx_text g;
    guards(c, addr, &g);
    tk_html_table_row(h, (tk_html_value[6]){
        tk_html_u64(addr), l ? tk_html_u64(l->holder) : tk_html_null(),
        l ? tk_html_u64(l->count) : tk_html_null(),
        l && t && t->depth ? tk_html_u64(t->id) : tk_html_null(),
        g.n ? tk_html_str(g.s) : tk_html_null(),
        !l ? tk_html_str("not held")
           : tk_html_str(cm_lock_authorised(c, l) ? "yes" : "used: a DSB by the holder first")});
}

/* The locks held, lowest addresses first while rows are left (in record
 * order when there is no memory to sort them). */
static void add_held(const tk_casemate_checker *c, uint64_t *locks, size_t *n)
{
    uint64_t *held = malloc((c->locks.n ? c->locks.n : 1) * sizeof *held);
    size_t nh = 0;
    for (size_t i = 0; i < c->locks.top; i++) {
        const cm_lock *l = cm_lock_nth(c, i);
        if (!l->count)
            continue;
        if (held)
            held[nh++] = l->addr;
        else
            add(locks, n, l->addr);
    }
    if (!held)
        return;
    qsort(held, nh, sizeof *held, by_addr);
    for (size_t i = 0; i < nh && *n < MAX_LOCKS; i++)
        add(locks, n, held[i]);
    free(held);
}

void tk_cmh_locks(tk_html *h, tk_cmh *x)
{
    const tk_casemate_checker *c = x->k;
    const tk_casemate_violation *v = tk_casemate_check_violation(c);
    uint64_t locks[MAX_LOCKS];
    size_t n = 0;
    for (size_t i = 0; v && i < v->nentries; i++) {
        uint64_t *lock = v->entries[i].state != TK_CASEMATE_STATE_NONE
                             ? cm_map_find(&c->root_locks, v->entries[i].root) : NULL;
        if (lock)
            add(locks, &n, *lock);
    }
    tk_casemate_kind k = v && v->record ? v->record->kind : TK_CASEMATE_MEM_WRITE;
    if (k == TK_CASEMATE_LOCK || k == TK_CASEMATE_TRYLOCK || k == TK_CASEMATE_UNLOCK)
        add(locks, &n, v->record->address);
    size_t first_held = n;
    add_held(c, locks, &n);
    qsort(locks + first_held, n - first_held, sizeof *locks, by_addr);
    if (!n) {
        tk_html_para(h, "Locks: none is held, and no related entry's tree has one.");
        return;
    }
    static const tk_html_column cols[6] = {
        {.label = "lock", .unit = TK_HTML_HEX, .flags = TK_HTML_COL_MONO},
        {.label = "held by thread"},
        {.label = "times held", .help = "a holder's trylocks re-enter"},
        {.label = "taken at event id"},
        {.label = "guards roots", .flags = TK_HTML_COL_MONO},
        {.label = "may write plain", .help = "a holder's plain write uses the authorisation "
                                             "up until its next DSB"}};
    tk_html_table_spec spec = {.id = "locks", .cols = cols, .ncols = 6,
                               .caption = "Locks: the related entries' tree locks first, then "
                                          "every lock held at the violation"};
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < n; i++)
        row(h, x, locks[i]);
    tk_html_table_end(h);
}
