/* tracekit — the casemate break-before-make checker: replays a casemate
 * log on a model of page-table memory (8-byte shadow slots, page tables
 * discovered from VTTBR_EL2 / TTBR0_EL2, the valid / invalid-unclean /
 * invalid-clean automaton of every entry, DSB and TLBI scopes, locks,
 * thread ownership and hints) and stops at the first violation, like
 * rems-project/casemate's casemate-check. Semantics, options and the
 * differences from casemate-check: docs/formats/casemate.md, "Checker".
 *
 * A checker is a handle (<tracekit/tracekit.h>, "Conventions"): made by
 * tk_casemate_check_new, freed by tk_casemate_check_free (NULL is fine),
 * used by one thread at a time, its getters and printers included (they
 * read its state); distinct checkers are independent. The code table and
 * name functions are static and safe from any thread. */
#ifndef TRACEKIT_CASEMATE_CHECK_H
#define TRACEKIT_CASEMATE_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <tracekit/casemate.h>
#include <tracekit/error.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct tk_casemate_check_options {
    int racy;               /* no lock, ownership or write-authorisation
                               checks; maintenance counts whoever holds
                               the lock (casemate-check -R) */
    int ignore_uninit;      /* writes to uninitialised memory and unlocks
                               of free locks are skipped (-I) */
    int promote_tlbi_by_id; /* TLBIs by VMID act as TLBI ALL (what
                               casemate-check always does) */
    int no_sysreg_defaults; /* threads start with no system registers
                               instead of casemate-check's defaults (-S) */
    int hw_af;              /* hardware Access-flag management taken as on
                               in both regimes, whatever TCR_EL2.HA and
                               VTCR_EL2.HA say: descriptors with AF = 0
                               may be in TLBs (--hw-af) */
} tk_casemate_check_options;

/* All zero: casemate-check's defaults without its forced promotion.
 * Cannot fail. */
void tk_casemate_check_options_init(tk_casemate_check_options *o);

typedef struct tk_casemate_checker tk_casemate_checker;

/* A checker with options `o` (copied; NULL: all zero). NULL and `err`
 * (TK_ENOMEM) on allocation failure. */
tk_casemate_checker *tk_casemate_check_new(const tk_casemate_check_options *o, tk_error *err);
void tk_casemate_check_free(tk_casemate_checker *c);

/* Step the model by one record: 0 = fine, 1 = a violation (see
 * tk_casemate_check_violation; the checker then stays stopped and returns 1),
 * -1 = the log asks for something the model does not support, or memory
 * ran out (err set, TK_EUNSUPPORTED / TK_ENOMEM; the checker stays
 * stopped). The record is not kept. */
int tk_casemate_check_feed(tk_casemate_checker *c, const tk_casemate_record *rec, tk_error *err);

/* Records fed (the violating one included). */
uint64_t tk_casemate_check_events(const tk_casemate_checker *c);

/* ---- the state of one 8-byte location */
typedef enum tk_casemate_state {
    TK_CASEMATE_STATE_NONE = 0,         /* not a page-table entry */
    TK_CASEMATE_STATE_VALID,            /* V */
    TK_CASEMATE_STATE_INVALID_UNCLEAN,  /* IU: written invalid, TLBs not clean */
    TK_CASEMATE_STATE_INVALID_CLEAN     /* I */
} tk_casemate_state;

/* How far the invalidating thread got cleaning an IU entry. */
typedef enum tk_casemate_lis {
    TK_CASEMATE_LIS_UNGUARDED = 0,      /* no DSB yet */
    TK_CASEMATE_LIS_DSBED,              /* DSB */
    TK_CASEMATE_LIS_DSB_TLBI_IPA,       /* DSB, stage-2 TLBI by IPA */
    TK_CASEMATE_LIS_DSB_TLBI_IPA_DSB,   /* ... then DSB ISH */
    TK_CASEMATE_LIS_DSB_TLBIED          /* enough TLBIs: the next DSB ISH cleans */
} tk_casemate_lis;

