/* The casemate checker's model, shared by its files: check.c (driver,
 * memory events, hints), shadow.c (8-byte shadow memory), map.c (u64
 * hash map), pgtable.c (descriptors, geometry, walks), tlbi.c (DSB and
 * TLBI), locks.c (rules) and lockset.c (the held locks), roots.c (system
 * registers, roots), threads.c (threads, shared register files),
 * violation.c (codes, the captured violation), context.c (printing),
 * dot.c (Graphviz). Functions stepping the model return 0 (fine), 1 (a
 * violation was recorded) or -1 (error recorded in c->error). */
#ifndef TK_CASEMATE_CHECK_INT_H
#define TK_CASEMATE_CHECK_INT_H

#include <stddef.h>
#include <stdint.h>

#include <tracekit/casemate_check.h>

#include "core/chunks.h"

/* Propagate a 1 / -1 from a model step. */
#define CM_TRY(x)                                                            \
    do {                                                                     \
        int cm_rc_ = (x);                                                    \
        if (cm_rc_)                                                          \
            return cm_rc_;                                                   \
    } while (0)

/* ---------------------------------------------------------------- map.c */
/* u64 -> u64, open addressing with linear probing and backward-shift
 * deletion (so no tombstones build up). Zeroed = empty. */
typedef struct cm_map {
    uint64_t *keys, *vals;
    uint8_t *used;
    size_t cap, n;   /* cap: 0 or a power of two */
} cm_map;

uint64_t *cm_map_find(const cm_map *m, uint64_t key);
int cm_map_put(cm_map *m, uint64_t key, uint64_t val); /* 0, -1 no memory */
void cm_map_del(cm_map *m, uint64_t key);
void cm_map_free(cm_map *m);

/* ------------------------------------------------------------- shadow.c */
#define CM_PAGE_SHIFT 12
#define CM_PAGE ((uint64_t)1 << CM_PAGE_SHIFT)
#define CM_SLOTS 512u
#define CM_SLOT_OF(a) ((unsigned)(((a) >> 3) & (CM_SLOTS - 1)))
#define CM_PAGE_OF(a) ((a) & ~(CM_PAGE - 1))

enum { CM_INIT = 1, CM_PTE = 2, CM_FROZEN = 4 };

/* What the model knows of a page-table entry. */
typedef struct cm_pte {
    uint64_t root;      /* base of its tree */
    uint64_t ia;        /* first input address it maps */
    uint64_t old;       /* IU: the valid descriptor before */
    uint64_t inval;     /* IU, I: the invalidating thread */
    uint64_t owner;     /* thread owner, when `owned` */
    uint8_t level, stage, state, lis, owned;
} cm_pte;

/* A page with slots of their own. Elsewhere memory is described by the
 * region tree: initialised, not page-table memory, one value throughout. */
typedef struct cm_page {
    uint64_t base;
    uint64_t val[CM_SLOTS];
    uint8_t flags[CM_SLOTS];
    uint32_t npte, ninit;
    /* Entries not invalid-clean, and thread-owned ones: a table with
     * neither has nothing a walk must look at one entry at a time. */
    uint32_t nlive, nowned;
    /* Entries with a record of their own (a table marked invalid throughout
     * costs none): slot i's is pte[idx[i] - 1]; idx[i] == 0 (or i >=
     * idx_cap): the entry is as its marking left it (cm_pte_def). */
    cm_pte *pte;
    uint16_t *idx;
    uint32_t nown, pte_cap, idx_cap;
    /* The defaults of the latest marking: root, stage, level, first input
     * address, marking thread; invalid-clean, never owned. */
    uint64_t def_root, def_ia, def_inval;
    uint8_t def_level, def_stage;
    /* Made from one region of value `ufill` (uniform), and the slots
     * written since (dirty_lo..dirty_hi; none when lo > hi): giving the
     * page back looks at those only. */
    uint8_t uniform;
    uint8_t same;           /* a spare page: every val[] is ufill */
    uint16_t dirty_lo, dirty_hi;
    uint64_t ufill;
} cm_page;

