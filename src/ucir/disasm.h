/* Disassembly of single instructions through capstone, for the machines
 * Unicorn names (arch and mode as in the trace header). */
#ifndef TK_UCIR_DISASM_H
#define TK_UCIR_DISASM_H

#include <stddef.h>
#include <stdint.h>

typedef struct ucir_disasm ucir_disasm;

/* NULL when capstone has no decoder for this arch/mode (or no memory). */
ucir_disasm *ucir_disasm_new(uint32_t uc_arch, uint32_t uc_mode);
void ucir_disasm_free(ucir_disasm *d);

/* Decode the instruction at code[0..n) (address pc) into text ("mov eax,
 * 1"); returns its length in bytes, 0 when the bytes are not a whole
 * instruction. */
size_t ucir_disasm_one(ucir_disasm *d, uint64_t pc, const uint8_t *code, size_t n, char *text,
                       size_t cap);

#endif
