/* UCIR writer (2016 spec layout): ops are encoded into the open frame's
 * body, which is compressed and written when the frame closes: on a FRAME
 * op, at the op/byte limits (between top-level ops only, so a SYSCALL
 * stays whole), or at the end. */
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "ucir/ucir_int.h"

struct tk_ucir_writer {
    FILE *out;
    tk_ucir_writer_options o;
    ucir_deflater *z;
    uint8_t *body, *cbuf;
    size_t len, cap, ccap;
    int open, keyframe;
    uint32_t ops, nested_left;
    tk_status failed;           /* sticky I/O or memory failure */
};

static tk_status io_error(tk_ucir_writer *w, tk_error *err)
{
    w->failed = TK_EIO;
    return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "write failed");
}

tk_ucir_writer *tk_ucir_writer_new(FILE *out, const tk_ucir_header *h,
                                   const tk_ucir_writer_options *opts, tk_error *err)
{
    if (h->variant != TK_UCIR_SPEC || h->version != 0) {
        tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                     "the writer writes the 2016 spec format only (variant SPEC, version 0)");
        return NULL;
    }
    tk_ucir_writer_options o = {65536, (uint64_t)1 << 20, 6};
    if (opts)
        o = *opts;
    if (o.level < 0 || o.level > 9) {
        tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                     "compression level %d is not in 0..9", o.level);
        return NULL;
    }
    tk_ucir_writer *w = calloc(1, sizeof *w);
    if (w)
        w->z = ucir_deflater_new(o.level);
    if (!w || !w->z) {
        free(w);
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    w->out = out;
    w->o = o;
    uint8_t hd[UCIR_SPEC_HEADER];
    memcpy(hd, "UCIR", 4);
    tk_st32(hd + 4, 0, 1);
    tk_st32(hd + 8, h->arch, 1);
    tk_st32(hd + 12, h->mode, 1);
    memcpy(hd + 16, h->arch_name, 32);
    memcpy(hd + 48, h->os, 32);
    if (fwrite(hd, 1, sizeof hd, out) != sizeof hd) {
        io_error(w, err);
        ucir_deflater_free(w->z);
        free(w);
        return NULL;
    }
    return w;
}

tk_status tk_ucir_writer_frame_end(tk_ucir_writer *w, tk_error *err)
{
    if (w->failed)
        return tk_error_set(err, w->failed, TK_NO_OFFSET, TK_NO_RECORD, "an earlier write failed");
    if (!w->open)
        return TK_OK;
    if (w->nested_left)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "frame closed with %u nested ops of a SYSCALL missing", w->nested_left);
    size_t clen = ucir_deflate(w->z, w->body, w->len, &w->cbuf, &w->ccap);
    if (clen == 0 || clen > UINT32_MAX) {
        w->failed = TK_ENOMEM;
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "cannot compress a frame");
    }
    uint8_t hd[UCIR_FRAME_HEADER];
    hd[0] = TK_UCIR_FRAME;
    hd[1] = w->keyframe ? 1 : 0;
    tk_st32(hd + 2, w->ops, 1);
    tk_st32(hd + 6, (uint32_t)clen, 1);
    if (fwrite(hd, 1, sizeof hd, w->out) != sizeof hd || fwrite(w->cbuf, 1, clen, w->out) != clen)
        return io_error(w, err);
    w->open = 0;
    w->len = 0;
    w->ops = 0;
    return TK_OK;
}

/* Why the spec layout cannot hold `op`, or NULL. */
static const char *problem(const tk_ucir_op *op, int nested)
{
    switch (op->kind) {
    case TK_UCIR_NOP:
    case TK_UCIR_EXIT:
    case TK_UCIR_REG_CHANGE:
        return op->kind == TK_UCIR_REG_CHANGE && op->reg > 0xFFFF ? "register enum past 16 bits" : NULL;
    case TK_UCIR_EXEC_ABS:
    case TK_UCIR_EXEC_REL:
        return op->size > UINT32_MAX ? "instruction size past 32 bits" : NULL;
    case TK_UCIR_SPREG_CHANGE:
        if (op->reg > 0xFFFF)
            return "register enum past 16 bits";
        if (op->len > 0xFFFF)
            return "special register value longer than 65535 bytes";
        return op->len && !op->data ? "no data" : NULL;
    case TK_UCIR_MEM_READ:
    case TK_UCIR_MEM_WRITE:
        if (op->len != op->size)
            return "data length differs from size (the spec stores size bytes)";
        return op->len && !op->data ? "no data" : NULL;
    case TK_UCIR_MEM_MAP:
    case TK_UCIR_MEM_UNMAP:
        return op->size > UINT32_MAX ? "region size past 32 bits" : NULL;
    case TK_UCIR_SYSCALL:
        if (nested)
            return "OP_SYSCALL inside a syscall";
        if (op->num > 0xFFFF)
            return "syscall number past 16 bits";
        if (op->argc > 0xFFFF || op->op_count > 0xFFFF)
            return "more than 65535 arguments or nested ops";
        return op->argc && !op->args ? "no arguments" : NULL;
    case TK_UCIR_FRAME:
        return nested ? "OP_FRAME inside a syscall" : NULL;
    default:
        return "a .uc op the 2016 spec has no place for";
    }
}

