/* UCIR reader: the header, then records from spec frames (frames.c) or a
 * .uc stream (uc.c). Spec frame bodies are checked whole by the scan
 * before any of their records are handed out; records are then decoded
 * without checks up to the scan's first error, which is reported where it
 * lies, after the good records before it. */
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/select.h"
#include "ucir/replay/clock.h"
#include "ucir/ucir_int.h"

static const uint8_t snappy_ident[10] = {0xff, 0x06, 0x00, 0x00, 0x73,
                                         0x4e, 0x61, 0x50, 0x70, 0x59};

struct tk_ucir_reader {
    tk_input *in;
    tk_ucir_header h;
    tk_ucir_reader_options opts;
    ucir_frames *frames;        /* SPEC */
    ucir_uc *uc;                /* USERCORN */
    const ucir_frame *cur;      /* SPEC: frame being handed out */
    size_t body_pos;
    int frame_failed;           /* cur failed to inflate: report next */
    uint32_t nested_left;
    uint64_t *args;             /* SYSCALL arguments (65535 at most) */
    int done;                   /* 0 running, 1 ended, -1 failed */
    tk_error saved;
    tk_ucir_pos pos;
    tk_ucir_counts counts;
    tk_selection *sel;          /* our copy; NULL: every record */
    unsigned sel_flags;         /* TK_UCIR_SELECT_* */
    ucir_clock clk;             /* instructions, for --range */
    int sel_ended;              /* reading stopped at the window's end */
};

static void copy_name(char dst[33], const uint8_t *src)
{
    memcpy(dst, src, 32);
    dst[32] = '\0';
}

static int read_header(tk_ucir_reader *r, tk_error *err)
{
    const uint8_t *p;
    int64_t n = tk_input_window(r->in, 84, &p, err);
    if (n < 0)
        return -1;
    if (n < 8 || memcmp(p, "UCIR", 4) != 0) {
        if (n >= 4 && memcmp(p, "UCIR", 4) == 0)
            return tk_error_set(err, TK_EMALFORMED, 0, TK_NO_RECORD,
                                "truncated header: needs at least 8 bytes, %lld in the input",
                                (long long)n), -1;
        return tk_error_set(err, TK_EMALFORMED, 0, TK_NO_RECORD,
                            "not a UCIR trace (no \"UCIR\" magic)"), -1;
    }
    tk_ucir_header *h = &r->h;
    h->version = tk_ld32(p + 4, 1);
    int uc = n >= 84 && memcmp(p + UCIR_UC_HEADER, snappy_ident, sizeof snappy_ident) == 0;
    if (!uc && h->version == 1)
        uc = 1;
    if (!uc && h->version != 0)
        return tk_error_set(err, TK_EMALFORMED, 4, TK_NO_RECORD,
                            "unsupported UCIR version %u (the 2016 spec has 0, usercorn .uc files 1)",
                            h->version), -1;
    h->variant = uc ? TK_UCIR_USERCORN : TK_UCIR_SPEC;
    h->size = uc ? UCIR_UC_HEADER : UCIR_SPEC_HEADER;
    if ((uint64_t)n < h->size)
        return tk_error_set(err, TK_EMALFORMED, 0, TK_NO_RECORD,
                            "truncated header: needs %u bytes, %lld in the input", h->size,
                            (long long)n), -1;
    if (uc) {
        copy_name(h->arch_name, p + 8);
        copy_name(h->os, p + 40);
        h->code_big = p[72];
        h->data_big = p[73];
        ucir_arch_from_name(h->arch_name, &h->arch, &h->mode);
    } else {
        h->arch = tk_ld32(p + 8, 1);
        h->mode = tk_ld32(p + 12, 1);
        copy_name(h->arch_name, p + 16);
        copy_name(h->os, p + 48);
    }
    tk_input_advance(r->in, h->size);
    return 0;
}

