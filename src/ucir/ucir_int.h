/* Shared by the UCIR reader, frame decoder, writer and commands. */
#ifndef TK_UCIR_INT_H
#define TK_UCIR_INT_H

#include <stddef.h>
#include <stdint.h>

#include <tracekit/format.h>
#include <tracekit/ucir.h>

#include "core/cursor.h"

#define UCIR_SPEC_HEADER 80
#define UCIR_UC_HEADER 74
#define UCIR_FRAME_HEADER 10  /* op, keyframe u8, op_count u32, size u32 */
#define UCIR_SPEC_OPS 12      /* spec op ids 0..11 */

/* ---- op layout (ops.c) */

/* The first structural error of a frame body, found by the scan. */
typedef struct ucir_scan {
    uint64_t records;     /* records before the error (all of them if none) */
    uint64_t err_pos;     /* offset in the body of the bad op (or the end) */
    int failed;
    char message[200];
    int first_exec;       /* kind of the first EXEC_ABS/EXEC_REL, 0: none */
    uint64_t first_exec_record; /* its index among the frame's records */
} ucir_scan;

/* Readable bytes past the end of an inflated body (zeroed), so the scan
 * may load a whole field without checking the end first. */
#define UCIR_SLACK 32

/* Check a whole spec frame body of `op_count` top-level ops: op ids,
 * lengths, nesting, op_count (d needs UCIR_SLACK bytes past n). Fills
 * `s`; returns 0 when clean. */
int ucir_scan_spec(const uint8_t *d, size_t n, uint32_t op_count, ucir_scan *s);

/* Decode the spec op at d (checked by ucir_scan_spec, so it fits);
 * `args` receives SYSCALL arguments. Returns its length. */
size_t ucir_decode_spec(const uint8_t *d, tk_ucir_op *op, uint64_t *args);

/* "OP_MEM_WRITE" for spec op ids 0..11, NULL for others. */
const char *ucir_spec_op_name(unsigned id);

/* ---- inflate / deflate (inflate.c): libdeflate when built with it */
typedef struct ucir_inflater ucir_inflater;
ucir_inflater *ucir_inflater_new(void);
void ucir_inflater_free(ucir_inflater *z);

enum { UCIR_Z_OK = 0, UCIR_Z_CORRUPT, UCIR_Z_TOO_BIG, UCIR_Z_TRAILING, UCIR_Z_NOMEM };

/* Inflate the zlib stream src[n] into *buf (capacity *cap, grown up to
 * `limit` + 1 bytes); *out = bytes. UCIR_Z_TRAILING: the stream ended
 * *trailing bytes before n. */
int ucir_inflate(ucir_inflater *z, const uint8_t *src, size_t n, uint8_t **buf, size_t *cap,
                 size_t *out, uint64_t limit, size_t *trailing);

/* Free a buffer grown by ucir_inflate or ucir_deflate (cap: as they left
 * it). */
void ucir_buf_free(uint8_t *buf, size_t cap);

typedef struct ucir_deflater ucir_deflater;
ucir_deflater *ucir_deflater_new(int level);
void ucir_deflater_free(ucir_deflater *z);
/* Compress src[n] into *buf (grown); returns bytes, 0 on failure. */
size_t ucir_deflate(ucir_deflater *z, const uint8_t *src, size_t n, uint8_t **buf, size_t *cap);
/* "libdeflate 1.14" or "zlib 1.2.13". */
const char *ucir_zlib_library(void);

/* ---- the frame pipeline (frames.c): spec frames, decoded in order */

typedef struct ucir_frame {
    uint64_t index, offset;  /* 0-based; file offset of its OP_FRAME */
    int keyframe;
    uint32_t op_count, csize;
    const uint8_t *body;     /* inflated body, valid until the next call */
    size_t len;
    ucir_scan scan;
    int failed;              /* the frame could not be decoded: err set */
    tk_error err;
} ucir_frame;

typedef struct ucir_frames ucir_frames;

/* Start at the input's current position (after the header). */
ucir_frames *ucir_frames_new(tk_input *in, unsigned threads, uint64_t max_frame,
                             tk_error *err);
void ucir_frames_free(ucir_frames *f);
/* 1 = a frame (its scan may have failed), 0 = end, -1 = an error outside
 * frames or while decoding one (err set; for a frame that failed to
 * inflate, *frame is filled first and 1 is returned with frame->failed).
 * `record` is the index of the frame's FRAME record, for error messages. */
int ucir_frames_next(ucir_frames *f, ucir_frame **frame, uint64_t record, tk_error *err);
/* Drop frames in flight and continue at `offset` (numbered `index`). */
tk_status ucir_frames_seek(ucir_frames *f, uint64_t offset, uint64_t index, tk_error *err);
unsigned ucir_frames_threads(const ucir_frames *f);

/* The number of online CPUs (at least 1). */
unsigned ucir_cpu_count(void);

