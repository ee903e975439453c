/* DSBs and TLBIs on the invalid-unclean entries. Barriers and TLB
 * maintenance name no entry, so each one visits every IU entry in scope;
 * it acts on an entry only for the thread that invalidated it and holds
 * what guards it (casemate's rule: maintenance by anyone else silently
 * does not count). The local state goes
 *   unguarded --DSB--> dsbed --TLBI (enough)--> dsb_tlbied --DSB ISH--> clean
 *                      dsbed --TLBI IPA--> dsb_tlbi_ipa --DSB ISH--> dsb_tlbi_ipa_dsb
 *                      dsb_tlbi_ipa_dsb --TLBI stage 1 (or both)--> dsb_tlbied */
#include <stdlib.h>

#include "casemate/check/check_int.h"

enum { EL2, EL10 };            /* translation regime */
enum { S1 = 1, S2 = 2, BOTH = 3 }; /* stages a TLBI invalidates */
enum { ALL, BY_VMID, BY_VA, BY_IPA };

static const struct {
    uint8_t regime, stages, broadcast, method;
} ops[TK_CASEMATE_TLBI_COUNT] = {
    [TK_CASEMATE_TLBI_VMALLS12E1] = {EL10, BOTH, 0, BY_VMID},
    [TK_CASEMATE_TLBI_VMALLS12E1IS] = {EL10, BOTH, 1, BY_VMID},
    [TK_CASEMATE_TLBI_VMALLE1IS] = {EL10, S1, 1, BY_VMID},
    [TK_CASEMATE_TLBI_ALLE1] = {EL10, BOTH, 0, ALL},
    [TK_CASEMATE_TLBI_ALLE1IS] = {EL10, BOTH, 1, ALL},
    [TK_CASEMATE_TLBI_VMALLE1] = {EL10, S1, 0, BY_VMID},
    [TK_CASEMATE_TLBI_ALLE2] = {EL2, S1, 0, ALL},
    [TK_CASEMATE_TLBI_ALLE2IS] = {EL2, S1, 1, ALL},
    [TK_CASEMATE_TLBI_VALE2IS] = {EL2, S1, 1, BY_VA},
    [TK_CASEMATE_TLBI_VAE2IS] = {EL2, S1, 1, BY_VA},
    [TK_CASEMATE_TLBI_IPAS2E1IS] = {EL10, S2, 1, BY_IPA},
    [TK_CASEMATE_TLBI_VAE2] = {EL2, S1, 0, BY_VA},
};

/* The IU entry at `addr` (and its page), or NULL when it is no longer one. */
static cm_pte *unclean_entry(tk_casemate_checker *c, uint64_t addr, cm_page **page)
{
    unsigned i;
    cm_page *p = cm_slot(c, addr, &i);
    cm_pte *e = p && (p->flags[i] & CM_PTE) ? cm_pte_own(p, i) : NULL;
    if (!e || e->state != TK_CASEMATE_STATE_INVALID_UNCLEAN) /* defaults: clean */
        return NULL;
    *page = p;
    return e;
}

static int push_cleaned(tk_casemate_checker *c, uint64_t addr, const cm_pte *e)
{
    if (c->ncleaned == c->cleaned_cap) {
        size_t cap = c->cleaned_cap ? 2 * c->cleaned_cap : 16;
        cm_cleaned *v = realloc(c->cleaned, cap * sizeof *v);
        if (!v)
            return cm_oom(c);
        c->cleaned = v;
        c->cleaned_cap = cap;
    }
    c->cleaned[c->ncleaned++] = (cm_cleaned){addr, e->old, e->level};
    return 0;
}

/* Drop the entries that are no longer invalid-unclean, keeping order. */
static void compact(tk_casemate_checker *c)
{
    size_t k = 0;
    cm_page *p;
    for (size_t j = 0; j < c->nunclean; j++)
        if (unclean_entry(c, c->unclean[j], &p))
            c->unclean[k++] = c->unclean[j];
    c->nunclean = k;
}

int cm_step_dsb(tk_casemate_checker *c, tk_casemate_barrier kind)
{
    uint64_t tid = c->th->tid;
    int ish = kind == TK_CASEMATE_DSB_ISH || kind == TK_CASEMATE_DSB_SY;
    c->ncleaned = 0;
    cm_page *p;
    /* 1: every entry moves on as if at once ... */
    for (size_t j = 0; j < c->nunclean; j++) {
        uint64_t addr = c->unclean[j];
        cm_pte *e = unclean_entry(c, addr, &p);
        if (!e || !cm_locked_by_me(c, e))
            continue;
        if (kind == TK_CASEMATE_DSB_NSH) {
            cm_relate(c, addr);
            return cm_violate(c, CM_DSB_NSH, "0x%llx is invalid-unclean; a DSB NSH does not "
                              "reach other cores", (unsigned long long)addr);
        }
        if (e->inval != tid)
            continue;
        switch (e->lis) {
        case TK_CASEMATE_LIS_UNGUARDED:
            e->lis = TK_CASEMATE_LIS_DSBED;
            break;
        case TK_CASEMATE_LIS_DSB_TLBI_IPA:
            if (ish)
                e->lis = TK_CASEMATE_LIS_DSB_TLBI_IPA_DSB;
            break;
        case TK_CASEMATE_LIS_DSB_TLBIED:
            if (ish) {
                CM_TRY(push_cleaned(c, addr, e));
                cm_pte_set_state(p, e, TK_CASEMATE_STATE_INVALID_CLEAN);
            }
            break;
        default:
            break;
        }
        cm_touch(c, addr);
    }
    /* 2: ... so a table entry and the entries below it cleaned by the same
     * DSB do not depend on the order they were invalidated in (casemate
     * visited the newest first and failed on the parent). */
    for (size_t j = 0; j < c->ncleaned; j++) {
        cm_cleaned *x = &c->cleaned[j];
        if (cm_desc_kind(x->old, x->level) != CM_DESC_TABLE)
            continue;
        CM_TRY(cm_check_clean(c, CM_TABLE_ADDR(x->old), CM_BBM_UNCLEAN_CHILDREN, x->addr));
        cm_unmark_table(c, CM_TABLE_ADDR(x->old));
    }
    compact(c);
    c->th->dsbs++; /* gives back the write authorisation of its locks */
    return 0;
}