tk_ucir_reader *tk_ucir_reader_new(tk_input *in, const tk_ucir_reader_options *opts,
                                   tk_error *err)
{
    tk_ucir_reader *r = calloc(1, sizeof *r);
    if (!r) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    r->in = in;
    if (opts)
        r->opts = *opts;
    if (!r->opts.threads)
        r->opts.threads = ucir_cpu_count();
    if (!r->opts.max_frame)
        r->opts.max_frame = TK_UCIR_DEFAULT_MAX_FRAME;
    r->pos.record = r->pos.frame = TK_NO_RECORD;
    if (read_header(r, err) != 0) {
        free(r);
        return NULL;
    }
    if (r->h.variant == TK_UCIR_SPEC)
        r->frames = ucir_frames_new(in, r->opts.threads, r->opts.max_frame, err);
    else
        r->uc = ucir_uc_new(in, r->opts.max_frame, err);
    if (!r->frames && !r->uc) {
        free(r);
        return NULL;
    }
    return r;
}

void tk_ucir_reader_free(tk_ucir_reader *r)
{
    if (!r)
        return;
    ucir_frames_free(r->frames);
    ucir_uc_free(r->uc);
    free(r->args);
    tk_selection_free(r->sel);
    free(r);
}

const tk_ucir_header *tk_ucir_reader_header(const tk_ucir_reader *r) { return &r->h; }

unsigned ucir_reader_threads(const tk_ucir_reader *r)
{
    return r->frames ? ucir_frames_threads(r->frames) : 1;
}

static int finish(tk_ucir_reader *r, int rc, tk_error *err)
{
    r->done = rc < 0 ? -1 : 1;
    if (rc < 0 && err)
        r->saved = *err;
    return rc;
}

static int sticky(tk_ucir_reader *r, tk_error *err)
{
    if (r->done < 0 && err)
        *err = r->saved;
    return r->done < 0 ? -1 : 0;
}

/* Take the next spec frame; 1 with r->cur set, or the end / an error. */
static int next_frame(tk_ucir_reader *r, tk_error *err)
{
    ucir_frame *fr;
    int rc = ucir_frames_next(r->frames, &fr, r->counts.records, err);
    if (rc <= 0)
        return rc;
    r->cur = fr;
    r->body_pos = 0;
    r->nested_left = 0;
    r->counts.frames++;
    r->counts.keyframes += fr->keyframe != 0;
    r->counts.compressed += fr->csize;
    r->counts.inflated += fr->failed ? 0 : fr->len;
    return 1;
}

static int scan_error(tk_ucir_reader *r, tk_error *err)
{
    const ucir_frame *fr = r->cur;
    tk_error_set(err, TK_EMALFORMED, fr->offset, r->counts.records, "frame %llu +0x%llx: %s",
                 (unsigned long long)fr->index, (unsigned long long)fr->scan.err_pos,
                 fr->scan.message);
    return -1;
}

static int spec_next(tk_ucir_reader *r, tk_ucir_op *op, tk_error *err)
{
    for (;;) {
        const ucir_frame *fr = r->cur;
        if (fr && r->frame_failed) {
            if (err)
                *err = fr->err;
            return -1;
        }
        if (fr && r->body_pos < fr->len) {
            if (fr->scan.failed && r->body_pos == fr->scan.err_pos)
                return scan_error(r, err);
            if (!r->args && !(r->args = malloc(65535 * sizeof *r->args)))
                return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory"), -1;
            size_t at = r->body_pos;
            r->body_pos += ucir_decode_spec(fr->body + at, op, r->args);
            op->depth = r->nested_left ? 1 : 0;
            if (r->nested_left)
                r->nested_left--;
            else if (op->kind == TK_UCIR_SYSCALL)
                r->nested_left = op->op_count;
            r->pos.record = r->counts.records++;
            r->pos.op_offset = at;
            return 1;
        }
        if (fr && fr->scan.failed) /* the error is at the end of the body */
            return scan_error(r, err);
        r->cur = NULL;
        int rc = next_frame(r, err);
        if (rc <= 0)
            return rc;
        fr = r->cur;
        memset(op, 0, sizeof *op);
        op->kind = TK_UCIR_FRAME;
        op->keyframe = fr->keyframe;
        op->op_count = fr->op_count;
        op->csize = fr->csize;
        r->frame_failed = fr->failed;
        r->pos.record = r->counts.records++;
        r->pos.frame = fr->index;
        r->pos.frame_offset = fr->offset;
        r->pos.op_offset = 0;
        r->pos.keyframe = fr->keyframe;
        return 1;
    }
}

