/* Descriptors (4 KiB granule, 48-bit addresses) and the walks over the
 * trees the model knows: marking a new table's entries, checking a subtree
 * is clean, unmarking and freezing it. Every walk follows the current
 * values of entries the model has marked, so it ends: marking refuses an
 * entry twice ("double-use pte"), which rules out cycles, and a table
 * entry below level 3 leads one level down. */
#include <string.h>

#include "casemate/check/check_int.h"

#define SW_BITS 0x0780000000000000ull /* [58:55], for software */
#define AF_BIT 0x400ull               /* access flag */

int cm_desc_kind(uint64_t v, unsigned level)
{
    if (!(v & 1))
        return CM_DESC_INVALID;
    if (level < 3 && (v & 2))
        return CM_DESC_TABLE;
    if (level == 0 || (level == 3 && !(v & 2)))
        return CM_DESC_BAD; /* level-0 block, level-3 0b01 */
    return CM_DESC_MAP;
}

uint64_t cm_level_size(unsigned level)
{
    return (uint64_t)1 << (12 + 9 * (3 - (level & 3)));
}

static uint64_t oa_mask(unsigned level)
{
    return 0x0000fffffffff000ull & ~(cm_level_size(level) - 1);
}

/* A block or page descriptor with AF = 0 is never cached in a TLB unless
 * hardware Access-flag management is on (Arm ARM, the Access flag: with
 * HA = 0 an access through it is an Access flag fault, and descriptors
 * that fault are not cached). Table descriptors have no AF. */
int cm_never_cached(uint64_t v, unsigned level, int af0_cached)
{
    return !af0_cached && cm_desc_kind(v, level) == CM_DESC_MAP && !(v & AF_BIT);
}

/* casemate over-approximates the architecture's list (D8.16.1) by "any
 * change but the software bits". tracekit keeps that, but (1) an identical
 * table rewrite needs nothing, (2) a change of output address always needs
 * BBM, (3) a change of the access flag alone needs none -- casemate
 * skipped every check as soon as either descriptor had AF set -- and (4)
 * nothing needs BBM when the old descriptor cannot be in a TLB. */
int cm_requires_bbm(uint64_t before, uint64_t after, unsigned level, int af0_cached)
{
    int kb = cm_desc_kind(before, level), ka = cm_desc_kind(after, level);
    if (cm_never_cached(before, level, af0_cached))
        return 0;
    if (kb == CM_DESC_TABLE || ka == CM_DESC_TABLE)
        return ((before ^ after) & ~SW_BITS) != 0;
    if ((before & oa_mask(level)) != (after & oa_mask(level)))
        return 1;
    return ((before ^ after) & ~(SW_BITS | AF_BIT)) != 0;
}

/* ---------------------------------------------------------------- mark */

/* Flags 8 at a time: each byte of a word holds `b`. */
#define BYTES(b) (0x0101010101010101ull * (uint64_t)(b))

static uint64_t flags8(const cm_page *p, unsigned i)
{
    uint64_t w;
    memcpy(&w, p->flags + i, 8);
    return w;
}

static void set_flags8(cm_page *p, unsigned i, uint64_t w)
{
    memcpy(p->flags + i, &w, 8);
}

/* Mark the first `n` entries of `p` at once when each is initialised,
 * invalid, not an entry yet and without a record, and no slot is watched:
 * each would only be flagged, with the defaults. 0: not that case. */
static int mark_plain(tk_casemate_checker *c, cm_page *p, unsigned n)
{
    if (c->watch.n || p->nown)
        return 0;
    uint64_t bad = 0;
    unsigned i = 0;
    for (; i + 8 <= n; i += 8) /* one pass, no branch */
        bad |= (flags8(p, i) & BYTES(CM_INIT | CM_PTE)) ^ BYTES(CM_INIT);
    for (; i < n; i++)
        bad |= (uint64_t)((p->flags[i] & (CM_INIT | CM_PTE)) ^ CM_INIT);
    for (i = 0; i < n; i++)
        bad |= p->val[i] & 1;
    if (bad)
        return 0;
    for (i = 0; i + 8 <= n; i += 8)
        set_flags8(p, i, (flags8(p, i) | BYTES(CM_PTE)) & ~BYTES(CM_FROZEN));
    for (; i < n; i++)
        p->flags[i] = (uint8_t)((p->flags[i] | CM_PTE) & ~CM_FROZEN);
    p->npte += n;
    return 1;
}

