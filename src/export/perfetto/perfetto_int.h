/* The Perfetto writer's state, shared by perfetto.c (packets) and
 * intern.c (interning tables and per-sequence id sets). */
#ifndef TK_EXPORT_PERFETTO_INT_H
#define TK_EXPORT_PERFETTO_INT_H

#include "core/hashmap.h"
#include "export/perfetto/pb.h"
#include "export/perfetto/perfetto.h"

/* The interning tables, and InternedData's field for each. */
enum { TK_PF_NAMES, TK_PF_CATEGORIES, TK_PF_ARG_NAMES, TK_PF_STRINGS, TK_PF_KINDS };

/* An interning table: the strings in one block, NUL-terminated one after
 * another (no allocation per string: names can be millions), string i
 * (iid i + 1) at off[i] up to off[i + 1]; a hashed index over them. A
 * string added as new (tk_pf_intern_new) is marked TK_PF_UNHASHED in its
 * offset and kept out of the index. */
#define TK_PF_UNHASHED (1ull << 63)
typedef struct tk_pf_table {
    char *bytes;
    size_t len, cap;
    uint64_t *off;   /* n + 1 entries once there is one string */
    size_t n, off_cap, hashed;
    uint64_t *slots; /* the hash's high half and index + 1 (0: empty) */
    size_t nslots;
} tk_pf_table;

/* A set of (kind, iid) keys: the first TK_PF_INLINE in `inl` (a thread's
 * sequence mostly defines one or two names: no allocation for them), then
 * open addressing, 0 = empty slot. */
#define TK_PF_INLINE 2
typedef struct tk_pf_idset {
    uint64_t *slots; /* NULL: the keys are inl[0 .. n) */
    uint32_t n, mask;
    uint64_t inl[TK_PF_INLINE];
} tk_pf_idset;

/* Kept small: a trace may have a sequence per thread, millions of them.
 * They are allocated in blocks (tk_perfetto.blocks), not one by one. */
struct tk_perfetto_seq {
    tk_perfetto *p;
    uint64_t last_ts;       /* on the incremental clock */
    uint64_t default_track; /* TrackEventDefaults' track, 0 = none */
    tk_pf_idset used;       /* ids defined on this sequence since then */
    uint32_t gen;           /* p->gen when the state was last cleared, 0:
                               never (not started; p->gen is never 0) */
    uint32_t id;            /* trusted_packet_sequence_id */
};

struct tk_perfetto {
    FILE *out;
    tk_pb buf;                     /* packets not yet written */
    tk_pf_table strings[TK_PF_KINDS]; /* string i has iid i + 1 */
    tk_perfetto_seq **blocks;      /* TK_PF_SEQ_BLOCK sequences each */
    size_t nseqs, blocks_cap;
    uint32_t gen;                  /* bumped when every sequence must clear
                                      (from 1; 0 is a sequence not started) */
    uint64_t used_total;           /* ids in all sequences' sets */
    uint64_t packets;
};

#define TK_PF_SEQ_BLOCK 1024
/* Sequence i (0-based). */
static inline tk_perfetto_seq *tk_pf_seq(const tk_perfetto *p, size_t i)
{
    return &p->blocks[i / TK_PF_SEQ_BLOCK][i % TK_PF_SEQ_BLOCK];
}

/* The id of `s` in table `kind`; 0 with `err` filled on OOM. */
uint64_t tk_pf_intern(tk_perfetto *p, int kind, const char *s, size_t n, tk_error *err);
/* The same for a string the caller knows is not in the table and will not
 * look up again (one it made from an id it caches): added, not hashed. */
uint64_t tk_pf_intern_new(tk_perfetto *p, int kind, const char *s, size_t n, tk_error *err);
void tk_pf_table_free(tk_pf_table *t);
/* The string of id `iid` in table `kind` (iid valid). */
const char *tk_pf_interned(const tk_perfetto *p, int kind, uint64_t iid, size_t *n);

/* Add (kind, iid) to `seq`'s set: 1 when new (define it in this packet),
 * 0 when already there, -1 out of memory. */
int tk_pf_use(tk_perfetto_seq *seq, int kind, uint64_t iid);
/* The slot where a set's search for `key` starts (Fibonacci hashing:
 * inline, it runs per event). */
static inline uint32_t tk_pf_slot(const tk_pf_idset *s, uint64_t key)
{
    return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & s->mask;
}

static inline uint64_t tk_pf_key(int kind, uint64_t iid)
{
    return (uint64_t)kind << 60 | iid; /* iids stay far below 2^60 */
}

/* Has `seq` defined (kind, iid) since its state was cleared? */
static inline int tk_pf_used(const tk_perfetto_seq *seq, int kind, uint64_t iid)
{
    const tk_pf_idset *s = &seq->used;
    uint64_t key = tk_pf_key(kind, iid);
    if (!s->slots) {
        for (uint32_t i = 0; i < s->n; i++)
            if (s->inl[i] == key)
                return 1;
        return 0;
    }
    for (uint32_t j = tk_pf_slot(s, key); s->slots[j]; j = (j + 1) & s->mask)
        if (s->slots[j] == key)
            return 1;
    return 0;
}
/* Forget `seq`'s ids (its incremental state is being cleared). */
void tk_pf_forget(tk_perfetto_seq *seq);
/* Does `seq` have to clear its state before its next packet? */
static inline int tk_pf_must_clear(const tk_perfetto_seq *seq)
{
    return seq->gen != seq->p->gen ||
           seq->used.n >= TK_PERFETTO_SEQ_INTERN_MAX;
}

#endif
