/* A fully associative LRU cache of line numbers, for the 3C shadows: one
 * open-addressing table whose slots are also the nodes of the recency list
 * (16 bytes a line, at most half full), so a lookup and the move to the
 * front touch one small array. Deletion shifts later members of a probe
 * run back and relinks them. */
#ifndef TK_CACHERAY_FALRU_H
#define TK_CACHERAY_FALRU_H

#include <stddef.h>
#include <stdint.h>

typedef struct cs_falru_node {
    uint64_t key1;           /* line + 1; 0 = empty slot */
    uint32_t prev, next;     /* towards the most / least recent; FA_NONE */
} cs_falru_node;

typedef struct cs_falru {
    cs_falru_node *n;
    size_t mask;
    unsigned shift;          /* 64 - log2(slots) */
    uint32_t head, tail;     /* most and least recently used */
    uint64_t count, cap;     /* lines held, and at most */
} cs_falru;

#define FA_NONE UINT32_MAX

/* 0 ok, -1 out of memory (or more than 2^30 lines). */
int cs_falru_init(cs_falru *f, uint64_t lines);
void cs_falru_free(cs_falru *f);

void cs_falru_front(cs_falru *f, uint32_t i);
void cs_falru_insert(cs_falru *f, uint64_t line);

/* Access `line`: 1 on a hit (now the most recent), 0 on a miss, after
 * which the line is inserted (evicting the least recent) if `allocate`. */
static inline int cs_falru_access(cs_falru *f, uint64_t line, int allocate)
{
    uint64_t k = line + 1;
    for (size_t i = (size_t)((line * 0x9E3779B97F4A7C15ULL) >> f->shift); f->n[i].key1;
         i = (i + 1) & f->mask)
        if (f->n[i].key1 == k) {
            if (f->head != i)
                cs_falru_front(f, (uint32_t)i);
            return 1;
        }
    if (allocate)
        cs_falru_insert(f, line);
    return 0;
}

#endif
