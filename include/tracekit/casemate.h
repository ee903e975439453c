/* tracekit — casemate logs: page-table writes, barriers, TLB maintenance,
 * locks and ghost hints, as s-expressions, one record per transition.
 * Syntax and tracekit's reading of it: docs/formats/casemate.md.
 *
 * Readers and writers are handles (<tracekit/tracekit.h>, "Conventions"):
 * made by their _new (NULL and `err` on failure), freed by their _free
 * (NULL is fine), each used by one thread at a time; distinct handles are
 * independent. The record functions and name tables touch no handle and
 * are safe from any thread. */
#ifndef TRACEKIT_CASEMATE_H
#define TRACEKIT_CASEMATE_H

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

/* Record kinds (the word after the opening bracket). */
typedef enum tk_casemate_kind {
    TK_CASEMATE_MEM_WRITE = 0,   /* mem_order, address, value */
    TK_CASEMATE_MEM_READ,        /* address, value */
    TK_CASEMATE_MEM_INIT,        /* address, size */
    TK_CASEMATE_MEM_FREE,        /* address, size */
    TK_CASEMATE_MEM_SET,         /* address, size, value */
    TK_CASEMATE_SYSREG_WRITE,    /* sysreg, value ("sysreg-write" or "msr") */
    TK_CASEMATE_BARRIER,         /* barrier */
    TK_CASEMATE_TLBI,            /* tlbi, tlbi_operand [+ value | address, level] */
    TK_CASEMATE_HINT,            /* hint, location, value */
    TK_CASEMATE_LOCK,            /* address (of the lock) */
    TK_CASEMATE_TRYLOCK,         /* address */
    TK_CASEMATE_UNLOCK,          /* address */
    TK_CASEMATE_KIND_COUNT
} tk_casemate_kind;

typedef enum tk_casemate_mem_order {
    TK_CASEMATE_PLAIN = 0,
    TK_CASEMATE_RELEASE,
    TK_CASEMATE_MEM_ORDER_COUNT
} tk_casemate_mem_order;

/* A barrier record is a DSB with its domain, or an ISB. */
typedef enum tk_casemate_barrier {
    TK_CASEMATE_DSB_NSH = 0,
    TK_CASEMATE_DSB_ISH,
    TK_CASEMATE_DSB_ISHST,
    TK_CASEMATE_DSB_SY,
    TK_CASEMATE_ISB,
    TK_CASEMATE_BARRIER_COUNT
} tk_casemate_barrier;

/* TLBI operations: casemate-check's eleven, in its order, then vae2 (in
 * the spec document only). */
typedef enum tk_casemate_tlbi {
    TK_CASEMATE_TLBI_VMALLS12E1 = 0,
    TK_CASEMATE_TLBI_VMALLS12E1IS,
    TK_CASEMATE_TLBI_VMALLE1IS,
    TK_CASEMATE_TLBI_ALLE1,
    TK_CASEMATE_TLBI_ALLE1IS,
    TK_CASEMATE_TLBI_VMALLE1,
    TK_CASEMATE_TLBI_ALLE2,
    TK_CASEMATE_TLBI_ALLE2IS,
    TK_CASEMATE_TLBI_VALE2IS,    /* by VA, last level: takes an operand */
    TK_CASEMATE_TLBI_VAE2IS,     /* by VA: operand */
    TK_CASEMATE_TLBI_IPAS2E1IS,  /* by IPA: operand */
    TK_CASEMATE_TLBI_VAE2,       /* by VA, not broadcast: operand */
    TK_CASEMATE_TLBI_COUNT
} tk_casemate_tlbi;

/* How a by-address TLBI gives its operand. */
typedef enum tk_casemate_tlbi_operand {
    TK_CASEMATE_OPERAND_NONE = 0,   /* operations without one (vmalls12e1, ...) */
    TK_CASEMATE_OPERAND_VALUE,      /* (value V): the packed register operand as
                                 casemate writes it: V[43:0] = address >> 12,
                                 V[47:44] = TTL, V[63:48] = ASID/VMID */
    TK_CASEMATE_OPERAND_ADDR_LEVEL  /* (addr A) (level L), the spec document's form */
} tk_casemate_tlbi_operand;

