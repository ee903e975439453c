/* usercorn's real ".uc" traces: after the 74-byte header, one Snappy
 * framing-format stream (chunks of at most 64 KiB, CRC-32C checked)
 * carrying little-endian ops whose boundaries ignore the chunks. Chunks
 * are decoded into a buffer that holds the op being parsed and what is
 * left of the last chunk; it grows only as far as the largest op. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/truncation.h"
#include "ucir/ucir_int.h"

#ifdef TK_HAVE_SNAPPY
#include <snappy-c.h>
#endif

#define CHUNK_MAX 65536

/* .uc op ids */
enum { UC_NOP, UC_FRAME, UC_KEYFRAME, UC_JMP, UC_STEP, UC_REG, UC_SPREG, UC_MEM_READ,
       UC_MEM_WRITE, UC_MEM_MAP, UC_MEM_UNMAP, UC_MEM_PROT, UC_SYSCALL, UC_EXIT, UC_OPS };

static const uint8_t uc_fixed[UC_OPS] = {1, 13, 13, 13, 2, 11, 5, 13, 13, 38, 17, 18, 16, 1};
static const char *const uc_names[UC_OPS] = {
    "NOP", "FRAME", "KEYFRAME", "JMP", "STEP", "REG", "SPREG", "MEM_READ", "MEM_WRITE",
    "MEM_MAP", "MEM_UNMAP", "MEM_PROT", "SYSCALL", "EXIT"};
static const tk_ucir_kind uc_kinds[UC_OPS] = {
    TK_UCIR_NOP, TK_UCIR_FRAME, TK_UCIR_FRAME, TK_UCIR_JMP, TK_UCIR_STEP, TK_UCIR_REG_CHANGE,
    TK_UCIR_SPREG_CHANGE, TK_UCIR_MEM_READ, TK_UCIR_MEM_WRITE, TK_UCIR_MEM_MAP,
    TK_UCIR_MEM_UNMAP, TK_UCIR_MEM_PROT, TK_UCIR_SYSCALL, TK_UCIR_EXIT};

typedef struct chunk_at {
    uint64_t stream, file; /* where a chunk's data starts in each */
} chunk_at;

struct ucir_uc {
    tk_cursor cur;
    uint64_t max_op;
    uint8_t *buf;
    size_t pos, len, cap;
    uint64_t buf_stream;        /* stream offset of buf[0] */
    chunk_at *chunks;           /* chunks with data in buf, in order */
    size_t nchunks, chunks_cap;
    int started, eof;
    uint64_t inflated, compressed;
    int in_frame;
    uint32_t frame_left, sys_left;
    uint64_t frames, frame_stream;
    int keyframe;
    int cut;                    /* "allow-truncated": a chunk was cut ... */
    uint64_t cut_at, cut_len;   /* ... here, this long */
    int ended;                  /* stopped at a truncated tail */
    uint64_t args[255];
    uint32_t crc_table[256];
};

ucir_uc *ucir_uc_new(tk_input *in, uint64_t max_op, tk_error *err)
{
    ucir_uc *u = calloc(1, sizeof *u);
    if (!u) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    u->max_op = max_op;
    for (uint32_t i = 0; i < 256; i++) { /* CRC-32C (Castagnoli), reflected */
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        u->crc_table[i] = c;
    }
    if (tk_cursor_init(&u->cur, in, 0, err) < 0) {
        free(u);
        return NULL;
    }
    return u;
}

void ucir_uc_free(ucir_uc *u)
{
    if (!u)
        return;
    free(u->buf);
    free(u->chunks);
    free(u);
}

uint64_t ucir_uc_inflated(const ucir_uc *u) { return u->inflated; }
uint64_t ucir_uc_compressed(const ucir_uc *u) { return u->compressed; }