/* ---- the reader's frame-level path (read.c), for validate: whole spec
 * frames with their scan, no per-record decoding. 1 = a clean frame, 0 =
 * end, -1 = error (err set). Not to be mixed with tk_ucir_next. */
int ucir_reader_next_frame(tk_ucir_reader *r, const ucir_frame **frame, tk_error *err);
unsigned ucir_reader_threads(const tk_ucir_reader *r);

/* ---- .uc files (uc.c) */
typedef struct ucir_uc ucir_uc;
ucir_uc *ucir_uc_new(tk_input *in, uint64_t max_op, tk_error *err);
void ucir_uc_free(ucir_uc *u);
/* Like tk_ucir_next; pos filled for the record returned. */
int ucir_uc_next(ucir_uc *u, tk_ucir_op *op, tk_ucir_pos *pos, uint64_t record,
                 tk_error *err);
uint64_t ucir_uc_inflated(const ucir_uc *u);
uint64_t ucir_uc_compressed(const ucir_uc *u);

/* Architecture string -> Unicorn (arch, mode), 0 when unknown. */
int ucir_arch_from_name(const char *name, uint32_t *arch, uint32_t *mode);

/* ---- selections (select.c) */
struct ucir_clock;
/* TK_EUSAGE for what UCIR traces cannot select (threads, functions, time
 * ranges). */
tk_status ucir_check_selection(const tk_selection *s, tk_error *err);
/* Is instruction `instr` (-1: the setup) in --range's window? */
int ucir_in_window(const tk_selection *s, int64_t instr);
/* Is `op` a memory read or write touching --addr's ranges? */
int ucir_mem_selected(const tk_selection *s, const tk_ucir_op *op);
/* A record counted in by the clock `k`: kept, dropped, or past the window. */
enum { UCIR_SEL_DROP, UCIR_SEL_KEEP, UCIR_SEL_END };
int ucir_select(const tk_selection *s, struct ucir_clock *k, const tk_ucir_op *op);
/* A reader with the command options and the selection of `o` (flags:
 * TK_UCIR_SELECT_*), for the commands that list records. */
tk_ucir_reader *ucir_cmd_open_selected(tk_input *in, const tk_options *o, unsigned flags,
                                       tk_error *err);

/* ---- commands (commands.c, info.c) */
tk_status tk_ucir_info_cmd(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err);
/* info's counts, which any pass over the records may keep (info.c). */
typedef struct tk_ucir_stats {
    uint64_t by_kind[TK_UCIR_KIND_COUNT];
    uint64_t nested, read_bytes, written_bytes, mapped_bytes;
    uint64_t max_frame_ops;
    uint64_t exits;
} tk_ucir_stats;
void tk_ucir_stats_add(tk_ucir_stats *st, const tk_ucir_op *op);
/* `tracekit report`: a replay's summary (report.c). */
tk_status tk_ucir_report(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err);
/* `report --html`: the summary and the page's analyses as one page (html.c). */
tk_status tk_ucir_report_html(tk_input *in, const tk_options *o, FILE *out, tk_error *err);
/* Reader options from the command options (threads, max-frame). */
tk_status tk_ucir_cmd_options(const tk_options *o, tk_ucir_reader_options *ro, tk_error *err);
/* A reader with the command options. */
tk_ucir_reader *tk_ucir_cmd_open(tk_input *in, const tk_options *o, tk_error *err);
/* One dump record, or just its fields (inside a record the caller opened). */
void tk_ucir_sink_op(tk_sink *s, const tk_ucir_header *h, const tk_ucir_op *op,
                     const tk_ucir_pos *pos);
void tk_ucir_sink_op_fields(tk_sink *s, const tk_ucir_header *h, const tk_ucir_op *op,
                            const tk_ucir_pos *pos);
/* "r-x" (and "+" for other bits) into buf. */
const char *ucir_prot_text(uint8_t prot, char buf[8]);
/* `tracekit dump`: the per-instruction listing, or records (dump.c). */
tk_status tk_ucir_dump(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err);
/* `convert --to perfetto`: the trace on a Perfetto timeline (perfetto.c). */
tk_status tk_ucir_perfetto(tk_input *in, const tk_options *o, FILE *out, tk_error *err);

/* Validate's warnings, checked per record or per frame scan. */
typedef enum ucir_warning {
    UCIR_W_NONE = 0,
    UCIR_W_FIRST_NOT_KEY,    /* the first frame is not a keyframe */
    UCIR_W_NO_ADDRESS        /* an instruction before any address is known */
} ucir_warning;
const char *ucir_warning_code(ucir_warning w);
const char *ucir_warning_message(ucir_warning w);


/* convert --to parquet: the format's tables into `dir`
 * (src/export/parquet/tables.h; docs/formats/ucir.md lists them). */
tk_status tk_ucir_parquet(tk_input *in, const tk_options *o, const char *source, const char *dir,
                        tk_error *err);

#endif
