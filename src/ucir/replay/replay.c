/* The replay engine: applies records to the state and keeps track of
 * instruction boundaries (spec traces: an EXEC starts an instruction;
 * .uc traces: a STEP ends one). */
#include <stdlib.h>
#include <string.h>

#include "ucir/replay/replay_int.h"

tk_ucir_replay *tk_ucir_replay_new(const tk_ucir_header *h, tk_error *err)
{
    tk_ucir_replay *rp = calloc(1, sizeof *rp);
    if (rp) {
        rp->regs = calloc(RP_NREGS, sizeof *rp->regs);
        rp->have = calloc(RP_NREGS / 64, sizeof *rp->have);
    }
    if (!rp || !rp->regs || !rp->have) {
        tk_ucir_replay_free(rp);
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    rp->h = *h;
    ucir_clock_init(&rp->clk, h->variant == TK_UCIR_USERCORN);
    rp_mem_init(&rp->mem);
    return rp;
}

void tk_ucir_replay_free(tk_ucir_replay *rp)
{
    if (!rp)
        return;
    free(rp->regs);
    free(rp->have);
    for (size_t i = 0; i < rp->nspregs; i++)
        free(rp->spregs[i].data);
    free(rp->spregs);
    rp_maps_free(rp);
    rp_mem_free(&rp->mem);
    free(rp->held_data);
    free(rp->held_args);
    free(rp->base_ref);
    free(rp);
}

int tk_ucir_replay_starts_instruction(const tk_ucir_replay *rp, const tk_ucir_op *op)
{
    return ucir_clock_starts(&rp->clk, op);
}

/* Instruction rp->clk.instr starts: where it is. */
static void start_instruction(tk_ucir_replay *rp, const tk_ucir_op *op)
{
    if (!rp->clk.uc) {
        if (op->kind == TK_UCIR_EXEC_ABS) {
            rp->pc = op->addr;
            rp->pc_known = 1;
        } else {
            rp->pc += rp->last_size;
        }
        rp->last_size = op->size;
        return;
    }
    rp->pc = rp->next_pc;
    rp->pc_known = rp->next_pc_known;
}

static int oom(tk_error *err)
{
    tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory replaying");
    return -1;
}

int tk_ucir_replay_apply(tk_ucir_replay *rp, const tk_ucir_op *op, const tk_ucir_pos *pos,
                         tk_error *err)
{
    (void)pos;
    rp->records++;
    /* the first keyframe is the setup; later ones summarise the frame
     * after them, which a linear replay applies itself */
    switch (ucir_clock_step(&rp->clk, op)) {
    case UCIR_CLK_FRAME:
        rp->frames++;
        return 1;
    case UCIR_CLK_SKIPPED:
        rp->skipped++;
        return 0;
    case UCIR_CLK_START:
        start_instruction(rp, op);
        break;
    default:
        break;
    }
    switch (op->kind) {
    case TK_UCIR_REG_CHANGE:
        rp_set_reg(rp, op->reg, op->value);
        break;
    case TK_UCIR_SPREG_CHANGE:
        if (rp_set_spreg(rp, op->reg, op->data, (uint32_t)op->len) != 0)
            return oom(err);
        break;
    case TK_UCIR_MEM_READ:
    case TK_UCIR_MEM_WRITE:
        if (op->len && rp_mem_store(&rp->mem, op->addr, op->data, op->len) != 0)
            return oom(err);
        break;
    case TK_UCIR_MEM_MAP:
    case TK_UCIR_MEM_PROT:
        if (rp_map(rp, op->addr, op->size, op->prot) != 0)
            return oom(err);
        break;
    case TK_UCIR_MEM_UNMAP:
        if (rp_unmap(rp, op->addr, op->size) != 0 ||
            rp_mem_forget(&rp->mem, op->addr, op->size) != 0)
            return oom(err);
        break;
    case TK_UCIR_SYSCALL:
        rp->syscalls++;
        break;
    case TK_UCIR_EXIT:
        rp->exited = 1;
        break;
    case TK_UCIR_JMP:
        rp->next_pc = op->addr;
        rp->next_pc_known = 1;
        if (!rp->clk.want_start) { /* the first op of the instruction */
            rp->pc = op->addr;
            rp->pc_known = 1;
        }
        break;
    case TK_UCIR_STEP: /* the clock starts the next instruction after it */
        if (rp->clk.in_key)
            break;
        rp->pc = rp->next_pc;
        rp->pc_known = rp->next_pc_known;
        rp->next_pc += op->size;
        break;
    default:
        break;
    }
    return 1;
}

void tk_ucir_replay_info_get(const tk_ucir_replay *rp, tk_ucir_replay_info *info)
{
    memset(info, 0, sizeof *info);
    info->instruction = rp->clk.instr;
    info->instructions = (uint64_t)(rp->clk.instr + 1);
    info->pc = rp->pc;
    info->pc_known = rp->pc_known;
    info->records = rp->records;
    info->syscalls = rp->syscalls;
    info->frames = rp->frames;
    info->skipped_records = rp->skipped;
    info->exited = rp->exited;
}

/* Keep a copy of the record that starts the next instruction. */
static int hold(tk_ucir_replay *rp, const tk_ucir_op *op, const tk_ucir_pos *pos)
{
    rp->held_op = *op;
    rp->held_pos = *pos;
    if (op->len) {
        uint8_t *d = realloc(rp->held_data, (size_t)op->len);
        if (!d)
            return -1;
        memcpy(d, op->data, (size_t)op->len);
        rp->held_data = d;
        rp->held_op.data = d;
    }
    if (op->argc) {
        uint64_t *a = realloc(rp->held_args, op->argc * sizeof *a);
        if (!a)
            return -1;
        memcpy(a, op->args, op->argc * sizeof *a);
        rp->held_args = a;
        rp->held_op.args = a;
    }
    rp->held = 1;
    return 0;
}

static int run(tk_ucir_replay *rp, tk_ucir_reader *r, int64_t n, tk_error *err)
{
    if (rp->held) {
        if (n >= 0 && rp->clk.instr >= n)
            return 1;
        rp->held = 0;
        if (tk_ucir_replay_apply(rp, &rp->held_op, &rp->held_pos, err) < 0)
            return -1;
    }
    tk_ucir_op op;
    tk_ucir_pos pos;
    for (;;) {
        int rc = tk_ucir_next(r, &op, err);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return n >= 0 && rp->clk.instr >= n ? 1 : 0;
        tk_ucir_reader_pos(r, &pos);
        if (n >= 0 && rp->clk.instr >= n && tk_ucir_replay_starts_instruction(rp, &op))
            return hold(rp, &op, &pos) != 0 ? oom(err) : 1;
        if (tk_ucir_replay_apply(rp, &op, &pos, err) < 0)
            return -1;
    }
}

int tk_ucir_replay_run_to(tk_ucir_replay *rp, tk_ucir_reader *r, uint64_t n, tk_error *err)
{
    return run(rp, r, n > INT64_MAX ? INT64_MAX : (int64_t)n, err);
}

int tk_ucir_replay_run_all(tk_ucir_replay *rp, tk_ucir_reader *r, tk_error *err)
{
    return run(rp, r, -1, err) < 0 ? -1 : 0;
}