/* Level from a TTL hint: 0b01xx is the 4 KiB granule, xx the level
 * (0b0100 is reserved without LPA2); anything else gives no hint. */
static int ttl_level(uint64_t ttl)
{
    return (ttl >> 2) == 1 && (ttl & 3) ? (int)(ttl & 3) : -1;
}

static int matches(tk_casemate_checker *c, const tk_casemate_record *rec, unsigned method,
                   const cm_pte *e)
{
    if (method == ALL)
        return 1;
    cm_root *r = cm_root_find(c, e->root);
    uint64_t vmid;
    if (method == BY_VMID) /* an unknown VMID (no VTTBR_EL2 written) counts as the entry's */
        return !r || !cm_current_vmid(c, &vmid) || vmid == r->id;
    /* by address: a leaf the address falls in (a table entry, even an
     * invalidated one, is never cleaned by address: as casemate). Leaves
     * only, so vale2is (last level) acts as vae2is: casemate wanted level 3
     * and missed blocks, which are last-level entries too. */
    if (cm_desc_kind(e->old, e->level) != CM_DESC_MAP)
        return 0;
    uint64_t addr;
    int level = -1, has_asid = 0;
    uint64_t asid = 0;
    if (rec->tlbi_operand == TK_CASEMATE_OPERAND_ADDR_LEVEL) {
        addr = rec->address;
        level = rec->level <= 3 ? (int)rec->level : -1;
    } else {
        addr = (rec->value & 0xfffffffffffull) << 12;
        level = ttl_level((rec->value >> 44) & 0xf);
        asid = rec->value >> 48; /* casemate forgot the shift: always 0 */
        has_asid = method == BY_VA;
    }
    if (addr < e->ia || addr - e->ia >= cm_level_size(e->level))
        return 0;
    if (level >= 0 && (unsigned)level != e->level)
        return 0;
    if (method == BY_IPA)
        return !r || !cm_current_vmid(c, &vmid) || vmid == r->id;
    return !has_asid || !r || asid == r->id;
}

int cm_step_tlbi(tk_casemate_checker *c, const tk_casemate_record *rec)
{
    if ((unsigned)rec->tlbi >= TK_CASEMATE_TLBI_COUNT)
        return 0;
    uint64_t tid = c->th->tid;
    unsigned regime = ops[rec->tlbi].regime, stages = ops[rec->tlbi].stages;
    unsigned method = ops[rec->tlbi].method;
    if (method == BY_VMID && c->opt.promote_tlbi_by_id)
        method = ALL;
    /* EL1&0 TLBIs reach the stage-2 tables, EL2 ones pKVM's own stage 1 */
    unsigned slot_stage = regime == EL2 ? 1 : 2;
    cm_page *p;
    for (size_t j = 0; j < c->nunclean; j++) {
        uint64_t addr = c->unclean[j];
        cm_pte *e = unclean_entry(c, addr, &p);
        if (!e || e->stage != slot_stage || !cm_locked_by_me(c, e))
            continue;
        if (!ops[rec->tlbi].broadcast) {
            cm_relate(c, addr);
            return cm_violate(c, CM_TLBI_NOT_BROADCAST, "tlbi %s only reaches this core; "
                              "use the inner-shareable form", tk_casemate_tlbi_name(rec->tlbi));
        }
        if (!matches(c, rec, method, e) || e->inval != tid)
            continue;
        if (e->lis == TK_CASEMATE_LIS_DSBED) {
            if (regime == EL2 || stages == BOTH)
                e->lis = TK_CASEMATE_LIS_DSB_TLBIED;
            else if (stages == S2)
                e->lis = TK_CASEMATE_LIS_DSB_TLBI_IPA;
            /* stage 1 of EL1&0 alone, before stage 2: no effect */
        } else if (e->lis == TK_CASEMATE_LIS_DSB_TLBI_IPA_DSB && stages != S2) {
            e->lis = TK_CASEMATE_LIS_DSB_TLBIED;
        }
        cm_touch(c, addr);
    }
    return 0;
}
