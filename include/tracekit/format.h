/* tracekit — format registry and the commands every format answers.
 *
 * Formats are static descriptions (never freed); the registry functions
 * are safe to call from any thread. tk_options is a handle: one thread at
 * a time, freed with tk_options_free; the commands only read it. A
 * command reads its tk_input from the current position and leaves it at
 * an unspecified one; it uses the input, the sink or FILE and the options
 * only during the call (one thread at a time each, as for any handle).
 * Errors follow <tracekit/tracekit.h>: tk_status, `err` filled. */
#ifndef TRACEKIT_FORMAT_H
#define TRACEKIT_FORMAT_H

#include <stdint.h>
#include <stdio.h>
#include <tracekit/error.h>
#include <tracekit/input.h>
#include <tracekit/sink.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct tk_format tk_format;
typedef struct tk_options tk_options;

/* ---- options: string key/value pairs, validated by the format using them */

/* An empty set; NULL when out of memory (TK_ENOMEM). Free with
 * tk_options_free (NULL is fine). */
tk_options *tk_options_new(tk_error *err);
void tk_options_free(tk_options *o);
/* Set `key` to `value` (both copied); a later set replaces the value.
 * TK_ENOMEM on allocation failure (the set is unchanged). */
tk_status tk_options_set(tk_options *o, const char *key, const char *value,
                         tk_error *err);
/* The value of `key`, NULL when not set (or `o` is NULL). Owned by `o`:
 * valid until the key is set again or `o` is freed. */
const char *tk_options_get(const tk_options *o, const char *key);
/* Parse an unsigned number option ("10", "0x10", "4K") into *value;
 * `dflt` when unset. TK_EUSAGE ("--KEY: 'V' is not a non-negative
 * number") when it does not parse; *value is then `dflt`. */
tk_status tk_options_get_u64(const tk_options *o, const char *key,
                             uint64_t dflt, uint64_t *value, tk_error *err);

/* Add another value for `key` after those it has (a repeated option, such
 * as bbm's --watch): tk_options_get returns the first, tk_options_value
 * each. TK_ENOMEM on allocation failure (the set is unchanged). */
tk_status tk_options_add(tk_options *o, const char *key, const char *value,
                         tk_error *err);

/* The entries, in the order they were made (to check or list them; a key
 * set again keeps its place, a key added to has one entry per value):
 * tk_options_key and
 * tk_options_value return entry i's (owned by `o`), NULL past the end. */
size_t tk_options_count(const tk_options *o);
const char *tk_options_key(const tk_options *o, size_t i);
const char *tk_options_value(const tk_options *o, size_t i);

/* Common keys:
 *   "skip", "limit"  dump: records to skip / at most to print
 *   "strict"         validate: accepted; tk_validate counts warnings
 *                    either way and the caller decides (the command
 *                    line's --strict exits 1 when there are any)
 *   "thread", "range", "addr", "func"
 *                    selections (<tracekit/select.h>): formats list the ones
 *                    they take among their options; validate refuses them
 * Every other key belongs to formats: tk_format_options lists a format's;
 * the commands below refuse a key the format does not read (TK_EUSAGE),
 * so an option is never silently ignored. */

/* ---- registry: static formats, safe from any thread */

/* The number of formats, and format i (NULL past the end). */
size_t tk_format_count(void);
const tk_format *tk_format_at(size_t i);
/* The format called `name` ("xray", ...), NULL if there is none (a lookup,
 * not an error: the caller says what was wrong). */
const tk_format *tk_format_find(const char *name);
/* Its name and a one-line description (static text). */
const char *tk_format_name(const tk_format *f);
const char *tk_format_description(const tk_format *f);

/* Detect the format of `in` from its first bytes (the position is not
 * moved). NULL with TK_EMALFORMED when no format matches, TK_EIO when the
 * input cannot be read. */
const tk_format *tk_format_probe(tk_input *in, tk_error *err);

/* ---- commands. All read `in` from its current position and return TK_OK
 * or the failure: TK_EMALFORMED for the trace, TK_EIO for reading or
 * writing, TK_EUSAGE for options, TK_ENOMEM, TK_EUNSUPPORTED for a
 * command the format lacks. */

/* Summary of the trace (format, sizes, counts ...) as one document. */
tk_status tk_info(const tk_format *f, tk_input *in, const tk_options *o,
                  tk_sink *out, tk_error *err);

/* One sink record per trace record (honours "skip" and "limit"). */
tk_status tk_dump(const tk_format *f, tk_input *in, const tk_options *o,
                  tk_sink *out, tk_error *err);

/* Check the whole trace. Structural errors stop and return TK_EMALFORMED;
 * questionable-but-legal patterns are written to `warnings` as records
 * (may be NULL) and counted in `*nwarnings`. */
tk_status tk_validate(const tk_format *f, tk_input *in, const tk_options *o,
                      tk_sink *warnings, uint64_t *nwarnings, tk_error *err);

/* Convert to `target` (a name from tk_format_targets) on `out` (not
 * closed). A target that writes a directory (tk_format_target_is_dir) is
 * TK_EUSAGE here: use tk_convert_dir. */
tk_status tk_convert(const tk_format *f, tk_input *in, const tk_options *o,
                     const char *target, FILE *out, tk_error *err);

/* 1 when `target` writes a directory of files rather than one stream
 * ("parquet": one file per table), 0 otherwise. Cannot fail. */
int tk_format_target_is_dir(const tk_format *f, const char *target);

/* Convert to a directory target into `dir` (created when missing; files
 * appear whole or not at all). `source` is the input's path, for names
 * derived from it ("-": standard input). Options of the target
 * (docs/parquet.md: "rows-per-file", "trace-id", "compression",
 * "row-group-rows"). TK_EIO with the system's reason when `dir` cannot be
 * written. */
tk_status tk_convert_dir(const tk_format *f, tk_input *in, const tk_options *o,
                         const char *target, const char *source, const char *dir,
                         tk_error *err);

/* The format's main analysis in one document (XRay: trace facts and the
 * functions taking the most time). */
tk_status tk_report(const tk_format *f, tk_input *in, const tk_options *o,
                    tk_sink *out, tk_error *err);

/* The report as one self-contained HTML page on `out` (not closed): inline
 * CSS, JavaScript and SVG, no network access, at most 5 MB whatever the
 * trace (aggregates, not records). The same options as tk_report. Returns
 * TK_OK; TK_EUNSUPPORTED ("no HTML report yet") for a format without one;
 * the trace's errors as tk_report; TK_EIO when writing `out` failed. */
tk_status tk_report_html(const tk_format *f, tk_input *in, const tk_options *o, FILE *out,
                         tk_error *err);

/* NULL-terminated list of conversion target names (static). */
const char *const *tk_format_targets(const tk_format *f);

/* NULL-terminated list of the option keys the format reads (beyond the
 * common ones), e.g. "endian" for Cacheray, "instr-map" for XRay (static;
 * NULL when it reads none). */
const char *const *tk_format_options(const tk_format *f);

/* TK_EUSAGE ("--KEY does not apply to FORMAT traces") when `o` holds a key
 * the format does not read; the commands above check this themselves. */
tk_status tk_format_check_options(const tk_format *f, const tk_options *o, tk_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
