/* A parsed selection (include/tracekit/select.h), as the readers see it. */
#ifndef TK_CORE_SELECT_H
#define TK_CORE_SELECT_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/select.h>

/* An inclusive interval [lo, hi]. */
typedef struct tk_span {
    uint64_t lo, hi;
} tk_span;

/* How a --range bound was written: a plain number, a count with a K/M/G
 * multiplier, or a time with a unit (its value in ns). */
enum { TK_SEL_PLAIN = 1, TK_SEL_SCALED = 2, TK_SEL_TIME = 4 };

struct tk_selection {
    tk_span *threads;     /* sorted, disjoint, not adjacent; n = 0: all */
    size_t nthreads;
    tk_span *addrs;       /* byte ranges, the same way */
    size_t naddrs;
    int has_range;
    uint64_t from, to;    /* [from, to); an open end: 0 or UINT64_MAX */
    unsigned range_kinds; /* TK_SEL_* bits of the bounds given */
    char *func;           /* as given; NULL: none */
    char *range_text;     /* as given, for messages */
};

/* A copy (for a reader that outlives the caller's); NULL on ENOMEM. */
tk_selection *tk_sel_dup(const tk_selection *s, tk_error *err);

/* Is `v` in one of the n sorted spans? */
int tk_spans_hit(const tk_span *s, size_t n, uint64_t v);
/* Does [lo, hi] overlap one of them? */
int tk_spans_overlap(const tk_span *s, size_t n, uint64_t lo, uint64_t hi);

/* The thread filter (1 with no --thread). */
static inline int tk_sel_thread(const tk_selection *s, uint64_t id)
{
    return s->nthreads == 0 || tk_spans_hit(s->threads, s->nthreads, id);
}

/* The address filter on `size` bytes at `addr` (size 0: the one address;
 * ranges running past 2^64 stop there); 1 with no --addr. */
static inline int tk_sel_addr(const tk_selection *s, uint64_t addr, uint64_t size)
{
    uint64_t last = size ? addr + (size - 1) : addr;
    if (last < addr)
        last = UINT64_MAX;
    return s->naddrs == 0 || tk_spans_overlap(s->addrs, s->naddrs, addr, last);
}

/* The window on a count (record index, event id, instruction). */
static inline int tk_sel_in_range(const tk_selection *s, uint64_t v)
{
    return !s->has_range || (v >= s->from && v < s->to);
}

/* For formats whose --range counts (`unit`: "record indexes", ...):
 * TK_EUSAGE when a bound was given as a time. */
tk_status tk_sel_check_counts(const tk_selection *s, const char *format, const char *unit,
                              tk_error *err);

/* The first selection option set in `o` ("--thread", ...), or NULL. */
const char *tk_sel_option_given(const tk_options *o);

/* TK_EUSAGE "FORMAT: WHAT takes no selection (--thread ...): WHY" when the
 * selection is not empty. */
tk_status tk_sel_refuse(const tk_selection *s, const char *what, const char *why,
                        tk_error *err);

#endif
