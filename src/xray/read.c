/* XRay reader: basic-mode records, raw FDR records checked against the
 * block grammar, and their expansion into logical records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/cursor.h"
#include "core/spool.h"
#include "core/truncation.h"
#include "xray/xray_int.h"

#include <tracekit/xray_yaml.h>

#define FDR_FUNCTION_SIZE 8
#define FDR_METADATA_SIZE 16

/* A logical record being assembled, with its own argument and payload
 * storage (two slots alternate so the one returned stays valid while the
 * next is collected). */
typedef struct slot {
    tk_xray_record rec;
    uint64_t offset, index;
    uint64_t *args;
    uint32_t args_cap;
    uint8_t *data;
    uint32_t data_cap;
} slot;

struct tk_xray_reader {
    tk_xray_yaml_reader *yaml;    /* llvm-xray's YAML form instead of binary */
    tk_cursor cur;
    tk_xray_header hdr;
    int failed;
    int cut;                      /* stopped at a truncated tail */
    uint64_t raw_index;           /* raw records read */
    uint64_t skipped;             /* garbage bytes skipped between buffers */
    uint64_t blocks;              /* NewBuffer records seen */
    uint64_t rec_off, rec_index;  /* last record returned */
    uint64_t logical_count;
    /* FDR buffer bounds and verifier */
    int have_extents;
    uint64_t buf_end;             /* v2+: end of the current buffer */
    xv_state state;
    uint64_t block_start;         /* offset of the block's first record */
    /* expansion state of the current block */
    uint32_t tid, pid;
    uint16_t cpu;
    uint64_t base;
    /* pending logical record (an entry may still get arguments) */
    slot slots[2];
    int cur_slot, have_pending;
    /* an error met while a record was pending: reported after it */
    int deferred;
    tk_error deferred_err;
    /* basic-mode records under an FDR header (llvm-xray convert -f raw) */
    int basic_layout;
    /* logical FDR v2+ reading: each thread's buffers in time order */
    int order_ready;
    tk_xr_order order;
    int redirected;               /* reading a moved buffer ... */
    uint64_t redirect_end, resume; /* ... up to here, then back there */
    tk_spool spool;               /* a pipe copied to a temporary file */
    tk_xr_filter *filter;         /* the selection (select.c), or NULL */
};

/* llvm-xray convert -f raw copies an FDR trace's header type over the
 * basic-mode records it writes: no FDR buffer starts with a 0 byte, and
 * every record in the first window is a basic one. */
static int basic_under_fdr_header(const uint8_t *p, size_t n, int64_t size)
{
    if (n < TK_XRAY_HEADER_SIZE + TK_XRAY_BASIC_RECORD_SIZE ||
        (size >= 0 && (size - TK_XRAY_HEADER_SIZE) % TK_XRAY_BASIC_RECORD_SIZE))
        return 0;
    const uint8_t *q = p + TK_XRAY_HEADER_SIZE;
    if (tk_ld16(q, 0) != 0)
        return 0;
    for (size_t i = 0; i < (n - TK_XRAY_HEADER_SIZE) / TK_XRAY_BASIC_RECORD_SIZE; i++) {
        const uint8_t *rec = q + i * TK_XRAY_BASIC_RECORD_SIZE;
        uint16_t t = tk_ld16(rec, 0);
        if (t > 1 || (t == 0 && rec[3] > TK_XRAY_ENTER_ARG))
            return 0;
    }
    return 1;
}

tk_xray_reader *tk_xray_reader_new(tk_input *in, tk_error *err)
{
    tk_xray_reader *r = calloc(1, sizeof *r);
    if (!r) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    r->spool.fd = -1;
    int64_t n = tk_cursor_init(&r->cur, in, 4096, err);
    if (n >= 0 && tk_xray_yaml_probe(r->cur.p, (size_t)n) >= 50) {
        r->yaml = tk_xray_yaml_reader_new(in, err);
        if (!r->yaml) {
            free(r);
            return NULL;
        }
        r->hdr = *tk_xray_yaml_reader_header(r->yaml);
        r->rec_off = TK_NO_OFFSET;
        r->rec_index = TK_NO_RECORD;
        return r;
    }
    if (n < 0 || tk_xray_parse_header(r->cur.p, (size_t)n, &r->hdr, err) != TK_OK) {
        free(r);
        return NULL;
    }
    r->basic_layout = r->hdr.type == TK_XRAY_FDR &&
                      basic_under_fdr_header(r->cur.p, (size_t)n, tk_input_size(in));
    r->cur.p += TK_XRAY_HEADER_SIZE;
    r->rec_off = TK_NO_OFFSET;
    r->rec_index = TK_NO_RECORD;
    return r;
}

