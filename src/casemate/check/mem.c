/* Memory events: mem-write (and the per-entry automaton), mem-read,
 * mem-init, mem-free, mem-set. An address names the 8-byte slot holding
 * it; mem-init and mem-free act on every slot their range overlaps,
 * mem-set on the bytes of its range. Ranges are walked in address order,
 * page by page where pages have slots of their own and as whole regions
 * elsewhere, so the first failing slot is the one reported and a range
 * of any size costs what the pages in it cost. */
#include <stdlib.h>

#include "casemate/check/check_int.h"

void cm_touch_range(tk_casemate_checker *c, uint64_t a, uint64_t last)
{
    for (size_t i = 0; c->watch.n && i < c->watch.cap; i++)
        if (c->watch.used[i] && c->watch.keys[i] >= (a & ~(uint64_t)7) && c->watch.keys[i] <= last)
            c->touched = 1;
}

static int uninit_write(tk_casemate_checker *c, uint64_t addr)
{
    if (c->opt.ignore_uninit)
        return 0;
    cm_relate(c, addr);
    return cm_violate(c, CM_UNINIT_WRITE, "0x%llx was never initialised (mem-init)",
                      (unsigned long long)addr);
}

static int bad_encoding(tk_casemate_checker *c, uint64_t addr, uint64_t val, unsigned level)
{
    cm_relate(c, addr);
    return cm_violate(c, CM_BAD_ENCODING, "0x%llx is not a descriptor at level %u%s",
                      (unsigned long long)val, level,
                      level == 0 ? " (no blocks at level 0)" : " (0b01 at level 3)");
}

/* A write to a valid entry (V): a valid value unless BBM is needed, or the
 * break: IU until cleaned -- or I at once when no TLB can hold the old
 * descriptor (AF = 0 without hardware Access-flag management). */
static int write_valid_entry(tk_casemate_checker *c, uint64_t addr, cm_page *p, unsigned i,
                             uint64_t val)
{
    cm_pte *e = cm_pte_mut(p, i); /* a valid entry has its record already */
    if (!e)
        return cm_oom(c);
    uint64_t cur = p->val[i];
    int af0_cached = cm_af0_cached(c, e->stage);
    if (val & 1) {
        if (cm_desc_kind(val, e->level) == CM_DESC_BAD)
            return bad_encoding(c, addr, val, e->level);
        if (cm_requires_bbm(cur, val, e->level, af0_cached)) {
            cm_relate(c, addr);
            return cm_violate(c, CM_BBM_NO_BREAK, "0x%llx -> 0x%llx: a valid entry changed "
                              "without first being made invalid and cleaned",
                              (unsigned long long)cur, (unsigned long long)val);
        }
        p->val[i] = val;
        return 0;
    }
    p->val[i] = val;
    if (cm_never_cached(cur, e->level, af0_cached)) {
        cm_pte_set_state(p, e, TK_CASEMATE_STATE_INVALID_CLEAN);
        e->inval = c->th->tid;
        return 0;
    }
    *e = (cm_pte){.root = e->root, .ia = e->ia, .old = cur, .inval = c->th->tid,
                  .owner = e->owner, .level = e->level, .stage = e->stage,
                  .state = TK_CASEMATE_STATE_INVALID_UNCLEAN, .lis = TK_CASEMATE_LIS_UNGUARDED,
                  .owned = e->owned};
    CM_TRY(cm_unclean_add(c, addr));
    if (cm_desc_kind(cur, e->level) == CM_DESC_TABLE) /* its subtree stays as is */
        CM_TRY(cm_freeze_table(c, CM_TABLE_ADDR(cur), addr));
    return 0;
}

