/* False sharing: per L1 line, which bytes each thread wrote (see
 * sim_int.h for the states). A line written by one thread is 16 bytes in
 * a block of its group; the second writer turns it into a record with one
 * sharer per thread and the count of alternations (consecutive writes by
 * different threads), or, when it wrote a chunk the first had written,
 * into a dead line. Lines whose writers never wrote a common byte are
 * reported. Bytes are tracked in 64 chunks per line (one byte each for
 * lines up to 64 bytes). */
#include <stdlib.h>
#include <string.h>

#include "cacheray/sim/sim_int.h"
#include "core/hugemem.h"

enum { TAB_MIN = 1024 }; /* slots */

static int alloc_table(cs_falseshare *f, size_t slots)
{
    f->tab = tk_table_calloc(slots, sizeof *f->tab);
    if (!f->tab)
        return -1;
    f->slots = slots;
    f->tab_shift = 64 - (unsigned)__builtin_ctzll(slots);
    return 0;
}

int cs_fs_init(cs_falseshare *f, unsigned line_shift)
{
    memset(f, 0, sizeof *f);
    f->shift = line_shift;
    f->chunk_shift = line_shift > 6 ? line_shift - 6 : 0;
    return alloc_table(f, TAB_MIN);
}

static void free_report(cs_falseshare *f)
{
    free(f->order);
    free(f->out);
    free(f->out_at);
    f->order = NULL;
    f->out = NULL;
    f->out_at = NULL;
    f->norder = f->nout = 0;
}

static int rec_is_free(const cs_fs_rec *r) { return r->n == 0; }

void cs_fs_free(cs_falseshare *f)
{
    for (size_t i = 0; i < f->nrecs; i++)
        if (f->recs[i].n > 2)
            free(f->recs[i].u.more.v);
    free(f->recs);
    for (size_t i = 0; i < f->nchunks; i++)
        tk_table_free(f->pool[i], CS_FS_POOL_CHUNK, sizeof(cs_fs_block));
    free(f->pool);
    tk_table_free(f->tab, f->slots, sizeof *f->tab);
    if (f->win_n)
        tk_table_free(f->win, f->win_n, sizeof *f->win);
    tk_id_index_free(&f->tids);
    free_report(f);
    memset(f, 0, sizeof *f);
}

uint32_t cs_fs_thread_slow(cs_falseshare *f, uint64_t id)
{
    int added;
    int64_t v = tk_id_index_get(&f->tids, id, &added);
    if (v < 0 || v >= UINT32_MAX)
        return UINT32_MAX;
    f->prev_id = f->last_id;
    f->prev_index = f->last_index;
    f->has_prev = f->has_last;
    f->last_id = id;
    f->last_index = (uint32_t)v;
    f->has_last = 1;
    return f->last_index;
}

/* ---- groups and blocks */

static void insert(cs_falseshare *f, uint64_t group1, uint64_t block)
{
    size_t j = cs_fs_home(f, group1 - 1);
    while (f->tab[j].group1)
        j = (j + 1) & (f->slots - 1);
    f->tab[j] = (cs_fs_slot){.group1 = group1, .block = block};
}

/* The table with `slots` slots, its groups moved over (the window's
 * excepted). */
static int rehash(cs_falseshare *f, size_t slots)
{
    cs_fs_slot *old = f->tab;
    size_t n = f->slots;
    if (alloc_table(f, slots) != 0) {
        f->tab = old;
        return -1;
    }
    f->n = 0;
    for (size_t i = 0; i < n; i++)
        if (old[i].group1 && old[i].group1 - 1 - f->win_lo >= f->win_n) {
            insert(f, old[i].group1, old[i].block);
            f->n++;
        }
    tk_table_free(old, n, sizeof *old);
    return 0;
}

/* Groups in the table before a window is considered: small footprints
 * keep the table alone. A window is made, instead of a table twice the
 * size, when the groups fill 1/WIN_FILL of it: 64 bytes a group at most,
 * what the larger table would take (16-byte slots, a quarter full). */
