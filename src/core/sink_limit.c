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
    sb_reset(&l->group);
    return 1;
}

int tk_limiter_end(tk_limiter *l)
{
    if (!l->depth)
        return 0;
    if (--l->depth == 0) {
        uint64_t *n = tk_map_str(&l->dropped, l->group.p ? l->group.p : "",
                                 l->group.len);
        if (n)
            ++*n;
        else
            l->oom = 1;
    }
    return 1;
}

void tk_limiter_str(tk_limiter *l, const char *key, const char *v,
                         size_t len)
{
    if (l->depth == 1 && key && l->key && strcmp(key, l->key) == 0) {
        sb_reset(&l->group);
        sb_putn(&l->group, v, len);
        l->oom |= l->group.oom;
    }
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
