/* Dropping top-level sink values past a cap, counted per group. */
#include <stdlib.h>
#include <string.h>

#include "core/sink_limit.h"

void tk_limiter_init(tk_limiter *l)
{
    memset(l, 0, sizeof *l);
    tk_map_init(&l->dropped, sizeof(uint64_t));
}

void tk_limiter_free(tk_limiter *l)
{
    free(l->key);
    sb_free(&l->group);
    sb_free(&l->raw);
    tk_map_free(&l->dropped);
    memset(l, 0, sizeof *l);
}

void tk_limiter_start(tk_limiter *l, uint64_t max, const char *key)
{
    tk_limiter_free(l);
    tk_limiter_init(l);
    l->on = 1;
    l->left = max;
    l->key = key ? strdup(key) : NULL;
    if (key && !l->key)
        l->oom = 1;
}

void tk_limiter_stop(tk_limiter *l)
{
    l->on = 0;
    l->depth = 0; /* a value left open is forgotten, not counted */
}

int tk_limiter_begin(tk_limiter *l, size_t sink_depth)
{
    if (l->depth) {
        l->depth++;
        return 1;
    }
    if (!l->on || sink_depth != 0)
        return 0;
    if (l->left) {
        l->left--;
        return 0;
    }
    l->depth = 1;
    l->same = 0;
    if (l->raw_is == TK_RAW_CURRENT) /* a value left open by tk_limiter_stop */
        l->raw_is = TK_RAW_NONE;
    sb_reset(&l->group);
    return 1;
}

/* One more dropped value of the current group: the last group's counter
 * when it is the same (no hashing), else the map's. */
static void count_dropped(tk_limiter *l)
{
    const char *g = l->group.p ? l->group.p : "";
    size_t len = l->group.len;
    tk_map *m = &l->dropped;
    size_t i = l->last - 1;
    if (l->last && (l->same || (m->skey_len[i] == len && memcmp(m->skeys[i], g, len) == 0))) {
        ++*(uint64_t *)tk_map_value(m, i);
        if (l->raw_is == TK_RAW_CURRENT)
            l->raw_is = TK_RAW_LAST;
        return;
    }
    uint64_t *n = tk_map_str(m, g, len);
    if (!n) {
        l->oom = 1;
        return;
    }
    ++*n;
    l->last = (size_t)((unsigned char *)n - m->values) / m->value_size + 1;
    /* `raw` names the new last group only when it is this value's member */
    l->raw_is = l->raw_is == TK_RAW_CURRENT ? TK_RAW_LAST : TK_RAW_NONE;
}

int tk_limiter_end(tk_limiter *l)
{
    if (!l->depth)
        return 0;
    if (--l->depth == 0)
        count_dropped(l);
    return 1;
}

/* The same bytes as the last group's member (and the same case rule)
 * name the same group: a million warnings of one code are compared, not
 * copied, converted and looked up. */
void tk_limiter_str(tk_limiter *l, const char *v, size_t len, int snake)
{
    l->same = l->raw_is == TK_RAW_LAST && l->raw_snake == snake && l->raw.len == len &&
              (len == 0 || memcmp(l->raw.p, v, len) == 0);
    if (l->same)
        return;
    sb_reset(&l->raw);
    sb_putn(&l->raw, v, len);
    l->raw_snake = snake;
    l->raw_is = TK_RAW_CURRENT;
    sb_reset(&l->group);
    if (!snake)
        sb_putn(&l->group, v, len);
    for (size_t k = 0; snake && k < len; k++)
        sb_putc(&l->group, tk_snake_char(v[k]));
    l->oom |= l->group.oom | l->raw.oom;
}

int tk_limiter_group(const tk_limiter *l, size_t i, const char **group,
                          uint64_t *count)
{
    if (i >= l->dropped.n)
        return 0;
    if (group)
        *group = l->dropped.skeys[i];
    if (count)
        memcpy(count, tk_map_value(&l->dropped, i), sizeof *count);
    return 1;
}
