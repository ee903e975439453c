/* tracekit — Cacheray traces: memory accesses plus run-time type annotations.
 * Spec: docs/formats/cacheray.md.
 *
 * Readers, checkers and writers are handles (<tracekit/tracekit.h>,
 * "Conventions"): made by their _new (NULL and `err` on failure), freed by
 * their _free (NULL is fine), each used by one thread at a time; distinct
 * handles are independent. tk_cacheray_detect_endian, tk_cacheray_encode
 * and tk_cacheray_type_name touch no handle and are safe from any thread. */
#ifndef TRACEKIT_CACHERAY_H
#define TRACEKIT_CACHERAY_H

#include <stdint.h>
#include <stdio.h>
#include <tracekit/error.h>
#include <tracekit/input.h>
#include <tracekit/select.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef enum tk_cacheray_type {
    TK_CACHERAY_READ = 0x00,
    TK_CACHERAY_WRITE = 0x01,
    TK_CACHERAY_RTTA_ADD = 0x02,
    TK_CACHERAY_RTTA_REMOVE = 0x03
} tk_cacheray_type;

enum {
    TK_CACHERAY_ATOMIC = 0x40,    /* flag bits on READ/WRITE tags */
    TK_CACHERAY_UNALIGNED = 0x80,
    TK_CACHERAY_FLAG_MASK = 0xC0
};

typedef enum tk_endian {
    TK_ENDIAN_AUTO = 0,
    TK_ENDIAN_LITTLE = 1,
    TK_ENDIAN_BIG = 2
} tk_endian;

/* Encoded sizes. */
enum {
    TK_CACHERAY_ACCESS_SIZE = 18,
    TK_CACHERAY_RTTA_ADD_FIXED = 29, /* plus the type name's bytes */
    TK_CACHERAY_RTTA_REMOVE_SIZE = 17
};

typedef struct tk_cacheray_record {
    tk_cacheray_type type;
    uint8_t flags;          /* TK_CACHERAY_ATOMIC | TK_CACHERAY_UNALIGNED (READ/WRITE) */
    uint8_t size;           /* READ/WRITE: bytes accessed */
    uint64_t addr;          /* accessed address, or region start */
    uint64_t thread;
    uint32_t elemsize;      /* RTTA_ADD */
    uint32_t elemcount;     /* RTTA_ADD */
    uint32_t typename_len;  /* RTTA_ADD */
    const char *type_name;  /* RTTA_ADD; not NUL-terminated; points into the
                               input and is valid until the next read */
} tk_cacheray_record;

/* ---- reading */
typedef struct tk_cacheray_reader tk_cacheray_reader;

/* `endian` TK_ENDIAN_AUTO detects the byte order from the first records
 * (see tk_cacheray_detect_endian). The reader borrows `in`. NULL and `err`
 * when the input cannot be read or memory runs out. */
tk_cacheray_reader *tk_cacheray_reader_new(tk_input *in, tk_endian endian,
                                           tk_error *err);
void tk_cacheray_reader_free(tk_cacheray_reader *r);
/* The byte order read (the one detected for TK_ENDIAN_AUTO). */
tk_endian tk_cacheray_reader_endian(const tk_cacheray_reader *r);

/* 1 = a record was read, 0 = clean end of input, -1 = error (`err` set with
 * the record's offset and index; reading cannot continue). Structural checks
 * only: unknown tags, flags on RTTA records, truncation. `rec->type_name`
 * points into the input: valid until the next call on `r`. */
int tk_cacheray_next(tk_cacheray_reader *r, tk_cacheray_record *rec,
                     tk_error *err);

/* ---- selections (<tracekit/select.h>; docs/formats/cacheray.md)
 * A record is selected when it passes every option given: its index in
 * --range, its thread in --thread, and for --addr, an access's bytes, an
 * RTTA_ADD's region or an RTTA_REMOVE's address in one of the ranges. */
enum {
    /* also return the RTTA records before the window's end that are not
     * selected (tk_cacheray_reader_selected says 0): the regions live at
     * each selected access are then those of the whole trace */
    TK_CACHERAY_SELECT_CONTEXT = 1,
    /* end (0) at the window's end instead of reading on */
    TK_CACHERAY_SELECT_STOP = 2
};
/* From now on tk_cacheray_next returns the records `sel` selects (an
 * empty selection: all). The reader keeps its own copy. TK_EUSAGE for
 * --func, or a range given as a time. */
tk_status tk_cacheray_reader_select(tk_cacheray_reader *r, const tk_selection *sel,
                                    unsigned flags, tk_error *err);
