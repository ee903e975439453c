/* tracekit — LLVM XRay traces: basic ("naive") mode v1–3 and FDR v1–5.
 * Spec and quirks: docs/formats/xray.md.
 *
 * Readers and writers are handles (<tracekit/tracekit.h>, "Conventions"):
 * made by their _new (NULL and `err` on failure), freed by their _free
 * (NULL is fine), each used by one thread at a time; distinct handles are
 * independent. tk_xray_parse_header, tk_xray_default_header and the name
 * functions touch no handle and are safe from any thread. */
#ifndef TRACEKIT_XRAY_H
#define TRACEKIT_XRAY_H

#include <stdint.h>
#include <stdio.h>
#include <tracekit/error.h>
#include <tracekit/input.h>
#include <tracekit/select.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

enum { TK_XRAY_BASIC = 0, TK_XRAY_FDR = 1 };
enum { TK_XRAY_HEADER_SIZE = 32, TK_XRAY_BASIC_RECORD_SIZE = 32 };

typedef struct tk_xray_header {
    uint16_t version;         /* basic 1..3, FDR 1..5 */
    uint16_t type;            /* TK_XRAY_BASIC or TK_XRAY_FDR */
    uint32_t bitfield;        /* bit 0 constant TSC, bit 1 non-stop TSC */
    uint64_t cycle_frequency; /* TSC ticks per second (0 = unknown) */
    uint64_t buffer_size;     /* FDR: per-thread buffer size (v1 needs it) */
    uint8_t raw[TK_XRAY_HEADER_SIZE]; /* as read, for exact rewrites */
} tk_xray_header;

/* Parse the 32-byte header (little-endian). TK_EMALFORMED for a short
 * file, an unknown type or an unsupported version. */
tk_status tk_xray_parse_header(const uint8_t *data, size_t n,
                               tk_xray_header *h, tk_error *err);

/* ---- logical records: what llvm-xray calls XRayRecord */
typedef enum tk_xray_kind {
    TK_XRAY_ENTER = 0,
    TK_XRAY_EXIT = 1,
    TK_XRAY_TAIL_EXIT = 2,
    TK_XRAY_ENTER_ARG = 3,
    TK_XRAY_CUSTOM_EVENT = 4,
    TK_XRAY_TYPED_EVENT = 5
} tk_xray_kind;

typedef struct tk_xray_record {
    tk_xray_kind kind;
    uint16_t cpu;
    uint16_t event_type;  /* typed events */
    int32_t func_id;      /* 0 for events */
    uint64_t tsc;         /* absolute */
    uint32_t tid, pid;
    uint32_t nargs;
    const uint64_t *args; /* valid until the next read */
    uint32_t data_len;
    const uint8_t *data;  /* event payload, valid until the next read */
} tk_xray_record;

/* "function-enter", "function-exit", ... (static text). */
const char *tk_xray_kind_name(tk_xray_kind k);

/* ---- raw FDR records, in file order (what `dump` shows) */
typedef enum tk_xray_fdr_kind {
    TK_XRAY_FDR_NEW_BUFFER = 0,
    TK_XRAY_FDR_END_OF_BUFFER = 1,
    TK_XRAY_FDR_NEW_CPU = 2,
    TK_XRAY_FDR_TSC_WRAP = 3,
    TK_XRAY_FDR_WALLTIME = 4,
    TK_XRAY_FDR_CUSTOM_EVENT = 5,
    TK_XRAY_FDR_CALL_ARG = 6,
    TK_XRAY_FDR_BUFFER_EXTENTS = 7,
    TK_XRAY_FDR_TYPED_EVENT = 8,
    TK_XRAY_FDR_PID = 9,
    TK_XRAY_FDR_FUNCTION = 16
} tk_xray_fdr_kind;

