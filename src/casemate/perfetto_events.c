/* casemate records on a Perfetto timeline: each an instant on its thread's
 * track with its operands as annotations, except that a lock (or trylock)
 * of a free lock opens a slice on a track of its own under the thread's,
 * which the next unlock of that address ends. Locks get tracks of their
 * own because they need not be released in the order taken, and slices
 * on one track must nest. */
#include <stdio.h>
#include <string.h>

#include "casemate/perfetto_int.h"

/* The track of thread `tid`, declared on first use. 0 on failure. */
static uint64_t thread_track(tk_cmpf *m, uint64_t tid, tk_error *err)
{
    uint64_t *uuid = tk_map_u64(&m->threads, tid);
    if (!uuid) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return 0;
    }
    if (*uuid)
        return *uuid;
    char name[40];
    snprintf(name, sizeof name, "thread %llu", (unsigned long long)tid);
    *uuid = m->next_uuid++;
    return tk_perfetto_track(m->seq, *uuid, 0, name, err) == TK_OK ? *uuid : 0;
}

/* The track of lock `addr` (its entry `l`) as thread `tid` holds it, under
 * the thread's. The lock keeps the track of its last holder (l->holder,
 * l->track), which is taken again at no cost; the tracks of earlier
 * holders go to m->lock_tracks only when another thread takes the lock,
 * so a million locks each taken by one thread need no (tid, lock) key. */
static uint64_t lock_track(tk_cmpf *m, tk_cmpf_lock *l, uint64_t tid, uint64_t addr,
                           tk_error *err)
{
    if (l->track && l->holder == tid)
        return l->track;
    uint64_t parent = thread_track(m, tid, err);
    if (!parent)
        return 0;
    if (l->track) { /* the last holder's, kept for when it comes back */
        uint64_t last[2] = {l->holder, addr};
        uint64_t *kept = tk_map_str(&m->lock_tracks, (const char *)last, sizeof last);
        if (!kept) {
            tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
            return 0;
        }
        *kept = l->track;
    }
    uint64_t key[2] = {tid, addr};
    const uint64_t *uuid = tk_map_find_str(&m->lock_tracks, (const char *)key, sizeof key);
    if (uuid)
        return *uuid;
    char name[40];
    snprintf(name, sizeof name, "lock 0x%llx", (unsigned long long)addr);
    uint64_t track = m->next_uuid++;
    return tk_perfetto_track(m->seq, track, parent, name, err) == TK_OK ? track : 0;
}

static void put_u(tk_cmpf *m, tk_perfetto_arg *a, size_t *n, int name, tk_perfetto_arg_type t,
                  uint64_t v)
{
    a[*n] = (tk_perfetto_arg){.name = m->arg[name], .type = t, .v.u = v};
    ++*n;
}

/* The src: interned when short (file:line strings repeat), else inline. */
static tk_status put_src(tk_cmpf *m, const tk_casemate_record *r, tk_perfetto_arg *a,
                         size_t *n, tk_error *err)
{
    if (r->src_kind == TK_CASEMATE_SRC_INT) {
        put_u(m, a, n, TK_CMPF_A_SRC_ID, TK_PERFETTO_ARG_UINT, r->src_int);
    } else if (r->src_kind == TK_CASEMATE_SRC_STRING && r->src_len <= 256) {
        uint64_t id = tk_perfetto_string(m->p, r->src, r->src_len, err);
        if (!id)
            return err->status;
        put_u(m, a, n, TK_CMPF_A_SRC, TK_PERFETTO_ARG_ISTR, id);
    } else if (r->src_kind == TK_CASEMATE_SRC_STRING) {
        a[*n] = (tk_perfetto_arg){.name = m->arg[TK_CMPF_A_SRC], .type = TK_PERFETTO_ARG_STR,
                                  .v.s = {r->src, r->src_len}};
        ++*n;
    }
    return TK_OK;
}

