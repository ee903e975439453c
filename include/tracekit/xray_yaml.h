/* tracekit — llvm-xray's YAML trace form (`llvm-xray convert -f yaml`):
 * a streaming writer whose output is byte-identical to llvm-xray 14's, and
 * a streaming reader (libyaml events, flat memory) for what llvm-xray reads
 * and writes. Layout, quoting and quirks: docs/formats/xray.md.
 *
 * The reader and writer are handles (<tracekit/tracekit.h>,
 * "Conventions"): made by their _new (NULL and `err` on failure), freed by
 * their _free (NULL is fine), each used by one thread at a time.
 * tk_xray_yaml_probe is a pure function, safe from any thread. */
#ifndef TRACEKIT_XRAY_YAML_H
#define TRACEKIT_XRAY_YAML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <tracekit/error.h>
#include <tracekit/input.h>
#include <tracekit/xray.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* ---- writing
 *
 *   ---
 *   header:
 *     version:         3
 *     type:            0
 *     constant-tsc:    true
 *     nonstop-tsc:     true
 *     cycle-frequency: 1000000000
 *   records:
 *     - { type: 0, func-id: 3, function: '3', cpu: 0, thread: 18540, ... }
 *   ...
 *
 * One line per record, keys in llvm-xray's order: type (the record's
 * event_type), func-id, function, args (omitted when there are none), cpu,
 * thread and process (each omitted when 0), kind, tsc, data. Strings are
 * quoted as LLVM's YAML writer quotes them (plain, 'single' or "double" with
 * LLVM 14's escapes; invalid UTF-8 ends the string with U+FFFD as in LLVM).
 * With no records the list is written as `records:         []`. Records are
 * written in the order given (llvm-xray convert sorts by TSC by default). */
typedef struct tk_xray_yaml_writer tk_xray_yaml_writer;

/* Writes the header block. Uses version, type, bitfield (bits 0 and 1) and
 * cycle_frequency of `h`. The writer does not close `out`. NULL and `err`
 * on failure (TK_EUSAGE without a stream or header, TK_ENOMEM). */
tk_xray_yaml_writer *tk_xray_yaml_writer_new(FILE *out, const tk_xray_header *h,
                                             tk_error *err);

/* One record. `function_name` is the `function:` value; NULL writes what
 * llvm-xray writes without -symbolize: the decimal function id (which LLVM
 * then quotes: '3'). TK_EIO when writing failed, TK_ENOMEM. */
tk_status tk_xray_yaml_write(tk_xray_yaml_writer *w, const tk_xray_record *rec,
                             const char *function_name, tk_error *err);

/* Writes the end of the document ("...") and frees (NULL is fine: TK_OK);
 * does not close the stream. Returns the first error seen (TK_EIO for a
 * failed write). */
tk_status tk_xray_yaml_writer_free(tk_xray_yaml_writer *w, tk_error *err);

/* ---- reading
 *
 * The document must be a mapping with `header` (version, type,
 * constant-tsc, nonstop-tsc, cycle-frequency, all required) followed by
 * `records` (a sequence of mappings, or empty). Record keys: type, cpu,
 * kind and tsc are required; func-id, function, args, thread, process and
 * data are optional (0 / empty). Unknown keys are errors, a repeated key
 * keeps its last value, numbers are read as LLVM reads them (decimal, 0x,
 * 0b, 0o and leading-0 octal; range-checked), booleans as LLVM's parseBool
 * (true/false, yes/no, on/off, y/n in three casings).
 *
 * llvm-xray only accepts `version: 1`; tracekit also accepts the versions
 * llvm-xray writes itself: 1–3 for type 0 (basic), 1–5 for type 1 (FDR).
 * Other types are rejected. Unlike llvm-xray, `header` must come before
 * `records` (the reader streams). Errors are TK_EMALFORMED with a 1-based
 * line:col (columns count characters), TK_EIO for input errors. */
typedef struct tk_xray_yaml_reader tk_xray_yaml_reader;

/* Reads up to the first record; the reader borrows `in`. NULL and `err`
 * on failure (TK_EMALFORMED with line:col, TK_EIO, TK_ENOMEM). */
tk_xray_yaml_reader *tk_xray_yaml_reader_new(tk_input *in, tk_error *err);
void tk_xray_yaml_reader_free(tk_xray_yaml_reader *r);

/* The header from the YAML: version, type, bitfield (bit 0 constant-tsc,
 * bit 1 nonstop-tsc) and cycle_frequency; buffer_size 0; raw holds those
 * fields in the binary layout (little-endian) with zero padding. Owned by
 * `r`, valid until it is freed. */
const tk_xray_header *tk_xray_yaml_reader_header(const tk_xray_yaml_reader *r);

/* 1 record, 0 end of records, -1 error (err, with line:col). `type` goes
 * to event_type for every kind. args and data are valid until the next
 * call. */
int tk_xray_yaml_next(tk_xray_yaml_reader *r, tk_xray_record *rec, tk_error *err);

/* The `function:` value of the record last returned (NUL-terminated, valid
 * until the next call), or NULL when the record had none. llvm-xray itself
 * ignores it on input. */
const char *tk_xray_yaml_reader_function(const tk_xray_yaml_reader *r);

/* Confidence 0..100 that `head` (the first bytes of an input) is an XRay
 * YAML trace: `---`, then a `header:` mapping with version and type keys.
 * Cannot fail. */
int tk_xray_yaml_probe(const uint8_t *head, size_t n);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