typedef enum tk_casemate_sysreg {
    TK_CASEMATE_VTTBR_EL2 = 0,
    TK_CASEMATE_TTBR0_EL2,       /* also read as "ttbr_el2" */
    TK_CASEMATE_VTCR_EL2,
    TK_CASEMATE_HCR_EL2,
    TK_CASEMATE_TCR_EL2,
    TK_CASEMATE_SCTLR_EL2,
    TK_CASEMATE_MAIR_EL2,
    TK_CASEMATE_SYSREG_COUNT
} tk_casemate_sysreg;

typedef enum tk_casemate_hint {
    TK_CASEMATE_SET_ROOT_LOCK = 0,
    TK_CASEMATE_SET_OWNER_ROOT,
    TK_CASEMATE_RELEASE_TABLE,
    TK_CASEMATE_SET_PTE_THREAD_OWNER,
    TK_CASEMATE_HINT_COUNT
} tk_casemate_hint;

/* The optional source location at the end of a record. */
typedef enum tk_casemate_src_kind {
    TK_CASEMATE_SRC_NONE = 0,    /* no src */
    TK_CASEMATE_SRC_STRING,      /* (src "file.c:12") or "file.c:12" */
    TK_CASEMATE_SRC_INT          /* (src 12) or 12: a key into a tracepoint map */
} tk_casemate_src_kind;

/* One record. Fields a kind does not use (see tk_casemate_kind) are zero
 * when read and ignored when written. Numbers other than id, tid and an
 * integer src are hexadecimal in the log, with or without 0x. */
typedef struct tk_casemate_record {
    tk_casemate_kind kind;
    uint64_t id;                   /* sequence number (decimal in the log) */
    uint64_t tid;                  /* thread: (tid N) or (thread N) */
    uint64_t address;              /* mem-*, lock/trylock/unlock; TLBI addr */
    uint64_t value;                /* mem-write/read/set, sysreg-write,
                                      hint, TLBI (value V) */
    uint64_t size;                 /* mem-init/free/set */
    uint64_t location;             /* hint */
    uint64_t level;                /* TLBI (level L) */
    tk_casemate_mem_order mem_order;
    tk_casemate_barrier barrier;
    tk_casemate_tlbi tlbi;
    tk_casemate_tlbi_operand tlbi_operand;
    tk_casemate_sysreg sysreg;
    tk_casemate_hint hint;
    tk_casemate_src_kind src_kind;
    const char *src;               /* STRING: the bytes between the quotes,
                                      not NUL-terminated; points into the
                                      input, valid until the next read */
    size_t src_len;
    uint64_t src_int;              /* INT */
} tk_casemate_record;

/* ---- reading */
typedef struct tk_casemate_reader tk_casemate_reader;

/* The reader borrows `in` and starts at its current position. NULL and
 * `err` when out of memory. */
tk_casemate_reader *tk_casemate_reader_new(tk_input *in, tk_error *err);
void tk_casemate_reader_free(tk_casemate_reader *r);

/* 1 = a record was read, 0 = end of the records (end of input, or a line
 * starting with '!'), -1 = syntax error or failed read (`err` set with the
 * 1-based line and column and the record index; reading cannot continue).
 * `rec->src` points into the input: valid until the next call on `r`. */
int tk_casemate_next(tk_casemate_reader *r, tk_casemate_record *rec,
                     tk_error *err);

/* From now on tk_casemate_next returns only the records `sel` selects
 * (docs/formats/casemate.md, "Selection"): ids in the range [FROM, TO),
 * tids in the thread list, and with address ranges the records naming a
 * location in one (mem-* records, locks, hints). The reader keeps its own
 * copy. TK_EUSAGE for a function, or a range given as a time. */
tk_status tk_casemate_reader_select(tk_casemate_reader *r, const tk_selection *sel,
                                    tk_error *err);

/* Where the record last returned starts: 1-based line and column, byte
 * offset, 0-based index. Before the first record: 0 and TK_NO_RECORD. */
uint64_t tk_casemate_reader_line(const tk_casemate_reader *r);
uint64_t tk_casemate_reader_col(const tk_casemate_reader *r);
uint64_t tk_casemate_reader_offset(const tk_casemate_reader *r);
uint64_t tk_casemate_reader_index(const tk_casemate_reader *r);
/* Offset of the next byte the reader would look at. */
uint64_t tk_casemate_reader_tell(const tk_casemate_reader *r);
/* Lines read so far (after the end: the lines of the log, counting a
 * last line without a newline). */