enum { WIN_MIN = 4096, WIN_FILL = 16 };

/* A window over every group the table and the window hold, when they
 * fill 1/WIN_FILL of it: 1, the table's groups are in it now; 0, not (too
 * sparse, or out of memory: the table grows instead). A window is copied
 * whole when it grows, so only once the table holds an eighth as many
 * groups as the window spans, and with room above: a footprint growing
 * steadily (a sweep) costs each group a bounded share of the copies. */
static int widen(cs_falseshare *f)
{
    if (f->n < WIN_MIN || f->n < f->win_n / 8)
        return 0;
    uint64_t lo = f->win_n ? f->win_lo : UINT64_MAX, hi = f->win_n ? f->win_lo + f->win_n - 1 : 0;
    for (size_t i = 0; i < f->slots; i++)
        if (f->tab[i].group1) {
            uint64_t g = f->tab[i].group1 - 1;
            lo = g < lo ? g : lo;
            hi = g > hi ? g : hi;
        }
    const uint64_t groups = f->n + f->win_used, most = groups * WIN_FILL;
    if (hi - lo >= UINT32_MAX / 2 || most < hi - lo + 1)
        return 0;
    /* room above for half as many groups again where they would still
     * fill 1/WIN_FILL: a footprint growing upwards (a heap, a sweep)
     * finds it there, and the window grows geometrically */
    size_t span = (size_t)(hi - lo + 1);
    span = span + span / 2 < most ? span + span / 2 : (size_t)most;
    uint32_t *w = tk_table_calloc(span, sizeof *w);
    if (!w)
        return 0;
    if (f->win_n) {
        memcpy(w + (f->win_lo - lo), f->win, f->win_n * sizeof *w);
        tk_table_free(f->win, f->win_n, sizeof *f->win);
    }
    for (size_t i = 0; i < f->slots; i++)
        if (f->tab[i].group1)
            w[f->tab[i].group1 - 1 - lo] = (uint32_t)f->tab[i].block + 1;
    f->win = w;
    f->win_lo = lo;
    f->win_n = span;
    f->win_used += f->n;
    return 1;
}

/* Room in the table for one more group: its groups moved to the window
 * (the table starts again small), or twice the slots. */
static int grow(cs_falseshare *f)
{
    if (widen(f))
        return rehash(f, TAB_MIN);
    return rehash(f, 2 * f->slots);
}

int cs_fs_add_chunk(cs_falseshare *f)
{
    if (f->nblocks + CS_FS_POOL_CHUNK > CS_FS_MAX_BLOCKS)
        return -1;
    cs_fs_block **p = realloc(f->pool, (f->nchunks + 1) * sizeof *p);
    if (!p)
        return -1;
    f->pool = p;
    if (!(p[f->nchunks] = tk_table_calloc(CS_FS_POOL_CHUNK, sizeof(cs_fs_block))))
        return -1;
    f->nchunks++;
    return 0;
}

cs_fs_block *cs_fs_block_of(cs_falseshare *f, uint64_t line)
{
    uint64_t group = line >> CS_FS_GROUP_SHIFT;
    if (group - f->win_lo < f->win_n)
        return cs_fs_win_block(f, group);
    size_t i = cs_fs_home(f, group);
    while (f->tab[i].group1 && f->tab[i].group1 != group + 1)
        i = (i + 1) & (f->slots - 1);
    if (f->tab[i].group1)
        return cs_fs_block_at(f, f->tab[i].block);
    if ((f->n + 1) * 2 > f->slots) {
        if (grow(f) != 0)
            return NULL;
        if (group - f->win_lo < f->win_n)
            return cs_fs_win_block(f, group);
        i = cs_fs_home(f, group);
        while (f->tab[i].group1)
            i = (i + 1) & (f->slots - 1);
    }
    uint64_t b = cs_fs_new_block(f);
    if (b == UINT64_MAX)
        return NULL;
    f->tab[i] = (cs_fs_slot){.group1 = group + 1, .block = b};
    f->n++;
    return cs_fs_block_at(f, b);
}