/* 1 when the record last returned is selected, 0 for a context record. */
int tk_cacheray_reader_selected(const tk_cacheray_reader *r);

/* Offset of the next byte the reader would read: after the last record,
 * the size of the trace. */
uint64_t tk_cacheray_reader_tell(const tk_cacheray_reader *r);

/* Offset and index of the record last returned. */
uint64_t tk_cacheray_reader_offset(const tk_cacheray_reader *r);
uint64_t tk_cacheray_reader_index(const tk_cacheray_reader *r);

/* Guess the byte order of a trace from its first `n` bytes: decode the
 * records both ways and score how plausible the values are (user-space
 * canonical addresses, small thread ids, short printable type names).
 * Ties go to little-endian, the order of every known producer. */
tk_endian tk_cacheray_detect_endian(const uint8_t *data, size_t n);

/* ---- checking: live RTTA regions and questionable records */
typedef enum tk_cacheray_warning_kind {
    TK_CACHERAY_WARN_ZERO_SIZE = 1,       /* READ/WRITE of 0 bytes */
    TK_CACHERAY_WARN_REMOVE_UNKNOWN,      /* RTTA_REMOVE with no live region there */
    TK_CACHERAY_WARN_OVERLAP,             /* RTTA_ADD overlapping a live region */
    TK_CACHERAY_WARN_EMPTY_REGION,        /* RTTA_ADD with elemsize or elemcount 0 */
    TK_CACHERAY_WARN_REGION_WRAPS         /* RTTA_ADD region past the address space */
} tk_cacheray_warning_kind;

typedef struct tk_cacheray_warning {
    tk_cacheray_warning_kind kind;
    uint64_t offset, record;
    uint64_t addr;              /* the record's address */
    uint64_t other_addr;        /* OVERLAP: start of the region overlapped */
    const char *code;           /* stable name: "zero-size", "overlap", ... */
    const char *message;        /* fixed text for the kind */
} tk_cacheray_warning;

typedef struct tk_cacheray_checker tk_cacheray_checker;
/* A checker with no live region; NULL when out of memory (TK_ENOMEM). */
tk_cacheray_checker *tk_cacheray_checker_new(tk_error *err);
void tk_cacheray_checker_free(tk_cacheray_checker *c);
/* Feed one record; returns how many warnings it produced (0..n) and writes
 * up to `cap` of them to `out` (NULL when `cap` is 0). An overlapping
 * RTTA_ADD ends the regions it overlaps (the allocator reused the memory
 * without a recorded free). -1 when out of memory (TK_ENOMEM; the record
 * may be half applied). The warnings' strings are static. */
int tk_cacheray_check(tk_cacheray_checker *c, const tk_cacheray_record *rec,
                      uint64_t offset, uint64_t index,
                      tk_cacheray_warning *out, int cap, tk_error *err);
/* All warnings of the last tk_cacheray_check call (as many as it returned,
 * however small its `cap`); valid until the next call. */
const tk_cacheray_warning *tk_cacheray_checker_warnings(const tk_cacheray_checker *c);
/* Regions still live. */
uint64_t tk_cacheray_checker_live(const tk_cacheray_checker *c);

/* ---- writing */
typedef struct tk_cacheray_writer tk_cacheray_writer;

/* `endian` must be TK_ENDIAN_LITTLE or TK_ENDIAN_BIG (else TK_EUSAGE).
 * Writes go through an internal buffer to `out` (borrowed: not closed by
 * free). NULL and `err` on failure. */
tk_cacheray_writer *tk_cacheray_writer_new(FILE *out, tk_endian endian,
                                           tk_error *err);
/* Write one record: TK_EUSAGE for records the reader would reject, TK_EIO
 * when writing failed. */
tk_status tk_cacheray_write(tk_cacheray_writer *w,
                            const tk_cacheray_record *rec, tk_error *err);
/* Write out the buffer to `out` (without fflush): TK_EIO when that failed. */
tk_status tk_cacheray_writer_flush(tk_cacheray_writer *w, tk_error *err);
/* Flushes, then frees (NULL is fine: TK_OK). Returns the flush status. */
tk_status tk_cacheray_writer_free(tk_cacheray_writer *w, tk_error *err);
/* Encode one record into `buf` (at least TK_CACHERAY_RTTA_ADD_FIXED +
 * typename_len bytes); returns its length. The record is not checked
 * (tk_cacheray_write does); cannot fail. */
size_t tk_cacheray_encode(const tk_cacheray_record *rec, tk_endian endian,
                          uint8_t *buf);

/* "read", "write", "rtta_add", "rtta_remove"; "unknown" (static text). */
const char *tk_cacheray_type_name(tk_cacheray_type t);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
