/* The sink's cap on top-level values (tk_sink_limit): which values to drop,
 * and how many were dropped per group. Kept apart from the rendering. */
#ifndef TK_CORE_SINK_LIMIT_H
#define TK_CORE_SINK_LIMIT_H

#include <stddef.h>
#include <stdint.h>

#include "core/hashmap.h"
#include "core/strbuf.h"

typedef struct tk_limiter {
    int on;
    uint64_t left;   /* top-level values still rendered */
    size_t depth;    /* > 0: nesting depth inside a dropped value */
    char *key;       /* the member that names a dropped value's group */
    tk_strbuf group; /* the current dropped value's group */
    tk_map dropped;  /* group -> uint64_t count, in first-seen order */
    int oom;
} tk_limiter;

void tk_limiter_init(tk_limiter *l);
void tk_limiter_free(tk_limiter *l);
void tk_limiter_start(tk_limiter *l, uint64_t max, const char *key);
void tk_limiter_stop(tk_limiter *l);

/* An object or array begins `sink_depth` levels deep: 1 when it is (part
 * of) a dropped value and must not be rendered. */
int tk_limiter_begin(tk_limiter *l, size_t sink_depth);
/* It ends: 1 when it was dropped. */
int tk_limiter_end(tk_limiter *l);
/* A string member of a dropped value (the group when its key matches). */
void tk_limiter_str(tk_limiter *l, const char *key, const char *v,
                         size_t len);
int tk_limiter_group(const tk_limiter *l, size_t i, const char **group,
                          uint64_t *count);

#endif