/* Slots lo..hi of `p` may change value or initialisation. */
static inline void cm_page_dirty(cm_page *p, unsigned lo, unsigned hi)
{
    if (lo < p->dirty_lo)
        p->dirty_lo = (uint16_t)lo;
    if (hi > p->dirty_hi)
        p->dirty_hi = (uint16_t)hi;
}

/* The record of slot `i`'s entry, NULL while it has the defaults. */
static inline cm_pte *cm_pte_own(const cm_page *p, unsigned i)
{
    return i < p->idx_cap && p->idx[i] ? &p->pte[p->idx[i] - 1] : NULL;
}

/* Entry `e` of page `p` goes to `state`, keeping p->nlive. */
static inline void cm_pte_set_state(cm_page *p, cm_pte *e, uint8_t state)
{
    p->nlive += (uint32_t)(state != TK_CASEMATE_STATE_INVALID_CLEAN) -
                (uint32_t)(e->state != TK_CASEMATE_STATE_INVALID_CLEAN);
    e->state = state;
}

typedef struct cm_shadow {
    cm_map pages;           /* base >> 12 -> cm_page * */
    cm_page *last;          /* lookup cache */
    struct cm_regions *regions;
    uint64_t gen;           /* bumped when a page appears or goes */
    /* Pages given back with one value throughout, for the next pages made
     * (trees come and go): one of the same value needs no filling. */
    cm_page *spare[16];
    unsigned nspare;
} cm_shadow;

int cm_shadow_init(cm_shadow *s);
void cm_shadow_free(cm_shadow *s);
cm_page *cm_page_find(cm_shadow *s, uint64_t addr);
/* The page of `addr`, materialised from the regions; NULL: no memory. */
cm_page *cm_page_get(cm_shadow *s, uint64_t addr);
/* Slot `i`'s entry (a CM_PTE slot), read-only: its record, or the
 * defaults written to *tmp. */
const cm_pte *cm_pte_view(const cm_page *p, unsigned i, cm_pte *tmp);
/* Slot `i`'s entry to change: its record, made from the defaults on first
 * use (the address is good until the next cm_pte_mut on the page); NULL:
 * no memory. */
cm_pte *cm_pte_mut(cm_page *p, unsigned i);
/* Give every entry of `p` still at the defaults a record, before the
 * defaults change; -1: no memory. */
int cm_pte_pin(cm_page *p);
/* Forget a page with no initialised slot. */
void cm_page_drop(cm_shadow *s, cm_page *p);
/* A page that holds no entry any more (a tree let go of it): its entry
 * array goes, and when its slots are a few runs of one value the page goes
 * back to the regions, so trees released over time cost nothing. */
void cm_page_settle(cm_shadow *s, cm_page *p);
/* Value of the slot of `addr`; 0 when uninitialised. */
int cm_shadow_peek(const cm_shadow *s, uint64_t addr, uint64_t *val);
/* Regions (8-byte aligned, `last` inclusive). assign: [a, last] becomes
 * initialised with `fill` (only_existing: only where already initialised). */
int cm_region_assign(cm_shadow *s, uint64_t a, uint64_t last, uint64_t fill,
                     int only_existing);
int cm_region_clear(cm_shadow *s, uint64_t a, uint64_t last);
/* 1 and *at: the first uninitialised address of [a, last] in the regions. */
int cm_region_first_gap(const cm_shadow *s, uint64_t a, uint64_t last, uint64_t *at);
/* 1 and *at: the first address of [a, last] initialised with a value
 * other than `fill`. */
int cm_region_first_other(const cm_shadow *s, uint64_t a, uint64_t last,
                          uint64_t fill, uint64_t *at);
/* Bases of the pages with slots of their own in [a, last], ascending
 * (*out malloc'd, may be NULL when 0). -1: no memory. */
long cm_shadow_pages_in(const cm_shadow *s, uint64_t a, uint64_t last, uint64_t **out);
size_t cm_shadow_page_count(const cm_shadow *s);

