/* The ordered set of address ranges (addr_tree.h): an AVL tree with
 * parent links, rebalanced from the changed node up and only until a
 * subtree's height stays the same (O(1) amortized per insert), so a node
 * placed next to a known neighbour costs no search. Depth is at most
 * 1.44 log2 of the size. An erased node with two children is replaced by
 * relinking its successor, not by copying it, so ids stay stable. */
#include <stdlib.h>
#include <string.h>

#include "ucir/addr_tree.h"

void tk_ucir_atree_free(tk_ucir_atree *t)
{
    free(t->nodes);
    memset(t, 0, sizeof *t);
}

int tk_ucir_atree_reserve(tk_ucir_atree *t, void **elems, size_t esz)
{
    if (t->free || t->used + 1 < t->cap)
        return 0;
    if (t->cap >= UINT32_MAX / 2)
        return -1;
    uint32_t cap = t->cap ? 2 * t->cap : 16;
    tk_ucir_anode *n = realloc(t->nodes, (size_t)cap * sizeof *n);
    if (!n)
        return -1;
    t->nodes = n;
    void *e = realloc(*elems, (size_t)cap * esz);
    if (!e)
        return -1; /* the pool stays grown: harmless, the next call retries */
    *elems = e;
    t->cap = cap;
    return 0;
}

static int32_t height(const tk_ucir_atree *t, uint32_t n) { return n ? t->nodes[n].height : 0; }

static void fix_height(tk_ucir_atree *t, uint32_t n)
{
    int32_t l = height(t, t->nodes[n].left), r = height(t, t->nodes[n].right);
    t->nodes[n].height = 1 + (l > r ? l : r);
}

/* Child `old` of p (p 0: the root) becomes c. */
static void replace_child(tk_ucir_atree *t, uint32_t p, uint32_t old, uint32_t c)
{
    if (!p)
        t->root = c;
    else if (t->nodes[p].left == old)
        t->nodes[p].left = c;
    else
        t->nodes[p].right = c;
    if (c)
        t->nodes[c].parent = p;
}

/* n's left child takes its place; the subtree's new root. */
static uint32_t rotate_right(tk_ucir_atree *t, uint32_t n)
{
    tk_ucir_anode *a = t->nodes;
    uint32_t l = a[n].left, lr = a[l].right;
    replace_child(t, a[n].parent, n, l);
    a[n].left = lr;
    if (lr)
        a[lr].parent = n;
    a[l].right = n;
    a[n].parent = l;
    fix_height(t, n);
    fix_height(t, l);
    return l;
}

static uint32_t rotate_left(tk_ucir_atree *t, uint32_t n)
{
    tk_ucir_anode *a = t->nodes;
    uint32_t r = a[n].right, rl = a[r].left;
    replace_child(t, a[n].parent, n, r);
    a[n].right = rl;
    if (rl)
        a[rl].parent = n;
    a[r].left = n;
    a[n].parent = r;
    fix_height(t, n);
    fix_height(t, r);
    return r;
}

/* Subtree n, whose children are balanced and differ in height by 2 at
 * most: its height fixed and its balance restored in place; its root. */
static uint32_t balance(tk_ucir_atree *t, uint32_t n)
{
    tk_ucir_anode *a = t->nodes;
    uint32_t l = a[n].left, r = a[n].right;
    int32_t d = height(t, l) - height(t, r);
    if (d > 1) {
        if (height(t, a[l].left) < height(t, a[l].right))
            rotate_left(t, l);
        return rotate_right(t, n);
    }
    if (d < -1) {
        if (height(t, a[r].right) < height(t, a[r].left))
            rotate_right(t, r);
        return rotate_left(t, n);
    }
    fix_height(t, n);
    return n;
}

/* From n (whose subtree changed) up: rebalance each subtree until one
 * keeps its height, above which nothing changed. */
static void retrace(tk_ucir_atree *t, uint32_t n)
{
    while (n) {
        int32_t was = t->nodes[n].height;
        uint32_t up = t->nodes[n].parent;
        n = balance(t, n);
        if (t->nodes[n].height == was)
            return;
        n = up;
    }
}

/* The node with the greatest key <= key, 0: none. No search past either
 * end or at the hint or a neighbour of it: maps made upwards, downwards
 * or each beside the one before, and lookups walking through them. */
static uint32_t find_floor(const tk_ucir_atree *t, uint64_t key)
{
    const tk_ucir_anode *a = t->nodes;
    if (!t->root || key < a[t->first].key)
        return 0;
    if (key >= a[t->last].key)
        return t->last;
    uint32_t h = t->hint, best = 0;
    if (h && a[h].key <= key) { /* the hint or its successor */
        uint32_t n = a[h].next; /* not 0: h is not the last */
        if (key < a[n].key)
            return h;
        if (key < a[a[n].next].key) /* n is not the last either */
            return n;
    } else if (h && a[a[h].prev].key <= key) { /* its predecessor: h is not the first */
        return a[h].prev;
    }
    for (uint32_t n = t->root; n;) {
        if (a[n].key <= key) {
            best = n;
            n = a[n].right;
        } else {
            n = a[n].left;
        }
    }
    return best;
}

uint32_t tk_ucir_atree_floor(tk_ucir_atree *t, uint64_t key)
{
    uint32_t k = find_floor(t, key);
    if (k)
        t->hint = k;
    return k;
}

uint32_t tk_ucir_atree_insert(tk_ucir_atree *t, uint64_t key)
{
    uint32_t p = find_floor(t, key); /* below key: no node has it */
    uint32_t id = t->free;
    if (id)
        t->free = t->nodes[id].next;
    else
        id = ++t->used;
    tk_ucir_anode *a = t->nodes;
    uint32_t next = p ? a[p].next : t->first, at = 0;
    a[id] = (tk_ucir_anode){.key = key, .prev = p, .next = next, .height = 1};
    /* a leaf right of p, or else left of p's successor (the leftmost of
     * p's right subtree, or the first node: no left child either way) */
    if (!t->root)
        t->root = id;
    else if (p && !a[p].right)
        a[at = p].right = id;
    else
        a[at = next].left = id;
    a[id].parent = at;
    if (p)
        a[p].next = id;
    else
        t->first = id;
    if (next)
        a[next].prev = id;
    else
        t->last = id;
    t->hint = id;
    t->n++;
    retrace(t, at);
    return id;
}

void tk_ucir_atree_erase(tk_ucir_atree *t, uint32_t id)
{
    tk_ucir_anode *a = t->nodes;
    uint32_t l = a[id].left, r = a[id].right, p = a[id].parent, from = p;
    uint32_t prev = a[id].prev, next = a[id].next;
    if (prev)
        a[prev].next = next;
    else
        t->first = next;
    if (next)
        a[next].prev = prev;
    else
        t->last = prev;
    if (t->hint == id)
        t->hint = prev;
    if (!l || !r) {
        replace_child(t, p, id, l ? l : r);
    } else { /* its successor, the leftmost of r (no left child), moves up */
        uint32_t s = next;
        from = s;
        if (a[s].parent != id) {
            from = a[s].parent;
            a[from].left = a[s].right;
            if (a[s].right)
                a[a[s].right].parent = from;
            a[s].right = r;
            a[r].parent = s;
        }
        a[s].left = l;
        a[l].parent = s;
        a[s].height = a[id].height;
        replace_child(t, p, id, s);
    }
    retrace(t, from);
    a[id].next = t->free;
    t->free = id;
    t->n--;
}
