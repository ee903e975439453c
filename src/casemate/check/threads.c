/* The checker's threads. A log may name a million threads (vCPUs), so a
 * thread is kept small: its records sit in chunks (core/chunks.h: addresses
 * stay put), found through an open-addressing index of 32-bit numbers,
 * and its system registers but VTTBR_EL2 -- the same for every vCPU of a
 * VM, and for every thread while they hold casemate-check's defaults --
 * are a register file shared by the threads that hold the same values. */
#include <stdlib.h>
#include <string.h>

#include "casemate/check/check_int.h"
#include "core/hashmap.h"

#define VTTBR TK_CASEMATE_VTTBR_EL2

static cm_thread *nth(const cm_threads *ts, size_t k)
{
    return tk_chunks_at(&ts->recs, k, sizeof(cm_thread));
}

cm_thread *cm_thread_find(const tk_casemate_checker *c, uint64_t tid)
{
    const cm_threads *ts = &c->threads;
    if (!ts->n)
        return NULL;
    uint64_t h = tk_hash_u64(tid);
    for (size_t i = (size_t)h & (ts->nslot - 1);; i = (i + 1) & (ts->nslot - 1)) {
        if (!ts->slot[i])
            return NULL;
        if (ts->tag[i] != (uint8_t)(h >> 56))
            continue;
        cm_thread *t = nth(ts, ts->slot[i] - 1);
        if (t->tid == tid)
            return t;
    }
}

/* Index thread number k (its tid known to be absent). */
static void put_slot(uint32_t *slot, uint8_t *tag, size_t nslot, uint64_t tid, size_t k)
{
    uint64_t h = tk_hash_u64(tid);
    size_t i = (size_t)h & (nslot - 1);
    while (slot[i])
        i = (i + 1) & (nslot - 1);
    slot[i] = (uint32_t)(k + 1);
    tag[i] = (uint8_t)(h >> 56);
}

/* Room for one more thread: a chunk, and an index at most 3/4 full. */
static int room(cm_threads *ts)
{
    if (ts->n == UINT32_MAX - 1)
        return -1;
    if (tk_chunks_reserve(&ts->recs, ts->n, sizeof(cm_thread)) != 0)
        return -1;
    if ((ts->n + 1) * 4 <= ts->nslot * 3)
        return 0;
    size_t nslot = ts->nslot ? 2 * ts->nslot : 64;
    uint32_t *slot = calloc(nslot, sizeof *slot);
    uint8_t *tag = malloc(nslot);
    if (!slot || !tag) {
        free(slot);
        free(tag);
        return -1;
    }
    for (size_t k = 0; k < ts->n; k++)
        put_slot(slot, tag, nslot, nth(ts, k)->tid, k);
    free(ts->slot);
    free(ts->tag);
    ts->slot = slot;
    ts->tag = tag;
    ts->nslot = nslot;
    return 0;
}

/* ------------------------------------------------------ register files */

static uint64_t regs_hash(const cm_regs *r)
{
    uint64_t h = tk_hash_u64(r->present);
    for (unsigned k = 0; k < TK_CASEMATE_SYSREG_COUNT; k++)
        h = tk_hash_u64(h ^ r->reg[k]);
    return h;
}

static int regs_equal(const cm_regs *a, const cm_regs *b)
{
    return a->present == b->present && !memcmp(a->reg, b->reg, sizeof a->reg);
}

/* The shared file holding the values of `want`, one more reference to it;
 * NULL: no memory. */
static cm_regs *regs_ref(cm_threads *ts, const cm_regs *want)
{
    uint64_t h = regs_hash(want);
    uint64_t *first = cm_map_find(&ts->regfiles, h);
    for (cm_regs *r = first ? (cm_regs *)(uintptr_t)*first : NULL; r; r = r->next)
        if (regs_equal(r, want)) {
            r->refs++;
            return r;
        }
    cm_regs *r = malloc(sizeof *r);
    if (!r)
        return NULL;
    *r = *want;
    r->refs = 1;
    r->next = first ? (cm_regs *)(uintptr_t)*first : NULL;
    if (cm_map_put(&ts->regfiles, h, (uint64_t)(uintptr_t)r) != 0) {
        free(r);
        return NULL;
    }
    return r;
}