int cm_write_slot(tk_casemate_checker *c, uint64_t addr, uint64_t val, int release)
{
    cm_touch(c, addr);
    unsigned i;
    cm_page *p = cm_slot(c, addr, &i);
    if (!p) {
        uint64_t fill;
        if (!cm_shadow_peek(&c->sh, addr, &fill))
            return uninit_write(c, addr);
        if (fill == val)
            return 0;
        if (!(p = cm_page_get(&c->sh, addr)))
            return cm_oom(c);
    }
    if (!(p->flags[i] & CM_INIT))
        return uninit_write(c, addr);
    cm_page_dirty(p, i, i);
    if (!(p->flags[i] & CM_PTE)) {
        p->val[i] = val;
        return 0;
    }
    cm_pte tmp;
    const cm_pte *e = cm_pte_view(p, i, &tmp);
    uint64_t cur = p->val[i];
    CM_TRY(cm_check_write_auth(c, addr, e, e->state, val, release));
    if (p->flags[i] & CM_FROZEN) {
        /* below an invalid-unclean table entry: only no-op writes */
        if (cur == val || (!(cur & 1) && !(val & 1))) {
            p->val[i] = val;
            return 0;
        }
        cm_relate(c, addr);
        return cm_violate(c, CM_WRITE_UNCLEAN_PARENT,
                          "0x%llx is below a table entry written invalid and not yet clean",
                          (unsigned long long)addr);
    }
    int kind = cm_desc_kind(val, e->level);
    switch (e->state) {
    case TK_CASEMATE_STATE_VALID:
        return write_valid_entry(c, addr, p, i, val);
    case TK_CASEMATE_STATE_INVALID_UNCLEAN:
        if (val & 1) {
            cm_relate(c, addr);
            return cm_violate(c, CM_BBM_MISSING_TLBI, "0x%llx, written invalid by thread %llu, "
                              "is not clean yet (%s): a DSB ISH, a TLBI and a DSB ISH by that "
                              "thread must come first", (unsigned long long)addr,
                              (unsigned long long)e->inval, tk_casemate_lis_name((tk_casemate_lis)e->lis));
        }
        p->val[i] = val;
        return 0;
    default: /* invalid, clean */
        if (!(val & 1)) {
            p->val[i] = val;
            return 0;
        }
        if (kind == CM_DESC_BAD)
            return bad_encoding(c, addr, val, e->level);
        cm_pte *m = cm_pte_mut(p, i);
        if (!m)
            return cm_oom(c);
        p->val[i] = val;
        cm_pte_set_state(p, m, TK_CASEMATE_STATE_VALID);
        if (kind == CM_DESC_TABLE)
            return cm_mark_table(c, m->root, m->stage, CM_TABLE_ADDR(val), CM_SLOTS, m->ia,
                                 m->level + 1u);
        return 0;
    }
}

/* ------------------------------------------------------------- ranges */

/* Called for the parts of a range in address order: `p` is the page of a
 * part inside a page with slots of its own, NULL for a part covered by
 * regions (or by nothing). */
typedef int (*part_fn)(tk_casemate_checker *c, uint64_t a, uint64_t last, cm_page *p,
                       uint64_t arg);

static int parts(tk_casemate_checker *c, uint64_t a, uint64_t last, part_fn fn, uint64_t arg)
{
    for (;;) {
        uint64_t *pages;
        long n = cm_shadow_pages_in(&c->sh, a, last, &pages);
        if (n < 0)
            return cm_oom(c);
        uint64_t gen = c->sh.gen, pos = a;
        int rc = 0, again = 0;
        for (long k = 0; !rc && !again; k++) {
            if (k == n) { /* after the last page */
                rc = fn(c, pos, last, NULL, arg);
                break;
            }
            uint64_t base = pages[k];
            if (base > pos && (rc = fn(c, pos, base - 1, NULL, arg)) != 0)
                break;
            uint64_t lo = base > pos ? base : pos, hi = base + (CM_PAGE - 1);
            if (hi > last)
                hi = last;
            rc = fn(c, lo, hi, cm_page_find(&c->sh, base), arg);
            if (rc || hi == last)
                break;
            pos = hi + 1;
            again = c->sh.gen != gen; /* pages came or went: look again */
        }
        free(pages);
        if (!again)
            return rc;
        a = pos;
    }
}

static int init_part(tk_casemate_checker *c, uint64_t a, uint64_t last, cm_page *p, uint64_t arg)
{
    (void)arg;
    uint64_t at;
    if (p)
        cm_page_dirty(p, CM_SLOT_OF(a), CM_SLOT_OF(last));
    if (!p) {
        if (cm_region_first_other(&c->sh, a, last, 0, &at)) {
            cm_relate(c, at);
            return cm_violate(c, CM_INIT_USED, "0x%llx is in use (not zero)",
                              (unsigned long long)at);
        }
        cm_touch_range(c, a, last);
        return cm_region_assign(&c->sh, a, last, 0, 0) ? cm_oom(c) : 0;
    }
    for (unsigned i = CM_SLOT_OF(a), j = CM_SLOT_OF(last); i <= j; i++) {
        uint64_t addr = p->base + 8 * (uint64_t)i;
        if (!(p->flags[i] & CM_INIT)) {
            p->flags[i] |= CM_INIT;
            p->val[i] = 0;
            p->ninit++;
        } else if ((p->flags[i] & CM_PTE) || p->val[i]) {
            cm_relate(c, addr);
            return cm_violate(c, CM_INIT_USED, "0x%llx is %s", (unsigned long long)addr,
                              (p->flags[i] & CM_PTE) ? "a page-table entry" : "in use (not zero)");
        }
        cm_touch(c, addr);
    }
    return 0;
}