typedef struct tk_casemate_entry {
    uint64_t address;       /* of the 8-byte slot */
    uint64_t value;
    int initialised;
    int frozen;             /* below an invalid-unclean table entry */
    tk_casemate_state state;      /* TK_CASEMATE_STATE_NONE: the fields below are 0 */
    unsigned stage;         /* 1 (TTBR0_EL2) or 2 (VTTBR_EL2) */
    unsigned level;         /* 0..3 */
    uint64_t root;          /* base of the tree it belongs to */
    uint64_t ia_start, ia_last; /* input addresses it maps (inclusive) */
    tk_casemate_lis lis;          /* IU */
    uint64_t invalidator;   /* IU, I: the thread that wrote it invalid */
    uint64_t old;           /* IU: the valid descriptor it replaced */
    int thread_owned;
    uint64_t thread_owner;
} tk_casemate_entry;

/* 1 and *out filled when the model knows `address` (any byte of the
 * slot); 0 when it does not (uninitialised memory): a lookup. */
int tk_casemate_check_entry(const tk_casemate_checker *c, uint64_t address, tk_casemate_entry *out);

/* ---- the violation */
typedef struct tk_casemate_violation {
    const char *code;       /* stable kebab-case code, "bbm-missing-tlbi" */
    const char *message;    /* casemate's wording, "BBM invalid unclean->valid" */
    const char *detail;     /* what tracekit adds (may be "") */
    uint64_t id, tid;       /* of the record */
    tk_casemate_src_kind src_kind;
    const char *src;        /* STRING (NUL-terminated copy) */
    size_t src_len;
    uint64_t src_int;       /* INT */
    const tk_casemate_record *record; /* a copy, src pointing to `src` */
    const tk_casemate_entry *entries;       /* related entries, as they were */
    size_t nentries;
} tk_casemate_violation;

/* The first violation, NULL when there has been none. Owned by the
 * checker (with everything it points to): valid until it is freed. */
const tk_casemate_violation *tk_casemate_check_violation(const tk_casemate_checker *c);

/* Every violation code and its message (static text), i = 0 .. count-1;
 * NULL past the end. `message` may be NULL. */
size_t tk_casemate_check_code_count(void);
const char *tk_casemate_check_code(size_t i, const char **message);

/* ---- summary */
typedef struct tk_casemate_check_stats {
    uint64_t events;
    uint64_t roots, roots_stage1, roots_stage2;
    uint64_t entries, valid, invalid_unclean, invalid_clean;
    uint64_t locks_held, threads, pages;
} tk_casemate_check_stats;
/* The model's counts now, into *s. */
void tk_casemate_check_get_stats(const tk_casemate_checker *c, tk_casemate_check_stats *s);

/* ---- watching: tk_casemate_check_watch adds the 8-byte slot holding
 * `address` to the watched ones (TK_ENOMEM is its only failure). */
tk_status tk_casemate_check_watch(tk_casemate_checker *c, uint64_t address, tk_error *err);
/* After a feed: 1 when the record changed or named a watched slot, else 0. */
int tk_casemate_check_touched(const tk_casemate_checker *c);

/* ---- printing (text). Write errors stay in `out` for the caller to check
 * (ferror); running out of memory shortens what is printed, so these
 * never fail. */
/* One line for an entry: "0x81000=0x0 S2 L1 IU(dsbed, tid 1) root:0x80000
 * ia:0x0-0x3fffffff old:0x400004fd". */
void tk_casemate_check_print_entry(const tk_casemate_entry *e, FILE *out);
/* A record in the keyword form on one line (bytes of its src that are
 * control characters or not UTF-8 as \xNN). */
void tk_casemate_check_print_record(const tk_casemate_record *rec, FILE *out);
/* Compact state: roots, held locks, invalid-unclean entries. */
void tk_casemate_check_print_state(const tk_casemate_checker *c, FILE *out);
/* The error-context block of the violation (no "! MESSAGE" line):
 * code, message, the record, its related entries. Never fails on odd
 * state: what it prints was captured when the violation happened. */
void tk_casemate_check_print_context(const tk_casemate_checker *c, FILE *out);
/* The page-table trees with every entry's state, as a Graphviz digraph;
 * entries related to the violation are outlined. TK_ENOMEM, or TK_EIO
 * when writing failed. */
tk_status tk_casemate_check_write_dot(const tk_casemate_checker *c, FILE *out, tk_error *err);

/* Names of states and cleaning stages (static text). */
const char *tk_casemate_state_name(tk_casemate_state s);   /* "V", "IU", "I", "-" */
const char *tk_casemate_lis_name(tk_casemate_lis l);       /* "unguarded", "dsbed", ... */

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