static void regs_unref(cm_threads *ts, cm_regs *r)
{
    if (--r->refs)
        return;
    uint64_t h = regs_hash(r);
    uint64_t *first = cm_map_find(&ts->regfiles, h); /* the chain's head */
    cm_regs *head = (cm_regs *)(uintptr_t)*first;
    if (head == r) {
        if (r->next)
            *first = (uint64_t)(uintptr_t)r->next;
        else
            cm_map_del(&ts->regfiles, h);
    } else {
        while (head->next != r)
            head = head->next;
        head->next = r->next;
    }
    free(r);
}

/* ------------------------------------------------------------- threads */

/* The register file of a new thread (a reference for ts->init). */
static cm_regs *new_thread_regs(tk_casemate_checker *c)
{
    cm_regs init;
    memset(&init, 0, sizeof init);
    if (!c->opt.no_sysreg_defaults) {
        /* casemate-check's: 48-bit input addresses with 4 KiB pages (start
         * level 0) for both stages, both translation regimes on */
        init.reg[TK_CASEMATE_VTCR_EL2] = init.reg[TK_CASEMATE_TCR_EL2] = 0x10;
        init.reg[TK_CASEMATE_HCR_EL2] = init.reg[TK_CASEMATE_SCTLR_EL2] = 1;
        init.present = 1u << TK_CASEMATE_VTCR_EL2 | 1u << TK_CASEMATE_TCR_EL2 |
                       1u << TK_CASEMATE_HCR_EL2 | 1u << TK_CASEMATE_SCTLR_EL2 |
                       1u << TK_CASEMATE_MAIR_EL2;
    }
    return regs_ref(&c->threads, &init);
}

cm_thread *cm_thread_get(tk_casemate_checker *c, uint64_t tid)
{
    cm_thread *t = cm_thread_find(c, tid);
    if (t)
        return t;
    cm_threads *ts = &c->threads;
    if (!ts->init && !(ts->init = new_thread_regs(c)))
        return NULL;
    if (room(ts) != 0)
        return NULL;
    ts->init->refs++;
    t = nth(ts, ts->n);
    *t = (cm_thread){.tid = tid, .regs = ts->init};
    put_slot(ts->slot, ts->tag, ts->nslot, tid, ts->n);
    ts->n++;
    return t;
}

int cm_thread_has(const cm_thread *t, unsigned reg)
{
    return (int)((t->regs->present >> reg) & 1);
}

uint64_t cm_thread_reg(const cm_thread *t, unsigned reg)
{
    return reg == VTTBR ? t->vttbr : t->regs->reg[reg];
}

int cm_thread_set_reg(tk_casemate_checker *c, cm_thread *t, unsigned reg, uint64_t v)
{
    cm_regs want = *t->regs;
    if (reg == VTTBR) /* its value is the thread's own */
        t->vttbr = v;
    else
        want.reg[reg] = v;
    want.present |= 1u << reg;
    if (regs_equal(&want, t->regs))
        return 0;
    cm_regs *r = regs_ref(&c->threads, &want);
    if (!r)
        return -1;
    regs_unref(&c->threads, t->regs);
    t->regs = r;
    return 0;
}

void cm_threads_free(tk_casemate_checker *c)
{
    cm_threads *ts = &c->threads;
    for (size_t k = 0; k < ts->n; k++)
        regs_unref(ts, nth(ts, k)->regs);
    if (ts->init)
        regs_unref(ts, ts->init);
    tk_chunks_free(&ts->recs);
    free(ts->slot);
    free(ts->tag);
    cm_map_free(&ts->regfiles);
    memset(ts, 0, sizeof *ts);
}
