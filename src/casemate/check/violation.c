/* Violation codes and messages, and the violation as captured when it
 * happens: the record, and a snapshot of every related entry, so printing
 * it later never depends on (or fails on) the model's state. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casemate/check/check_int.h"

/* casemate's messages, spelling corrected; codes stable for scripts. */
static const struct {
    const char *code, *message;
} codes[CM_CODE_COUNT] = {
    [CM_BBM_NO_BREAK] = {"bbm-no-break", "BBM valid->valid"},
    [CM_BBM_MISSING_TLBI] = {"bbm-missing-tlbi", "BBM invalid unclean->valid"},
    [CM_BBM_UNCLEAN_CHILDREN] = {"bbm-unclean-children",
                                 "BBM write table descriptor with unclean children"},
    [CM_WRITE_UNCLEAN_PARENT] = {"write-unclean-parent", "Wrote on a page with an unclean parent"},
    [CM_FREEZE_THREAD_OWNED] = {"freeze-thread-owned",
                                "Cannot freeze a location that is thread-locally owned"},
    [CM_NO_ROOT_LOCK] = {"no-root-lock", "must have associated root with a lock"},
    [CM_UNLOCKED_WRITE] = {"unlocked-write", "must write to pte while holding owner lock"},
    [CM_UNAUTHORIZED_WRITE] = {"unauthorized-plain-write", "Wrote plain without authorization"},
    [CM_THREAD_OWNED_WRITE] = {"thread-owned-write",
                               "Location owned by a thread but accessed by another"},
    [CM_LOCK_HELD] = {"lock-held", "Tried to lock a component that was already held"},
    [CM_TRYLOCK_OTHER] = {"trylock-other-thread", "Tried to reacquire lock on different thread"},
    [CM_UNLOCK_NOT_HELD] = {"unlock-not-held", "Tried to unlock a component that was not held"},
    [CM_UNLOCK_OTHER] = {"unlock-other-thread",
                         "Tried to unlock a component that was held by another thread"},
    [CM_UNINIT_WRITE] = {"uninit-write", "Attempted write to uninitialised location"},
    [CM_INIT_USED] = {"init-used", "cannot initialise used location"},
    [CM_FREE_PTE] = {"free-pte", "can't free location which is currently a PTE"},
    [CM_DOUBLE_USE] = {"double-use-pte", "double-use pte"},
    [CM_PTE_CHANGED] = {"pte-changed", "the ghost model detected a PTE that changed under it"},
    [CM_UNINIT_PTE] = {"uninit-pte", "Saw uninitialised PTE on pgtable traversal"},
    [CM_BAD_ENCODING] = {"bad-pte-encoding", "Saw invalid pte encoding"},
    [CM_IA_SIZE] = {"unsupported-ia-size", "unsupported input address size"},
    [CM_UNINIT_SYSREG] = {"uninit-sysreg", "attempted read of uninitialised system register "
                                           "without read_sysreg side effect installed"},
    [CM_ASID_RESERVED] = {"ttbr0-asid-nonzero", "TTBR0_EL2 ASID is reserved 0"},
    [CM_ROOT_ID_CONFLICT] = {"root-id-conflict", "root already associated with an (VM/AS)ID"},
    [CM_DUPLICATE_ID] = {"duplicate-id", "duplicate (VM/AS)ID"},
    [CM_ROOT_STAGE_CONFLICT] = {"root-stage-conflict", "root already used by the other stage"},
    [CM_NO_ROOT] = {"root-not-found", "root does not exist"},
    [CM_RELEASE_IN_USE] = {"release-in-use", "cannot release table still in use"},
    [CM_RELEASE_UNCLEAN] = {"release-unclean",
                            "cannot release table where children are still unclean"},
    [CM_OWNER_ROOT_IN_TREE] = {"owner-root-in-tree", "cannot change owned root if already in a tree"},
    [CM_OWNER_UNINIT] = {"thread-owner-uninit", "cannot set thread owner for uninitialised PTE"},
    [CM_OWNER_NON_PTE] = {"thread-owner-non-pte", "cannot set thread owner for non PTE"},
    [CM_OWNER_NOT_LEAF] = {"thread-owner-not-leaf", "cannot set thread owner for non-final-level PTE"},
    [CM_DSB_NSH] = {"dsb-nsh", "Unsupported DSB NSH"},
    [CM_TLBI_NOT_BROADCAST] = {"tlbi-not-broadcast", "Unsupported TLBI (expected broadcast)"},
};

const char *cm_code_name(cm_code code) { return code < CM_CODE_COUNT ? codes[code].code : "?"; }
const char *cm_code_message(cm_code code) { return code < CM_CODE_COUNT ? codes[code].message : "?"; }

size_t tk_casemate_check_code_count(void) { return CM_CODE_COUNT; }

