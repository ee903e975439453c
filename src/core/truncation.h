/* The readers' side of truncated tails (<tracekit/input.h>): where a
 * reader that stopped at a cut says so. */
#ifndef TK_CORE_TRUNCATION_H
#define TK_CORE_TRUNCATION_H

#include <stdint.h>
#include <tracekit/input.h>

/* Note that reading `in` stopped at a cut record starting at `offset`,
 * ignoring the `dropped` bytes from there to the end; the message is
 * "truncated tail: " and the formatted text. The first note stays. */
void tk_input_note_truncation(tk_input *in, uint64_t offset, uint64_t dropped,
                              const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* The usual text: "dropped N bytes of WHAT at offset 0xOFF". */
void tk_input_note_cut(tk_input *in, uint64_t offset, uint64_t dropped, const char *what);

#endif