void tk_xray_reader_free(tk_xray_reader *r)
{
    if (!r)
        return;
    tk_xray_yaml_reader_free(r->yaml);
    for (int i = 0; i < 2; i++) {
        free(r->slots[i].args);
        free(r->slots[i].data);
    }
    tk_xr_order_free(&r->order);
    tk_spool_close(&r->spool);
    tk_xr_filter_free(r->filter);
    free(r);
}

const tk_xray_header *tk_xray_reader_header(const tk_xray_reader *r) { return &r->hdr; }
uint64_t tk_xray_reader_offset(const tk_xray_reader *r) { return r->rec_off; }
uint64_t tk_xray_reader_index(const tk_xray_reader *r) { return r->rec_index; }
uint64_t tk_xray_reader_skipped(const tk_xray_reader *r) { return r->skipped; }
uint64_t tk_xray_reader_blocks(const tk_xray_reader *r) { return r->blocks; }
int tk_xray_reader_is_yaml(const tk_xray_reader *r) { return r->yaml != NULL; }

int tk_xray_reader_layout(const tk_xray_reader *r)
{
    return r->basic_layout ? TK_XRAY_BASIC : r->hdr.type;
}

void tk_xray_reader_order(const tk_xray_reader *r, tk_xray_order_info *info)
{
    info->moved_buffers = r->order.nmoves;
    info->threads = r->order.threads;
    info->unchecked = r->order.unchecked;
}

#define FAIL(off, ...)                                                       \
    do {                                                                     \
        r->failed = 1;                                                       \
        tk_error_set(err, TK_EMALFORMED, (off), r->raw_index, __VA_ARGS__);  \
        return -1;                                                           \
    } while (0)