int cm_mark_table(tk_casemate_checker *c, uint64_t root, unsigned stage, uint64_t table,
                  unsigned n, uint64_t ia, unsigned level)
{
    cm_page *p = cm_page_get(&c->sh, table);
    if (!p)
        return cm_oom(c);
    /* entries marked invalid keep these defaults and need no record */
    if (p->npte && cm_pte_pin(p) != 0)
        return cm_oom(c);
    p->def_root = root;
    p->def_ia = ia;
    p->def_inval = c->th->tid;
    p->def_level = (uint8_t)level;
    p->def_stage = (uint8_t)stage;
    if (mark_plain(c, p, n))
        return 0;
    uint64_t size = cm_level_size(level);
    for (unsigned i = 0; i < n; i++) {
        uint64_t addr = table + 8 * (uint64_t)i;
        if (!(p->flags[i] & CM_INIT)) {
            cm_relate(c, addr);
            return cm_violate(c, CM_UNINIT_PTE, "entry 0x%llx of the tree of root 0x%llx",
                              (unsigned long long)addr, (unsigned long long)root);
        }
        uint64_t v = p->val[i];
        int kind = cm_desc_kind(v, level);
        if (kind == CM_DESC_BAD) {
            cm_relate(c, addr);
            return cm_violate(c, CM_BAD_ENCODING, "0x%llx at level %u of root 0x%llx",
                              (unsigned long long)v, level, (unsigned long long)root);
        }
        if (p->flags[i] & CM_PTE) {
            cm_pte tmp;
            cm_relate(c, addr);
            return cm_violate(c, CM_DOUBLE_USE, "0x%llx is already an entry of root 0x%llx",
                              (unsigned long long)addr,
                              (unsigned long long)cm_pte_view(p, i, &tmp)->root);
        }
        cm_pte *e = cm_pte_own(p, i); /* a record left from before is reused */
        if (e || kind != CM_DESC_INVALID) {
            if (!e && !(e = cm_pte_mut(p, i)))
                return cm_oom(c);
            *e = (cm_pte){.root = root, .ia = ia + i * size, .inval = c->th->tid,
                          .level = (uint8_t)level, .stage = (uint8_t)stage,
                          .state = kind == CM_DESC_INVALID ? TK_CASEMATE_STATE_INVALID_CLEAN
                                                           : TK_CASEMATE_STATE_VALID};
        }
        p->flags[i] = (uint8_t)((p->flags[i] | CM_PTE) & ~CM_FROZEN);
        p->npte++;
        p->nlive += kind != CM_DESC_INVALID;
        cm_touch(c, addr);
        if (kind == CM_DESC_TABLE) {
            CM_TRY(cm_mark_table(c, root, stage, CM_TABLE_ADDR(v), CM_SLOTS, ia + i * size,
                                 level + 1));
        }
    }
    return 0;
}

int cm_mark_root(tk_casemate_checker *c, const cm_root *r)
{
    uint64_t span = (uint64_t)CM_SLOTS * cm_level_size(r->level);
    for (unsigned t = 0; t < r->ntables; t++)
        CM_TRY(cm_mark_table(c, r->base, r->stage, r->base + t * CM_PAGE, r->nentries, t * span,
                             r->level));
    return 0;
}

/* ------------------------------------------------ walks of marked trees */

typedef enum { W_CHECK, W_UNMARK, W_FREEZE } walk_kind;

/* A walk of the first `n` entries of `p` when none is live (none is
 * invalid-unclean or leads down) nor owned, and no slot is watched: all
 * the entries would do is change flags. One pass over the flags. */
static void walk_flags(cm_page *p, unsigned n, walk_kind k)
{
    unsigned i = 0, gone = 0;
    if (k == W_FREEZE) { /* CM_PTE << 1 == CM_FROZEN, within each byte */
        for (; i + 8 <= n; i += 8)
            set_flags8(p, i, flags8(p, i) | (flags8(p, i) & BYTES(CM_PTE)) << 1);
        for (; i < n; i++)
            p->flags[i] |= (uint8_t)((p->flags[i] & CM_PTE) << 1);
        return;
    }
    for (; i + 8 <= n; i += 8) {
        uint64_t w = flags8(p, i);
        /* the bytes' CM_PTE bits, summed in the top byte (at most 8) */
        gone += (unsigned)((((w >> 1) & BYTES(1)) * BYTES(1)) >> 56);
        set_flags8(p, i, w & ~BYTES(CM_PTE | CM_FROZEN));
    }
    for (; i < n; i++) {
        gone += (p->flags[i] & CM_PTE) >> 1;
        p->flags[i] &= (uint8_t)~(CM_PTE | CM_FROZEN);
    }
    p->npte -= gone;
}

