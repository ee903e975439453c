/* tracekit — Usercorn replay traces (UCIR): emulated instructions, register
 * and memory changes, memory maps and syscalls.
 *
 * Two formats share the "UCIR" magic and are both read here:
 *   TK_UCIR_SPEC      the 2016 spec: big-endian, a stream of OP_FRAMEs whose
 *                     bodies are independent zlib streams (decoded on worker
 *                     threads, delivered in order);
 *   TK_UCIR_USERCORN  usercorn's real ".uc" files: one Snappy framing-format
 *                     stream of little-endian ops (read only).
 * Layout, errata and tracekit's rules: docs/formats/ucir.md.
 *
 * Readers and writers are handles (<tracekit/tracekit.h>, "Conventions"):
 * made by their _new (NULL and `err` on failure), freed by their _free
 * (NULL is fine), each used by one thread at a time. A SPEC reader decodes
 * frames on worker threads of its own; they never touch the tk_input or
 * call its progress hook, and tk_ucir_reader_free joins them. Distinct
 * handles are independent. The name functions and tk_ucir_op_size /
 * tk_ucir_op_equal touch no handle and are safe from any thread. */
#ifndef TRACEKIT_UCIR_H
#define TRACEKIT_UCIR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <tracekit/error.h>
#include <tracekit/input.h>
#include <tracekit/select.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef enum tk_ucir_variant {
    TK_UCIR_SPEC = 0,     /* 2016 spec, version 0 */
    TK_UCIR_USERCORN = 1  /* usercorn .uc, version 1 */
} tk_ucir_variant;

/* Record kinds. The first twelve are the spec's op ids; the rest exist in
 * .uc files only (their own ids there differ: see docs/formats/ucir.md). */
typedef enum tk_ucir_kind {
    TK_UCIR_NOP = 0,
    TK_UCIR_FRAME = 1,        /* a frame starts: keyframe, op_count, csize */
    TK_UCIR_EXEC_ABS = 2,     /* instruction at addr, size bytes */
    TK_UCIR_EXEC_REL = 3,     /* instruction right after the previous one */
    TK_UCIR_REG_CHANGE = 4,   /* reg = value */
    TK_UCIR_SPREG_CHANGE = 5, /* reg = data[len] */
    TK_UCIR_MEM_READ = 6,     /* addr, size, data[len] (.uc: no data) */
    TK_UCIR_MEM_WRITE = 7,    /* addr, size, data[len] */
    TK_UCIR_MEM_MAP = 8,      /* addr, size, prot (.uc: + map_off, map_len,
                                 desc, path) */
    TK_UCIR_MEM_UNMAP = 9,    /* addr, size */
    TK_UCIR_SYSCALL = 10,     /* num, ret, args[argc]; its op_count nested
                                 ops follow as records of depth 1 */
    TK_UCIR_EXIT = 11,
    TK_UCIR_JMP = 12,         /* .uc: control reaches addr (size: the block) */
    TK_UCIR_STEP = 13,        /* .uc: the instruction at pc, size bytes, ends;
                                 the effects before it are its own */
    TK_UCIR_MEM_PROT = 14,    /* .uc: addr, size, prot */
    TK_UCIR_KIND_COUNT
} tk_ucir_kind;

/* Protection bits of MEM_MAP / MEM_PROT (Unicorn's). */
enum { TK_UCIR_PROT_READ = 1, TK_UCIR_PROT_WRITE = 2, TK_UCIR_PROT_EXEC = 4 };

/* Unicorn architecture enums (uc_arch) and the modes tracekit names. */
enum {
    TK_UCIR_ARCH_ARM = 1, TK_UCIR_ARCH_ARM64 = 2, TK_UCIR_ARCH_MIPS = 3,
    TK_UCIR_ARCH_X86 = 4, TK_UCIR_ARCH_PPC = 5, TK_UCIR_ARCH_SPARC = 6,
    TK_UCIR_ARCH_M68K = 7
};
enum {
    TK_UCIR_MODE_16 = 2, TK_UCIR_MODE_32 = 4, TK_UCIR_MODE_64 = 8,
    TK_UCIR_MODE_BIG_ENDIAN = 1 << 30
};

