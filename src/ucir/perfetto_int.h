/* UCIR on a Perfetto timeline (docs/formats/ucir.md, "Perfetto timeline"):
 * what perfetto.c shares with perfetto_events.c (syscall slices and
 * memory-map instants), perfetto_code.c (the per-window counters) and
 * perfetto_syscalls.c (syscall names). Time is the instruction index,
 * 1 ns per instruction; everything is on one packet sequence. */
#ifndef TK_UCIR_PERFETTO_INT_H
#define TK_UCIR_PERFETTO_INT_H

#include <stddef.h>
#include <stdint.h>

#include "export/perfetto/perfetto.h"
#include "ucir/regions.h"
#include "ucir/ucir_int.h"

/* Track uuids; the code regions' counters follow TK_UCIR_PF_CODE0. */
enum {
    TK_UCIR_PF_ROOT = 1,    /* the program: parent of the others */
    TK_UCIR_PF_SYSCALLS,    /* one slice per syscall */
    TK_UCIR_PF_MEMMAP,      /* one instant per map, unmap, protect */
    TK_UCIR_PF_WRITTEN,     /* counter: bytes written per window */
    TK_UCIR_PF_CODE0 = 16
};

/* Regions with a counter track of their own; instructions in further
 * regions share one "other regions" track. */
#define TK_UCIR_PF_MAX_REGIONS 1024u
#define TK_UCIR_PF_DEFAULT_WINDOW 10000u

/* One counter track and its current window. */
typedef struct tk_ucir_pf_ctr {
    uint64_t uuid;
    uint64_t map_addr, map_size; /* the region it counts */
    int64_t count, last;         /* this window's value, the last emitted */
    int declared;
} tk_ucir_pf_ctr;

/* The counters: instructions per code region, bytes written. */
typedef struct tk_ucir_pf_code {
    tk_perfetto_seq *seq;
    uint64_t window;             /* instructions per window */
    tk_ucir_regions regions;     /* span ids: their counter's index + 1 */
    tk_ucir_pf_ctr *ctrs;        /* [0] unknown address, [1] other regions */
    size_t nctrs, ctrs_cap;
    tk_ucir_pf_ctr written;
} tk_ucir_pf_code;

/* Empty counters writing on `seq`. */
void tk_ucir_pf_code_init(tk_ucir_pf_code *c, tk_perfetto_seq *seq, uint64_t window);
void tk_ucir_pf_code_free(tk_ucir_pf_code *c);
/* A MEM_MAP (label: its .uc file or desc, may be empty) or MEM_UNMAP:
 * TK_OK or TK_ENOMEM. */
tk_status tk_ucir_pf_code_map(tk_ucir_pf_code *c, uint64_t addr, uint64_t size, uint8_t prot,
                              const char *label, size_t label_len, tk_error *err);
tk_status tk_ucir_pf_code_unmap(tk_ucir_pf_code *c, uint64_t addr, uint64_t size,
                                tk_error *err);
/* One instruction executed at pc (known: 0 when not). */
tk_status tk_ucir_pf_code_count(tk_ucir_pf_code *c, int known, uint64_t pc, tk_error *err);
/* Bytes written by one MEM_WRITE. */
void tk_ucir_pf_code_written(tk_ucir_pf_code *c, uint64_t bytes);
/* The window ends at ts: write each counter's value (zeros only after a
 * nonzero value; `last`: none at all, the trace ends) and start over. */
tk_status tk_ucir_pf_code_window(tk_ucir_pf_code *c, uint64_t ts, int last, tk_error *err);

/* Interned ids of the events' names and annotation names. */
typedef struct tk_ucir_pf_ids {
    uint64_t cat_syscall, cat_memory;
    uint64_t map, unmap, protect;
    uint64_t num, ret, err_no, pc, addr, size, prot, desc, file, offset, more_args;
    uint64_t arg[16];
    uint64_t syscall[512];       /* names by number, 0: not interned yet */
} tk_ucir_pf_ids;

/* What the events need: the writer, its sequence, the ids. */
typedef struct tk_ucir_pf_events {
    tk_perfetto *p;
    tk_perfetto_seq *seq;
    const tk_ucir_header *h;
    tk_ucir_pf_ids ids;
    int open;                    /* a syscall slice is open */
} tk_ucir_pf_events;

/* Intern the fixed names: TK_OK or TK_ENOMEM. */
tk_status tk_ucir_pf_events_init(tk_ucir_pf_events *e, tk_perfetto *p, tk_perfetto_seq *seq,
                                 const tk_ucir_header *h, tk_error *err);
/* A SYSCALL at ts (pc_known: pc is its instruction's address): a slice
 * begins, ending at the next tk_ucir_pf_syscall_end. */
tk_status tk_ucir_pf_syscall(tk_ucir_pf_events *e, uint64_t ts, const tk_ucir_op *op,
                             int pc_known, uint64_t pc, tk_error *err);
/* End the open syscall slice, if any, at ts. */
tk_status tk_ucir_pf_syscall_end(tk_ucir_pf_events *e, uint64_t ts, tk_error *err);
/* A MEM_MAP, MEM_UNMAP or MEM_PROT at ts: an instant on "memory map". */
tk_status tk_ucir_pf_mem(tk_ucir_pf_events *e, uint64_t ts, const tk_ucir_op *op,
                         tk_error *err);

/* The Linux name of syscall `num` on the header's architecture (x86_64,
 * x86, arm64), NULL when it is not known. */
const char *tk_ucir_syscall_name(const tk_ucir_header *h, uint32_t num);
/* A failed syscall's errno from its return value: 1 and *eno, or 0 when
 * `ret` is no error (perfetto_events.c). */
int tk_ucir_syscall_errno(const tk_ucir_header *h, uint64_t ret, int64_t *eno);

/* The label of a .uc map: its file's base name, else its desc. */
const char *tk_ucir_pf_map_label(const tk_ucir_op *op, size_t *len);

#endif