typedef struct tk_xray_fdr_record {
    tk_xray_fdr_kind kind;
    uint64_t offset;        /* of the record in the file */
    /* FUNCTION */
    uint8_t action;         /* tk_xray_kind 0..3 */
    uint32_t func_id;       /* 28 bits */
    uint32_t delta;         /* TSC delta */
    /* metadata */
    int32_t tid;            /* NEW_BUFFER */
    int32_t pid;            /* PID */
    uint16_t cpu;           /* NEW_CPU; CUSTOM_EVENT v4 (v1–3 store none: 0) */
    uint64_t tsc;           /* NEW_CPU, TSC_WRAP, CUSTOM_EVENT v1–4 */
    uint64_t seconds;       /* WALLTIME */
    uint32_t micros;        /* WALLTIME */
    int32_t size;           /* CUSTOM_EVENT, TYPED_EVENT payload bytes */
    int32_t event_delta;    /* CUSTOM_EVENT v5, TYPED_EVENT */
    uint16_t event_type;    /* TYPED_EVENT */
    uint64_t value;         /* CALL_ARG argument; BUFFER_EXTENTS byte count */
    const uint8_t *payload; /* events: `size` bytes, valid until next read */
} tk_xray_fdr_record;

/* "new-buffer", "function", ... (static text). */
const char *tk_xray_fdr_kind_name(tk_xray_fdr_kind k);

/* ---- reading */
typedef struct tk_xray_reader tk_xray_reader;

/* Reads the header; the reader borrows `in`. Binary traces and llvm-xray's
 * YAML form (detected from the first bytes) are both accepted. NULL and
 * `err` on failure (TK_EMALFORMED for a bad header, TK_EIO, TK_ENOMEM). */
tk_xray_reader *tk_xray_reader_new(tk_input *in, tk_error *err);
void tk_xray_reader_free(tk_xray_reader *r);
/* The header read; owned by `r`, valid until it is freed. */
const tk_xray_header *tk_xray_reader_header(const tk_xray_reader *r);

struct tk_xray_map; /* <tracekit/xray_map.h> */

/* A reader as above whose tk_xray_next returns only the logical records
 * the selection keeps (docs/formats/xray.md, "Selection"): with a thread
 * list, the records of those tids; with a range FROM:TO (ns since the
 * trace's first TSC, TSC ticks when it has no cycle frequency), the calls
 * that begin in the window, each whole with everything it calls, and the
 * events in the window; with a function, its calls, whole, with
 * everything they call. A range needs the first TSC: `in` is read once
 * before (a pipe is first copied to a temporary file in $TMPDIR). `map`
 * resolves a function name (NULL: ids only). Neither `sel` nor `map` is
 * kept. NULL and `err` on failure: TK_EUSAGE for a selection that does
 * not apply, or tk_xray_reader_new's failures. */
tk_xray_reader *tk_xray_reader_new_selected(tk_input *in, const tk_selection *sel,
                                            struct tk_xray_map *map, tk_error *err);

/* Logical records in file order (each FDR buffer expanded on its own: a
 * buffer's NewCPUId sets its TSC base), except that FDR v2+ buffers are
 * read so that each thread's come in time order: the LLVM runtime writes
 * its buffer ring in ring order, so after a wrap a thread's buffers are out
 * of time order in the file. They are put in order by their wall clock,
 * then their first TSC: in the place of a thread's k-th buffer in the
 * file, its k-th in time is read (other threads keep their places). This
 * needs a seekable input: standard input is first copied to an unlinked
 * temporary file in $TMPDIR. Structural errors, and FDR blocks that break
 * the record grammar, stop reading: 1 record, 0 end, -1 error (err).
 * Basic-mode argument payloads are attached to their entry record.
 * `rec->args` and `rec->data` belong to `r`: valid until the next call. */
int tk_xray_next(tk_xray_reader *r, tk_xray_record *rec, tk_error *err);

/* How tk_xray_next ordered FDR buffers (known after its first call), into
 * *info. */
