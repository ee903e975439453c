/* An ordered set of disjoint address ranges keyed by their start: the
 * spans of ucir/regions.c and the replay's memory map. An AVL tree over a
 * pool of nodes, also linked in address order, so a lookup, insert or
 * erase costs O(log n) whatever the order of the addresses (a sorted
 * array shifted its tail on every insert: quadratic when maps come from
 * the top down), and a walk in order O(1) per element. The caller keeps
 * its elements in a parallel array indexed by node id (grown with the
 * pool by tk_ucir_atree_reserve). Ids stay valid until erased; 0 is none.
 * A zeroed struct is an empty tree. Nodes know their parent, so a key
 * next to the last one found or inserted (or past either end) is found
 * and placed without a search, and rebalancing stops where a height stays
 * the same: maps in ascending or descending order, or each next to the
 * one before, cost O(1) amortized. */
#ifndef TK_UCIR_ADDR_TREE_H
#define TK_UCIR_ADDR_TREE_H

#include <stddef.h>
#include <stdint.h>

typedef struct tk_ucir_anode {
    uint64_t key;
    uint32_t left, right, parent;
    uint32_t prev, next;  /* neighbours in key order; free nodes: next free */
    int32_t height;
} tk_ucir_anode;

typedef struct tk_ucir_atree {
    tk_ucir_anode *nodes; /* [0] unused */
    uint32_t root, first, last, free;
    uint32_t hint;        /* the node last found or inserted, 0: none */
    uint32_t n;           /* elements */
    uint32_t used, cap;   /* ids handed out (1..used), pool size */
} tk_ucir_atree;

void tk_ucir_atree_free(tk_ucir_atree *t);
/* Room for one insert: the pool and the caller's *elems (esz bytes per
 * id) grow together. 0, or -1 out of memory. */
int tk_ucir_atree_reserve(tk_ucir_atree *t, void **elems, size_t esz);
/* A new node at key (no node has it), the hint; needs a reserve before.
 * Its id. O(1) amortized where floor is O(1), else O(log n). */
uint32_t tk_ucir_atree_insert(tk_ucir_atree *t, uint64_t key);
void tk_ucir_atree_erase(tk_ucir_atree *t, uint32_t id);
/* The node with the greatest key <= key, 0: none; it becomes the hint.
 * O(1) at the hint, its neighbours or past either end, else O(log n). */
uint32_t tk_ucir_atree_floor(tk_ucir_atree *t, uint64_t key);

static inline uint32_t tk_ucir_atree_first(const tk_ucir_atree *t) { return t->first; }
static inline uint32_t tk_ucir_atree_next(const tk_ucir_atree *t, uint32_t id)
{
    return t->nodes[id].next;
}
/* A node's start moved without passing a neighbour's (a trimmed head). */
static inline void tk_ucir_atree_rekey(tk_ucir_atree *t, uint32_t id, uint64_t key)
{
    t->nodes[id].key = key;
}

#endif
