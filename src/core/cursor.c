/* Read positions over input windows. */
#include "core/cursor.h"

/* Bytes asked of the input at a time, and the most used from one window. */
#define WINDOW_WANT ((size_t)1 << 16)
#define WINDOW_CAP ((size_t)4 << 20)

static void set_window(tk_cursor *c, int64_t n, size_t need)
{
    size_t cap = need > WINDOW_CAP ? need : WINDOW_CAP;
    c->p = c->win;
    c->end = c->win + ((uint64_t)n > cap ? cap : (size_t)n);
}

int64_t tk_cursor_init(tk_cursor *c, tk_input *in, size_t peek, tk_error *err)
{
    c->in = in;
    c->win_off = tk_input_offset(in);
    int64_t n = tk_input_window(in, peek, &c->win, err);
    if (n < 0)
        return -1;
    set_window(c, n, 0);
    return n;
}

int64_t tk_cursor_refill(tk_cursor *c, size_t need, tk_error *err)
{
    tk_input_advance(c->in, (size_t)(c->p - c->win));
    c->win_off = tk_input_offset(c->in);
    int64_t n = tk_input_window(c->in, need > WINDOW_WANT ? need : WINDOW_WANT,
                                &c->win, err);
    if (n < 0)
        return -1;
    set_window(c, n, need);
    return (int64_t)tk_cursor_avail(c);
}

int tk_cursor_skip(tk_cursor *c, uint64_t n, tk_error *err)
{
    size_t avail = tk_cursor_avail(c);
    if (n <= avail) {
        c->p += n;
        return 0;
    }
    tk_input_advance(c->in, (size_t)(c->end - c->win));
    int r = tk_input_skip(c->in, n - avail, err);
    if (r < 0 || tk_cursor_init(c, c->in, 0, err) < 0)
        return -1;
    return r;
}
