/* Locks, thread ownership and write authorisation. A lock guards the
 * trees whose roots set_root_lock associated with it; writing an entry
 * needs its lock (or, for a thread-owned entry, to be its thread). Under a
 * lock, the first plain write uses up the authorisation; a second plain
 * write that matters (to a valid entry, or of a valid value) needs a DSB
 * by the holder first -- pKVM's discipline, which casemate checks. */
#include <stdlib.h>

#include "casemate/check/check_int.h"

static cm_lock *lock_find(const tk_casemate_checker *c, uint64_t addr)
{
    return cm_lock_find(c, addr);
}

static int acquire(tk_casemate_checker *c, uint64_t addr)
{
    cm_lock *l = cm_lock_add(c, addr);
    if (!l)
        return cm_oom(c);
    l->holder = c->th->tid;
    l->count = 1;
    return 0;
}

int cm_step_lock(tk_casemate_checker *c, tk_casemate_kind kind, uint64_t addr)
{
    uint64_t tid = c->th->tid;
    cm_lock *l = lock_find(c, addr);
    if (kind == TK_CASEMATE_UNLOCK) {
        if (!l)
            return c->opt.ignore_uninit
                       ? 0
                       : cm_violate(c, CM_UNLOCK_NOT_HELD, "lock 0x%llx",
                                    (unsigned long long)addr);
        if (l->holder != tid)
            return cm_violate(c, CM_UNLOCK_OTHER, "lock 0x%llx is held by thread %llu",
                              (unsigned long long)addr, (unsigned long long)l->holder);
        if (--l->count == 0)
            cm_lock_del(c, l);
        return 0;
    }
    if (!l)
        return acquire(c, addr);
    if (kind == TK_CASEMATE_TRYLOCK && l->holder == tid) { /* re-entrant */
        l->count++;
        return 0;
    }
    return cm_violate(c, kind == TK_CASEMATE_TRYLOCK ? CM_TRYLOCK_OTHER : CM_LOCK_HELD,
                      "lock 0x%llx is held by thread %llu", (unsigned long long)addr,
                      (unsigned long long)l->holder);
}

int cm_locked_by_me(tk_casemate_checker *c, const cm_pte *e)
{
    if (c->opt.racy)
        return 1;
    if (e->owned)
        return e->owner == c->th->tid;
    uint64_t *lock = cm_map_find(&c->root_locks, e->root);
    cm_lock *l = lock ? lock_find(c, *lock) : NULL;
    return l && l->holder == c->th->tid;
}

int cm_check_write_auth(tk_casemate_checker *c, uint64_t addr, const cm_pte *e, uint8_t state,
                        uint64_t val, int release)
{
    if (c->opt.racy)
        return 0;
    uint64_t tid = c->th->tid;
    if (e->owned) {
        if (e->owner == tid)
            return 0;
        cm_relate(c, addr);
        return cm_violate(c, CM_THREAD_OWNED_WRITE, "owned by thread %llu",
                          (unsigned long long)e->owner);
    }
    uint64_t *lock = cm_map_find(&c->root_locks, e->root);
    if (!lock) {
        cm_relate(c, addr);
        return cm_violate(c, CM_NO_ROOT_LOCK, "root 0x%llx has no lock (set_root_lock hint)",
                          (unsigned long long)e->root);
    }
    cm_lock *l = lock_find(c, *lock);
    if (!l || l->holder != tid) {
        cm_relate(c, addr);
        if (!l)
            return cm_violate(c, CM_UNLOCKED_WRITE, "lock 0x%llx of root 0x%llx is not held",
                              (unsigned long long)*lock, (unsigned long long)e->root);
        return cm_violate(c, CM_UNLOCKED_WRITE, "lock 0x%llx of root 0x%llx is held by thread %llu",
                          (unsigned long long)*lock, (unsigned long long)e->root,
                          (unsigned long long)l->holder);
    }
    if (!l->used || l->used_at != c->th->dsbs) { /* authorised: use it up */
        l->used = 1;
        l->used_at = c->th->dsbs;
        return 0;
    }
    if (!release && (state == TK_CASEMATE_STATE_VALID || (val & 1))) {
        cm_relate(c, addr);
        return cm_violate(c, CM_UNAUTHORIZED_WRITE,
                          "a second plain write under lock 0x%llx without a DSB between",
                          (unsigned long long)*lock);
    }
    return 0;
}

/* A DSB by the holder gives the authorisation back: counting the holder's
 * DSBs makes that O(1) per DSB, however many locks are held. */
int cm_lock_authorised(const tk_casemate_checker *c, const cm_lock *l)
{
    if (!l->used)
        return 1;
    const cm_thread *t = cm_thread_find(c, l->holder);
    return !t || l->used_at != t->dsbs;
}

void cm_locks_free(tk_casemate_checker *c)
{
    cm_lockset_free(c);
    cm_map_free(&c->root_locks);
}