uint64_t tk_casemate_reader_lines(const tk_casemate_reader *r);

/* The expected-result line: once tk_casemate_next has returned 0 at a
 * line starting with '!', the text after the '!' with surrounding blanks
 * removed (e.g. "BBM valid->valid"; may be empty) and its length in
 * `*len`. NULL when the records did not end at such a line. The text
 * belongs to the reader. Anything after that line is not read. */
const char *tk_casemate_reader_expected(const tk_casemate_reader *r, size_t *len);
uint64_t tk_casemate_reader_expected_line(const tk_casemate_reader *r);

/* ---- writing */

/* The canonical keyword form, one record per line:
 *   (mem-write (id 5) (tid 0) (mem-order plain) (address 0x1000) (value 0x3) (src "f.c:36"))
 * and the compact positional form (casemate-check -c), src last:
 *   (mem-write 5 0 plain 1000 3 "f.c:36")
 * Both read back to the same record. */
typedef enum tk_casemate_style {
    TK_CASEMATE_KEYWORD = 0,
    TK_CASEMATE_COMPACT
} tk_casemate_style;

typedef struct tk_casemate_writer tk_casemate_writer;

/* Writes go through an internal buffer to `out` (borrowed: not closed by
 * free). NULL and `err` on failure (TK_EUSAGE for a style out of range,
 * TK_ENOMEM). */
tk_casemate_writer *tk_casemate_writer_new(FILE *out, tk_casemate_style style,
                                           tk_error *err);
/* Rejects (TK_EUSAGE) records the reader could not read back: a kind or
 * enumeration out of range, a TLBI operand form its operation does not
 * take, a src string containing '"' (the format has no escapes). */
tk_status tk_casemate_write(tk_casemate_writer *w, const tk_casemate_record *rec,
                            tk_error *err);
/* The expected-result line "! TEXT" (TEXT must not contain a newline).
 * Records written after it would not be read back. */
tk_status tk_casemate_write_expected(tk_casemate_writer *w, const char *text,
                                     size_t len, tk_error *err);
/* Write out the buffer to `out` (without fflush): TK_EIO when that failed.
 * The record functions above also return TK_EIO when a write failed. */
tk_status tk_casemate_writer_flush(tk_casemate_writer *w, tk_error *err);
/* Flushes, then frees (NULL is fine: TK_OK). Returns the flush status. */
tk_status tk_casemate_writer_free(tk_casemate_writer *w, tk_error *err);

/* NULL when the writer accepts `rec`, else why not (static text): a
 * check, not a failure. */
const char *tk_casemate_record_problem(const tk_casemate_record *rec);
/* One record as text (no newline) into `buf` of `size` bytes, truncated
 * and NUL-terminated like snprintf; returns the full length. A record
 * takes at most TK_CASEMATE_FORMAT_MAX + src_len bytes. `rec` must be
 * acceptable (tk_casemate_record_problem). */
enum { TK_CASEMATE_FORMAT_MAX = 256 };
size_t tk_casemate_format(const tk_casemate_record *rec, tk_casemate_style style,
                          char *buf, size_t size);

/* 1 when the two records have the same kind and equal fields for it. */
int tk_casemate_record_equal(const tk_casemate_record *a,
                             const tk_casemate_record *b);

/* ---- names as the log spells them (lower case; static text); "?" when
 * out of range */
const char *tk_casemate_kind_name(tk_casemate_kind k);       /* "mem-write" */
const char *tk_casemate_mem_order_name(tk_casemate_mem_order o); /* "plain" */
const char *tk_casemate_barrier_name(tk_casemate_barrier b); /* "dsb ish", "isb" */
const char *tk_casemate_tlbi_name(tk_casemate_tlbi t);       /* "vae2is" */
const char *tk_casemate_sysreg_name(tk_casemate_sysreg s);   /* "vttbr_el2" */
const char *tk_casemate_hint_name(tk_casemate_hint h);       /* "set_root_lock" */
/* 1 when the TLBI operation takes an address operand, else 0. */
int tk_casemate_tlbi_has_operand(tk_casemate_tlbi t);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
