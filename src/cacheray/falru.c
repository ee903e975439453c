/* Fully associative LRU for the 3C shadows (see falru.h). */
#include <stdlib.h>
#include <string.h>

#include "cacheray/falru.h"

int cs_falru_init(cs_falru *f, uint64_t lines)
{
    memset(f, 0, sizeof *f);
    size_t slots = 16;
    unsigned bits = 4;
    if (lines > (1u << 30))
        return -1;
    while (slots < 2 * lines) {
        slots *= 2;
        bits++;
    }
    f->n = calloc(slots, sizeof *f->n);
    if (!f->n)
        return -1;
    f->mask = slots - 1;
    f->shift = 64 - bits;
    f->head = f->tail = FA_NONE;
    f->cap = lines;
    return 0;
}

void cs_falru_free(cs_falru *f)
{
    free(f->n);
    memset(f, 0, sizeof *f);
}

static size_t home(const cs_falru *f, uint64_t key1)
{
    return (size_t)(((key1 - 1) * 0x9E3779B97F4A7C15ULL) >> f->shift);
}

static void unlink_node(cs_falru *f, uint32_t i)
{
    cs_falru_node *x = &f->n[i];
    if (x->prev == FA_NONE)
        f->head = x->next;
    else
        f->n[x->prev].next = x->next;
    if (x->next == FA_NONE)
        f->tail = x->prev;
    else
        f->n[x->next].prev = x->prev;
}

static void push_front(cs_falru *f, uint32_t i)
{
    f->n[i].prev = FA_NONE;
    f->n[i].next = f->head;
    if (f->head == FA_NONE)
        f->tail = i;
    else
        f->n[f->head].prev = i;
    f->head = i;
}

void cs_falru_front(cs_falru *f, uint32_t i)
{
    unlink_node(f, i);
    push_front(f, i);
}

/* Point the neighbours of the node now at `to` at it. */
static void relink(cs_falru *f, uint32_t to)
{
    cs_falru_node *x = &f->n[to];
    if (x->prev == FA_NONE)
        f->head = to;
    else
        f->n[x->prev].next = to;
    if (x->next == FA_NONE)
        f->tail = to;
    else
        f->n[x->next].prev = to;
}

static void evict_tail(cs_falru *f)
{
    uint32_t hole = f->tail;
    unlink_node(f, hole);
    for (size_t j = (hole + 1) & f->mask; f->n[j].key1; j = (j + 1) & f->mask) {
        size_t h = home(f, f->n[j].key1);
        int stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
        if (!stays) {
            f->n[hole] = f->n[j];
            relink(f, hole);
            hole = (uint32_t)j;
        }
    }
    f->n[hole].key1 = 0;
    f->count--;
}

void cs_falru_insert(cs_falru *f, uint64_t line)
{
    if (f->count == f->cap)
        evict_tail(f);
    size_t i = home(f, line + 1);
    while (f->n[i].key1)
        i = (i + 1) & f->mask;
    f->n[i].key1 = line + 1;
    push_front(f, (uint32_t)i);
    f->count++;
}