static void encode(uint8_t *p, const tk_ucir_op *op)
{
    p[0] = (uint8_t)op->kind;
    switch (op->kind) {
    case TK_UCIR_EXEC_ABS:
        tk_st64(p + 1, op->addr, 1);
        tk_st32(p + 9, (uint32_t)op->size, 1);
        break;
    case TK_UCIR_EXEC_REL:
        tk_st32(p + 1, (uint32_t)op->size, 1);
        break;
    case TK_UCIR_REG_CHANGE:
        tk_st16(p + 1, (uint16_t)op->reg, 1);
        tk_st64(p + 3, op->value, 1);
        break;
    case TK_UCIR_SPREG_CHANGE:
        tk_st16(p + 1, (uint16_t)op->reg, 1);
        tk_st16(p + 3, (uint16_t)op->len, 1);
        if (op->len)
            memcpy(p + 5, op->data, (size_t)op->len);
        break;
    case TK_UCIR_MEM_READ:
    case TK_UCIR_MEM_WRITE:
        tk_st64(p + 1, op->addr, 1);
        tk_st64(p + 9, op->size, 1);
        if (op->len)
            memcpy(p + 17, op->data, (size_t)op->len);
        break;
    case TK_UCIR_MEM_MAP:
        tk_st64(p + 1, op->addr, 1);
        tk_st32(p + 9, (uint32_t)op->size, 1);
        p[13] = op->prot;
        break;
    case TK_UCIR_MEM_UNMAP:
        tk_st64(p + 1, op->addr, 1);
        tk_st32(p + 9, (uint32_t)op->size, 1);
        break;
    case TK_UCIR_SYSCALL:
        tk_st16(p + 1, (uint16_t)op->num, 1);
        tk_st64(p + 3, op->ret, 1);
        tk_st16(p + 11, (uint16_t)op->argc, 1);
        tk_st16(p + 13, (uint16_t)op->op_count, 1);
        for (uint32_t i = 0; i < op->argc; i++)
            tk_st64(p + 15 + 8 * (size_t)i, op->args[i], 1);
        break;
    default:
        break;
    }
}

tk_status tk_ucir_write(tk_ucir_writer *w, const tk_ucir_op *op, tk_error *err)
{
    if (w->failed)
        return tk_error_set(err, w->failed, TK_NO_OFFSET, TK_NO_RECORD, "an earlier write failed");
    const char *why = problem(op, w->nested_left > 0);
    if (why)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD, "cannot write %s: %s",
                            tk_ucir_kind_name(op->kind), why);
    if (op->kind == TK_UCIR_FRAME) {
        tk_status st = tk_ucir_writer_frame_end(w, err);
        if (st != TK_OK)
            return st;
        w->open = 1;
        w->keyframe = op->keyframe != 0;
        return TK_OK;
    }
    uint64_t size = tk_ucir_op_size(op);
    if (size == 0 || size > TK_UCIR_DEFAULT_MAX_FRAME - w->len)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "cannot write %s: the frame would inflate past %llu bytes",
                            tk_ucir_kind_name(op->kind),
                            (unsigned long long)TK_UCIR_DEFAULT_MAX_FRAME);
    if (w->len + size > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->len + size)
            cap *= 2;
        uint8_t *nb = realloc(w->body, cap);
        if (!nb) {
            w->failed = TK_ENOMEM;
            return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        }
        w->body = nb;
        w->cap = cap;
    }
    if (!w->open) {
        w->open = 1;
        w->keyframe = 0;
    }
    encode(w->body + w->len, op);
    w->len += (size_t)size;
    if (w->nested_left) {
        w->nested_left--;
    } else {
        w->ops++;
        if (op->kind == TK_UCIR_SYSCALL)
            w->nested_left = op->op_count;
    }
    if (!w->nested_left && ((w->o.max_ops && w->ops >= w->o.max_ops) ||
                            (w->o.max_bytes && w->len >= w->o.max_bytes)))
        return tk_ucir_writer_frame_end(w, err);
    return TK_OK;
}

tk_status tk_ucir_writer_free(tk_ucir_writer *w, tk_error *err)
{
    if (!w)
        return TK_OK;
    tk_status st = tk_ucir_writer_frame_end(w, err);
    if (st == TK_OK && fflush(w->out) != 0)
        st = io_error(w, err);
    ucir_deflater_free(w->z);
    free(w->body);
    ucir_buf_free(w->cbuf, w->ccap);
    free(w);
    return st;
}