/* ---- records */

static cs_fs_sharer *sharers(cs_fs_rec *r) { return r->n > 2 ? r->u.more.v : r->u.in; }

/* A record's index, zeroed; UINT64_MAX when out of memory. */
static uint64_t new_rec(cs_falseshare *f)
{
    uint64_t i;
    if (f->free_rec) {
        i = f->free_rec - 1;
        f->free_rec = f->recs[i].alternations;
    } else {
        if (f->nrecs == f->cap_recs) {
            size_t cap = f->cap_recs ? 2 * f->cap_recs : 256;
            cs_fs_rec *v = realloc(f->recs, cap * sizeof *v);
            if (!v)
                return UINT64_MAX;
            f->recs = v;
            f->cap_recs = cap;
        }
        i = f->nrecs++;
    }
    memset(&f->recs[i], 0, sizeof f->recs[i]);
    return i;
}

static void free_rec(cs_falseshare *f, uint64_t i)
{
    cs_fs_rec *r = &f->recs[i];
    if (r->n > 2)
        free(r->u.more.v);
    memset(r, 0, sizeof *r);
    r->alternations = f->free_rec;
    f->free_rec = i + 1;
}

/* Address of the lowest chunk in `mask` of `line`. */
static uint64_t first_byte(const cs_falseshare *f, uint64_t line, uint64_t mask)
{
    return (line << f->shift) + ((uint64_t)__builtin_ctzll(mask) << f->chunk_shift);
}

static void locate(cs_falseshare *f, tk_cachesim *s, uint64_t line, cs_fs_sharer *w)
{
    uint64_t offset;
    cs_types_locate(s, first_byte(f, line, w->mask), &w->type, &offset, &w->field);
    w->offset = (uint32_t)offset; /* an offset in an element, whose size is 32-bit */
}

/* Room for one more sharer in r; NULL when out of memory. */
static cs_fs_sharer *add_sharer(cs_fs_rec *r)
{
    if (r->n < 2)
        return &r->u.in[r->n++];
    if (r->n == 2) {
        cs_fs_sharer *v = malloc(4 * sizeof *v);
        if (!v)
            return NULL;
        memcpy(v, r->u.in, 2 * sizeof *v);
        r->u.more.v = v;
        r->u.more.cap = 4;
    } else if (r->n == r->u.more.cap) {
        cs_fs_sharer *v = realloc(r->u.more.v, 2 * r->u.more.cap * sizeof *v);
        if (!v)
            return NULL;
        r->u.more.v = v;
        r->u.more.cap *= 2;
    }
    return &r->u.more.v[r->n++];
}

/* A write of `mask` by thread t to a line with a record: dead when it
 * overlaps another writer's chunks. */
static int rec_write(cs_falseshare *f, tk_cachesim *s, uint64_t line, cs_fs_state *st,
                     uint32_t t, uint64_t mask)
{
    uint64_t ri = st->meta >> CS_FS_TAG_BITS;
    cs_fs_rec *r = &f->recs[ri];
    cs_fs_sharer *v = sharers(r), *w = NULL;
    uint64_t others = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        if (v[i].thread == t)
            w = &v[i];
        else
            others |= v[i].mask;
    }
    if (mask & others) {
        f->nshared += !w && r->n == 1; /* a second writer, straight to dead */
        free_rec(f, ri);
        st->meta = CS_FS_DEAD;
        return 0;
    }
    if (r->last != t) {
        r->alternations++;
        r->last = t;
    }
    if (!w) {
        f->nshared += r->n == 1;
        if (!(w = add_sharer(r)))
            return -1;
        *w = (cs_fs_sharer){.thread = t};
    }
    uint64_t lower = mask & (w->mask ? ((w->mask & -w->mask) - 1) : ~0ULL);
    w->mask |= mask;
    w->writes++;
    if (lower) /* a new lowest byte: where it lies now */
        locate(f, s, line, w);
    return 0;
}