/* ------------------------------------------------------------ pgtable.c */
enum { CM_DESC_INVALID = 0, CM_DESC_TABLE, CM_DESC_MAP, CM_DESC_BAD };
#define CM_TABLE_ADDR(v) ((v) & 0x0000fffffffff000ull)

int cm_desc_kind(uint64_t v, unsigned level);
uint64_t cm_level_size(unsigned level);
/* Does replacing valid `before` by valid `after` need break-before-make?
 * `af0_cached`: block and page descriptors with AF = 0 may be in a TLB
 * (hardware Access-flag management on, cm_af0_cached). */
int cm_requires_bbm(uint64_t before, uint64_t after, unsigned level, int af0_cached);
/* Can no TLB hold `v`, a valid descriptor at `level`? A block or page
 * with AF = 0 is never cached unless hardware manages the flag. */
int cm_never_cached(uint64_t v, unsigned level, int af0_cached);

/* --------------------------------------------------------------- model */
typedef struct cm_root {
    uint64_t base, id;      /* id: VMID (stage 2) or ASID (stage 1) */
    unsigned stage, level;  /* start level */
    unsigned ntables;       /* concatenated start tables */
    unsigned nentries;      /* entries used in each start table */
    uint64_t refcount;      /* threads with it loaded */
    uint64_t seq;           /* registration order */
} cm_root;

/* A thread's system registers but VTTBR_EL2, shared by the threads that
 * have the same (threads.c): a million vCPUs of a few VMs hold a few. */
typedef struct cm_regs {
    uint64_t reg[TK_CASEMATE_SYSREG_COUNT]; /* reg[VTTBR_EL2] unused: 0 */
    unsigned present;       /* bit per register (VTTBR_EL2's too) */
    uint64_t refs;          /* threads holding it */
    struct cm_regs *next;   /* same hash */
} cm_regs;

typedef struct cm_thread {
    uint64_t tid;
    uint64_t dsbs;          /* DSBs so far: they give write authorisation back */
    uint64_t vttbr;         /* VTTBR_EL2 (it differs per VM, so per thread) */
    cm_root *cur[2];        /* [0] TTBR0_EL2, [1] VTTBR_EL2: stage - 1 */
    cm_regs *regs;
} cm_thread;

/* threads.c: threads in chunks (their addresses stay put) found through
 * an index of 32-bit numbers, so a thread costs little more than itself. */
typedef struct cm_threads {
    tk_chunks recs;         /* cm_thread records */
    size_t n;
    uint32_t *slot;         /* thread number + 1; 0 empty */
    uint8_t *tag;           /* [slot]: the top byte of its tid's hash, so
                               a probe rarely reads a record it passes */
    size_t nslot;           /* 0 or a power of two */
    cm_map regfiles;        /* hash of a cm_regs -> the first with it */
    cm_regs *init;          /* a new thread's file, one reference kept
                               (else a million threads each made and freed
                               it), NULL: not made yet */
} cm_threads;

typedef struct cm_lock {
    uint64_t addr;
    uint64_t holder, count; /* count 0: a free record (holder: the next + 1) */
    int used;               /* a plain write used the authorisation ... */
    uint64_t used_at;       /* ... after the holder's DSB number used_at */
} cm_lock;

/* The held locks (locks.c): records in chunks, reused once released, found
 * through an index of 32-bit numbers, as threads are. */
typedef struct cm_locks {
    tk_chunks recs;         /* cm_lock records */
    size_t top;             /* records handed out */
    size_t n;               /* held */
    uint64_t free;          /* first free record + 1; 0 none */
    uint32_t *slot;         /* record + 1; 0 empty */
    size_t nslot;
} cm_locks;

/* An entry a DSB cleaned, with the descriptor it had before. */
typedef struct cm_cleaned {
    uint64_t addr, old;
    unsigned level;
} cm_cleaned;

