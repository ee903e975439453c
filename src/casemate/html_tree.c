/* casemate's HTML report: the page-table trees at the verdict, as bbm
 * --dot draws them (check/dot.c: the same roots, tables and entries, in
 * the same words), as a collapsible tree: a root holds its start tables, a
 * table its entries (the clean zero ones counted), an entry pointing to a
 * table that table (an invalid-unclean one its old, frozen, subtree). The
 * tables on the way to an entry related to the violation are open, the
 * rest collapsed; without a violation the start tables are open. The
 * checker's roots and entries are read as dot.c reads them. */
#include <stdlib.h>
#include <string.h>

#include "casemate/check/check_int.h"
#include "casemate/html_int.h"

#define X(v) ((unsigned long long)(v))

/* Nodes for the tables away from the violation, shared by the roots: past
 * a root's share its tables are only named. */
#define QUIET_NODES 1500
#define MIN_SHARE 16

enum { COLD = 1, HOT = 2 };

typedef struct walk {
    tk_html *h;
    const tk_casemate_checker *c;
    const tk_casemate_violation *v;
    cm_map hot;      /* table -> HOT (holds or leads to a related entry) or COLD */
    cm_map seen;     /* tables shown */
    size_t nodes, quiet_at, share;
    int oom;
} walk;

static int related(const walk *w, uint64_t addr)
{
    for (size_t i = 0; w->v && i < w->v->nentries; i++)
        if (w->v->entries[i].address == addr)
            return 1;
    return 0;
}

/* The table an entry points to (its old descriptor while invalid-unclean),
 * or 0: dot.c's edges. */
static uint64_t child_of(const tk_casemate_entry *e, unsigned level)
{
    uint64_t desc = e->state == TK_CASEMATE_STATE_INVALID_UNCLEAN ? e->old : e->value;
    if (e->state == TK_CASEMATE_STATE_INVALID_CLEAN || e->state == TK_CASEMATE_STATE_NONE ||
        level >= 3 || cm_desc_kind(desc, level) != CM_DESC_TABLE)
        return 0;
    return CM_TABLE_ADDR(desc);
}

/* Whether the table at `base` holds or leads to a related entry (memoised). */
static int is_hot(walk *w, uint64_t base, unsigned n, unsigned level)
{
    uint64_t *m = cm_map_find(&w->hot, base);
    if (m)
        return *m == HOT;
    if (cm_map_put(&w->hot, base, COLD) != 0) { /* COLD while walking: no loop */
        w->oom = 1;
        return 0;
    }
    int hot = 0;
    for (unsigned i = 0; w->v && i < n; i++) {
        uint64_t addr = base + 8 * (uint64_t)i, child;
        tk_casemate_entry e;
        cm_entry_get(w->c, addr, &e);
        child = child_of(&e, level);
        if (related(w, addr) || (child && is_hot(w, child, CM_SLOTS, level + 1)))
            hot = 1;
    }
    if (hot && cm_map_put(&w->hot, base, HOT) != 0)
        w->oom = 1;
    return hot;
}

/* An entry's words in dot.c's table cell. */
static void entry_label(char *s, size_t size, unsigned i, const tk_casemate_entry *e)
{
    int n = snprintf(s, size, "[%u] 0x%llx %s", i, X(e->value), tk_casemate_state_name(e->state));
    if (e->state == TK_CASEMATE_STATE_INVALID_UNCLEAN)
        n += snprintf(s + n, size - (size_t)n, " %s tid %llu old 0x%llx",
                      tk_casemate_lis_name(e->lis), X(e->invalidator), X(e->old));
    if (e->frozen)
        n += snprintf(s + n, size - (size_t)n, " frozen");
    if (e->thread_owned)
        snprintf(s + n, size - (size_t)n, " owner tid %llu", X(e->thread_owner));
}

static void table(walk *w, uint64_t base, unsigned n, unsigned level, unsigned stage, int open);

/* A leaf counting entries not listed. */
static void more(walk *w, unsigned n, const char *fmt)
{
    char text[64];
    if (!n)
        return;
    snprintf(text, sizeof text, fmt, n);
    tk_html_tree_leaf(w->h, text, NULL, 0);
}

static const tk_html_field mark = {"\xE2\x9A\xA0", NULL, TK_HTML_PLAIN, 0,
                                   {.kind = TK_HTML_STR, .s = "related to the violation",
                                    .len = SIZE_MAX}};