/* The line's first record, with the writer so far (t0, mask0, writes0;
 * none when writes0 is 0). */
static int to_rec(cs_falseshare *f, tk_cachesim *s, uint64_t line, cs_fs_state *st,
                  uint32_t t0, uint64_t mask0, uint64_t writes0)
{
    uint64_t ri = new_rec(f);
    if (ri == UINT64_MAX)
        return -1;
    cs_fs_rec *r = &f->recs[ri];
    r->line = line;
    r->last = t0;
    if (writes0) {
        r->n = 1;
        r->u.in[0] = (cs_fs_sharer){.thread = t0, .mask = mask0, .writes = writes0};
        locate(f, s, line, &r->u.in[0]);
    }
    st->mask = 0;
    st->meta = CS_FS_REC | ri << CS_FS_TAG_BITS;
    return 0;
}

int cs_fs_write_state(cs_falseshare *f, tk_cachesim *s, uint64_t line, cs_fs_state *st,
                      uint32_t t, uint64_t mask)
{
    uint64_t tag = st->meta & 0xFFFF;
    if (tag == CS_FS_DEAD)
        return 0;
    if (tag == 0) { /* new */
        if (t < CS_FS_MAX_OWNER) {
            st->mask = mask;
            st->meta = (t + 1) | 1ULL << CS_FS_TAG_BITS;
            return 0;
        }
        if (to_rec(f, s, line, st, t, 0, 0) != 0) /* too many threads for a tag */
            return -1;
    } else if (tag != CS_FS_REC) {
        if (tag == t + 1) { /* still one writer */
            st->mask |= mask;
            st->meta += 1ULL << CS_FS_TAG_BITS;
            return 0;
        }
        if (mask & st->mask) { /* a second writer on a common chunk */
            f->nshared++;
            st->mask = 0;
            st->meta = CS_FS_DEAD;
            return 0;
        }
        if (to_rec(f, s, line, st, (uint32_t)tag - 1, st->mask, st->meta >> CS_FS_TAG_BITS) != 0)
            return -1;
    }
    return rec_write(f, s, line, st, t, mask);
}

int cs_fs_write_lines(cs_falseshare *f, tk_cachesim *s, uint64_t addr, uint64_t last,
                      uint64_t thread)
{
    uint32_t t = cs_fs_thread(f, thread);
    if (t == UINT32_MAX)
        return -1;
    for (uint64_t line = addr >> f->shift;; line++) {
        uint64_t base = line << f->shift, end = base + ((1ULL << f->shift) - 1);
        uint64_t lo = (addr > base ? addr : base) - base;
        uint64_t hi = (last < end ? last : end) - base;
        cs_fs_block *b = cs_fs_block_of(f, line);
        if (!b)
            return -1;
        cs_fs_state *st = &b->l[line & ((1u << CS_FS_GROUP_SHIFT) - 1)];
        if (cs_fs_write_state(f, s, line, st, t, cs_fs_chunks(f, lo, hi)) != 0)
            return -1;
        if (line == last >> f->shift)
            return 0;
    }
}

/* ---- the report */

/* The reported lines by alternations (most first), then line: a radix
 * sort (least significant byte first, stable) on the key (~alternations,
 * line), skipping the bytes all keys share (found in one pass: the bits
 * some keys set and others not). Random traffic leaves hundreds of
 * thousands of lines shared, for which qsort took a tenth of the
 * simulation. */
static uint8_t key_byte(const cs_fs_report *r, unsigned d)
{
    return (uint8_t)(d < 8 ? r->line >> (8 * d) : ~r->alternations >> (8 * (d - 8)));
}

