/* Disassembly of single instructions through capstone, for the machines
 * Unicorn names (arch and mode as in the trace header). */
#ifndef TK_UCIR_DISASM_H
#define TK_UCIR_DISASM_H

#include <stddef.h>
#include <stdint.h>

#include <tracekit/error.h>

typedef struct ucir_disasm ucir_disasm;

/* NULL when capstone has no decoder for this arch/mode (or no memory). */
ucir_disasm *ucir_disasm_new(uint32_t uc_arch, uint32_t uc_mode);
void ucir_disasm_free(ucir_disasm *d);

/* Decode the instruction at code[0..n) (address pc) into text ("mov eax,
 * 1"); returns its length in bytes, 0 when the bytes are not a whole
 * instruction. */
size_t ucir_disasm_one(ucir_disasm *d, uint64_t pc, const uint8_t *code, size_t n, char *text,
                       size_t cap);

/* Bytes looked at for one instruction. */
#define TK_UCIR_CODE_MAX 16

/* The instruction at pc as the replay's memory has it now: its known
 * bytes into code[TK_UCIR_CODE_MAX] (up to `size`, the size its record
 * gave, 0: unknown) and its text (text[0] = 0 when the bytes are unknown
 * or not the instruction of that size, or `d` is NULL: no capstone).
 * Returns the bytes of code to show, 0 when none are known (or reading
 * memory failed: `err` filled). Used by the dump's listing and the HTML
 * report's hot code. */
struct tk_ucir_replay;
size_t tk_ucir_disasm_code(ucir_disasm *d, struct tk_ucir_replay *rp, uint64_t pc,
                           uint64_t size, uint8_t *code, char *text, size_t cap,
                           tk_error *err);

#endif
