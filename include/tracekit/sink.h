/* tracekit — structured output shared by every format and command.
 *
 * Callers describe values (objects, arrays, numbers, strings) once; the sink
 * renders them as aligned human text or as JSON. Top-level values become one
 * JSON line each, so a stream of records is JSON Lines and a single document
 * is one JSON value.
 *
 * Text rendering: a top-level object opened with tk_sink_record_begin is one
 * line of `key=value` fields (fields marked TK_SINK_BARE print their value
 * only); a document object prints `key: value` lines, nested objects indent,
 * and an array of flat objects prints as a table with a header row.
 *
 * Errors: the calls that describe values cannot fail one by one. A failed
 * write or allocation is remembered (what follows is dropped) and
 * tk_sink_finish reports it. A sink is a handle: one thread at a time;
 * distinct sinks are independent. Keys and strings given are copied or
 * written at once: they need not outlive the call. */
#ifndef TRACEKIT_SINK_H
#define TRACEKIT_SINK_H

#include <stdint.h>
#include <stdio.h>
#include <tracekit/error.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct tk_sink tk_sink;

typedef enum tk_sink_style {
    TK_SINK_TEXT = 0,
    TK_SINK_JSON = 1
} tk_sink_style;

/* Field flags. */
enum {
    TK_SINK_HEX = 1u << 0,     /* text: print integers as 0x...; JSON: a number */
    TK_SINK_BARE = 1u << 1,    /* text records: print the value as is, without
                                  "key=" and without quotes */
    TK_SINK_SECONDS = 1u << 2, /* a duration in seconds. Text: in ns, µs, ms
                                  or s with 3 decimals ("12.345ms"), the unit
                                  chosen per table column by its largest
                                  value (per value outside tables); JSON: the
                                  number of seconds */
    TK_SINK_PERCENT = 1u << 3, /* a ratio (0.25). Text: "25.00%"; JSON: the
                                  ratio */
    TK_SINK_ADDR = 1u << 4 | TK_SINK_HEX, /* an address: text 0x...; JSON a
                                  number, a "0x..." string with
                                  tk_sink_set_json_hex */
    TK_SINK_ENUM = 1u << 5     /* a name from a fixed set (a kind, a code):
                                  written in snake_case, '-' and ' ' as '_' */
};

/* A sink writing to `out` (borrowed: not closed by tk_sink_free). NULL
 * when out of memory (TK_ENOMEM). Free with tk_sink_free after
 * tk_sink_finish. */
tk_sink *tk_sink_new(FILE *out, tk_sink_style style, tk_error *err);
/* The style given to tk_sink_new. */
tk_sink_style tk_sink_get_style(const tk_sink *s);
/* JSON for readers that keep numbers in doubles (jq 1.6, JavaScript):
 * addresses (TK_SINK_ADDR) and integers beyond 2^53 in magnitude are
 * written as "0x..." strings ("-0x..." below -2^53). Text is unchanged. */
void tk_sink_set_json_hex(tk_sink *s, int on);

/* Flush what is buffered (and fflush `out`). TK_EIO if any write failed,
 * TK_ENOMEM if memory ran out while formatting (output is then
 * incomplete). */
tk_status tk_sink_finish(tk_sink *s, tk_error *err);
/* Free without flushing (NULL is fine): call tk_sink_finish first to keep
 * the output. */
void tk_sink_free(tk_sink *s);

/* Open and close objects and arrays. `key` is the member name inside an
 * object and ignored elsewhere (NULL). */
void tk_sink_object_begin(tk_sink *s, const char *key);
void tk_sink_object_end(tk_sink *s);
void tk_sink_array_begin(tk_sink *s, const char *key);
void tk_sink_array_end(tk_sink *s);
/* A top-level object rendered on one text line (a dump record). */
void tk_sink_record_begin(tk_sink *s);
void tk_sink_record_end(tk_sink *s);

/* Integers, with field flags (TK_SINK_HEX, TK_SINK_ADDR, ...) for u64. */
void tk_sink_u64(tk_sink *s, const char *key, uint64_t v, unsigned flags);
void tk_sink_i64(tk_sink *s, const char *key, int64_t v);
/* Text never uses exponents: unflagged doubles print with at most 6
 * significant digits and 9 decimals (tk_sink_f64_flags for durations and
 * ratios). JSON prints the shortest text that reads back exactly, null for
 * NaN and infinities. */
void tk_sink_f64(tk_sink *s, const char *key, double v);
/* TK_SINK_SECONDS: text drops a "_s" at the end of the key (the value
 * shows its unit: "span: 1.500ms" for the JSON member "span_s"). */
void tk_sink_f64_flags(tk_sink *s, const char *key, double v, unsigned flags);
/* true/false (any nonzero `v` is true) and null (text: "-"). */
void tk_sink_bool(tk_sink *s, const char *key, int v);
void tk_sink_null(tk_sink *s, const char *key);
/* Strings: `len` bytes, or up to the NUL for tk_sink_cstr. Bytes need not
 * be NUL-terminated or valid UTF-8 (JSON replaces bad bytes with U+FFFD,
 * text shows them as \xNN). */
void tk_sink_str(tk_sink *s, const char *key, const char *v, size_t len,
                 unsigned flags);
void tk_sink_cstr(tk_sink *s, const char *key, const char *v, unsigned flags);

/* A cap on output (validate's warnings): render at most `max` more
 * top-level objects and records; later ones are dropped and counted by the
 * string value of their member `group_key` (e.g. "code"; "" when they have
 * none). Top-level scalars are not counted. */
void tk_sink_limit(tk_sink *s, uint64_t max, const char *group_key);
/* Render everything again; the counts stay until the next tk_sink_limit. */
void tk_sink_limit_end(tk_sink *s);
/* Group i (first dropped first) of the values dropped by the limit: 1 with
 * its name and count, or 0 when there are no more. Ask after
 * tk_sink_limit_end; the name is owned by `s` and valid until the next
 * tk_sink_limit or tk_sink_free. */
int tk_sink_dropped(const tk_sink *s, size_t i, const char **group,
                    uint64_t *count);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
