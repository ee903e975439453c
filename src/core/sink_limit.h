/* The sink's cap on top-level values (tk_sink_limit): which values to drop,
 * and how many were dropped per group. Kept apart from the rendering. */
#ifndef TK_CORE_SINK_LIMIT_H
#define TK_CORE_SINK_LIMIT_H

#include <stddef.h>
#include <stdint.h>

#include "core/hashmap.h"
#include "core/strbuf.h"

/* tk_limiter.raw is the group member of: none, the last counted group
 * (`last`), the current dropped value. */
enum { TK_RAW_NONE, TK_RAW_LAST, TK_RAW_CURRENT };

typedef struct tk_limiter {
    int on;
    uint64_t left;   /* top-level values still rendered */
    size_t depth;    /* > 0: nesting depth inside a dropped value */
    char *key;       /* the member that names a dropped value's group */
    tk_strbuf group; /* the current dropped value's group */
    tk_map dropped;  /* group -> uint64_t count, in first-seen order */
    size_t last;     /* the last dropped value's group: its index + 1 in
                        `dropped` (0: none), counted again without a
                        lookup (a million warnings of one code) */
    int same;        /* the current group is the last one's */
    tk_strbuf raw;   /* a group member's value as given (before snake_case) */
    int raw_snake;   /* ... and whether it was put in snake_case */
    int raw_is;      /* TK_RAW_*: whose group `raw` names */
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
/* 1 when a string member `key` now would name the group of a dropped
 * value: other members of a dropped value need no rendering at all. */
static inline int tk_limiter_is_group(const tk_limiter *l, const char *key)
{
    if (l->depth != 1 || !key || !l->key)
        return 0;
    const char *a = key, *b = l->key; /* a loop: most keys differ at once */
    while (*b && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}
/* TK_SINK_ENUM's snake_case, one byte: '-' and ' ' as '_'. */
static inline char tk_snake_char(char c) { return c == '-' || c == ' ' ? '_' : c; }
/* The group member of a dropped value (tk_limiter_is_group): `v`, in
 * snake_case when `snake`. */
void tk_limiter_str(tk_limiter *l, const char *v, size_t len, int snake);
int tk_limiter_group(const tk_limiter *l, size_t i, const char **group,
                          uint64_t *count);

#endif