static int walk(tk_casemate_checker *c, uint64_t table, unsigned n, walk_kind k,
                cm_code code, uint64_t parent)
{
    _Static_assert(CM_PTE << 1 == CM_FROZEN, "walk_flags shifts CM_PTE to CM_FROZEN");
    cm_page *p = cm_page_find(&c->sh, table);
    if (!p || !p->npte)
        return 0;
    if (!p->nlive && !p->nowned && (k == W_CHECK || !c->watch.n)) {
        if (k == W_CHECK)
            return 0;
        walk_flags(p, n, k);
        if (k == W_UNMARK && p->npte == 0)
            cm_page_settle(&c->sh, p);
        return 0;
    }
    for (unsigned i = 0; i < n; i++) {
        if (!(p->flags[i] & CM_PTE))
            continue;
        uint64_t addr = table + 8 * (uint64_t)i;
        cm_pte tmp, *e = cm_pte_own(p, i);
        if (!e) { /* at the defaults: changes to tmp change nothing */
            cm_pte_view(p, i, &tmp);
            e = &tmp;
        }
        int down = e->state == TK_CASEMATE_STATE_VALID &&
                   cm_desc_kind(p->val[i], e->level) == CM_DESC_TABLE;
        switch (k) {
        case W_CHECK:
            if (e->state == TK_CASEMATE_STATE_INVALID_UNCLEAN) {
                if (parent != UINT64_MAX)
                    cm_relate(c, parent);
                cm_relate(c, addr);
                return cm_violate(c, code, "0x%llx is invalid-unclean",
                                  (unsigned long long)addr);
            }
            break;
        case W_UNMARK:
            p->flags[i] &= (uint8_t)~(CM_PTE | CM_FROZEN);
            p->nlive -= e->state != TK_CASEMATE_STATE_INVALID_CLEAN;
            p->nowned -= e->owned;
            e->owned = 0;
            p->npte--;
            cm_touch(c, addr);
            break;
        case W_FREEZE:
            if (e->owned) {
                cm_relate(c, parent);
                cm_relate(c, addr);
                return cm_violate(c, CM_FREEZE_THREAD_OWNED, "0x%llx is owned by thread %llu",
                                  (unsigned long long)addr, (unsigned long long)e->owner);
            }
            p->flags[i] |= CM_FROZEN;
            cm_touch(c, addr);
            break;
        }
        if (down) /* pages stay where they are: p and e remain valid */
            CM_TRY(walk(c, CM_TABLE_ADDR(p->val[i]), CM_SLOTS, k, code, parent));
    }
    if (k == W_UNMARK && p->npte == 0) /* after its subtrees: p goes last */
        cm_page_settle(&c->sh, p);
    return 0;
}

int cm_check_clean(tk_casemate_checker *c, uint64_t table, cm_code code, uint64_t parent)
{
    return walk(c, table, CM_SLOTS, W_CHECK, code, parent);
}

int cm_check_clean_root(tk_casemate_checker *c, const cm_root *r, cm_code code)
{
    for (unsigned t = 0; t < r->ntables; t++)
        CM_TRY(walk(c, r->base + t * CM_PAGE, r->nentries, W_CHECK, code,
                    UINT64_MAX));
    return 0;
}

void cm_unmark_table(tk_casemate_checker *c, uint64_t table)
{
    walk(c, table, CM_SLOTS, W_UNMARK, CM_CODE_COUNT, UINT64_MAX);
}

void cm_unmark_root(tk_casemate_checker *c, const cm_root *r)
{
    for (unsigned t = 0; t < r->ntables; t++)
        walk(c, r->base + t * CM_PAGE, r->nentries, W_UNMARK, CM_CODE_COUNT,
             UINT64_MAX);
}

int cm_freeze_table(tk_casemate_checker *c, uint64_t table, uint64_t parent)
{
    return walk(c, table, CM_SLOTS, W_FREEZE, CM_CODE_COUNT, parent);
}
