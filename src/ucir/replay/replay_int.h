/* The replay engine's state: registers, memory map, sparse memory pages,
 * and the hook through which a seek reads memory from the index. */
#ifndef TK_UCIR_REPLAY_INT_H
#define TK_UCIR_REPLAY_INT_H

#include <stddef.h>
#include <stdint.h>

#include <tracekit/ucir_replay.h>

#include "core/hashmap.h"
#include "ucir/addr_tree.h"
#include "ucir/replay/clock.h"

#define RP_PAGE_SHIFT 12
#define RP_PAGE ((uint64_t)1 << RP_PAGE_SHIFT)
#define RP_NREGS 65536 /* register enums are 16-bit in both formats */

typedef struct rp_page {
    uint8_t data[RP_PAGE];
    uint64_t known[RP_PAGE / 64]; /* bit per byte: it has a value */
    int dirty;                    /* changed since the last checkpoint */
    int pending;                  /* the base's bytes are not merged in yet:
                                     the page holds only this replay's */
} rp_page;

/* Where pages not yet touched by this replay come from (a checkpoint):
 * fill `p` for page number `pn`, returning 1, or 0 when the base has no
 * such page, -1 on error. `each` lists the base's pages in [lo, hi]. */
typedef struct rp_base {
    int (*load)(const void *ctx, uint64_t pn, rp_page *p);
    int (*each)(const void *ctx, uint64_t lo, uint64_t hi,
                int (*fn)(void *arg, uint64_t pn), void *arg);
    const void *ctx;
} rp_base;

typedef struct rp_mem {
    tk_map pages;          /* page number -> rp_page * */
    uint64_t last_pn;      /* one-entry lookup cache */
    rp_page *last;
    rp_base base;          /* .load NULL: none */
    uint64_t *dirty;       /* page numbers of dirty pages */
    size_t ndirty, dirty_cap;
    struct rp_slab *slabs; /* where pages are carved from */
} rp_mem;

void rp_mem_init(rp_mem *m);
void rp_mem_free(rp_mem *m);
/* The page with every byte known so far (the base's merged in, loaded
 * from the base when untouched); NULL when neither has it, or on error
 * (-1 in *oom). */
rp_page *rp_mem_page(rp_mem *m, uint64_t pn, int *oom);
/* Give bytes values; 0 or -1 out of memory. */
int rp_mem_store(rp_mem *m, uint64_t addr, const uint8_t *data, uint64_t len);
/* Forget the values of [addr, addr + len) (an unmap). */
int rp_mem_forget(rp_mem *m, uint64_t addr, uint64_t len);
/* Read values and known flags; 0 or -1 (base error). */
int rp_mem_read(rp_mem *m, uint64_t addr, size_t len, uint8_t *buf, uint8_t *known);

typedef struct rp_spreg {
    uint32_t num;
    uint32_t len;
    uint8_t *data;
} rp_spreg;

struct tk_ucir_replay {
    tk_ucir_header h;
    ucir_clock clk;              /* instruction boundaries */
    uint64_t *regs;              /* RP_NREGS values */
    uint64_t *have;              /* RP_NREGS bits */
    rp_spreg *spregs;
    size_t nspregs, spregs_cap;
    tk_ucir_atree map_tree;      /* the memory map: disjoint regions by
                                    address, walked with tk_ucir_atree_first
                                    and _next; map_tree.n of them */
    tk_ucir_map *maps;           /* by map_tree's node ids */
    rp_mem mem;
    void *base_ref;              /* after a seek: the index and checkpoint */

    uint64_t pc, last_size;
    int pc_known;
    uint64_t next_pc;            /* .uc: where the next STEP executes */
    int next_pc_known;
    uint64_t records, syscalls, frames, skipped;
    int exited;

    int held;                    /* a record held back by run_to */
    tk_ucir_op held_op;          /* its data and args: copies below */
    tk_ucir_pos held_pos;
    uint8_t *held_data;
    uint64_t *held_args;
};

/* After applying `op` (`started`: it started an instruction, asked
 * before applying): did it fix the current instruction's address? Spec
 * traces know it at the EXEC, .uc traces at the STEP (outside keyframes). */
static inline int rp_placed(const tk_ucir_replay *rp, const tk_ucir_op *op, int started)
{
    if (!rp->clk.uc)
        return started;
    return op->kind == TK_UCIR_STEP && op->depth == 0 && !rp->clk.in_key && !rp->clk.skipping;
}

/* Register value changes for the index (replay_state.c). */
void rp_set_reg(tk_ucir_replay *rp, uint32_t num, uint64_t value);
int rp_set_spreg(tk_ucir_replay *rp, uint32_t num, const uint8_t *data, uint32_t len);
int rp_map(tk_ucir_replay *rp, uint64_t addr, uint64_t size, uint8_t prot);
int rp_unmap(tk_ucir_replay *rp, uint64_t addr, uint64_t size);
void rp_maps_free(tk_ucir_replay *rp);

#endif