typedef enum cm_code {
    CM_BBM_NO_BREAK = 0, CM_BBM_MISSING_TLBI, CM_BBM_UNCLEAN_CHILDREN,
    CM_WRITE_UNCLEAN_PARENT, CM_FREEZE_THREAD_OWNED,
    CM_NO_ROOT_LOCK, CM_UNLOCKED_WRITE, CM_UNAUTHORIZED_WRITE, CM_THREAD_OWNED_WRITE,
    CM_LOCK_HELD, CM_TRYLOCK_OTHER, CM_UNLOCK_NOT_HELD, CM_UNLOCK_OTHER,
    CM_UNINIT_WRITE, CM_INIT_USED, CM_FREE_PTE, CM_DOUBLE_USE, CM_PTE_CHANGED,
    CM_UNINIT_PTE, CM_BAD_ENCODING, CM_IA_SIZE, CM_UNINIT_SYSREG,
    CM_ASID_RESERVED, CM_ROOT_ID_CONFLICT, CM_DUPLICATE_ID, CM_ROOT_STAGE_CONFLICT,
    CM_NO_ROOT, CM_RELEASE_IN_USE, CM_RELEASE_UNCLEAN,
    CM_OWNER_ROOT_IN_TREE, CM_OWNER_UNINIT, CM_OWNER_NON_PTE, CM_OWNER_NOT_LEAF,
    CM_DSB_NSH, CM_TLBI_NOT_BROADCAST,
    CM_CODE_COUNT
} cm_code;

struct tk_casemate_checker {
    tk_casemate_check_options opt;
    cm_shadow sh;
    cm_map roots;           /* base -> cm_root * */
    cm_map ids[3];          /* [stage] id -> cm_root * (one space per stage) */
    cm_map root_locks;      /* root base -> lock address */
    cm_locks locks;
    cm_threads threads;
    uint64_t ha_threads[3]; /* [stage]: threads whose (V)TCR_EL2.HA is 1 */
    cm_thread *th;          /* thread of the record being fed */
    const tk_casemate_record *rec;
    uint64_t *unclean;      /* addresses of IU entries, oldest first */
    size_t nunclean, unclean_cap;
    struct cm_cleaned *cleaned; /* scratch: entries one DSB cleaned */
    size_t ncleaned, cleaned_cap;
    cm_map watch;           /* watched slot addresses */
    int touched;
    uint64_t events, root_seq;
    int stopped;            /* 1 violation, -1 error */
    tk_error error;
    uint64_t *rel;          /* related entries of the coming violation */
    size_t nrel, rel_cap;
    struct cm_violation *v;
};

/* pgtable.c: walks over the tree below a table (`n` entries from `table`,
 * the first mapping `ia` at `level`; marked entries know their level). */
int cm_mark_table(tk_casemate_checker *c, uint64_t root, unsigned stage, uint64_t table,
                  unsigned n, uint64_t ia, unsigned level);
int cm_mark_root(tk_casemate_checker *c, const cm_root *r);
/* 1 + violation `code` if an entry below is invalid-unclean. */
int cm_check_clean(tk_casemate_checker *c, uint64_t table, cm_code code, uint64_t parent);
int cm_check_clean_root(tk_casemate_checker *c, const cm_root *r, cm_code code);
void cm_unmark_table(tk_casemate_checker *c, uint64_t table);
void cm_unmark_root(tk_casemate_checker *c, const cm_root *r);
int cm_freeze_table(tk_casemate_checker *c, uint64_t table, uint64_t parent);

/* The slot of `addr` and its page (NULL when the page has no slots). */
static inline cm_page *cm_slot(tk_casemate_checker *c, uint64_t addr, unsigned *i)
{
    *i = CM_SLOT_OF(addr);
    return cm_page_find(&c->sh, addr);
}