#define NOMEM()                                                              \
    do {                                                                     \
        r->failed = 1;                                                       \
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory"); \
        return -1;                                                           \
    } while (0)

/* ------------------------------------------------------------ pending */

static slot *fresh_slot(tk_xray_reader *r)
{
    slot *s = &r->slots[r->have_pending ? !r->cur_slot : r->cur_slot];
    memset(&s->rec, 0, sizeof s->rec);
    s->rec.args = s->args;
    s->rec.data = s->data;
    return s;
}

static int slot_add_arg(slot *s, uint64_t arg)
{
    if (s->rec.nargs == s->args_cap) {
        uint32_t cap = s->args_cap ? s->args_cap * 2 : 4;
        uint64_t *a = realloc(s->args, cap * sizeof *a);
        if (!a)
            return -1;
        s->args = a;
        s->args_cap = cap;
    }
    s->args[s->rec.nargs++] = arg;
    s->rec.args = s->args;
    return 0;
}

static int slot_set_data(slot *s, const uint8_t *p, uint32_t n)
{
    if (n > s->data_cap) {
        uint8_t *d = realloc(s->data, n);
        if (!d)
            return -1;
        s->data = d;
        s->data_cap = n;
    }
    if (n)
        memcpy(s->data, p, n);
    s->rec.data = s->data;
    s->rec.data_len = n;
    return 0;
}

/* Make `s` the pending record; if one was pending, return it in *out. */
static int push_pending(tk_xray_reader *r, slot *s, tk_xray_record *out)
{
    int had = r->have_pending;
    if (had) {
        slot *p = &r->slots[r->cur_slot];
        *out = p->rec;
        r->rec_off = p->offset;
        r->rec_index = p->index;
    }
    r->cur_slot = (int)(s - r->slots);
    r->have_pending = 1;
    s->index = r->logical_count++;
    return had;
}

static int flush_pending(tk_xray_reader *r, tk_xray_record *out)
{
    if (!r->have_pending)
        return 0;
    slot *p = &r->slots[r->cur_slot];
    *out = p->rec;
    r->rec_off = p->offset;
    r->rec_index = p->index;
    r->have_pending = 0;
    return 1;
}

/* -------------------------------------------------------------- basic */

/* "allow-truncated" (<tracekit/input.h>): the record at the cursor, of
 * which the `avail` bytes left are a valid beginning, ends the trace; its
 * bytes are consumed. Returns 0, or -1 on an I/O error. */
static int cut_tail(tk_xray_reader *r, int64_t avail, const char *what, tk_error *err)
{
    uint64_t off = tk_cursor_offset(&r->cur);
    if (tk_cursor_skip(&r->cur, (uint64_t)avail, err) < 0 ||
        tk_cursor_refill(&r->cur, 1, err) < 0) {
        r->failed = 1;
        return -1;
    }
    tk_input_note_cut(r->cur.in, off, (uint64_t)avail, what);
    r->cut = 1;
    return 0;
}

/* The `n` bytes at `p`, fewer than a basic-mode record, begin one that
 * could follow the records before: a function record of a known kind or
 * an argument payload. */
static int basic_prefix_ok(const tk_xray_reader *r, const uint8_t *p, int64_t n)
{
    uint16_t rtype = n >= 2 ? tk_ld16(p, 0) : p[0];
    if (rtype == 1)
        return r->raw_index > 0;
    return rtype == 0 && (n < 4 || p[3] <= TK_XRAY_ENTER_ARG);
}

/* A basic-mode record, with the argument payload records that follow it
 * (looked ahead in the input, so no record is held back). */
static int next_basic(tk_xray_reader *r, tk_xray_record *out, tk_error *err)
{
    if (r->failed)
        return -1;
    if (r->cut)
        return 0;
    int64_t avail = tk_cursor_need(&r->cur, TK_XRAY_BASIC_RECORD_SIZE, err);
    uint64_t off = tk_cursor_offset(&r->cur);
    if (avail < 0) {
        r->failed = 1;
        return -1;
    }
    if (avail == 0)
        return 0;
    if (avail < TK_XRAY_BASIC_RECORD_SIZE && tk_input_allows_truncated(r->cur.in) &&
        basic_prefix_ok(r, r->cur.p, avail))
        return cut_tail(r, avail,
                        r->cur.p[0] == 1 ? "an argument payload record" : "a function record",
                        err);
    if (avail < TK_XRAY_BASIC_RECORD_SIZE)
        FAIL(off, "truncated basic-mode record: needs 32 bytes, %lld left", (long long)avail);
    const uint8_t *p = r->cur.p;
    uint16_t rtype = tk_ld16(p, 0);
    if (rtype == 1)
        FAIL(off, "argument payload with no function record before it");
    if (rtype != 0)
        FAIL(off, "unknown basic-mode record type %u", rtype);
    uint8_t kind = p[3];
    if (kind > TK_XRAY_ENTER_ARG)
        FAIL(off + 3, "unknown function record type %u", kind);
    slot *s = &r->slots[0];
    out->kind = (tk_xray_kind)kind;
    out->cpu = p[2];
    out->event_type = 0;
    out->func_id = (int32_t)tk_ld32(p + 4, 0);
    out->tsc = tk_ld64(p + 8, 0);
    out->tid = tk_ld32(p + 16, 0);
    /* Only version 3 writes the pid; earlier files have padding here. */
    out->pid = r->hdr.version >= 3 ? tk_ld32(p + 20, 0) : 0;
    out->data = NULL;
    out->data_len = 0;
    s->rec.nargs = 0;
    r->cur.p += TK_XRAY_BASIC_RECORD_SIZE;
    r->raw_index++;
    for (;;) { /* argument payloads of this entry */
        avail = tk_cursor_need(&r->cur, TK_XRAY_BASIC_RECORD_SIZE, err);
        if (avail < 0) {
            r->failed = 1;
            return -1;
        }
        const uint8_t *q = r->cur.p;
        if (avail < TK_XRAY_BASIC_RECORD_SIZE || tk_ld16(q, 0) != 1)
            break;
        int32_t fid = (int32_t)tk_ld32(q + 4, 0);
        uint32_t tid = tk_ld32(q + 8, 0), pid = tk_ld32(q + 12, 0);
        if (fid != out->func_id || tid != out->tid ||
            (r->hdr.version >= 3 && pid != out->pid))
            FAIL(tk_cursor_offset(&r->cur),
                 "argument payload for function %d thread %u follows a record of "
                 "function %d thread %u",
                 fid, tid, out->func_id, out->tid);
        if (slot_add_arg(s, tk_ld64(q + 16, 0)) != 0)
            NOMEM();
        r->cur.p += TK_XRAY_BASIC_RECORD_SIZE;
        r->raw_index++;
    }
    out->nargs = s->rec.nargs;
    out->args = s->args;
    r->rec_off = off;
    r->rec_index = r->logical_count++;
    return 1;
}

/* ---------------------------------------------------------------- FDR */

/* Check the block grammar for a record of kind k at `off`. */
static int verify(tk_xray_reader *r, tk_xray_fdr_kind k, uint64_t off,
                  tk_error *err)
{
    xv_state to = tk_xv_state_of(k);
    int starts_block = to == XV_EXTENTS || (to == XV_NEW_BUFFER && r->state != XV_EXTENTS);
    if (starts_block) {
        /* The previous block must have ended properly (an empty buffer,
         * BufferExtents(0), is harmless). */
        if (r->state != XV_UNKNOWN && r->state != XV_EXTENTS && !tk_xv_terminal(r->state))
            FAIL(off, "block at offset 0x%llx (thread %u) ends after %s, before "
                      "any function record",
                 (unsigned long long)r->block_start, r->tid, tk_xv_name(r->state));
        r->state = XV_UNKNOWN;
        r->block_start = off;
    }
    if (!tk_xv_allowed(r->state, to))
        FAIL(off, "%s record cannot follow %s in a block (thread %u)",
             tk_xv_name(to), tk_xv_name(r->state), r->tid);
    r->state = to;
    return 0;
}

/* v1 buffers have a fixed size: after EndOfBuffer, skip the padding. */
static int skip_v1_padding(tk_xray_reader *r, tk_error *err)
{
    uint64_t used = tk_cursor_offset(&r->cur) - r->block_start;
    if (r->hdr.buffer_size == 0 || used >= r->hdr.buffer_size)
        return 0;
    if (tk_cursor_skip(&r->cur, r->hdr.buffer_size - used, err) < 0) {
        r->failed = 1;
        return -1;
    }
    return 0;
}

/* Between v3+ buffers LLVM skips bytes until a BufferExtents tag (0x0F);
 * do the same, counting what was skipped. Returns -1 on error. */
static int skip_to_extents(tk_xray_reader *r, tk_error *err)
{
    for (;;) {
        int64_t avail = tk_cursor_need(&r->cur, 1, err);
        if (avail <= 0) {
            if (avail < 0)
                r->failed = 1;
            return (int)avail;
        }
        const uint8_t *hit = memchr(r->cur.p, 0x0F, (size_t)avail);
        size_t n = hit ? (size_t)(hit - r->cur.p) : (size_t)avail;
        r->cur.p += n;
        r->skipped += n;
        if (hit)
            return 0;
    }
}

/* A metadata kind this version writes (decode_fdr's checks of the tag). */
static int metadata_kind_ok(unsigned kind, unsigned v)
{
    if (kind == TK_XRAY_FDR_END_OF_BUFFER)
        return v < 2;
    if (kind == TK_XRAY_FDR_BUFFER_EXTENTS)
        return v >= 2;
    return kind <= TK_XRAY_FDR_PID;
}

/* Could a record of kind `k` and `len` bytes start at `off` after the
 * records before it (the checks next_raw and verify make once it is
 * whole)? For a record cut by the end of the input. */
static int fdr_fits(const tk_xray_reader *r, tk_xray_fdr_kind k, uint64_t off, uint64_t len)
{
    int in_buffer = r->have_extents && off < r->buf_end;
    if (r->hdr.version >= 2 &&
        (in_buffer == (k == TK_XRAY_FDR_BUFFER_EXTENTS) || (in_buffer && off + len > r->buf_end)))
        return 0;
    xv_state to = tk_xv_state_of(k);
    if (to == XV_EXTENTS || (to == XV_NEW_BUFFER && r->state != XV_EXTENTS))
        return r->state == XV_UNKNOWN || r->state == XV_EXTENTS || tk_xv_terminal(r->state);
    return tk_xv_allowed(r->state, to);
}

/* "allow-truncated": the FDR record of kind `k` at the cursor, `len`
 * bytes whole, of which the `avail` left begin validly, ends the trace
 * when it fits where it stands. Returns 0 (the end), or -1: when it may
 * not (the caller fails), or after an I/O error (r->failed). */
static int fdr_cut(tk_xray_reader *r, tk_xray_fdr_kind k, int64_t avail, uint64_t len,
                   tk_error *err)
{
    if (!tk_input_allows_truncated(r->cur.in) ||
        !fdr_fits(r, k, tk_cursor_offset(&r->cur), len))
        return -1;
    char what[48];
    if (k == TK_XRAY_FDR_FUNCTION)
        snprintf(what, sizeof what, "a function record");
    else
        snprintf(what, sizeof what, "a %s metadata record", tk_xray_fdr_kind_name(k));
    return cut_tail(r, avail, what, err);
}

/* The record at p, `avail` bytes, is shorter than its fixed part: is it a
 * cut tail (0)? Its first byte must name a function action or a metadata
 * kind of this version. -1 as fdr_cut. */
static int fdr_cut_short(tk_xray_reader *r, const uint8_t *p, int64_t avail, tk_error *err)
{
    if (!(p[0] & 1))
        return ((p[0] >> 1) & 7) <= TK_XRAY_ENTER_ARG
                   ? fdr_cut(r, TK_XRAY_FDR_FUNCTION, avail, FDR_FUNCTION_SIZE, err)
                   : -1;
    unsigned kind = p[0] >> 1;
    return metadata_kind_ok(kind, r->hdr.version)
               ? fdr_cut(r, (tk_xray_fdr_kind)kind, avail, FDR_METADATA_SIZE, err)
               : -1;
}

/* Does the event of `size` payload bytes at `off` run past the end of a
 * file (a size the file cannot hold: refused before any of it is
 * buffered)? Then 1, with *left the bytes from `off` to the end; else 0,
 * *left -1 (a pipe, or the payload fits). */
static int payload_past_end(const tk_xray_reader *r, uint64_t off, uint64_t size,
                            int64_t *left)
{
    int64_t total = tk_input_size(r->cur.in);
    *left = -1;
    if (total < 0 || off > (uint64_t)total ||
        FDR_METADATA_SIZE + size <= (uint64_t)total - off)
        return 0;
    *left = (int64_t)((uint64_t)total - off);
    return 1;
}

/* Decode the raw record at the cursor (does not verify or advance). */
/* A function record's first word: bit 0 clear (not metadata), the action in
 * bits 1-3, the function id in bits 4-31; its TSC delta is the next word. */
static inline unsigned fdr_function_action(uint32_t w) { return (w >> 1) & 7; }
static inline uint32_t fdr_function_id(uint32_t w) { return w >> 4; }

static int decode_fdr(tk_xray_reader *r, tk_xray_fdr_record *x, size_t *len,
                      tk_error *err)
{
    const unsigned v = r->hdr.version;
    uint64_t off = tk_cursor_offset(&r->cur);
    int64_t avail = tk_cursor_need(&r->cur, FDR_METADATA_SIZE, err);
    if (avail < 0) {
        r->failed = 1;
        return -1;
    }
    if (avail == 0)
        return 0;
    const uint8_t *p = r->cur.p;
    memset(x, 0, sizeof *x);
    x->offset = off;
    if (avail < (p[0] & 1 ? FDR_METADATA_SIZE : FDR_FUNCTION_SIZE) &&
        fdr_cut_short(r, p, avail, err) == 0)
        return 0;
    if (r->failed)
        return -1;
    if (!(p[0] & 1)) {
        if (avail < FDR_FUNCTION_SIZE)
            FAIL(off, "truncated function record: needs 8 bytes, %lld left",
                 (long long)avail);
        uint32_t w = tk_ld32(p, 0);
        x->kind = TK_XRAY_FDR_FUNCTION;
        x->action = (uint8_t)fdr_function_action(w);
        if (x->action > TK_XRAY_ENTER_ARG)
            FAIL(off, "unknown function record type %u", x->action);
        x->func_id = fdr_function_id(w);
        x->delta = tk_ld32(p + 4, 0);
        *len = FDR_FUNCTION_SIZE;
        return 1;
    }
    unsigned kind = p[0] >> 1;
    if (avail < FDR_METADATA_SIZE)
        FAIL(off, "truncated metadata record: needs 16 bytes, %lld left",
             (long long)avail);
    const uint8_t *b = p + 1; /* the 15-byte body */
    *len = FDR_METADATA_SIZE;
    x->kind = (tk_xray_fdr_kind)kind;
    switch (kind) {
    case TK_XRAY_FDR_NEW_BUFFER:
        x->tid = (int32_t)tk_ld32(b, 0);
        break;
    case TK_XRAY_FDR_END_OF_BUFFER:
        if (v >= 2)
            FAIL(off, "EndOfBuffer records are not allowed from version 2 on");
        break;
    case TK_XRAY_FDR_NEW_CPU:
        x->cpu = tk_ld16(b, 0);
        x->tsc = tk_ld64(b + 2, 0);
        break;
    case TK_XRAY_FDR_TSC_WRAP:
        x->tsc = tk_ld64(b, 0);
        break;
    case TK_XRAY_FDR_WALLTIME:
        x->seconds = tk_ld64(b, 0);
        x->micros = tk_ld32(b + 8, 0);
        break;
    case TK_XRAY_FDR_CALL_ARG:
        x->value = tk_ld64(b, 0);
        break;
    case TK_XRAY_FDR_BUFFER_EXTENTS:
        if (v < 2)
            FAIL(off, "BufferExtents records appear only from version 2 on");
        x->value = tk_ld64(b, 0);
        break;
    case TK_XRAY_FDR_PID:
        x->pid = (int32_t)tk_ld32(b, 0);
        break;
    case TK_XRAY_FDR_CUSTOM_EVENT:
    case TK_XRAY_FDR_TYPED_EVENT:
        x->size = (int32_t)tk_ld32(b, 0);
        if (kind == TK_XRAY_FDR_TYPED_EVENT || v >= 5) {
            x->event_delta = (int32_t)tk_ld32(b + 4, 0);
            x->event_type = kind == TK_XRAY_FDR_TYPED_EVENT ? tk_ld16(b + 8, 0) : 0;
        } else {
            x->tsc = tk_ld64(b + 4, 0);
            x->cpu = v == 4 ? tk_ld16(b + 12, 0) : 0; /* v1–3 store none */
        }
        if (x->size <= 0)
            FAIL(off + 1, "invalid event payload size %d", x->size);
        /* a file holds the payload or fails here, before it is buffered */
        if (payload_past_end(r, off, (uint64_t)x->size, &avail) &&
            fdr_cut(r, x->kind, avail, FDR_METADATA_SIZE + (uint64_t)x->size, err) == 0)
            return 0;
        if (r->failed)
            return -1;
        if (avail >= 0)
            FAIL(off + 1, "event payload of %d bytes runs past the end of the "
                          "trace (%lld bytes left)",
                 x->size, (long long)avail - FDR_METADATA_SIZE);
        avail = tk_cursor_need(&r->cur, FDR_METADATA_SIZE + (size_t)x->size, err);
        if (avail < 0) {
            r->failed = 1;
            return -1;
        }
        if ((uint64_t)avail < FDR_METADATA_SIZE + (uint64_t)x->size &&
            fdr_cut(r, x->kind, avail, FDR_METADATA_SIZE + (uint64_t)x->size, err) == 0)
            return 0;
        if (r->failed)
            return -1;
        if ((uint64_t)avail < FDR_METADATA_SIZE + (uint64_t)x->size)
            FAIL(off + 1, "event payload of %d bytes runs past the end of the "
                          "trace (%lld bytes left)",
                 x->size, (long long)avail - FDR_METADATA_SIZE);
        x->payload = r->cur.p + FDR_METADATA_SIZE;
        *len = FDR_METADATA_SIZE + (size_t)x->size;
        break;
    default:
        FAIL(off, "unknown metadata record kind %u", kind);
    }
    return 1;
}

/* ------------------------------------------------- buffers in time order */

static int seek_cursor(tk_xray_reader *r, uint64_t off, tk_error *err)
{
    if (tk_input_seek(r->cur.in, off, err) != TK_OK ||
        tk_cursor_init(&r->cur, r->cur.in, 0, err) < 0) {
        r->failed = 1;
        return -1;
    }
    return 0;
}

/* A pipe cannot seek: copy it, from byte 0, to an unlinked temporary file
 * and read that. Without a usable temporary directory the buffers stay in
 * file order (and the order is reported unchecked). */
static int spool_pipe(tk_xray_reader *r, tk_error *err)
{
    int rc = r->cur.win_off == 0
                 ? tk_spool_open(&r->spool, r->cur.in, "xray-fdr", "the FDR trace", err)
                 : 1;
    if (rc == 1) {
        r->order.unchecked = 1;
        return 0;
    }
    if (rc < 0) {
        r->failed = 1;
        return -1;
    }
    r->cur.in = r->spool.in;
    return 0;
}

/* Before the first logical FDR v2+ record: plan which buffers to read out
 * of file order (order.c). */
static int prepare_order(tk_xray_reader *r, tk_error *err)
{
    r->order_ready = 1;
    if (r->hdr.version < 2)
        return 0; /* v1 buffers have no extents to jump by: file order */
    uint64_t here = tk_cursor_offset(&r->cur);
    if (tk_input_size(r->cur.in) < 0 && spool_pipe(r, err) != 0)
        return -1;
    if (tk_input_size(r->cur.in) < 0)
        return seek_cursor(r, here, err);
    if (tk_xr_order_plan(r->cur.in, r->hdr.version, &r->order, err) != TK_OK) {
        r->failed = 1;
        return -1;
    }
    tk_input_new_pass(r->cur.in); /* the plan scanned the file; now the records */
    return seek_cursor(r, here, err);
}

/* Between buffers: back from a moved buffer to where it stood in for one,
 * before any skipping (1), or into the next moved buffer (2). */
static int follow_moves(tk_xray_reader *r, int step, tk_error *err)
{
    tk_xr_order *o = &r->order;
    uint64_t at = tk_cursor_offset(&r->cur);
    if (step == 1 && r->redirected && at == r->redirect_end) {
        r->redirected = 0;
        return seek_cursor(r, r->resume, err);
    }
    if (step == 2 && !r->redirected && o->next < o->nmoves && at == o->moves[o->next].at) {
        const tk_xr_move *m = &o->moves[o->next++];
        r->redirected = 1;
        r->redirect_end = m->from_end;
        r->resume = m->at_end;
        return seek_cursor(r, m->from, err);
    }
    return 0;
}

/* At the end of the input at `off`, between records: is a buffer or a
 * block left incomplete? -1 after failing; 0 when the end is fine, or,
 * with "allow-truncated", after noting the missing tail. */
static int ends_short(tk_xray_reader *r, uint64_t off, tk_error *err)
{
    int open_block = r->state != XV_UNKNOWN && r->state != XV_EXTENTS &&
                     !tk_xv_terminal(r->state);
    if (!r->have_extents && !open_block)
        return 0;
    /* a v2+ block left open in a whole buffer is not a cut */
    if ((r->have_extents || r->hdr.version < 2) && tk_input_allows_truncated(r->cur.in)) {
        if (r->have_extents)
            tk_input_note_truncation(r->cur.in, off, 0,
                                     "the trace ends at offset 0x%llx, %llu bytes before the "
                                     "end of the buffer at offset 0x%llx",
                                     (unsigned long long)off,
                                     (unsigned long long)(r->buf_end - off),
                                     (unsigned long long)r->block_start);
        else
            tk_input_note_truncation(r->cur.in, off, 0,
                                     "the trace ends at offset 0x%llx inside the block at "
                                     "offset 0x%llx, after %s",
                                     (unsigned long long)off,
                                     (unsigned long long)r->block_start,
                                     tk_xv_name(r->state));
        r->cut = 1;
        return 0;
    }
    if (r->have_extents)
        FAIL(off, "trace ends inside a buffer: %llu of its bytes are missing",
             (unsigned long long)(r->buf_end - off));
    FAIL(off, "trace ends inside a block, after %s", tk_xv_name(r->state));
}

/* The next raw FDR record: in file order, or with `ordered` each thread's
 * buffers in time order. */
static int next_raw(tk_xray_reader *r, tk_xray_fdr_record *x, int ordered,
                    tk_error *err)
{
    if (r->failed)
        return -1;
    if (r->cut)
        return 0;
    if (r->have_extents && tk_cursor_offset(&r->cur) == r->buf_end)
        r->have_extents = 0; /* the buffer is complete */
    if (ordered && !r->have_extents && follow_moves(r, 1, err) < 0)
        return -1;
    if (r->hdr.version >= 3 && !r->have_extents && skip_to_extents(r, err) < 0)
        return -1;
    if (ordered && !r->have_extents && follow_moves(r, 2, err) < 0)
        return -1;
    uint64_t off = tk_cursor_offset(&r->cur);
    size_t len = 0;
    int rc = decode_fdr(r, x, &len, err);
    if (rc <= 0) {
        if (rc == 0 && !r->cut && ends_short(r, off, err))
            return -1;
        return rc;
    }
    if (r->hdr.version >= 2) {
        if (!r->have_extents && x->kind != TK_XRAY_FDR_BUFFER_EXTENTS)
            FAIL(off, "%s record outside any buffer: expected BufferExtents",
                 tk_xray_fdr_kind_name(x->kind));
        if (r->have_extents && x->kind == TK_XRAY_FDR_BUFFER_EXTENTS)
            FAIL(off, "BufferExtents record inside a buffer (%llu bytes before "
                      "its end)",
                 (unsigned long long)(r->buf_end - off));
        if (x->kind == TK_XRAY_FDR_BUFFER_EXTENTS && x->value > UINT64_MAX - (off + len))
            FAIL(off, "buffer extents of %llu bytes overflow",
                 (unsigned long long)x->value);
        if (r->have_extents && off + len > r->buf_end)
            FAIL(off, "%s record of %zu bytes runs %llu bytes past the end of its "
                      "buffer",
                 tk_xray_fdr_kind_name(x->kind), len,
                 (unsigned long long)(off + len - r->buf_end));
    }
    if (verify(r, x->kind, off, err) != 0)
        return -1;
    r->cur.p += len;
    r->raw_index++;
    switch (x->kind) {
    case TK_XRAY_FDR_BUFFER_EXTENTS:
        r->have_extents = 1;
        r->buf_end = off + len + x->value; /* overflow checked above */
        break;
    case TK_XRAY_FDR_NEW_BUFFER:
        r->blocks++;
        r->tid = (uint32_t)x->tid;
        r->pid = 0;
        r->cpu = 0;
        r->base = 0;
        break;
    case TK_XRAY_FDR_PID: /* pids are documented as 0 below v3 */
        if (r->hdr.version >= 3)
            r->pid = (uint32_t)x->pid;
        break;
    case TK_XRAY_FDR_NEW_CPU:
        r->cpu = x->cpu;
        break;
    case TK_XRAY_FDR_END_OF_BUFFER:
        if (skip_v1_padding(r, err) != 0)
            return -1;
        break;
    default:
        break;
    }
    return 1;
}

int tk_xray_next_fdr(tk_xray_reader *r, tk_xray_fdr_record *x, tk_error *err)
{
    if (r->failed)
        return -1;
    if (r->hdr.type != TK_XRAY_FDR || r->yaml || r->basic_layout)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "not a binary FDR-mode trace"), -1;
    return next_raw(r, x, 0, err);
}

