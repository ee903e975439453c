/* The checker's driver: one record at a time into the model (memory
 * events in mem.c, barriers and TLBIs in tlbi.c, locks in locks.c,
 * system registers in roots.c), the hints, and the summary. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casemate/check/check_int.h"

void tk_casemate_check_options_init(tk_casemate_check_options *o)
{
    memset(o, 0, sizeof *o);
}

tk_casemate_checker *tk_casemate_check_new(const tk_casemate_check_options *o, tk_error *err)
{
    tk_casemate_checker *c = calloc(1, sizeof *c);
    if (c && o)
        c->opt = *o;
    if (!c || cm_shadow_init(&c->sh) != 0 || cm_violation_alloc(c) != 0) {
        tk_casemate_check_free(c);
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    tk_error_clear(&c->error);
    return c;
}

void tk_casemate_check_free(tk_casemate_checker *c)
{
    if (!c)
        return;
    cm_shadow_free(&c->sh);
    cm_roots_free(c);
    cm_locks_free(c);
    cm_map_free(&c->watch);
    cm_violation_free(c);
    free(c->unclean);
    free(c->cleaned);
    free(c->rel);
    free(c);
}

int cm_oom(tk_casemate_checker *c)
{
    c->stopped = -1;
    tk_error_set(&c->error, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return -1;
}

int cm_unsupported(tk_casemate_checker *c, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->stopped = -1;
    tk_error_set(&c->error, TK_EUNSUPPORTED, TK_NO_OFFSET, TK_NO_RECORD,
                 "unsupported by the checker: %s", msg);
    return -1;
}

int cm_unclean_add(tk_casemate_checker *c, uint64_t addr)
{
    if (c->nunclean == c->unclean_cap) {
        size_t cap = c->unclean_cap ? 2 * c->unclean_cap : 16;
        uint64_t *v = realloc(c->unclean, cap * sizeof *v);
        if (!v)
            return cm_oom(c);
        c->unclean = v;
        c->unclean_cap = cap;
    }
    c->unclean[c->nunclean++] = addr;
    return 0;
}

/* ---------------------------------------------------------------- hints */

static int hint(tk_casemate_checker *c, const tk_casemate_record *rec)
{
    uint64_t loc = rec->location;
    unsigned i;
    cm_page *p = cm_slot(c, loc, &i);
    switch (rec->hint) {
    case TK_CASEMATE_SET_ROOT_LOCK: /* no checks, as casemate: a later hint replaces */
        return cm_map_put(&c->root_locks, loc, rec->value) ? cm_oom(c) : 0;
    case TK_CASEMATE_SET_OWNER_ROOT:
        /* the whole page goes to the root; casemate's loop ran from the
         * page's start to the next page boundary, empty for an aligned
         * address, so the hint checked nothing */
        for (unsigned j = 0; p && p->npte && j < CM_SLOTS; j++)
            if (p->flags[j] & CM_PTE) {
                cm_pte tmp;
                cm_relate(c, p->base + 8 * (uint64_t)j);
                return cm_violate(c, CM_OWNER_ROOT_IN_TREE,
                                  "page 0x%llx holds entries of root 0x%llx",
                                  (unsigned long long)p->base,
                                  (unsigned long long)cm_pte_view(p, j, &tmp)->root);
            }
        return 0;
    case TK_CASEMATE_RELEASE_TABLE:
        return cm_release_table(c, loc);
    case TK_CASEMATE_SET_PTE_THREAD_OWNER: {
        uint64_t v;
        cm_touch(c, loc);
        cm_relate(c, loc);
        if (p ? !(p->flags[i] & CM_INIT) : !cm_shadow_peek(&c->sh, loc, &v))
            return cm_violate(c, CM_OWNER_UNINIT, NULL);
        if (!p || !(p->flags[i] & CM_PTE))
            return cm_violate(c, CM_OWNER_NON_PTE, NULL);
        cm_pte *e = cm_pte_mut(p, i);
        if (!e)
            return cm_oom(c);
        if (e->level != 3)
            return cm_violate(c, CM_OWNER_NOT_LEAF, "0x%llx is at level %u",
                              (unsigned long long)(loc & ~(uint64_t)7), e->level);
        p->nowned -= e->owned;
        e->owned = rec->value != UINT64_MAX; /* casemate's -1: no owner */
        p->nowned += e->owned;
        e->owner = rec->value;
        c->nrel = 0;
        return 0;
    }
    default:
        return 0;
    }
}

