/* Numbers for people: the text sink's rendering of doubles. Always fixed
 * notation (never 1e-05); durations in ns/µs/ms/s, ratios as percentages.
 * JSON does not use these: it keeps full precision (sb_f64). */
#ifndef TK_CORE_NUMFMT_H
#define TK_CORE_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

/* Duration units, smallest first. */
enum { TK_UNIT_NS, TK_UNIT_US, TK_UNIT_MS, TK_UNIT_S };

/* Decimals of durations and percentages. */
enum { TK_DURATION_DECIMALS = 3, TK_PERCENT_DECIMALS = 2 };

/* The unit for a set of durations whose largest magnitude is `max_abs`
 * seconds: the largest unit in which it reads at least 1.000 once rounded;
 * seconds for 0 or a non-finite value. */
int tk_num_duration_unit(double max_abs);

/* `decimals` digits after the point in fixed notation; non-finite values
 * print as nan, inf, -inf; a result that rounds to zero has no '-'. */
void tk_num_fixed(tk_strbuf *b, double v, int decimals);

/* `seconds` in `unit` with TK_DURATION_DECIMALS and the unit's symbol
 * ("12.345ms"; no space, so a key=value record stays one word). */
void tk_num_duration(tk_strbuf *b, double seconds, int unit);

/* A ratio (0.25) as a percentage with TK_PERCENT_DECIMALS ("25.00%"). */
void tk_num_percent(tk_strbuf *b, double ratio);

/* A number without a known meaning: at most 6 significant digits and at
 * most 9 decimals, trailing zeros dropped ("0.25", "0.000016903"). */
void tk_num_plain(tk_strbuf *b, double v);

/* Exactly what printf("%*.*f", width, decimals, v) writes, into `dst` of
 * `cap` bytes (NUL-terminated, truncated like snprintf); returns the length
 * printf would have written. Positive finite values whose rounding is not a
 * near tie are formatted here (~10x faster than printf: llvm-xray's tables
 * of a million rows are mostly such numbers); the rest go to snprintf. */
size_t tk_num_printf_f(char *dst, size_t cap, double v, int width, int decimals);

/* printf("%*llu", width, v) into `dst` of at least max(width, 20) + 1
 * bytes; returns the length. */
size_t tk_num_printf_u(char *dst, uint64_t v, int width);

#endif