/* Most records, decoded without next_raw's general path: a function record
 * wholly in the window and inside its v2+ buffer, where the block's grammar
 * allows one (the same effects as next_raw and the loop below). NULL: take
 * the general path, which also reports what is wrong. */
static slot *fast_function(tk_xray_reader *r)
{
    const uint8_t *p = r->cur.p;
    if (!r->have_extents || r->cut || r->failed || tk_cursor_avail(&r->cur) < FDR_FUNCTION_SIZE ||
        (p[0] & 1))
        return NULL;
    uint64_t off = tk_cursor_offset(&r->cur);
    uint32_t w = tk_ld32(p, 0);
    unsigned action = fdr_function_action(w);
    if (off + FDR_FUNCTION_SIZE > r->buf_end || action > TK_XRAY_ENTER_ARG ||
        !tk_xv_allowed(r->state, XV_FUNCTION))
        return NULL;
    r->cur.p += FDR_FUNCTION_SIZE;
    r->raw_index++;
    r->state = XV_FUNCTION;
    r->base += tk_ld32(p + 4, 0);
    slot *s = fresh_slot(r);
    s->rec.kind = (tk_xray_kind)action;
    s->rec.func_id = (int32_t)fdr_function_id(w);
    s->rec.tsc = r->base;
    s->rec.cpu = r->cpu;
    s->rec.tid = r->tid;
    s->rec.pid = r->pid;
    s->offset = off;
    return s;
}

