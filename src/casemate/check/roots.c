/* Threads and their system registers (with hardware Access-flag
 * management, TCR_EL2.HA / VTCR_EL2.HA), page-table roots and context
 * switches. A (V)TTBR_EL2 write, or turning on HCR_EL2.VM / SCTLR_EL2.M
 * with one written, loads a root: a new base is registered (its whole tree
 * marked) with its VMID (stage 2) or ASID (stage 1), a known one is
 * switched to. VMIDs and ASIDs are separate spaces -- casemate kept one
 * for both, so VMID 0 and the (always 0) TTBR0_EL2 ASID collided. */
#include <stdlib.h>

#include "casemate/check/check_int.h"

enum { VTTBR = TK_CASEMATE_VTTBR_EL2, TTBR0 = TK_CASEMATE_TTBR0_EL2, VTCR = TK_CASEMATE_VTCR_EL2,
       HCR = TK_CASEMATE_HCR_EL2, TCR = TK_CASEMATE_TCR_EL2, SCTLR = TK_CASEMATE_SCTLR_EL2,
       MAIR = TK_CASEMATE_MAIR_EL2 };

static int read_reg(tk_casemate_checker *c, unsigned reg, uint64_t *v)
{
    if (cm_thread_has(c->th, reg)) {
        *v = cm_thread_reg(c->th, reg);
        return 0;
    }
    return cm_violate(c, CM_UNINIT_SYSREG, "thread %llu has not written %s",
                      (unsigned long long)c->th->tid,
                      tk_casemate_sysreg_name((tk_casemate_sysreg)reg));
}

cm_root *cm_root_find(tk_casemate_checker *c, uint64_t base)
{
    uint64_t *v = cm_map_find(&c->roots, base);
    return v ? (cm_root *)(uintptr_t)*v : NULL;
}

static const char *id_name(unsigned stage) { return stage == 2 ? "VMID" : "ASID"; }

/* Start level and concatenation from (V)TCR_EL2. casemate derives the
 * start level from T0SZ alone; tracekit also honours VTCR_EL2.SL0 when it
 * names a level valid for T0SZ: the natural one, or the next one down
 * with 2..16 concatenated tables (VTCR = 0x10 in casemate's logs has
 * SL0 = 0, which fits neither, so the natural level is used). */
static int geometry(tk_casemate_checker *c, cm_root *r)
{
    uint64_t tcr;
    CM_TRY(read_reg(c, r->stage == 2 ? VTCR : TCR, &tcr));
    unsigned tg0 = (unsigned)(tcr >> 14) & 3, t0sz = (unsigned)tcr & 0x3f;
    if (tg0 != 0)
        return cm_unsupported(c, "%s.TG0 = %u selects %s pages; only 4 KiB pages are modelled",
                              r->stage == 2 ? "VTCR_EL2" : "TCR_EL2", tg0,
                              tg0 == 1 ? "64 KiB" : tg0 == 2 ? "16 KiB" : "reserved");
    unsigned ia = 64 - t0sz;
    if (ia < 21 || ia > 48)
        return cm_violate(c, CM_IA_SIZE, "T0SZ = %u: %u-bit input addresses (21 to 48 modelled)",
                          t0sz, ia);
    unsigned n = (48 - ia) / 9, shift = 12 + 9 * (3 - n);
    unsigned entries = 1u << (ia - shift);
    static const unsigned sl0_level[4] = {2, 1, 0, 3};
    unsigned sl = sl0_level[(tcr >> 6) & 3];
    r->level = n;
    r->ntables = 1;
    r->nentries = entries;
    if (r->stage == 2 && sl == n + 1 && entries >= 2 && entries <= 16) {
        r->level = sl;
        r->ntables = entries;
        r->nentries = CM_SLOTS;
    }
    uint64_t align = (uint64_t)r->ntables * CM_PAGE;
    if (r->base % align)
        return cm_unsupported(c, "translation table base 0x%llx is not aligned to %llu bytes",
                              (unsigned long long)r->base, (unsigned long long)align);
    return 0;
}

static int load(tk_casemate_checker *c, cm_root *r)
{
    cm_root **cur = &c->th->cur[r->stage - 1];
    if (*cur)
        (*cur)->refcount--;
    r->refcount++;
    *cur = r;
    return 0;
}

static int activate(tk_casemate_checker *c, unsigned stage, uint64_t value)
{
    uint64_t base = value & 0x0000fffffffffffeull, id = value >> 48;
    if (stage == 1 && id != 0)
        return cm_violate(c, CM_ASID_RESERVED, "TTBR0_EL2 = 0x%llx has ASID %llu",
                          (unsigned long long)value, (unsigned long long)id);
    cm_root *r = cm_root_find(c, base);
    if (r) {
        if (r->stage != stage)
            return cm_violate(c, CM_ROOT_STAGE_CONFLICT, "0x%llx is a stage-%u root",
                              (unsigned long long)base, r->stage);
        if (r->id != id)
            return cm_violate(c, CM_ROOT_ID_CONFLICT, "root 0x%llx has %s %llu, not %llu",
                              (unsigned long long)base, id_name(stage),
                              (unsigned long long)r->id, (unsigned long long)id);
        return load(c, r);
    }
    uint64_t *other = cm_map_find(&c->ids[stage], id);
    if (other)
        return cm_violate(c, CM_DUPLICATE_ID, "%s %llu belongs to root 0x%llx, not 0x%llx",
                          id_name(stage), (unsigned long long)id,
                          (unsigned long long)((cm_root *)(uintptr_t)*other)->base,
                          (unsigned long long)base);
    r = calloc(1, sizeof *r);
    if (!r)
        return cm_oom(c);
    *r = (cm_root){.base = base, .id = id, .stage = stage, .seq = c->root_seq++};
    int rc = geometry(c, r);
    if (rc == 0 && (cm_map_put(&c->roots, base, (uint64_t)(uintptr_t)r) != 0 ||
                    cm_map_put(&c->ids[stage], id, (uint64_t)(uintptr_t)r) != 0)) {
        cm_map_del(&c->roots, base);
        rc = cm_oom(c);
    }
    if (rc) {
        free(r);
        return rc;
    }
    CM_TRY(cm_mark_root(c, r));
    return load(c, r);
}

