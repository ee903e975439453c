/* The ordered set of address ranges (addr_tree.h): AVL rebalancing by
 * subtree heights, recursion no deeper than 1.44 log2 of the size (under
 * 50 levels for 2^32 nodes). An erased node with two children is replaced
 * by relinking its successor, not by copying it, so ids stay stable. */
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

static uint32_t rotate_right(tk_ucir_atree *t, uint32_t n)
{
    uint32_t l = t->nodes[n].left;
    t->nodes[n].left = t->nodes[l].right;
    t->nodes[l].right = n;
    fix_height(t, n);
    fix_height(t, l);
    return l;
}

static uint32_t rotate_left(tk_ucir_atree *t, uint32_t n)
{
    uint32_t r = t->nodes[n].right;
    t->nodes[n].right = t->nodes[r].left;
    t->nodes[r].left = n;
    fix_height(t, n);
    fix_height(t, r);
    return r;
}

/* Subtree n with heights fixed and its children differing by 1 at most
 * (they differed by 2 at most); its new root. */
static uint32_t balance(tk_ucir_atree *t, uint32_t n)
{
    fix_height(t, n);
    uint32_t l = t->nodes[n].left, r = t->nodes[n].right;
    int32_t d = height(t, l) - height(t, r);
    if (d > 1) {
        if (height(t, t->nodes[l].left) < height(t, t->nodes[l].right))
            t->nodes[n].left = rotate_left(t, l);
        return rotate_right(t, n);
    }
    if (d < -1) {
        if (height(t, t->nodes[r].right) < height(t, t->nodes[r].left))
            t->nodes[n].right = rotate_right(t, r);
        return rotate_left(t, n);
    }
    return n;
}

/* Insert node id under n, noting its neighbours on the way down. */
static uint32_t insert_at(tk_ucir_atree *t, uint32_t n, uint32_t id, uint32_t *prev,
                          uint32_t *next)
{
    if (!n)
        return id;
    if (t->nodes[id].key < t->nodes[n].key) {
        *next = n;
        t->nodes[n].left = insert_at(t, t->nodes[n].left, id, prev, next);
    } else {
        *prev = n;
        t->nodes[n].right = insert_at(t, t->nodes[n].right, id, prev, next);
    }
    return balance(t, n);
}

uint32_t tk_ucir_atree_insert(tk_ucir_atree *t, uint64_t key)
{
    uint32_t id = t->free;
    if (id)
        t->free = t->nodes[id].next;
    else
        id = ++t->used;
    t->nodes[id] = (tk_ucir_anode){.key = key, .height = 1};
    uint32_t prev = 0, next = 0;
    t->root = insert_at(t, t->root, id, &prev, &next);
    t->nodes[id].prev = prev;
    t->nodes[id].next = next;
    if (prev)
        t->nodes[prev].next = id;
    else
        t->first = id;
    if (next)
        t->nodes[next].prev = id;
    t->n++;
    return id;
}

/* Unhook the leftmost node of subtree n into *min; the new subtree. */
static uint32_t remove_min(tk_ucir_atree *t, uint32_t n, uint32_t *min)
{
    if (!t->nodes[n].left) {
        *min = n;
        return t->nodes[n].right;
    }
    t->nodes[n].left = remove_min(t, t->nodes[n].left, min);
    return balance(t, n);
}

static uint32_t erase_at(tk_ucir_atree *t, uint32_t n, uint32_t id)
{
    if (n != id) {
        if (t->nodes[id].key < t->nodes[n].key)
            t->nodes[n].left = erase_at(t, t->nodes[n].left, id);
        else
            t->nodes[n].right = erase_at(t, t->nodes[n].right, id);
        return balance(t, n);
    }
    uint32_t l = t->nodes[n].left, r = t->nodes[n].right, m;
    if (!r)
        return l;
    r = remove_min(t, r, &m);
    t->nodes[m].left = l;
    t->nodes[m].right = r;
    return balance(t, m);
}

void tk_ucir_atree_erase(tk_ucir_atree *t, uint32_t id)
{
    t->root = erase_at(t, t->root, id);
    tk_ucir_anode *a = &t->nodes[id];
    if (a->prev)
        t->nodes[a->prev].next = a->next;
    else
        t->first = a->next;
    if (a->next)
        t->nodes[a->next].prev = a->prev;
    a->next = t->free;
    t->free = id;
    t->n--;
}

uint32_t tk_ucir_atree_floor(const tk_ucir_atree *t, uint64_t key)
{
    uint32_t n = t->root, best = 0;
    while (n) {
        if (t->nodes[n].key <= key) {
            best = n;
            n = t->nodes[n].right;
        } else {
            n = t->nodes[n].left;
        }
    }
    return best;
}