/* Expand raw records into logical ones (per block: NewCPUId and TSCWrap
 * set the TSC base, function records and v5 events add deltas). */
static int next_fdr_logical(tk_xray_reader *r, tk_xray_record *out, tk_error *err)
{
    tk_xray_fdr_record x;
    for (;;) {
        slot *fast = fast_function(r);
        if (fast) {
            if (push_pending(r, fast, out))
                return 1;
            continue;
        }
        tk_error e;
        e.status = TK_OK; /* (a full tk_error_clear per record shows in profiles) */
        int rc = next_raw(r, &x, 1, &e);
        if (rc < 0 && r->have_pending && e.status == TK_EMALFORMED) {
            /* the complete record before the bad one comes first */
            r->deferred = 1;
            r->deferred_err = e;
            r->failed = 0;
            return flush_pending(r, out);
        }
        if (rc < 0) {
            if (err)
                *err = e;
            return -1;
        }
        if (rc == 0)
            return flush_pending(r, out);
        slot *s;
        switch (x.kind) {
        case TK_XRAY_FDR_NEW_CPU:
        case TK_XRAY_FDR_TSC_WRAP:
            r->base = x.tsc;
            continue;
        case TK_XRAY_FDR_CALL_ARG:
            if (!r->have_pending)
                continue;
            s = &r->slots[r->cur_slot];
            if (s->rec.kind == TK_XRAY_ENTER)
                s->rec.kind = TK_XRAY_ENTER_ARG;
            if (slot_add_arg(s, x.value) != 0)
                NOMEM();
            continue;
        case TK_XRAY_FDR_FUNCTION:
            r->base += x.delta;
            s = fresh_slot(r);
            s->rec.kind = (tk_xray_kind)x.action;
            s->rec.func_id = (int32_t)x.func_id;
            break;
        case TK_XRAY_FDR_CUSTOM_EVENT:
        case TK_XRAY_FDR_TYPED_EVENT:
            s = fresh_slot(r);
            if (x.kind == TK_XRAY_FDR_TYPED_EVENT || r->hdr.version >= 5)
                r->base += (uint64_t)(int64_t)x.event_delta;
            s->rec.kind = x.kind == TK_XRAY_FDR_TYPED_EVENT ? TK_XRAY_TYPED_EVENT
                                                        : TK_XRAY_CUSTOM_EVENT;
            s->rec.event_type = x.event_type;
            if (slot_set_data(s, x.payload, (uint32_t)x.size) != 0)
                NOMEM();
            break;
        default:
            continue;
        }
        int absolute = x.kind == TK_XRAY_FDR_CUSTOM_EVENT && r->hdr.version < 5;
        s->rec.tsc = absolute ? x.tsc : r->base;
        /* v1–3 custom events store no CPU: they keep the block's */
        s->rec.cpu = absolute && r->hdr.version == 4 ? x.cpu : r->cpu;
        s->rec.tid = r->tid;
        s->rec.pid = r->pid;
        s->offset = x.offset;
        if (push_pending(r, s, out))
            return 1;
    }
}