static uint32_t masked_crc(const ucir_uc *u, const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = u->crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    c = ~c;
    return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

static int fail(tk_error *err, uint64_t offset, uint64_t record, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int fail(tk_error *err, uint64_t offset, uint64_t record, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tk_error_set(err, TK_EMALFORMED, offset, record, "%s", msg);
    return -1;
}

/* Room for `extra` more bytes at the end of buf, after dropping what has
 * been parsed (and the chunk entries wholly before it). */
static int make_room(ucir_uc *u, size_t extra)
{
    if (u->pos) {
        memmove(u->buf, u->buf + u->pos, u->len - u->pos);
        u->buf_stream += u->pos;
        u->len -= u->pos;
        u->pos = 0;
        size_t keep = 0;
        while (keep + 1 < u->nchunks && u->chunks[keep + 1].stream <= u->buf_stream)
            keep++;
        memmove(u->chunks, u->chunks + keep, (u->nchunks - keep) * sizeof *u->chunks);
        u->nchunks -= keep;
    }
    if (u->len + extra > u->cap || !u->buf) { /* a buffer even for 0 bytes: u->buf + u->len */
        size_t cap = u->cap ? u->cap : 2 * CHUNK_MAX;
        while (cap < u->len + extra)
            cap *= 2;
        uint8_t *nb = realloc(u->buf, cap);
        if (!nb)
            return -1;
        u->buf = nb;
        u->cap = cap;
    }
    if (u->nchunks == u->chunks_cap) {
        size_t cap = u->chunks_cap ? 2 * u->chunks_cap : 16;
        chunk_at *nc = realloc(u->chunks, cap * sizeof *nc);
        if (!nc)
            return -1;
        u->chunks = nc;
        u->chunks_cap = cap;
    }
    return 0;
}

/* File offset of the chunk holding stream byte `s` (the cursor when none). */
static uint64_t file_offset(const ucir_uc *u, uint64_t s)
{
    uint64_t at = tk_cursor_offset(&u->cur);
    for (size_t i = 0; i < u->nchunks && u->chunks[i].stream <= s; i++)
        at = u->chunks[i].file;
    return at;
}

/* "allow-truncated" (<tracekit/input.h>): the chunk at `at` (p), of which
 * the end of the input leaves `got` bytes, reads as a chunk as far as it
 * goes (a type the framing allows here; the identifier's length and
 * text; a data chunk's room for its CRC and size): the stream ends before
 * it. Its data is not checked (its CRC is in the missing part or covers
 * it). 1 when so. */
static int cut_chunk(ucir_uc *u, uint64_t at, const uint8_t *p, int64_t got)
{
    if (!tk_input_allows_truncated(u->cur.in))
        return 0;
    unsigned type = p[0];
    if (!u->started ? type != 0xff : type > 0x01 && type < 0x80)
        return 0;
    if (got >= 4) {
        size_t clen = (size_t)p[1] | (size_t)p[2] << 8 | (size_t)p[3] << 16;
        if (type == 0xff && (clen != 6 || memcmp(p + 4, "sNaPpY", (size_t)got - 4) != 0))
            return 0;
        if (type <= 0x01 && (clen < 4 || (type == 0x01 && clen - 4 > CHUNK_MAX)))
            return 0;
    }
    u->cut = 1;
    u->cut_at = at;
    u->cut_len = (uint64_t)got;
    return 1;
}

/* Decode one chunk onto the buffer. 0 = ok (or skipped), 1 = end of
 * input, -1 = error. */
static int read_chunk(ucir_uc *u, uint64_t record, tk_error *err)
{
    tk_cursor *c = &u->cur;
    uint64_t at = tk_cursor_offset(c);
    int64_t got = tk_cursor_need(c, 4, err);
    if (got < 0)
        return -1;
    if (got == 0)
        return 1;
    if (got < 4 && cut_chunk(u, at, c->p, got))
        return 1;
    if (got < 4)
        return fail(err, at, record, "truncated Snappy chunk header: needs 4 bytes, %lld left",
                    (long long)got);
    unsigned type = c->p[0];
    size_t clen = (size_t)c->p[1] | (size_t)c->p[2] << 8 | (size_t)c->p[3] << 16;
    got = tk_cursor_need(c, 4 + clen, err);
    if (got < 0)
        return -1;
    if ((size_t)got < 4 + clen && cut_chunk(u, at, c->p, got))
        return 1;
    if ((size_t)got < 4 + clen)
        return fail(err, at, record, "truncated Snappy chunk: needs %zu bytes, %lld left",
                    4 + clen, (long long)got);
    const uint8_t *d = c->p + 4;
    if (!u->started && type != 0xff)
        return fail(err, at, record, "the stream does not start with a Snappy stream identifier");
    if (type == 0xff) {
        if (clen != 6 || memcmp(d, "sNaPpY", 6) != 0)
            return fail(err, at, record, "bad Snappy stream identifier");
        u->started = 1;
    } else if (type == 0x00 || type == 0x01) {
        if (clen < 4)
            return fail(err, at, record, "Snappy chunk of %zu bytes has no room for its CRC", clen);
        uint32_t want = tk_ld32(d, 0);
        size_t n = clen - 4;
        if (type == 0x00) {
#ifdef TK_HAVE_SNAPPY
            size_t out;
            if (snappy_uncompressed_length((const char *)d + 4, n, &out) != SNAPPY_OK ||
                out > CHUNK_MAX)
                return fail(err, at, record, "corrupt Snappy chunk");
            if (make_room(u, out) != 0)
                return tk_error_set(err, TK_ENOMEM, at, record, "out of memory"), -1;
            if (snappy_uncompress((const char *)d + 4, n, (char *)u->buf + u->len, &out) != SNAPPY_OK)
                return fail(err, at, record, "corrupt Snappy chunk");
            n = out;
#else
            return tk_error_set(err, TK_EUNSUPPORTED, at, record,
                                "compressed Snappy chunk: tracekit was built without libsnappy"), -1;
#endif
        } else {
            if (n > CHUNK_MAX)
                return fail(err, at, record, "uncompressed Snappy chunk of %zu bytes (at most 65536)", n);
            if (make_room(u, n) != 0)
                return tk_error_set(err, TK_ENOMEM, at, record, "out of memory"), -1;
            memcpy(u->buf + u->len, d + 4, n);
        }
        if (masked_crc(u, u->buf + u->len, n) != want)
            return fail(err, at, record, "Snappy chunk CRC mismatch");
        u->chunks[u->nchunks].stream = u->buf_stream + u->len;
        u->chunks[u->nchunks].file = at;
        u->nchunks++;
        u->len += n;
        u->inflated += n;
    } else if (type < 0x80) {
        return fail(err, at, record, "reserved unskippable Snappy chunk type 0x%02x", type);
    } /* else padding or skippable */
    u->compressed += 4 + clen;
    c->p += 4 + clen;
    return 0;
}

/* 1 when `n` bytes are ready at buf + pos, 0 when the input ended first,
 * -1 on error. */
static int ensure(ucir_uc *u, size_t n, uint64_t record, tk_error *err)
{
    while (u->len - u->pos < n) {
        if (u->eof)
            return 0;
        int r = read_chunk(u, record, err);
        if (r < 0)
            return -1;
        if (r > 0)
            u->eof = 1;
    }
    return 1;
}

/* "allow-truncated": the stream ended (at stream offset `at`) inside an
 * op, a frame or a SYSCALL, or after a cut chunk: note the cut and end.
 * 0 when noted, -1 when not allowed (the caller fails). */
static int cut_stream(ucir_uc *u, uint64_t at, const char *op)
{
    if (!u->cut && !tk_input_allows_truncated(u->cur.in))
        return -1;
    uint64_t part = u->len - u->pos, chunk = file_offset(u, at);
    if (u->cut)
        tk_input_note_truncation(u->cur.in, u->cut_at, u->cut_len,
                                 "dropped %llu byte%s of a Snappy chunk at offset 0x%llx",
                                 (unsigned long long)u->cut_len, u->cut_len == 1 ? "" : "s",
                                 (unsigned long long)u->cut_at);
    else if (op)
        tk_input_note_truncation(u->cur.in, chunk, part,
                                 "dropped %llu byte%s of a %s op at stream +0x%llx (in the "
                                 "chunk at offset 0x%llx)",
                                 (unsigned long long)part, part == 1 ? "" : "s", op,
                                 (unsigned long long)at, (unsigned long long)chunk);
    else
        tk_input_note_truncation(u->cur.in, chunk, 0,
                                 "the stream ends inside %s at stream +0x%llx",
                                 u->sys_left ? "a SYSCALL" : "a frame", (unsigned long long)at);
    u->ended = 1;
    return 0;
}

int ucir_uc_next(ucir_uc *u, tk_ucir_op *op, tk_ucir_pos *pos, uint64_t record, tk_error *err)
{
    if (u->ended)
        return 0;
    if (u->in_frame && !u->frame_left && !u->sys_left)
        u->in_frame = 0;
    int r = ensure(u, 1, record, err);
    if (r < 0)
        return -1;
    uint64_t at = u->buf_stream + u->pos;
#define FAIL(...) fail(err, file_offset(u, at), record, "stream +0x%llx: %s", (unsigned long long)at, \
                       (snprintf(msg, sizeof msg, __VA_ARGS__), msg))
    char msg[160];
    if (r == 0 && (u->cut || u->sys_left || u->in_frame) && cut_stream(u, at, NULL) == 0)
        return 0;
    if (r == 0) {
        if (u->sys_left)
            return FAIL("the stream ends inside a SYSCALL, %u nested ops short", u->sys_left);
        if (u->in_frame)
            return FAIL("the stream ends inside frame %llu, %u ops short",
                        (unsigned long long)(u->frames - 1), u->frame_left);
        return 0;
    }
    const uint8_t *p = u->buf + u->pos;
    unsigned id = p[0];
    if (id >= UC_OPS)
        return FAIL("unknown op 0x%02x", id);
    if ((id == UC_FRAME || id == UC_KEYFRAME) && (u->sys_left || u->in_frame))
        return FAIL("%s inside a %s (frames do not nest)", uc_names[id],
                    u->sys_left ? "SYSCALL" : "frame");
    if (id == UC_SYSCALL && u->sys_left)
        return FAIL("SYSCALL inside a SYSCALL");
    size_t need = uc_fixed[id];
    if ((r = ensure(u, need, record, err)) == 0 && cut_stream(u, at, uc_names[id]) == 0)
        return 0;
    if (r <= 0)
        return r < 0 ? -1 : FAIL("truncated %s: needs %zu bytes, %zu left in the stream",
                                 uc_names[id], need, u->len - u->pos);
    p = u->buf + u->pos;
    uint64_t extra = 0;
    switch (id) {
    case UC_SPREG: extra = tk_ld16(p + 3, 0); break;
    case UC_MEM_WRITE: extra = tk_ld32(p + 9, 0); break;
    case UC_MEM_MAP: extra = (uint64_t)tk_ld16(p + 34, 0) + tk_ld16(p + 36, 0); break;
    case UC_SYSCALL: extra = 8 * (uint64_t)p[13]; break;
    default: break;
    }
    if (need + extra > u->max_op)
        return FAIL("%s of %llu bytes is larger than max-frame (%llu bytes)", uc_names[id],
                    (unsigned long long)(need + extra), (unsigned long long)u->max_op);
    if ((r = ensure(u, need + (size_t)extra, record, err)) == 0 &&
        cut_stream(u, at, uc_names[id]) == 0)
        return 0;
    if (r <= 0)
        return r < 0 ? -1 : FAIL("truncated %s: needs %llu bytes, %zu left in the stream",
                                 uc_names[id], (unsigned long long)(need + extra), u->len - u->pos);
#undef FAIL
    p = u->buf + u->pos;
    memset(op, 0, sizeof *op);
    op->kind = uc_kinds[id];
    switch (id) {
    case UC_FRAME:
    case UC_KEYFRAME:
        op->keyframe = id == UC_KEYFRAME;
        op->pid = tk_ld64(p + 1, 0);
        op->op_count = tk_ld32(p + 9, 0);
        break;
    case UC_JMP:
    case UC_MEM_READ:
        op->addr = tk_ld64(p + 1, 0);
        op->size = tk_ld32(p + 9, 0);
        break;
    case UC_STEP: op->size = p[1]; break;
    case UC_REG:
        op->reg = tk_ld16(p + 1, 0);
        op->value = tk_ld64(p + 3, 0);
        break;
    case UC_SPREG:
        op->reg = tk_ld16(p + 1, 0);
        op->len = extra;
        op->data = p + 5;
        break;
    case UC_MEM_WRITE:
        op->addr = tk_ld64(p + 1, 0);
        op->size = op->len = extra;
        op->data = p + 13;
        break;
    case UC_MEM_MAP:
        op->addr = tk_ld64(p + 1, 0);
        op->size = tk_ld64(p + 9, 0);
        op->prot = p[17];
        op->map_off = tk_ld64(p + 18, 0);
        op->map_len = tk_ld64(p + 26, 0);
        op->desc_len = tk_ld16(p + 34, 0);
        op->path_len = tk_ld16(p + 36, 0);
        op->desc = (const char *)p + 38;
        op->path = op->desc + op->desc_len;
        break;
    case UC_MEM_UNMAP:
    case UC_MEM_PROT:
        op->addr = tk_ld64(p + 1, 0);
        op->size = tk_ld64(p + 9, 0);
        op->prot = id == UC_MEM_PROT ? p[17] : 0;
        break;
    case UC_SYSCALL:
        op->num = tk_ld32(p + 1, 0);
        op->ret = tk_ld64(p + 5, 0);
        op->argc = p[13];
        op->op_count = tk_ld16(p + 14, 0);
        for (uint32_t i = 0; i < op->argc; i++)
            u->args[i] = tk_ld64(p + 16 + 8 * (size_t)i, 0);
        op->args = u->args;
        break;
    default:
        break;
    }
    u->pos += need + (size_t)extra;
    op->depth = u->sys_left ? 1 : 0;
    if (u->sys_left)
        u->sys_left--;
    else if (u->in_frame)
        u->frame_left--;
    if (id == UC_SYSCALL)
        u->sys_left = op->op_count;
    pos->record = record;
    if (op->kind == TK_UCIR_FRAME) {
        u->in_frame = 1;
        u->frame_left = op->op_count;
        u->frame_stream = at;
        u->keyframe = op->keyframe;
        pos->frame = u->frames++;
        pos->frame_offset = at;
        pos->op_offset = 0;
        pos->keyframe = op->keyframe;
    } else if (u->in_frame) {
        pos->op_offset = at - u->frame_stream;
    } else { /* an op outside frames (the reader accepts them) */
        pos->frame = TK_NO_RECORD;
        pos->frame_offset = at;
        pos->op_offset = 0;
        pos->keyframe = 0;
    }
    return 1;
}