typedef struct tk_ucir_header {
    tk_ucir_variant variant;
    uint32_t version;       /* SPEC: 0; USERCORN: as stored (1) */
    uint32_t arch, mode;    /* Unicorn enums; USERCORN: derived from arch_name
                               (0, 0 when the name is unknown) */
    char arch_name[33];     /* the 32 stored bytes (NUL-padded) + NUL; the
                               writer stores all 32 bytes as they are */
    char os[33];
    uint8_t code_big, data_big; /* USERCORN: byte order bytes (1 = big) */
    uint32_t size;          /* bytes: 80 (SPEC) or 74 (USERCORN) */
} tk_ucir_header;

/* One record: a frame start or one op. Fields a kind does not use are zero
 * when read and ignored when written. */
typedef struct tk_ucir_op {
    tk_ucir_kind kind;
    uint32_t depth;         /* 0: in the frame; 1: nested in a SYSCALL */
    int keyframe;           /* FRAME */
    uint32_t op_count;      /* FRAME: top-level ops in it; SYSCALL: nested */
    uint32_t csize;         /* FRAME (SPEC): compressed bytes */
    uint64_t pid;           /* FRAME (USERCORN) */
    uint64_t addr;          /* EXEC_ABS, JMP, MEM_* */
    uint64_t size;          /* EXEC_*, STEP: instruction bytes; JMP: block;
                               MEM_*: bytes of memory */
    uint32_t reg;           /* REG_CHANGE, SPREG_CHANGE: Unicorn enum */
    uint64_t value;         /* REG_CHANGE */
    uint8_t prot;           /* MEM_MAP, MEM_PROT */
    const uint8_t *data;    /* SPREG value, MEM_READ/MEM_WRITE bytes; owned
                               by the reader, valid until the next call */
    uint64_t len;           /* bytes at data (MEM: = size; .uc MEM_READ: 0) */
    uint32_t num;           /* SYSCALL number */
    uint64_t ret;           /* SYSCALL return value */
    const uint64_t *args;   /* SYSCALL arguments (valid until the next call) */
    uint32_t argc;
    uint64_t map_off, map_len; /* MEM_MAP (USERCORN): file offset, length */
    const char *desc, *path;   /* MEM_MAP (USERCORN): not NUL-terminated */
    uint32_t desc_len, path_len;
} tk_ucir_op;

/* ---- reading */
typedef struct tk_ucir_reader tk_ucir_reader;

typedef struct tk_ucir_reader_options {
    unsigned threads;       /* frame decoding threads; 0 = all cores, 1 =
                               everything on the calling thread */
    uint64_t max_frame;     /* largest inflated frame accepted (and .uc op);
                               0 = TK_UCIR_DEFAULT_MAX_FRAME */
} tk_ucir_reader_options;

#define TK_UCIR_DEFAULT_MAX_FRAME ((uint64_t)256 << 20)

/* Reads the header and starts at the first frame. The reader borrows `in`;
 * `opts` (copied) may be NULL. NULL and `err` on failure: TK_EMALFORMED
 * for a header too short, a bad magic or an unknown version; TK_EIO;
 * TK_ENOMEM. */
tk_ucir_reader *tk_ucir_reader_new(tk_input *in, const tk_ucir_reader_options *opts,
                                   tk_error *err);
void tk_ucir_reader_free(tk_ucir_reader *r);
/* The header read; owned by `r`, valid until it is freed. */
const tk_ucir_header *tk_ucir_reader_header(const tk_ucir_reader *r);

/* 1 = a record, 0 = end of the trace, -1 = malformed or failed (err:
 * offset = the frame's file offset, record = index, message "frame F
 * +0xM: ..."; the end is sticky). Every FRAME record is followed by the
 * frame's ops; a SYSCALL's nested ops follow it with depth 1. The op's
 * data, args, desc and path belong to `r`: valid until the next call. */
int tk_ucir_next(tk_ucir_reader *r, tk_ucir_op *op, tk_error *err);

/* ---- selections (<tracekit/select.h>; docs/formats/ucir.md)
 * From now on tk_ucir_next returns only the records `sel` selects: with a
 * range [FROM, TO) of instructions (counted as the replay counts them:
 * <tracekit/ucir_replay.h>), the records of those instructions (the setup
 * before instruction 0 belongs to a window starting at 0; FRAME records and
 * the records of later keyframes to none); with address ranges, the memory
 * reads and writes touching one. Positions stay those of the trace. The
 * reader keeps its own copy. TK_EUSAGE for threads, a function, or a
 * range given as a time. */
enum { TK_UCIR_SELECT_STOP = 1 }; /* end (0) after the window */
tk_status tk_ucir_reader_select(tk_ucir_reader *r, const tk_selection *sel, unsigned flags,
                                tk_error *err);