/* The thread's hardware Access-flag management for `stage`: VTCR_EL2.HA
 * (bit 21); TCR_EL2.HA, bit 21, or bit 39 when HCR_EL2.E2H (bit 34) gives
 * TCR_EL2 the layout of TCR_EL1. A register never written: off. */
static int thread_ha(const cm_thread *t, unsigned stage)
{
    unsigned reg = stage == 2 ? VTCR : TCR, bit = 21;
    if (!cm_thread_has(t, reg))
        return 0;
    if (stage == 1 && cm_thread_has(t, HCR) && ((cm_thread_reg(t, HCR) >> 34) & 1))
        bit = 39;
    return (int)((cm_thread_reg(t, reg) >> bit) & 1);
}

int cm_af0_cached(const tk_casemate_checker *c, unsigned stage)
{
    return c->opt.hw_af || c->ha_threads[stage == 2 ? 2 : 1] > 0;
}

int cm_step_sysreg(tk_casemate_checker *c, tk_casemate_sysreg reg, uint64_t value)
{
    cm_thread *t = c->th;
    unsigned stage = reg == TK_CASEMATE_VTTBR_EL2 || reg == TK_CASEMATE_HCR_EL2 ? 2 : 1;
    unsigned ttbr = stage == 2 ? VTTBR : TTBR0;
    int was_on = cm_thread_has(t, reg) && (cm_thread_reg(t, reg) & 1);
    int ha1 = thread_ha(t, 1), ha2 = thread_ha(t, 2);
    if (cm_thread_set_reg(c, t, reg, value) != 0)
        return cm_oom(c);
    for (unsigned s = 1; s <= 2; s++) { /* a TCR, VTCR or HCR write may flip one */
        int before = s == 1 ? ha1 : ha2, now = thread_ha(t, s);
        if (now != before)
            c->ha_threads[s] = now ? c->ha_threads[s] + 1 : c->ha_threads[s] - 1;
    }
    switch (reg) {
    case TK_CASEMATE_VTTBR_EL2:
    case TK_CASEMATE_TTBR0_EL2: {
        uint64_t on;
        CM_TRY(read_reg(c, stage == 2 ? HCR : SCTLR, &on));
        return (on & 1) ? activate(c, stage, value) : 0;
    }
    case TK_CASEMATE_HCR_EL2:
    case TK_CASEMATE_SCTLR_EL2:
        if (!was_on && (value & 1) && cm_thread_has(t, ttbr))
            return activate(c, stage, cm_thread_reg(t, ttbr));
        if (was_on && !(value & 1) && t->cur[stage - 1]) { /* this thread stops using it */
            t->cur[stage - 1]->refcount--;
            t->cur[stage - 1] = NULL;
        }
        return 0;
    default:
        return 0;
    }
}

int cm_release_table(tk_casemate_checker *c, uint64_t addr)
{
    cm_map_del(&c->root_locks, addr);
    unsigned i;
    cm_page *p = cm_slot(c, addr, &i);
    if (!p || !(p->flags[i] & CM_PTE))
        return 0; /* never a page table: nothing else to undo */
    cm_pte tmp;
    uint64_t tree = cm_pte_view(p, i, &tmp)->root;
    cm_root *owner = cm_root_find(c, tree);
    if (owner)
        CM_TRY(cm_check_clean_root(c, owner, CM_RELEASE_UNCLEAN));
    cm_root *r = cm_root_find(c, addr);
    if (!r) {
        cm_relate(c, addr);
        return cm_violate(c, CM_NO_ROOT, "0x%llx is an entry of the tree of root 0x%llx",
                          (unsigned long long)addr, (unsigned long long)tree);
    }
    if (r->refcount)
        return cm_violate(c, CM_RELEASE_IN_USE, "root 0x%llx is loaded by %llu thread%s",
                          (unsigned long long)addr, (unsigned long long)r->refcount,
                          r->refcount == 1 ? "" : "s");
    cm_unmark_root(c, r);
    cm_map_del(&c->roots, r->base);
    cm_map_del(&c->ids[r->stage], r->id);
    free(r);
    return 0;
}

int cm_current_vmid(tk_casemate_checker *c, uint64_t *vmid)
{
    if (!cm_thread_has(c->th, VTTBR))
        return 0;
    *vmid = cm_thread_reg(c->th, VTTBR) >> 48;
    return 1;
}

static int by_seq(const void *x, const void *y)
{
    const cm_root *a = *(cm_root *const *)x, *b = *(cm_root *const *)y;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

cm_root **cm_roots_sorted(const tk_casemate_checker *c, size_t *n)
{
    *n = 0;
    cm_root **v = malloc((c->roots.n ? c->roots.n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < c->roots.cap; i++)
        if (c->roots.used[i])
            v[(*n)++] = (cm_root *)(uintptr_t)c->roots.vals[i];
    qsort(v, *n, sizeof *v, by_seq);
    return v;
}

void cm_roots_free(tk_casemate_checker *c)
{
    for (size_t i = 0; i < c->roots.cap; i++)
        if (c->roots.used[i])
            free((void *)(uintptr_t)c->roots.vals[i]);
    cm_map_free(&c->roots);
    cm_map_free(&c->ids[1]);
    cm_map_free(&c->ids[2]);
    cm_threads_free(c);
}
