/* Helpers shared by the cmocka tests: files and temp dirs, captured output,
 * a seeded RNG, a hand-written Cacheray encoder (independent of the
 * library's, so reader and writer are not checked against themselves) and
 * whole-trace reading. */
#ifndef TK_TESTUTIL_H
#define TK_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <cmocka.h>

#include <tracekit/tracekit.h>

#ifndef TK_EXAMPLES_DIR
#error "TK_EXAMPLES_DIR must name the examples/ directory"
#endif

/* ---- files */
/* Whole file in a malloc'd buffer (at least 1 byte allocated); NULL if it
 * cannot be read. */
uint8_t *tu_read_file(const char *path, size_t *size);
void tu_write_file(const char *path, const void *data, size_t n);
/* A fresh directory under $TMPDIR (or /tmp); tu_rmdir removes it and the
 * plain files in it. */
char *tu_tmpdir(void);
void tu_rmdir(char *dir);
/* Entries in `dir` other than . and .. */
int tu_dir_count(const char *dir);
/* "dir/name" in a static buffer (one of 4 rotating). */
const char *tu_path(const char *dir, const char *name);
/* The example traces of a format directory (e.g. "cacheray"): sorted full
 * paths, NULL-terminated; free with tu_free_list. */
char **tu_examples(const char *subdir);
void tu_free_list(char **v);

/* ---- captured output (open_memstream) */
typedef struct tu_capture {
    FILE *fp;
    char *buf;
    size_t len;
} tu_capture;
void tu_capture_open(tu_capture *c);
/* Close and return the text (owned by the caller). */
char *tu_capture_close(tu_capture *c);
/* A sink writing into a capture; tu_sink_text finishes it (asserting
 * TK_OK), frees it and returns everything written. */
tk_sink *tu_sink_open(tu_capture *c, tk_sink_style style);
char *tu_sink_text(tk_sink *s, tu_capture *c);

/* ---- pipes: a child process writes `data` into a pipe in uneven pieces
 * (seeded) and exits; tu_pipe_wait closes the read end and reaps it. */
pid_t tu_pipe_feed(const void *data, size_t n, uint64_t seed, int *rfd);
void tu_pipe_wait(pid_t pid, int rfd);

/* ---- seeded randomness (splitmix64) */
uint64_t tu_rand(uint64_t *state);
uint64_t tu_rand_below(uint64_t *state, uint64_t n);

/* ---- hand-written encoding: a growable byte buffer */
typedef struct tu_buf {
    uint8_t *p;
    size_t len, cap;
    int big;
} tu_buf;
void tu_put8(tu_buf *b, uint8_t v);
void tu_put32(tu_buf *b, uint32_t v);
void tu_put64(tu_buf *b, uint64_t v);
void tu_putn(tu_buf *b, const void *p, size_t n);
void tu_buf_free(tu_buf *b);
/* Whole records, laid out as in the spec. */
void tu_access(tu_buf *b, uint8_t tag, uint64_t addr, uint8_t size, uint64_t thread);
void tu_add(tu_buf *b, uint64_t addr, uint64_t thread, uint32_t elemsize,
            uint32_t elemcount, const char *name, uint32_t len);
void tu_remove(tu_buf *b, uint64_t addr, uint64_t thread);

/* Record boundaries of a well-formed trace, parsed by hand: offsets of the
 * record starts plus the end offset (n + 1 entries); returns n. */
size_t tu_boundaries(const uint8_t *d, size_t size, int big, uint64_t **offsets);

/* ---- reading a whole trace into owned records */
typedef struct tu_recs {
    tk_cacheray_record *v; /* type_name points into an owned copy */
    uint64_t *offset;
    size_t n, cap;
} tu_recs;
/* Read every record of `in` (byte order `e`). Returns the last
 * tk_cacheray_next result: 0 = clean end, -1 = error in `err`. */
int tu_read_all(tk_input *in, tk_endian e, tu_recs *out, tk_error *err);
int tu_read_mem(const uint8_t *d, size_t n, tk_endian e, tu_recs *out, tk_error *err);
void tu_recs_free(tu_recs *r);
void tu_assert_rec_equal(const tk_cacheray_record *want, const tk_cacheray_record *got);

#endif