/* Where the record last returned sits. SPEC: frame_offset is the file
 * offset of its OP_FRAME and op_offset the offset in the inflated frame
 * body (0 for the FRAME record itself). USERCORN: both count bytes of the
 * decoded op stream (frame_offset: the FRAME op; op_offset: from there). */
typedef struct tk_ucir_pos {
    uint64_t record;        /* 0-based index of the record */
    uint64_t frame;         /* 0-based index of its frame */
    uint64_t frame_offset;
    uint64_t op_offset;
    int keyframe;           /* its frame is a keyframe */
} tk_ucir_pos;
/* Where the record last returned sits, into *pos. */
void tk_ucir_reader_pos(const tk_ucir_reader *r, tk_ucir_pos *pos);

/* SPEC only: continue at the frame starting at file `offset` (an offset
 * reported in tk_ucir_pos.frame_offset), numbering it `frame` and its
 * FRAME record `record`. Needs a seekable input (file or memory). */
tk_status tk_ucir_reader_seek(tk_ucir_reader *r, uint64_t offset, uint64_t frame,
                              uint64_t record, tk_error *err);

/* Records, frames and inflated bytes read so far, into *c. */
typedef struct tk_ucir_counts {
    uint64_t records, frames, keyframes, inflated, compressed;
} tk_ucir_counts;
void tk_ucir_reader_counts(const tk_ucir_reader *r, tk_ucir_counts *c);

/* ---- writing (SPEC) */
typedef struct tk_ucir_writer tk_ucir_writer;

typedef struct tk_ucir_writer_options {
    uint32_t max_ops;       /* a frame closes after this many top-level ops
                               (0 = no limit; default 65536 when opts NULL) */
    uint64_t max_bytes;     /* ... or this many inflated bytes (0 = no limit;
                               default 1 MiB) */
    int level;              /* zlib level 0..9 (default 6) */
} tk_ucir_writer_options;

/* Writes the header (arch_name/os: the 32 bytes as given; variant and
 * version must be SPEC and 0, else TK_EUSAGE). Output is buffered; `out`
 * is borrowed, not closed. NULL and `err` on failure. */
tk_ucir_writer *tk_ucir_writer_new(FILE *out, const tk_ucir_header *h,
                                   const tk_ucir_writer_options *opts, tk_error *err);
/* A FRAME op closes the open frame and opens one (keyframe as given; its
 * op_count and csize are computed). Other ops go into the open frame (one
 * is opened, not a keyframe, when none is); a SYSCALL is followed by its
 * op_count nested ops (any depth value). Frames close at op boundaries
 * only. TK_EUSAGE for ops the spec cannot hold (.uc kinds, sizes beyond the
 * field, data length != size, nesting errors). */
tk_status tk_ucir_write(tk_ucir_writer *w, const tk_ucir_op *op, tk_error *err);
/* Close the open frame now (no-op when none is open): TK_EIO or TK_ENOMEM
 * when writing or compressing it failed. */
tk_status tk_ucir_writer_frame_end(tk_ucir_writer *w, tk_error *err);
/* Closes the open frame, flushes, frees (NULL is fine: TK_OK). Returns
 * the first error. */
tk_status tk_ucir_writer_free(tk_ucir_writer *w, tk_error *err);

/* Encoded size of one op in SPEC layout, 0 for kinds it lacks (FRAME: its
 * 10-byte header). Cannot fail. */
uint64_t tk_ucir_op_size(const tk_ucir_op *op);
/* 1 when two records have the same kind and equal fields for it. */
int tk_ucir_op_equal(const tk_ucir_op *a, const tk_ucir_op *b);

/* ---- names (static text) */
/* "mem_write", ...; "?" for a kind out of range. */
const char *tk_ucir_kind_name(tk_ucir_kind k);
/* "x86", "arm64", ...; NULL for an architecture tracekit does not name. */
const char *tk_ucir_arch_name(uint32_t arch);
/* Register name ("rax", "x0", "sp") for a Unicorn register enum of x86
 * (mode 64: r-registers, else e-registers; both are named), arm, arm64 or
 * mips; NULL when unknown. tk_ucir_reg_label also answers "reg<N>": it
 * returns the name, or writes "reg<N>" into `buf` (of `size` bytes, cut
 * like snprintf) and returns `buf`. */
const char *tk_ucir_reg_name(uint32_t arch, uint32_t mode, uint32_t num);
const char *tk_ucir_reg_label(uint32_t arch, uint32_t mode, uint32_t num, char *buf,
                              size_t size);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
