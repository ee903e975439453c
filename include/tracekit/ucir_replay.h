/* tracekit — replaying Usercorn traces: the machine state (registers, PC,
 * memory map, sparse memory) at any instruction, with a checkpoint index
 * so that a seek costs about one checkpoint interval.
 *
 * Instructions: in spec traces each EXEC_ABS/EXEC_REL starts one and the
 * ops after it (up to the next) are its effects; in usercorn's .uc traces
 * the effects come first and STEP ends the instruction (a SYSCALL right
 * after a STEP belongs to it). Instruction 0 is the first one executed.
 * The first keyframe is applied (the binary setup); later keyframes only
 * summarise the frame after them and are skipped.
 *
 * A replay and an index are handles (<tracekit/tracekit.h>,
 * "Conventions"): made by tk_ucir_replay_new / tk_ucir_index_open (NULL
 * and `err` on failure), freed by tk_ucir_replay_free /
 * tk_ucir_index_close (NULL is fine), each used by one thread at a time.
 * A replay seeded from an index (tk_ucir_replay_seek) reads it until the
 * replay is freed: the two are then one unit for threads too. */
#ifndef TRACEKIT_UCIR_REPLAY_H
#define TRACEKIT_UCIR_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/error.h>
#include <tracekit/ucir.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct tk_ucir_replay tk_ucir_replay;

/* An empty machine for traces with header `h` (copied), nothing applied.
 * NULL when out of memory (TK_ENOMEM). */
tk_ucir_replay *tk_ucir_replay_new(const tk_ucir_header *h, tk_error *err);
void tk_ucir_replay_free(tk_ucir_replay *rp);

/* Apply one record read by tk_ucir_next (pos: where it was read). Returns
 * 1 applied, 0 skipped (inside a later keyframe), -1 out of memory. */
int tk_ucir_replay_apply(tk_ucir_replay *rp, const tk_ucir_op *op, const tk_ucir_pos *pos,
                         tk_error *err);

/* Would this record start a new instruction (so the current one is
 * complete before it)? 1 or 0. */
int tk_ucir_replay_starts_instruction(const tk_ucir_replay *rp, const tk_ucir_op *op);

/* Read and apply records until instruction `n` and all its effects are
 * applied: 1 reached, 0 the trace ended first (the state is the final
 * one), -1 error (err). The record that starts instruction n + 1 is held
 * back and applied by the next call. */
int tk_ucir_replay_run_to(tk_ucir_replay *rp, tk_ucir_reader *r, uint64_t n, tk_error *err);
/* Read and apply every record left: 0, or -1 on error (err). */
int tk_ucir_replay_run_all(tk_ucir_replay *rp, tk_ucir_reader *r, tk_error *err);

/* ---- the state */
typedef struct tk_ucir_replay_info {
    int64_t instruction;    /* the current (last started) instruction, -1: none */
    uint64_t instructions;  /* instructions started so far */
    uint64_t pc;            /* address of the current instruction */
    int pc_known;           /* 0 when EXEC_REL came before any address */
    uint64_t records, syscalls, frames, skipped_records;
    int exited;
} tk_ucir_replay_info;
/* The replay's position and counts now, into *info. */
void tk_ucir_replay_info_get(const tk_ucir_replay *rp, tk_ucir_replay_info *info);

/* Registers that have a value, by ascending Unicorn enum: fills up to cap
 * and returns how many there are. */
size_t tk_ucir_replay_regs(const tk_ucir_replay *rp, uint32_t *nums, uint64_t *values,
                           size_t cap);
/* 1 and *value when the register has a value, else 0. */
int tk_ucir_replay_reg(const tk_ucir_replay *rp, uint32_t num, uint64_t *value);

typedef struct tk_ucir_map {
    uint64_t addr, size;
    uint8_t prot;           /* TK_UCIR_PROT_* */
} tk_ucir_map;
/* Mapped regions by address (overlapping maps replace, unmaps split). */
size_t tk_ucir_replay_maps(const tk_ucir_replay *rp, tk_ucir_map *maps, size_t cap);

/* Memory bytes [addr, addr + len): buf gets the values, known[i] is 1 for
 * bytes some write or read has given a value (others read as 0). Fails
 * (TK_EIO) only when the bytes come from a checkpoint index that cannot
 * be read. */
tk_status tk_ucir_replay_read(tk_ucir_replay *rp, uint64_t addr, size_t len, uint8_t *buf,
                              uint8_t *known, tk_error *err);

/* ---- checkpoint index: a cache file of periodic states */
typedef struct tk_ucir_index_options {
    uint64_t interval;      /* inflated op bytes between checkpoints (0:
                               TK_UCIR_DEFAULT_INTERVAL) */
} tk_ucir_index_options;
#define TK_UCIR_DEFAULT_INTERVAL ((uint64_t)2 << 20)

/* Replay the whole trace of reader r (just opened) and write the index of
 * `trace_path` to `index_path` (atomically). Spec traces only
 * (TK_EUNSUPPORTED otherwise). `o` may be NULL. Failures: the reader's,
 * TK_EIO for the index file, TK_ENOMEM. */
tk_status tk_ucir_index_build(tk_ucir_reader *r, const char *trace_path, const char *index_path,
                              const tk_ucir_index_options *o, tk_error *err);

typedef struct tk_ucir_index tk_ucir_index;
/* Open an index; NULL with err (TK_EUNSUPPORTED when it is stale: it does
 * not describe trace_path as it is now). */
tk_ucir_index *tk_ucir_index_open(const char *index_path, const char *trace_path,
                                  tk_error *err);
void tk_ucir_index_close(tk_ucir_index *ix);
/* Checkpoints in the index, and instructions in the trace it describes. */
uint64_t tk_ucir_index_checkpoints(const tk_ucir_index *ix);
uint64_t tk_ucir_index_instructions(const tk_ucir_index *ix);

/* Start `rp` (new, nothing applied) from the last checkpoint before
 * instruction n and move reader r (same trace) there; then
 * tk_ucir_replay_run_to(rp, r, n) finishes the seek. The replay reads
 * memory from the index until its last use: keep ix open that long. */
tk_status tk_ucir_replay_seek(tk_ucir_replay *rp, tk_ucir_reader *r, const tk_ucir_index *ix,
                              uint64_t n, tk_error *err);

/* The default index path of a trace: $XDG_CACHE_HOME (or ~/.cache)
 * /tracekit/ucir-<hash of the absolute path>.idx, into `buf` of `size`
 * bytes, creating the directories. TK_EIO when the trace's path cannot be
 * resolved or a directory cannot be made, TK_EUNSUPPORTED when neither
 * variable is set, TK_EUSAGE when `buf` is too small. */
tk_status tk_ucir_index_default_path(const char *trace_path, char *buf, size_t size,
                                     tk_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