typedef struct tk_xray_order_info {
    uint64_t moved_buffers; /* buffers read in another buffer's place */
    uint64_t threads;       /* threads whose buffers were out of order */
    int unchecked;          /* not put in order (a pipe without a usable
                               $TMPDIR, or over a million buffers to move):
                               file order. Version 1 buffers (no extents)
                               are always read in file order. */
} tk_xray_order_info;
void tk_xray_reader_order(const tk_xray_reader *r, tk_xray_order_info *info);

/* The layout of the records: the header's type, except TK_XRAY_BASIC for
 * basic-mode records under an FDR header (what `llvm-xray convert -f raw`
 * writes for an FDR trace; read as the basic records they are). */
int tk_xray_reader_layout(const tk_xray_reader *r);

/* FDR only: raw records in file order, checked against the block grammar
 * (the verifier): 1 record, 0 end, -1 error (err; TK_EUSAGE for a
 * basic or YAML trace). Do not mix with tk_xray_next on one reader.
 * `rec->payload` is valid until the next call. */
int tk_xray_next_fdr(tk_xray_reader *r, tk_xray_fdr_record *rec, tk_error *err);

/* Offset and index of the record last returned (logical records count
 * basic argument payloads and FDR call arguments into their entry). */
uint64_t tk_xray_reader_offset(const tk_xray_reader *r);
uint64_t tk_xray_reader_index(const tk_xray_reader *r);

/* Garbage bytes skipped between FDR buffers (v3+ readers skip to the next
 * BufferExtents tag, as LLVM does). */
uint64_t tk_xray_reader_skipped(const tk_xray_reader *r);
/* The input is llvm-xray's YAML form (read through tk_xray_yaml_*; records
 * have no byte offsets then, and raw FDR records are not available). */
int tk_xray_reader_is_yaml(const tk_xray_reader *r);
/* FDR blocks (NewBuffer records) read so far. */
uint64_t tk_xray_reader_blocks(const tk_xray_reader *r);

/* ---- writing
 * Basic mode: one 32-byte record per logical record (plus one argument
 * payload record per argument); events cannot be written (TK_EUNSUPPORTED).
 * FDR mode: records are gathered in a buffer per (pid, tid) of
 * header->buffer_size bytes (16384 if 0), written out as a block when full
 * and at the end: [BufferExtents] NewBuffer WallClockTime [Pid] NewCPUId,
 * then function records with 32-bit TSC deltas (TSCWrap when a delta does
 * not fit or time goes backwards, NewCPUId when the CPU changes),
 * CallArgument records and events; v1 blocks end with EndOfBuffer and are
 * padded to the buffer size. Wall-clock records are derived from the
 * block's first TSC and the cycle frequency, kept increasing per thread so
 * that readers ordering a thread's blocks by wall clock (tk_xray_next) get
 * its records in the order they were written. */
typedef struct tk_xray_writer tk_xray_writer;

/* Uses version, type, bitfield, cycle_frequency and buffer_size of `h`
 * (for basic mode also the header's last 16 bytes from h->raw, so files
 * are rewritten exactly). `out` is borrowed, not closed. NULL and `err`
 * on failure (TK_EUSAGE for a header it cannot write, TK_EIO, TK_ENOMEM). */
tk_xray_writer *tk_xray_writer_new(FILE *out, const tk_xray_header *h,
                                   tk_error *err);
/* Write (or buffer) one record: TK_EUNSUPPORTED for an event in basic
 * mode, TK_EUSAGE for a record the format cannot hold, TK_EIO, TK_ENOMEM. */
tk_status tk_xray_write(tk_xray_writer *w, const tk_xray_record *rec,
                        tk_error *err);
/* Writes what is buffered, then frees (NULL is fine: TK_OK). Returns the
 * first error seen. */
tk_status tk_xray_writer_free(tk_xray_writer *w, tk_error *err);

/* A header with the defaults of the LLVM 14 runtime for `type` and
 * `version` (constant and non-stop TSC, 1 GHz, 16 KiB FDR buffers), into
 * *h. Cannot fail. */
void tk_xray_default_header(tk_xray_header *h, uint16_t type, uint16_t version);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