/* ----------------------------------------------------------------- feed */

int tk_casemate_check_feed(tk_casemate_checker *c, const tk_casemate_record *rec, tk_error *err)
{
    if (c->stopped) {
        if (c->stopped < 0 && err)
            *err = c->error;
        return c->stopped;
    }
    c->events++;
    c->rec = rec;
    c->touched = 0;
    c->nrel = 0;
    if (!c->th || c->th->tid != rec->tid) {
        c->th = cm_thread_get(c, rec->tid);
        if (!c->th) {
            cm_oom(c);
            if (err)
                *err = c->error;
            return -1;
        }
    }
    int rc = 0;
    switch (rec->kind) {
    case TK_CASEMATE_MEM_WRITE:
    case TK_CASEMATE_MEM_READ:
    case TK_CASEMATE_MEM_INIT:
    case TK_CASEMATE_MEM_FREE:
    case TK_CASEMATE_MEM_SET:
        rc = cm_step_mem(c, rec);
        break;
    case TK_CASEMATE_SYSREG_WRITE:
        if ((unsigned)rec->sysreg < TK_CASEMATE_SYSREG_COUNT)
            rc = cm_step_sysreg(c, rec->sysreg, rec->value);
        break;
    case TK_CASEMATE_BARRIER:
        if (rec->barrier != TK_CASEMATE_ISB) /* ISB: not modelled, as casemate */
            rc = cm_step_dsb(c, rec->barrier);
        break;
    case TK_CASEMATE_TLBI:
        rc = cm_step_tlbi(c, rec);
        break;
    case TK_CASEMATE_HINT:
        rc = hint(c, rec);
        break;
    case TK_CASEMATE_LOCK:
    case TK_CASEMATE_TRYLOCK:
    case TK_CASEMATE_UNLOCK:
        rc = cm_step_lock(c, rec->kind, rec->address);
        break;
    default:
        break;
    }
    c->rec = NULL;
    if (rc < 0 && err)
        *err = c->error;
    return rc;
}

uint64_t tk_casemate_check_events(const tk_casemate_checker *c) { return c->events; }

/* ------------------------------------------------------- queries, watch */

int tk_casemate_check_entry(const tk_casemate_checker *c, uint64_t address, tk_casemate_entry *out)
{
    return cm_entry_get(c, address, out);
}

tk_status tk_casemate_check_watch(tk_casemate_checker *c, uint64_t address, tk_error *err)
{
    if (cm_map_put(&c->watch, address & ~(uint64_t)7, 1) != 0)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return TK_OK;
}

int tk_casemate_check_touched(const tk_casemate_checker *c) { return c->touched; }

void tk_casemate_check_get_stats(const tk_casemate_checker *c, tk_casemate_check_stats *s)
{
    memset(s, 0, sizeof *s);
    s->events = c->events;
    for (size_t i = 0; i < c->roots.cap; i++)
        if (c->roots.used[i]) {
            const cm_root *r = (const cm_root *)(uintptr_t)c->roots.vals[i];
            s->roots++;
            if (r->stage == 1)
                s->roots_stage1++;
            else
                s->roots_stage2++;
        }
    for (size_t i = 0; i < c->sh.pages.cap; i++) {
        if (!c->sh.pages.used[i])
            continue;
        const cm_page *p = (const cm_page *)(uintptr_t)c->sh.pages.vals[i];
        s->pages++;
        for (unsigned j = 0; p->npte && j < CM_SLOTS; j++)
            if (p->flags[j] & CM_PTE) {
                cm_pte tmp;
                uint8_t st = cm_pte_view(p, j, &tmp)->state;
                s->entries++;
                s->valid += st == TK_CASEMATE_STATE_VALID;
                s->invalid_unclean += st == TK_CASEMATE_STATE_INVALID_UNCLEAN;
                s->invalid_clean += st == TK_CASEMATE_STATE_INVALID_CLEAN;
            }
    }
    s->locks_held = c->locks.n;
    s->threads = c->threads.n;
}