static int next_record(tk_ucir_reader *r, tk_ucir_op *op, tk_error *err)
{
    if (r->done)
        return sticky(r, err);
    int rc;
    if (r->uc) {
        rc = ucir_uc_next(r->uc, op, &r->pos, r->counts.records, err);
        if (rc > 0) {
            r->counts.records++;
            if (op->kind == TK_UCIR_FRAME) {
                r->counts.frames++;
                r->counts.keyframes += op->keyframe != 0;
            }
        }
    } else {
        rc = spec_next(r, op, err);
    }
    return rc > 0 ? rc : finish(r, rc, err);
}

int tk_ucir_next(tk_ucir_reader *r, tk_ucir_op *op, tk_error *err)
{
    if (!r->sel)
        return next_record(r, op, err);
    while (!r->sel_ended) {
        int rc = next_record(r, op, err);
        if (rc <= 0)
            return rc;
        int v = ucir_select(r->sel, &r->clk, op);
        if (v == UCIR_SEL_KEEP)
            return 1;
        r->sel_ended = v == UCIR_SEL_END && (r->sel_flags & TK_UCIR_SELECT_STOP);
    }
    return 0;
}

tk_status tk_ucir_reader_select(tk_ucir_reader *r, const tk_selection *sel, unsigned flags,
                                tk_error *err)
{
    tk_selection_free(r->sel);
    r->sel = NULL;
    ucir_clock_init(&r->clk, r->h.variant == TK_UCIR_USERCORN);
    if (tk_selection_empty(sel))
        return TK_OK;
    if (ucir_check_selection(sel, err) != TK_OK)
        return err->status;
    r->sel = tk_sel_dup(sel, err);
    r->sel_flags = flags;
    return r->sel ? TK_OK : err->status;
}

int ucir_reader_next_frame(tk_ucir_reader *r, const ucir_frame **frame, tk_error *err)
{
    if (r->done)
        return sticky(r, err);
    int rc = next_frame(r, err);
    if (rc <= 0)
        return finish(r, rc, err);
    const ucir_frame *fr = r->cur;
    r->pos.record = r->counts.records++;
    r->pos.frame = fr->index;
    r->pos.frame_offset = fr->offset;
    r->pos.op_offset = 0;
    r->pos.keyframe = fr->keyframe;
    *frame = fr;
    if (fr->failed) {
        *err = fr->err;
        return finish(r, -1, err);
    }
    r->counts.records += fr->scan.records;
    if (fr->scan.failed) {
        r->counts.records = r->pos.record + 1 + fr->scan.records;
        scan_error(r, err);
        return finish(r, -1, err);
    }
    return 1;
}

void tk_ucir_reader_pos(const tk_ucir_reader *r, tk_ucir_pos *pos) { *pos = r->pos; }

void tk_ucir_reader_counts(const tk_ucir_reader *r, tk_ucir_counts *c)
{
    *c = r->counts;
    if (r->uc) {
        c->inflated = ucir_uc_inflated(r->uc);
        c->compressed = ucir_uc_compressed(r->uc);
    }
}

tk_status tk_ucir_reader_seek(tk_ucir_reader *r, uint64_t offset, uint64_t frame,
                              uint64_t record, tk_error *err)
{
    if (!r->frames)
        return tk_error_set(err, TK_EUNSUPPORTED, TK_NO_OFFSET, TK_NO_RECORD,
                            "usercorn .uc traces are one Snappy stream: no seeking");
    if (offset < UCIR_SPEC_HEADER)
        return tk_error_set(err, TK_EUSAGE, offset, TK_NO_RECORD,
                            "seek to offset %llu: frames start after the %d-byte header",
                            (unsigned long long)offset, UCIR_SPEC_HEADER);
    r->cur = NULL;
    r->frame_failed = 0;
    r->done = 0;
    r->nested_left = 0;
    tk_status st = ucir_frames_seek(r->frames, offset, frame, err);
    if (st != TK_OK)
        return st;
    r->counts.records = record;
    r->pos.record = r->pos.frame = TK_NO_RECORD;
    return TK_OK;
}