/* The kind's operands, as `dump` names them (addresses as hex). */
static void put_operands(tk_cmpf *m, const tk_casemate_record *r, tk_perfetto_arg *a, size_t *n)
{
    switch (r->kind) {
    case TK_CASEMATE_MEM_WRITE:
        put_u(m, a, n, TK_CMPF_A_MEM_ORDER, TK_PERFETTO_ARG_ISTR, m->mem_order[r->mem_order]);
        /* fall through */
    case TK_CASEMATE_MEM_READ:
        put_u(m, a, n, TK_CMPF_A_ADDR, TK_PERFETTO_ARG_HEX, r->address);
        put_u(m, a, n, TK_CMPF_A_VALUE, TK_PERFETTO_ARG_HEX, r->value);
        break;
    case TK_CASEMATE_MEM_INIT:
    case TK_CASEMATE_MEM_FREE:
    case TK_CASEMATE_MEM_SET:
        put_u(m, a, n, TK_CMPF_A_ADDR, TK_PERFETTO_ARG_HEX, r->address);
        put_u(m, a, n, TK_CMPF_A_SIZE, TK_PERFETTO_ARG_HEX, r->size);
        if (r->kind == TK_CASEMATE_MEM_SET)
            put_u(m, a, n, TK_CMPF_A_VALUE, TK_PERFETTO_ARG_HEX, r->value);
        break;
    case TK_CASEMATE_SYSREG_WRITE:
        put_u(m, a, n, TK_CMPF_A_SYSREG, TK_PERFETTO_ARG_ISTR, m->sysreg[r->sysreg]);
        put_u(m, a, n, TK_CMPF_A_VALUE, TK_PERFETTO_ARG_HEX, r->value);
        break;
    case TK_CASEMATE_BARRIER:
        put_u(m, a, n, TK_CMPF_A_BARRIER, TK_PERFETTO_ARG_ISTR, m->barrier[r->barrier]);
        break;
    case TK_CASEMATE_TLBI:
        put_u(m, a, n, TK_CMPF_A_TLBI, TK_PERFETTO_ARG_ISTR, m->tlbi[r->tlbi]);
        if (r->tlbi_operand == TK_CASEMATE_OPERAND_VALUE) {
            put_u(m, a, n, TK_CMPF_A_VALUE, TK_PERFETTO_ARG_HEX, r->value);
        } else if (r->tlbi_operand == TK_CASEMATE_OPERAND_ADDR_LEVEL) {
            put_u(m, a, n, TK_CMPF_A_ADDR, TK_PERFETTO_ARG_HEX, r->address);
            put_u(m, a, n, TK_CMPF_A_LEVEL, TK_PERFETTO_ARG_UINT, r->level);
        }
        break;
    case TK_CASEMATE_HINT:
        put_u(m, a, n, TK_CMPF_A_HINT, TK_PERFETTO_ARG_ISTR, m->hint[r->hint]);
        put_u(m, a, n, TK_CMPF_A_ADDR, TK_PERFETTO_ARG_HEX, r->location);
        put_u(m, a, n, TK_CMPF_A_VALUE, TK_PERFETTO_ARG_HEX, r->value);
        break;
    default: /* lock, trylock, unlock */
        put_u(m, a, n, TK_CMPF_A_ADDR, TK_PERFETTO_ARG_HEX, r->address);
        break;
    }
}

/* A lock or trylock that takes the lock opens a slice: of a free lock, or
 * a trylock by its holder (re-entrant, as the checker counts it). Any
 * other is an instant. Returns the slice's track, 0 for an instant, or
 * UINT64_MAX on failure. */
static uint64_t lock_slice(tk_cmpf *m, const tk_casemate_record *rec, tk_error *err)
{
    if (rec->kind != TK_CASEMATE_LOCK && rec->kind != TK_CASEMATE_TRYLOCK)
        return 0;
    tk_cmpf_lock *l = tk_map_u64(&m->locks, rec->address);
    if (!l) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return UINT64_MAX;
    }
    if (l->depth && !(rec->kind == TK_CASEMATE_TRYLOCK && l->holder == rec->tid))
        return 0;
    if (!l->depth) {
        l->track = lock_track(m, l, rec->tid, rec->address, err);
        if (!l->track)
            return UINT64_MAX;
        l->holder = rec->tid;
        l->taken_id = rec->id;
    }
    l->depth++;
    return l->track;
}

tk_status tk_cmpf_event(tk_cmpf *m, const tk_casemate_record *rec, uint64_t ts,
                        tk_error *err)
{
    tk_perfetto_arg a[TK_CMPF_MAX_ARGS];
    size_t n = 0;
    put_u(m, a, &n, TK_CMPF_A_ID, TK_PERFETTO_ARG_UINT, rec->id);
    put_u(m, a, &n, TK_CMPF_A_THREAD, TK_PERFETTO_ARG_UINT, rec->tid);
    put_operands(m, rec, a, &n);
    if (put_src(m, rec, a, &n, err) != TK_OK)
        return err->status;
    tk_perfetto_event e = {.ts = ts, .name = m->kind_name[rec->kind],
                           .category = m->kind_cat[rec->kind], .args = a, .nargs = n};
    uint64_t slice = lock_slice(m, rec, err);
    if (slice == UINT64_MAX)
        return err->status;
    if (slice) {
        e.track = slice;
        return tk_perfetto_begin(m->seq, &e, err);
    }
    e.track = thread_track(m, rec->tid, err);
    return e.track ? tk_perfetto_instant(m->seq, &e, err) : err->status;
}

tk_status tk_cmpf_unlock(tk_cmpf *m, const tk_casemate_record *rec, uint64_t ts,
                         tk_error *err)
{
    tk_cmpf_lock *l = tk_map_find_u64(&m->locks, rec->address);
    if (!l || !l->depth) /* unlock without lock: only its instant */
        return TK_OK;
    l->depth--;
    return tk_perfetto_end(m->seq, ts, l->track, err);
}

tk_status tk_cmpf_close_locks(tk_cmpf *m, uint64_t ts, tk_error *err)
{
    for (size_t i = 0; i < m->locks.n; i++) {
        tk_cmpf_lock *l = tk_map_value(&m->locks, i);
        for (; l->depth; l->depth--)
            if (tk_perfetto_end(m->seq, ts, l->track, err) != TK_OK)
                return err->status;
    }
    return TK_OK;
}
