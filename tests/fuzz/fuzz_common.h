/* Helpers shared by the tracekit fuzz targets (tests/fuzz/fuzz_<format>.c).
 *
 * A fuzz target is one LLVMFuzzerTestOneInput per format. It is linked two
 * ways: with libFuzzer (fuzz-<format>, -DTK_FUZZ=ON with clang) and with
 * replay.c (fuzz-replay-<format>, every build) to replay the seed corpus as
 * a ctest. Oracle failures abort through TKF_CHECK, which libFuzzer reports
 * as a crash and ctest as a failure. */
#ifndef TK_FUZZ_COMMON_H
#define TK_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tracekit/tracekit.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input being replayed (set by replay.c; NULL under libFuzzer, which
 * saves the input itself). Named in failure messages. */
extern const char *tkf_current_input;

/* A hash of the input, for choices that must be the same every time the
 * input runs. */
uint64_t tkf_hash(const uint8_t *data, size_t size);

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
_Noreturn void tkf_fail(const char *file, int line, const char *cond,
                        const char *fmt, ...);

/* Abort with a message unless `cond` holds. The message is printf-style
 * and required. */
#define TKF_CHECK(cond, ...)                                                 \
    do {                                                                     \
        if (!(cond))                                                         \
            tkf_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                \
    } while (0)

/* ---- memory FILEs (open_memstream) */
typedef struct tkf_memfile {
    FILE *fp;
    char *buf;  /* after tkf_memfile_close: the bytes written */
    size_t len;
} tkf_memfile;

void tkf_memfile_open(tkf_memfile *m);
/* Close the FILE; the bytes stay in buf/len until tkf_memfile_free. */
void tkf_memfile_close(tkf_memfile *m);
void tkf_memfile_free(tkf_memfile *m);

/* ---- output oracles (abort on failure) */

/* Every line is one complete JSON value (RFC 8259, UTF-8, no raw control
 * characters) and the output ends with a newline. Returns the line count. */
size_t tkf_check_json_lines(const char *text, size_t len);
/* Text output: valid UTF-8, no control characters but '\n', ends with a
 * newline when not empty. Returns the line count. */
size_t tkf_check_text_lines(const char *text, size_t len);

/* ---- options from NULL-terminated key/value pairs */
tk_options *tkf_options(const char *const *kv);

/* ---- the common commands through the format API
 *
 * What the format-specific pass of the target learnt about the input
 * under the same options; tkf_run_commands checks the commands agree. */
typedef struct tkf_expect {
    int valid;           /* 1: the whole input reads; 0: structural error */
    uint64_t records;    /* records read (before the error, if any) */
    uint64_t warnings;   /* warnings validate must count (same records) */
    int convert_identity; /* converting to the format itself with these
                             options reproduces a valid input byte for byte */
} tkf_expect;

/* Open `data` as a memory input and run through `format` with the options
 * `kv`: probe, info, dump (all records, then a skip/limit window derived
 * from the data), validate with and without a warning sink, each with a
 * JSON and a text sink on a memory FILE, and convert to every target.
 * Outputs must be well formed and agree with `expect`. */
void tkf_run_commands(const char *format, const uint8_t *data, size_t size,
                      const char *const *kv, const tkf_expect *expect);

/* Convert `data` with the options `kv` to `target`; returns the status and
 * the output in `out` (caller frees with tkf_memfile_free). */
tk_status tkf_convert(const char *format, const uint8_t *data, size_t size,
                      const char *const *kv, const char *target,
                      tkf_memfile *out);

#endif