/* check.c */
int cm_write_slot(tk_casemate_checker *c, uint64_t addr, uint64_t val, int release);
int cm_oom(tk_casemate_checker *c);
int cm_unsupported(tk_casemate_checker *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int cm_unclean_add(tk_casemate_checker *c, uint64_t addr);
static inline void cm_touch(tk_casemate_checker *c, uint64_t addr)
{
    if (c->watch.n && cm_map_find(&c->watch, addr & ~(uint64_t)7))
        c->touched = 1;
}
void cm_touch_range(tk_casemate_checker *c, uint64_t a, uint64_t last);

/* mem.c: the memory events */
int cm_step_mem(tk_casemate_checker *c, const tk_casemate_record *rec);

/* tlbi.c */
int cm_step_dsb(tk_casemate_checker *c, tk_casemate_barrier kind);
int cm_step_tlbi(tk_casemate_checker *c, const tk_casemate_record *rec);

/* locks.c */
int cm_step_lock(tk_casemate_checker *c, tk_casemate_kind kind, uint64_t addr);
/* Does the current thread hold what guards entry `e` (always with -R)? */
int cm_locked_by_me(tk_casemate_checker *c, const cm_pte *e);
/* Ownership, lock and write-authorisation rules of a write to entry `e`. */
int cm_check_write_auth(tk_casemate_checker *c, uint64_t addr, const cm_pte *e, uint8_t state,
                        uint64_t val, int release);
/* May the holder of `l` still write plain? */
int cm_lock_authorised(const tk_casemate_checker *c, const cm_lock *l);
void cm_locks_free(tk_casemate_checker *c);
/* The held lock at `addr`, NULL when none. */
cm_lock *cm_lock_find(const tk_casemate_checker *c, uint64_t addr);
/* Record `k` (0 <= k < c->locks.top): a held lock when its count is not 0. */
const cm_lock *cm_lock_nth(const tk_casemate_checker *c, size_t k);
cm_lock *cm_lock_add(tk_casemate_checker *c, uint64_t addr); /* NULL: no memory */
void cm_lock_del(tk_casemate_checker *c, cm_lock *l);
void cm_lockset_free(tk_casemate_checker *c);

/* threads.c */
cm_thread *cm_thread_get(tk_casemate_checker *c, uint64_t tid); /* NULL: no memory */
cm_thread *cm_thread_find(const tk_casemate_checker *c, uint64_t tid);
int cm_thread_has(const cm_thread *t, unsigned reg);
uint64_t cm_thread_reg(const cm_thread *t, unsigned reg); /* 0 when not written */
int cm_thread_set_reg(tk_casemate_checker *c, cm_thread *t, unsigned reg, uint64_t v); /* -1 */
void cm_threads_free(tk_casemate_checker *c);

/* roots.c */
int cm_step_sysreg(tk_casemate_checker *c, tk_casemate_sysreg reg, uint64_t value);
int cm_release_table(tk_casemate_checker *c, uint64_t addr);
cm_root *cm_root_find(tk_casemate_checker *c, uint64_t base);
/* May a TLB of the regime of `stage` hold descriptors with AF = 0? Yes
 * with --hw-af, or while some thread has its (V)TCR_EL2.HA set. */
int cm_af0_cached(const tk_casemate_checker *c, unsigned stage);
/* The VMID of the current thread's VTTBR_EL2; 0 when it never wrote one. */
int cm_current_vmid(tk_casemate_checker *c, uint64_t *vmid);
void cm_roots_free(tk_casemate_checker *c);
/* Roots in registration order (malloc'd array, *n entries). */
cm_root **cm_roots_sorted(const tk_casemate_checker *c, size_t *n);

/* violation.c */
const char *cm_code_name(cm_code code);
const char *cm_code_message(cm_code code);
/* Note an entry the coming violation is about. */
void cm_relate(tk_casemate_checker *c, uint64_t addr);
/* Record the violation (with the related entries and the record being
 * fed) and return 1. `detail` is printf-style, may be NULL. */
int cm_violate(tk_casemate_checker *c, cm_code code, const char *detail, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int cm_violation_alloc(tk_casemate_checker *c);
void cm_violation_free(tk_casemate_checker *c);
/* Fill `e` from the model (0: unknown location). */
int cm_entry_get(const tk_casemate_checker *c, uint64_t addr, tk_casemate_entry *e);

#endif
