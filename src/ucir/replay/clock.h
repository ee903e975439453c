/* Instruction boundaries of a UCIR trace: which instruction each record
 * belongs to, as the replay counts them (spec traces: an EXEC starts one
 * and the ops after it are its effects; .uc traces: the effects come
 * first and a STEP ends the instruction, a SYSCALL right after a STEP
 * still belonging to it). The first keyframe is the setup; the records of
 * later keyframes only summarise the frame after them and belong to no
 * instruction. Shared by the replay and the selections, which need the
 * boundaries without the state. */
#ifndef TK_UCIR_CLOCK_H
#define TK_UCIR_CLOCK_H

#include <stdint.h>
#include <string.h>

#include <tracekit/ucir.h>

typedef struct ucir_clock {
    int uc;              /* .uc semantics (effects before STEP) */
    int64_t instr;       /* current instruction, -1: none yet (the setup) */
    int want_start;      /* .uc: the next effect starts an instruction */
    int after_step;      /* .uc: the last top-level op was a STEP */
    int in_key;          /* the current frame is a keyframe */
    int first_key_done;  /* the first keyframe was seen */
    int skipping;        /* inside a later keyframe */
} ucir_clock;

/* What a record is to the clock. */
enum { UCIR_CLK_FRAME, UCIR_CLK_SKIPPED, UCIR_CLK_START, UCIR_CLK_EFFECT };

static inline void ucir_clock_init(ucir_clock *k, int uc)
{
    memset(k, 0, sizeof *k);
    k->uc = uc;
    k->instr = -1;
    k->want_start = 1;
}

/* Would `op` start a new instruction (the current one being complete)? */
static inline int ucir_clock_starts(const ucir_clock *k, const tk_ucir_op *op)
{
    if (op->depth != 0 || k->skipping || op->kind == TK_UCIR_FRAME)
        return 0;
    if (!k->uc)
        return op->kind == TK_UCIR_EXEC_ABS || op->kind == TK_UCIR_EXEC_REL;
    return k->want_start && !k->in_key && op->kind != TK_UCIR_NOP &&
           !(op->kind == TK_UCIR_SYSCALL && k->after_step);
}

/* Count `op` in: UCIR_CLK_START (it starts instruction k->instr),
 * UCIR_CLK_EFFECT (it belongs to k->instr, -1 for the setup), or a
 * FRAME record, or one skipped inside a later keyframe. */
static inline int ucir_clock_step(ucir_clock *k, const tk_ucir_op *op)
{
    if (op->kind == TK_UCIR_FRAME) {
        k->in_key = op->keyframe;
        k->skipping = op->keyframe && k->first_key_done;
        k->first_key_done |= op->keyframe;
        return UCIR_CLK_FRAME;
    }
    if (k->skipping)
        return UCIR_CLK_SKIPPED;
    int starts = ucir_clock_starts(k, op);
    if (starts) {
        k->instr++;
        k->want_start = k->want_start && !k->uc;
    }
    if (op->depth == 0 && op->kind != TK_UCIR_NOP)
        k->after_step = 0;
    if (op->kind == TK_UCIR_STEP && !k->in_key)
        k->want_start = k->after_step = 1;
    return starts ? UCIR_CLK_START : UCIR_CLK_EFFECT;
}

/* The program counter as the replay follows it (replay.c), for the
 * exports that walk the records without replaying them (perfetto.c,
 * parquet.c): a spec EXEC places its instruction (absolute, or right
 * after the last one); in .uc traces a JMP gives the next address and a
 * STEP moves there, an instruction starting at the address its last STEP
 * left. */
typedef struct ucir_pc {
    uint64_t pc, last_size, next_pc;
    int pc_known, next_pc_known;
} ucir_pc;

/* A spec EXEC (TK_UCIR_EXEC_ABS or _REL) starts an instruction. */
static inline void ucir_pc_exec(ucir_pc *p, const tk_ucir_op *op)
{
    if (op->kind == TK_UCIR_EXEC_ABS) {
        p->pc = op->addr;
        p->pc_known = 1;
    } else {
        p->pc += p->last_size;
    }
    p->last_size = op->size;
}

/* A .uc instruction starts (its first effect): where the last STEP left. */
static inline void ucir_pc_uc_start(ucir_pc *p)
{
    p->pc = p->next_pc;
    p->pc_known = p->next_pc_known;
}

/* A .uc JMP or STEP: 1 when it is a STEP outside a keyframe (it ends the
 * instruction when at depth 0), 0 otherwise. */
static inline int ucir_pc_uc_flow(ucir_pc *p, const ucir_clock *k, const tk_ucir_op *op)
{
    if (op->kind == TK_UCIR_JMP) {
        p->next_pc = op->addr;
        p->next_pc_known = 1;
        if (!k->want_start) {
            p->pc = op->addr;
            p->pc_known = 1;
        }
        return 0;
    }
    if (op->kind != TK_UCIR_STEP || k->in_key)
        return 0;
    ucir_pc_uc_start(p);
    p->next_pc += op->size;
    return 1;
}

#endif
