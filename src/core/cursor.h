/* A read position over a tk_input window, shared by the binary readers.
 *
 * Readers parse straight out of the window (zero copy) and ask for more
 * only when a record needs bytes beyond it. Windows are capped at a few MiB
 * even for inputs held wholly in memory, so positions go back to the input
 * regularly. */
#ifndef TK_CORE_CURSOR_H
#define TK_CORE_CURSOR_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/input.h>

typedef struct tk_cursor {
    tk_input *in;
    const uint8_t *win, *p, *end; /* window and position in it */
    uint64_t win_off;             /* input offset of win[0] */
} tk_cursor;

/* Start at the input's current position. Up to `peek` bytes are readable
 * at c->win (for format detection); returns how many, or -1 on error. */
int64_t tk_cursor_init(tk_cursor *c, tk_input *in, size_t peek, tk_error *err);

/* Make `need` bytes readable at c->p. Returns the bytes available (fewer
 * than `need` only at end of input) or -1 on an I/O error. Pointers into
 * the old window are invalid afterwards. */
int64_t tk_cursor_refill(tk_cursor *c, size_t need, tk_error *err);

/* Move forward `n` bytes, across windows if need be. Returns 0, or 1 if
 * the input ended first (positioned at its end), or -1 on error. */
int tk_cursor_skip(tk_cursor *c, uint64_t n, tk_error *err);

static inline size_t tk_cursor_avail(const tk_cursor *c)
{
    return (size_t)(c->end - c->p);
}

static inline uint64_t tk_cursor_offset(const tk_cursor *c)
{
    return c->win_off + (uint64_t)(c->p - c->win);
}

/* Bytes available at c->p, refilling only when fewer than `need`. */
static inline int64_t tk_cursor_need(tk_cursor *c, size_t need, tk_error *err)
{
    size_t avail = tk_cursor_avail(c);
    return avail >= need ? (int64_t)avail : tk_cursor_refill(c, need, err);
}

#endif