static int free_part(tk_casemate_checker *c, uint64_t a, uint64_t last, cm_page *p, uint64_t arg)
{
    (void)arg;
    cm_touch_range(c, a, last);
    if (!p)
        return cm_region_clear(&c->sh, a, last) ? cm_oom(c) : 0;
    cm_page_dirty(p, CM_SLOT_OF(a), CM_SLOT_OF(last));
    for (unsigned i = CM_SLOT_OF(a), j = CM_SLOT_OF(last); i <= j; i++) {
        if (p->flags[i] & CM_PTE) {
            uint64_t addr = p->base + 8 * (uint64_t)i;
            cm_relate(c, addr);
            cm_pte tmp;
            return cm_violate(c, CM_FREE_PTE, "0x%llx is an entry of the tree of root 0x%llx",
                              (unsigned long long)addr,
                              (unsigned long long)cm_pte_view(p, i, &tmp)->root);
        }
        if (p->flags[i] & CM_INIT) {
            p->flags[i] = 0;
            p->val[i] = 0;
            p->ninit--;
        }
    }
    if (p->ninit == 0 && p->npte == 0) { /* nothing left to know: back to the regions */
        if (cm_region_clear(&c->sh, p->base, p->base + (CM_PAGE - 1)))
            return cm_oom(c);
        cm_page_drop(&c->sh, p);
    }
    return 0;
}

static int set_part(tk_casemate_checker *c, uint64_t a, uint64_t last, cm_page *p, uint64_t val)
{
    uint64_t at;
    if (!p) {
        if (!c->opt.ignore_uninit && cm_region_first_gap(&c->sh, a, last, &at))
            return uninit_write(c, at);
        cm_touch_range(c, a, last);
        return cm_region_assign(&c->sh, a, last, val, 1) ? cm_oom(c) : 0;
    }
    for (uint64_t s = a;; s += 8) { /* each slot through the automaton */
        CM_TRY(cm_write_slot(c, s, val, 0));
        if (s + 7 >= last)
            return 0;
    }
}

/* The part of the slot at `slot` that bytes lo..hi (0-7) of `pattern`
 * replace. */
static int set_bytes(tk_casemate_checker *c, uint64_t slot, unsigned lo, unsigned hi, uint64_t pattern)
{
    uint64_t mask = (hi == 7 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * (hi + 1))) - 1) &
                    ~(((uint64_t)1 << (8 * lo)) - 1);
    uint64_t old;
    cm_shadow_peek(&c->sh, slot, &old);
    return cm_write_slot(c, slot, (old & ~mask) | (pattern & mask), 0);
}

/* The spec: `value` is a byte stored to every byte; casemate stored it to
 * every 8-byte slot. Both agree on 0; a byte value is replicated, a wider
 * one is kept as casemate's slot value. */
static int mem_set(tk_casemate_checker *c, uint64_t start, uint64_t size, uint64_t value)
{
    if (!size)
        return 0;
    uint64_t end = size - 1 > UINT64_MAX - start ? UINT64_MAX : start + (size - 1);
    uint64_t pattern = value <= 0xff ? value * 0x0101010101010101ull : value;
    uint64_t head = start & ~(uint64_t)7, tail = end & ~(uint64_t)7;
    if (head == tail && ((start & 7) || (end & 7) != 7))
        return set_bytes(c, head, start & 7, end & 7, pattern);
    uint64_t full_a = start, full_last = end;
    if (start & 7) {
        CM_TRY(set_bytes(c, head, start & 7, 7, pattern));
        full_a = head + 8;
    }
    if ((end & 7) != 7)
        full_last = tail - 1;
    if (full_a <= full_last && (full_a > head || !(start & 7)))
        CM_TRY(parts(c, full_a, full_last, set_part, pattern));
    if ((end & 7) != 7)
        return set_bytes(c, tail, 0, end & 7, pattern);
    return 0;
}

int cm_step_mem(tk_casemate_checker *c, const tk_casemate_record *rec)
{
    uint64_t slot = rec->address & ~(uint64_t)7;
    uint64_t last = !rec->size ? 0
                    : rec->size - 1 > UINT64_MAX - rec->address ? UINT64_MAX
                                                                : rec->address + (rec->size - 1);
    switch (rec->kind) {
    case TK_CASEMATE_MEM_WRITE:
        return cm_write_slot(c, slot, rec->value, rec->mem_order == TK_CASEMATE_RELEASE);
    case TK_CASEMATE_MEM_READ: {
        /* offline, a read is the value the program saw: an entry that does
         * not hold it was changed behind the model's back (casemate checks
         * this only online) */
        cm_touch(c, slot);
        unsigned i;
        cm_page *p = cm_slot(c, slot, &i);
        if (p && (p->flags[i] & CM_PTE) && p->val[i] != rec->value) {
            cm_relate(c, slot);
            return cm_violate(c, CM_PTE_CHANGED, "read 0x%llx, the model holds 0x%llx",
                              (unsigned long long)rec->value, (unsigned long long)p->val[i]);
        }
        return 0;
    }
    case TK_CASEMATE_MEM_INIT:
        return rec->size ? parts(c, slot, last | 7, init_part, 0) : 0;
    case TK_CASEMATE_MEM_FREE:
        return rec->size ? parts(c, slot, last | 7, free_part, 0) : 0;
    case TK_CASEMATE_MEM_SET:
        return mem_set(c, rec->address, rec->size, rec->value);
    default:
        return 0;
    }
}