static void entry(walk *w, uint64_t base, unsigned i, unsigned level, unsigned stage)
{
    tk_casemate_entry e;
    uint64_t addr = base + 8 * (uint64_t)i, child;
    cm_entry_get(w->c, addr, &e);
    char label[160];
    entry_label(label, sizeof label, i, &e);
    int rel = related(w, addr);
    w->nodes++;
    if (!(child = child_of(&e, level))) {
        tk_html_tree_leaf(w->h, label, &mark, rel);
        return;
    }
    int hot = is_hot(w, child, CM_SLOTS, level + 1);
    if (tk_html_tree_node_begin(w->h, label, &mark, rel, hot))
        table(w, child, CM_SLOTS, level + 1, stage, 1);
    tk_html_tree_node_end(w->h);
}

/* A table's node: its entries that matter (dot.c's rows). `open`: shown
 * open (under an entry, whose node opens and closes it). */
static void table(walk *w, uint64_t base, unsigned n, unsigned level, unsigned stage, int open)
{
    char label[96];
    snprintf(label, sizeof label, "0x%llx S%u L%u", X(base), stage, level);
    if (cm_map_find(&w->seen, base)) { /* drawn before: dot.c's second edge */
        snprintf(label + strlen(label), sizeof label - strlen(label), " (shown above)");
        tk_html_tree_leaf(w->h, label, NULL, 0);
        return;
    }
    if (cm_map_put(&w->seen, base, 1) != 0) {
        w->oom = 1;
        return;
    }
    int hot = is_hot(w, base, n, level);
    w->nodes++;
    if (!hot && w->nodes > w->quiet_at) {
        snprintf(label + strlen(label), sizeof label - strlen(label),
                 " (not shown: the tree is long)");
        tk_html_tree_leaf(w->h, label, NULL, 0);
        return;
    }
    if (tk_html_tree_node_begin(w->h, label, NULL, 0, open || hot)) {
        unsigned hidden = 0, cut = 0;
        for (unsigned i = 0; i < n; i++) {
            tk_casemate_entry e;
            uint64_t addr = base + 8 * (uint64_t)i;
            cm_entry_get(w->c, addr, &e);
            if (e.state == TK_CASEMATE_STATE_INVALID_CLEAN && !e.value && !related(w, addr))
                hidden++;
            else if (!hot && w->nodes > w->quiet_at)
                cut++; /* the root's share is used up */
            else
                entry(w, base, i, level, stage);
        }
        more(w, hidden, "%u more invalid zero entries");
        more(w, cut, "%u more entries (not shown: the tree is long)");
    }
    tk_html_tree_node_end(w->h);
}

static void root(walk *w, const cm_root *r)
{
    uint64_t *lock = cm_map_find(&w->c->root_locks, r->base);
    char label[160];
    int n = snprintf(label, sizeof label, "S%u root 0x%llx %s %llu, refs %llu", r->stage,
                     X(r->base), r->stage == 2 ? "VMID" : "ASID", X(r->id), X(r->refcount));
    if (lock)
        snprintf(label + n, sizeof label - (size_t)n, ", lock 0x%llx", X(*lock));
    w->nodes++;
    w->quiet_at = w->nodes + w->share;
    /* no violation: the start tables open; else the way to it */
    int open = !w->v;
    if (tk_html_tree_node_begin(w->h, label, NULL, 0, 1))
        for (unsigned t = 0; t < r->ntables; t++)
            table(w, r->base + t * CM_PAGE, r->nentries, r->level, r->stage, open);
    tk_html_tree_node_end(w->h);
}

void tk_cmh_tree(tk_html *h, tk_cmh *x)
{
    walk w = {.h = h, .c = x->k, .v = tk_casemate_check_violation(x->k)};
    size_t n;
    cm_root **roots = cm_roots_sorted(x->k, &n);
    if (!roots) {
        tk_html_para(h, "The page tables could not be listed (out of memory).");
        return;
    }
    tk_html_paraf(h, "The page tables %s, as bbm --dot draws them: each root, its tables and "
                     "their entries (value, state; invalid-unclean ones with how far their "
                     "cleaning got and their old descriptor). Click a node to open or close "
                     "it.%s",
                  w.v ? "at the violation" : x->verdict < 0 ? "where the model gave up"
                                                            : "at the end of the log",
                  w.v ? " The way to the entries related to the violation is open." : "");
    if (!n) {
        tk_html_para(h, "No page table was in use (no VTTBR_EL2 or TTBR0_EL2 pointed at one).");
    } else {
        w.share = QUIET_NODES / n > MIN_SHARE ? QUIET_NODES / n : MIN_SHARE;
        tk_html_tree_begin(h, "pagetable-tree", NULL, NULL);
        for (size_t i = 0; i < n; i++)
            root(&w, roots[i]);
        tk_html_tree_end(h);
    }
    if (w.oom)
        tk_html_para(h, "Part of the tree is missing (out of memory).");
    free(roots);
    cm_map_free(&w.hot);
    cm_map_free(&w.seen);
}