static int next_record(tk_xray_reader *r, tk_xray_record *rec, tk_error *err)
{
    if (r->deferred) {
        r->deferred = 0;
        r->failed = 1;
        if (err)
            *err = r->deferred_err;
        return -1;
    }
    if (r->failed)
        return -1;
    if (r->yaml) { /* records carry no byte offset; errors give line:col */
        int rc = tk_xray_yaml_next(r->yaml, rec, err);
        if (rc > 0)
            r->rec_index = r->logical_count++;
        r->failed = rc < 0;
        return rc;
    }
    if (r->hdr.type == TK_XRAY_BASIC || r->basic_layout)
        return next_basic(r, rec, err);
    if (!r->order_ready && prepare_order(r, err) != 0)
        return -1;
    return next_fdr_logical(r, rec, err);
}

int tk_xray_next(tk_xray_reader *r, tk_xray_record *rec, tk_error *err)
{
    for (;;) {
        int rc = next_record(r, rec, err);
        if (rc <= 0 || !r->filter)
            return rc;
        int keep = tk_xr_filter_keep(r->filter, rec);
        if (keep > 0)
            return 1;
        if (keep < 0) {
            r->failed = 1;
            tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
            return -1;
        }
    }
}

void tk_xr_reader_attach(tk_xray_reader *r, tk_xr_filter *f, tk_spool *sp)
{
    r->filter = f;
    if (sp->in) { /* the input was a pipe: the reader reads (and frees) its copy */
        r->spool = *sp;
        sp->in = NULL;
        sp->fd = -1;
    }
}
