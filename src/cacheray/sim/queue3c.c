/* The 3C shadow of a level below the first, run over the level's queue of
 * requests before the level serves them (stream.c). A level's shadow
 * follows its requests only: what its cache holds changes nothing there.
 * So each request's class (whether its line was seen, whether the shadow
 * held it) is worked out here and carried by the request, and a miss
 * only counts it (cs_count_3c). Kept beside the cache (shadow.h's
 * per-slot times), a shadow of a level with mostly misses made three or
 * four probes of a map per miss (the line, the line the shadow evicts,
 * the victim leaving the cache) and took more than half the levels'
 * time on random traffic; fed alone it makes one look-up, in pages, of a
 * word asked for a few requests early.
 *
 * A request is one line of the level: the level's lines are no shorter
 * than those above (cs_stream_init's condition), and a request is one
 * line above, or part of one. */
#include "cacheray/sim/hierarchy.h"

/* Requests looked ahead: enough to cover a trip to memory. */
enum { AHEAD3C = 8 };

/* Pages: cs_shadow_access_map's events with a word per line and the
 * shadow's state in locals (the compiler reloads fields after each store
 * through a word or the ring), the words of the lines AHEAD3C requests on
 * asked for. */
static void pass_pages(cs_shadow *h, cs_req *v, size_t n, unsigned shift, int wa)
{
    uint64_t *const ring = h->ring;
    const uint64_t rmask = h->rmask, cap = h->cap;
    uint64_t now = h->k.now, bound = h->k.bound, live = h->live;
    uint32_t *words[AHEAD3C];
    for (size_t r = 0; r < AHEAD3C; r++)
        words[r] = r < n ? cs_shadow_prefetch_word(h, v[r].lo >> shift) : NULL;
    for (size_t r = 0; r < n; r++) {
        const uint64_t line = v[r].lo >> shift;
        uint32_t *w = words[r % AHEAD3C];
        words[r % AHEAD3C] =
            r + AHEAD3C < n ? cs_shadow_prefetch_word(h, v[r + AHEAD3C].lo >> shift) : NULL;
        if (!w)
            w = cs_shadow_word(h, line);
        const uint32_t old = *w;
        const int in = old >= bound;
        v[r].cls = (uint16_t)cs_class(old != 0, in);
        if (in) {
            ring[old & rmask] = 0; /* dead before the event's compaction */
        } else if (wa || !v[r].write) {
            live++;
        } else { /* not taken: only seen */
            *w = old | (old == 0);
            continue;
        }
        if (now + 1 - bound > rmask) { /* rare */
            h->k = (cs_shadow_clock){now, bound};
            cs_shadow_compact(h);
            now = h->k.now;
            bound = h->k.bound;
        }
        ring[++now & rmask] = line + 1;
        *w = (uint32_t)now;
        if (live > cap) { /* the least recent leaves: with pages, only its event */
            uint64_t b = bound;
            if (!ring[b & rmask])
                b = cs_shadow_next_live(h, b);
            ring[b & rmask] = 0;
            bound = b + 1;
            live--;
        }
    }
    h->k = (cs_shadow_clock){now, bound};
    h->live = live;
}

/* The map (pages found sparse): its slots and the lines-seen bits asked for. */
static void pass_map(cs_shadow *h, cs_req *v, size_t n, unsigned shift, int wa)
{
    cs_shadow_clock k = h->k;
    for (size_t r = 0; r < n; r++) {
        if (r + AHEAD3C < n) {
            const uint64_t line = v[r + AHEAD3C].lo >> shift;
            __builtin_prefetch(&h->out[cs_shadow_out_home(h, line + 1)]);
            __builtin_prefetch(&h->seen.keys[tk_linemap_slot(&h->seen, line >> 5)]);
        }
        int seen;
        const int in = cs_shadow_access_map(h, &k, v[r].lo >> shift, wa || !v[r].write, &seen);
        v[r].cls = (uint16_t)cs_class(seen, in);
    }
    h->k = k;
}

int cs_queue3c(cs_level *L, cs_queue *q)
{
    cs_shadow *h = &L->shadow;
    if (h->paged)
        pass_pages(h, q->v, q->n, L->shift, L->write_allocate);
    else
        pass_map(h, q->v, q->n, L->shift, L->write_allocate);
    return h->oom;
}