const char *tk_casemate_check_code(size_t i, const char **message)
{
    if (i >= CM_CODE_COUNT)
        return NULL;
    if (message)
        *message = codes[i].message;
    return codes[i].code;
}

struct cm_violation {
    tk_casemate_violation pub;
    char detail[320];
    tk_casemate_record rec;
    char *src;
    tk_casemate_entry *entries;
};

void cm_relate(tk_casemate_checker *c, uint64_t addr)
{
    addr &= ~(uint64_t)7;
    for (size_t i = 0; i < c->nrel; i++)
        if (c->rel[i] == addr)
            return;
    if (c->nrel == c->rel_cap) {
        size_t cap = c->rel_cap ? 2 * c->rel_cap : 8;
        uint64_t *v = realloc(c->rel, cap * sizeof *v);
        if (!v)
            return; /* the violation still stands, with fewer entries */
        c->rel = v;
        c->rel_cap = cap;
    }
    c->rel[c->nrel++] = addr;
}

int cm_entry_get(const tk_casemate_checker *c, uint64_t addr, tk_casemate_entry *e)
{
    addr &= ~(uint64_t)7;
    memset(e, 0, sizeof *e);
    e->address = addr;
    cm_page *p = cm_page_find((cm_shadow *)&c->sh, addr); /* only the cache changes */
    unsigned i = CM_SLOT_OF(addr);
    if (!p) {
        e->initialised = cm_shadow_peek(&c->sh, addr, &e->value);
        return e->initialised;
    }
    e->value = p->val[i];
    e->initialised = (p->flags[i] & CM_INIT) != 0;
    e->frozen = (p->flags[i] & CM_FROZEN) != 0;
    if (p->flags[i] & CM_PTE) {
        cm_pte tmp;
        const cm_pte *x = cm_pte_view(p, i, &tmp);
        e->state = (tk_casemate_state)x->state;
        e->stage = x->stage;
        e->level = x->level;
        e->root = x->root;
        e->ia_start = x->ia;
        e->ia_last = x->ia + (cm_level_size(x->level) - 1);
        if (x->state != TK_CASEMATE_STATE_VALID)
            e->invalidator = x->inval;
        if (x->state == TK_CASEMATE_STATE_INVALID_UNCLEAN) {
            e->lis = (tk_casemate_lis)x->lis;
            e->old = x->old;
        }
        e->thread_owned = x->owned;
        e->thread_owner = x->owned ? x->owner : 0;
    }
    return e->initialised || e->state != TK_CASEMATE_STATE_NONE;
}

int cm_violate(tk_casemate_checker *c, cm_code code, const char *detail, ...)
{
    struct cm_violation *v = c->v;
    c->stopped = 1;
    memset(v, 0, sizeof *v);
    v->pub.code = cm_code_name(code);
    v->pub.message = cm_code_message(code);
    if (detail) {
        va_list ap;
        va_start(ap, detail);
        vsnprintf(v->detail, sizeof v->detail, detail, ap);
        va_end(ap);
    }
    v->pub.detail = v->detail;
    if (c->rec) {
        v->rec = *c->rec;
        v->pub.id = v->rec.id;
        v->pub.tid = v->rec.tid;
        v->pub.src_kind = v->rec.src_kind;
        v->pub.src_int = v->rec.src_int;
        if (v->rec.src_kind == TK_CASEMATE_SRC_STRING) {
            v->src = malloc(v->rec.src_len + 1);
            if (v->src) {
                if (v->rec.src_len)
                    memcpy(v->src, v->rec.src, v->rec.src_len);
                v->src[v->rec.src_len] = '\0';
                v->pub.src_len = v->rec.src_len;
            } else { /* no memory: keep the violation, without its src */
                v->rec.src_kind = v->pub.src_kind = TK_CASEMATE_SRC_NONE;
                v->rec.src_len = 0;
            }
        }
        v->rec.src = v->src;
        v->pub.src = v->src;
        v->pub.record = &v->rec;
    }
    if (c->nrel && (v->entries = malloc(c->nrel * sizeof *v->entries)) != NULL) {
        for (size_t i = 0; i < c->nrel; i++)
            cm_entry_get(c, c->rel[i], &v->entries[i]);
        v->pub.entries = v->entries;
        v->pub.nentries = c->nrel;
    }
    return 1;
}

void cm_violation_free(tk_casemate_checker *c)
{
    if (!c->v)
        return;
    free(c->v->src);
    free(c->v->entries);
    free(c->v);
    c->v = NULL;
}

int cm_violation_alloc(tk_casemate_checker *c)
{
    c->v = calloc(1, sizeof *c->v);
    return c->v ? 0 : -1;
}

const tk_casemate_violation *tk_casemate_check_violation(const tk_casemate_checker *c)
{
    return c->stopped == 1 ? &c->v->pub : NULL;
}
