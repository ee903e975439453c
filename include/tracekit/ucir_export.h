/* tracekit — exports of Usercorn traces for other tools: Tenet's text
 * trace (timeline, memory and register views in IDA) and drcov coverage
 * (Lighthouse, also read by Ghidra's Dragon Dance and Binary Ninja's
 * bncov). Both replay the trace, so they follow the replay's rules
 * (docs/formats/ucir.md).
 *
 * Each export reads `r` (a handle: one thread at a time) from where it is
 * to the end, writes to `out` (borrowed, not closed) and returns TK_OK or
 * the failure: the reader's, TK_ENOMEM, or TK_EIO when writing failed.
 * What was written before a failure stays in `out`. */
#ifndef TRACEKIT_UCIR_EXPORT_H
#define TRACEKIT_UCIR_EXPORT_H

#include <stdio.h>
#include <tracekit/error.h>
#include <tracekit/ucir.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Tenet: one line per instruction, comma-separated. The first line has
 * every known general-purpose register, later lines the registers whose
 * value changed since the line before (so a line shows the state the
 * instruction starts from), then the instruction's address (rip=, eip=
 * or pc=) and its memory accesses as mr=ADDR:HEX / mw=ADDR:HEX (reads
 * without recorded bytes are left out). */
tk_status tk_ucir_export_tenet(tk_ucir_reader *r, FILE *out, tk_error *err);
/* The same for instructions [from, to) only (the replay runs through the
 * ones before; its first line has every register: the state at `from`). */
tk_status tk_ucir_export_tenet_window(tk_ucir_reader *r, FILE *out, uint64_t from, uint64_t to,
                                      tk_error *err);

/* drcov version 2 (drcov-64): a module per executable mapped region (the
 * regions mapped when their first block ran), and every distinct basic
 * block executed in one: a block runs from an EXEC_ABS (or a jump) along
 * the EXEC_RELs after it. Blocks outside executable maps are counted in
 * *unmapped (may be NULL). */
tk_status tk_ucir_export_drcov(tk_ucir_reader *r, FILE *out, uint64_t *unmapped,
                               tk_error *err);
/* The same for the blocks run by instructions [from, to) only. */
tk_status tk_ucir_export_drcov_window(tk_ucir_reader *r, FILE *out, uint64_t from, uint64_t to,
                                      uint64_t *unmapped, tk_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
