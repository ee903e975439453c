/* The XRay to Perfetto export's parts (perfetto.c, perfetto_names.c):
 * the interned names it caches, and TSC to ns. */
#ifndef TK_XRAY_PERFETTO_INT_H
#define TK_XRAY_PERFETTO_INT_H

#include <stdint.h>
#include <stdio.h>

#include <tracekit/xray_map.h>

#include "core/hashmap.h"
#include "export/perfetto/perfetto.h"

/* The writer and the ids of the names it writes, each interned once:
 * function names by function id (a direct table for small ids, a map for
 * the others), argument names by position, typed events by type. */
typedef struct tk_xp_names {
    tk_perfetto *p;
    tk_xray_map *map;  /* names functions; NULL: "#<id>" as account prints */
    uint64_t custom;   /* "custom-event" */
    uint64_t data;     /* "data": an event's payload */
    uint64_t *direct;  /* function id -> name id, 0: not yet */
    size_t ndirect;
    tk_map other;      /* larger ids -> uint64_t name id */
    uint64_t *args;    /* position -> "arg<i>" id */
    size_t nargs;
    tk_map typed;      /* event type -> "typed-event <type>" id */
} tk_xp_names;

/* A writer on `out` and the fixed names; `map` is borrowed. */
tk_status tk_xp_names_init(tk_xp_names *n, FILE *out, tk_xray_map *map, tk_error *err);
/* Frees the writer too, unless n->p was cleared. */
void tk_xp_names_free(tk_xp_names *n);

uint64_t tk_xp_func_name_slow(tk_xp_names *n, int32_t func, tk_error *err);

/* The name id of a function (0 and err on failure). */
static inline uint64_t tk_xp_func_name(tk_xp_names *n, int32_t func, tk_error *err)
{
    uint32_t id = (uint32_t)func;
    if (id < n->ndirect && n->direct[id])
        return n->direct[id];
    return tk_xp_func_name_slow(n, func, err);
}

/* "arg<i>"; "typed-event <type>" (0 and err on failure). */
uint64_t tk_xp_arg_name(tk_xp_names *n, uint32_t i, tk_error *err);
uint64_t tk_xp_typed_name(tk_xp_names *n, uint16_t type, tk_error *err);

/* TSC ticks to ns, exactly (floor(tsc * 10^9 / freq), as the Chrome
 * export computes it) and fast: by multiplying with a reciprocal of the
 * frequency, not dividing, when the frequency is at most 2^64 / 10^9
 * (18 GHz). Saturates at UINT64_MAX, so time never goes back. */
typedef struct tk_xp_clock {
    uint64_t freq;  /* ticks per second */
    uint64_t recip; /* floor(2^64 / freq) (fast path) */
    int mode;       /* 0: ns = tsc; 1: the reciprocal; 2: 128-bit division */
} tk_xp_clock;

/* `freq` 0 (unknown) is taken as 1 GHz, as the Chrome export does. */
void tk_xp_clock_init(tk_xp_clock *c, uint64_t freq);

static inline uint64_t tk_xp_div(const tk_xp_clock *c, uint64_t x)
{
    uint64_t q = (uint64_t)(((unsigned __int128)x * c->recip) >> 64);
    return x - q * c->freq >= c->freq ? q + 1 : q; /* q is floor or floor - 1 */
}

uint64_t tk_xp_ns_slow(const tk_xp_clock *c, uint64_t tsc);

static inline uint64_t tk_xp_ns(const tk_xp_clock *c, uint64_t tsc)
{
    if (c->mode == 0)
        return tsc;
    if (c->mode == 2)
        return tk_xp_ns_slow(c, tsc);
    uint64_t s = tk_xp_div(c, tsc), rest = tsc - s * c->freq;
    if (s > UINT64_MAX / 1000000000u)
        return UINT64_MAX;
    uint64_t ns = s * 1000000000u, frac = tk_xp_div(c, rest * 1000000000u);
    return ns + frac < ns ? UINT64_MAX : ns + frac;
}

#endif
