/* The XRay to Perfetto export's interned names, cached by what they name
 * so the hot path hashes no string; and TSC to ns. */
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "xray/perfetto_int.h"

/* Function ids below this index a table; the others go to a map. */
#define DIRECT_IDS (1u << 20)

static uint64_t oom(tk_error *err)
{
    tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return 0;
}

tk_status tk_xp_names_init(tk_xp_names *n, FILE *out, tk_xray_map *map, tk_error *err)
{
    memset(n, 0, sizeof *n);
    n->map = map;
    tk_map_init(&n->other, sizeof(uint64_t));
    tk_map_init(&n->typed, sizeof(uint64_t));
    if (!(n->p = tk_perfetto_new(out, err)) ||
        !(n->custom = tk_perfetto_name(n->p, "custom-event", 12, err)) ||
        !(n->data = tk_perfetto_arg_name(n->p, "data", 4, err)))
        return err->status;
    return TK_OK;
}

void tk_xp_names_free(tk_xp_names *n)
{
    tk_perfetto_free(n->p);
    n->p = NULL;
    free(n->direct);
    free(n->args);
    tk_map_free(&n->other);
    tk_map_free(&n->typed);
}

/* The cache slot of a function id (NULL: out of memory). */
static uint64_t *func_slot(tk_xp_names *n, uint32_t id)
{
    if (id >= DIRECT_IDS)
        return tk_map_u64(&n->other, id);
    if (id >= n->ndirect) {
        void *d = n->direct;
        int rc = tk_array_grow_zeroed(&d, &n->ndirect, id, sizeof *n->direct, 256);
        n->direct = d;
        if (rc != 0)
            return NULL;
    }
    return &n->direct[id];
}

/* Named as account names it: the map's (demangled) name, else "#<id>". */
uint64_t tk_xp_func_name_slow(tk_xp_names *n, int32_t func, tk_error *err)
{
    uint64_t *slot = func_slot(n, (uint32_t)func);
    if (!slot)
        return oom(err);
    if (!*slot) { /* "#<id>" without a map: new, as ids are cached, and no other name */
        const char *s = tk_xray_map_name(n->map, func);
        *slot = n->map ? tk_perfetto_name(n->p, s, strlen(s), err)
                       : tk_perfetto_name_new(n->p, s, strlen(s), err);
    }
    return *slot;
}

uint64_t tk_xp_arg_name(tk_xp_names *n, uint32_t i, tk_error *err)
{
    if (i < n->nargs && n->args[i])
        return n->args[i];
    if (i >= n->nargs) {
        void *a = n->args;
        int rc = tk_array_grow_zeroed(&a, &n->nargs, i, sizeof *n->args, 8);
        n->args = a;
        if (rc != 0)
            return oom(err);
    }
    char s[16];
    int len = snprintf(s, sizeof s, "arg%u", i);
    return n->args[i] = tk_perfetto_arg_name(n->p, s, (size_t)len, err);
}

uint64_t tk_xp_typed_name(tk_xp_names *n, uint16_t type, tk_error *err)
{
    uint64_t *slot = tk_map_u64(&n->typed, type);
    if (!slot)
        return oom(err);
    if (!*slot) {
        char s[32];
        int len = snprintf(s, sizeof s, "typed-event %u", type);
        *slot = tk_perfetto_name(n->p, s, (size_t)len, err);
    }
    return *slot;
}

void tk_xp_clock_init(tk_xp_clock *c, uint64_t freq)
{
    c->freq = freq ? freq : 1000000000u;
    c->recip = 0;
    if (c->freq == 1000000000u)
        c->mode = 0;
    else if (c->freq >= 2 && c->freq <= UINT64_MAX / 1000000000u) {
        c->mode = 1;
        c->recip = (uint64_t)(((unsigned __int128)1 << 64) / c->freq);
    } else
        c->mode = 2;
}

uint64_t tk_xp_ns_slow(const tk_xp_clock *c, uint64_t tsc)
{
    unsigned __int128 ns = (unsigned __int128)tsc * 1000000000u / c->freq;
    return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}