static int sort_report(cs_fs_report *v, size_t n)
{
    uint64_t any_line = 0, all_line = ~0ULL, any_alt = 0, all_alt = ~0ULL;
    for (size_t i = 0; i < n; i++) {
        any_line |= v[i].line;
        all_line &= v[i].line;
        any_alt |= v[i].alternations;
        all_alt &= v[i].alternations;
    }
    const uint64_t differ[2] = {any_line ^ all_line, any_alt ^ all_alt};
    cs_fs_report *tmp = malloc((n + 1) * sizeof *tmp), *from = v, *to = tmp;
    if (!tmp)
        return -1;
    for (unsigned d = 0; d < 16; d++) {
        if (!(differ[d / 8] >> (8 * (d % 8)) & 0xFF))
            continue; /* every key has this byte */
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[key_byte(&from[i], d) + 1]++;
        for (unsigned c = 1; c < 257; c++)
            count[c] += count[c - 1];
        for (size_t i = 0; i < n; i++)
            to[count[key_byte(&from[i], d)]++] = from[i];
        cs_fs_report *t = from;
        from = to;
        to = t;
    }
    if (from != v)
        memcpy(v, from, n * sizeof *v);
    free(tmp);
    return 0;
}

/* Sharers by first byte (their masks are disjoint, so the lowest bits
 * differ): an insertion sort, as lines have two or three. */
static void by_first_byte(cs_fs_sharer *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        cs_fs_sharer x = v[i];
        uint64_t low = x.mask & -x.mask;
        size_t j = i;
        for (; j > 0 && (v[j - 1].mask & -v[j - 1].mask) > low; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* The live records of two or more writers (all disjoint: an overlap
 * kills a line), into f->order; their sharers' count. */
static size_t collect(cs_falseshare *f)
{
    size_t nsharers = 0;
    for (size_t i = 0; i < f->nrecs; i++) {
        cs_fs_rec *r = &f->recs[i];
        if (r->n < 2) /* free, or one thread's */
            continue;
        uint64_t writes = 0;
        for (uint32_t k = 0; k < r->n; k++)
            writes += sharers(r)[k].writes;
        f->order[f->norder++] = (cs_fs_report){r->line, writes, r->alternations, i};
        nsharers += r->n;
    }
    return nsharers;
}

int cs_fs_finish(cs_falseshare *f, const tk_cachesim *s, size_t lines)
{
    free_report(f);
    size_t live = 0;
    for (size_t i = 0; i < f->nrecs; i++)
        live += !rec_is_free(&f->recs[i]);
    f->order = malloc((live + 1) * sizeof *f->order);
    f->out_at = malloc((live + 1) * sizeof *f->out_at);
    if (!f->order || !f->out_at)
        return -1;
    size_t nsharers = collect(f);
    if (sort_report(f->order, f->norder) != 0)
        return -1;
    /* the sharers of the first `lines` lines only (a million threads in
     * lines of 8 made 56 MB of them for the 20 lines shown) */
    f->nout = lines && lines < f->norder ? lines : f->norder;
    if (f->nout < f->norder) {
        nsharers = 0;
        for (size_t i = 0; i < f->nout; i++)
            nsharers += f->recs[f->order[i].rec].n;
    }
    f->out = malloc((nsharers + 1) * sizeof *f->out);
    if (!f->out)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < f->nout; i++) {
        cs_fs_rec *r = &f->recs[f->order[i].rec];
        uint64_t line = f->order[i].line;
        cs_fs_sharer *v = sharers(r);
        by_first_byte(v, r->n);
        f->out_at[i] = k;
        for (size_t j = 0; j < r->n; j++) {
            const cs_fs_sharer *w = &v[j];
            const cs_type *T = &s->types.v[w->type];
            unsigned top = 63 - (unsigned)__builtin_clzll(w->mask);
            tk_cachesim_sharer *o = &f->out[k++];
            o->thread = f->tids.keys[w->thread];
            o->first = first_byte(f, line, w->mask);
            o->last = (line << f->shift) + (((uint64_t)top + 1) << f->chunk_shift) - 1;
            o->writes = w->writes;
            o->type = w->type ? T->pub.name : NULL;
            o->offset = w->offset;
            o->field = w->field >= 0 ? T->fields[w->field].name : NULL;
        }
    }
    f->out_at[f->nout] = k;
    return 0;
}
