/* XRay writers: basic mode (v1–3) and FDR (v1–5). */
#include <stdlib.h>
#include <string.h>

#include <tracekit/xray.h>

#include "core/bytes.h"
#include "core/hashmap.h"

#define DEFAULT_BUFFER_SIZE 16384
#define META 16
#define FUNC 8

/* One thread's FDR buffer being filled. */
typedef struct tbuf {
    uint32_t tid, pid;
    uint8_t *data;
    size_t len, cap;   /* cap > bufsize only for an oversized v2+ record */
    int open;          /* preamble written */
    uint16_t cpu;
    uint64_t last_tsc; /* TSC the next delta is relative to */
    uint64_t next_sec; /* the earliest wall clock the thread's next block */
    uint32_t next_usec; /* may have (after its block before) */
} tbuf;

struct tk_xray_writer {
    FILE *out;
    tk_xray_header h;
    size_t bufsize;
    tk_map threads; /* (pid << 32 | tid) -> tbuf */
    tk_status status;
    tk_error err;
};

void tk_xray_default_header(tk_xray_header *h, uint16_t type, uint16_t version)
{
    memset(h, 0, sizeof *h);
    h->version = version;
    h->type = type;
    h->bitfield = 3;
    h->cycle_frequency = 1000000000ULL;
    h->buffer_size = type == TK_XRAY_FDR ? DEFAULT_BUFFER_SIZE : 0;
}

static tk_status fail(tk_xray_writer *w, tk_status st, const char *what, tk_error *err)
{
    if (w->status == TK_OK) {
        w->status = st;
        tk_error_set(&w->err, st, TK_NO_OFFSET, TK_NO_RECORD, "%s", what);
    }
    if (err)
        *err = w->err;
    return w->status;
}

static void put(tk_xray_writer *w, const void *p, size_t n)
{
    if (w->status == TK_OK && n && fwrite(p, 1, n, w->out) != n)
        fail(w, TK_EIO, "writing XRay output failed", NULL);
}

tk_xray_writer *tk_xray_writer_new(FILE *out, const tk_xray_header *h, tk_error *err)
{
    unsigned max = h->type == TK_XRAY_BASIC ? 3 : h->type == TK_XRAY_FDR ? 5 : 0;
    if (h->version < 1 || h->version > max) {
        tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                     "cannot write XRay type %u version %u", h->type, h->version);
        return NULL;
    }
    tk_xray_writer *w = calloc(1, sizeof *w);
    if (!w) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    w->out = out;
    w->h = *h;
    w->bufsize = h->buffer_size ? (size_t)h->buffer_size : DEFAULT_BUFFER_SIZE;
    if (h->type == TK_XRAY_FDR) {
        if (w->bufsize < 8 * META || w->bufsize > (1u << 30)) {
            free(w);
            tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                         "FDR buffer size %zu out of range (128 B to 1 GiB)",
                         (size_t)h->buffer_size);
            return NULL;
        }
        w->h.buffer_size = w->bufsize;
    }
    tk_map_init(&w->threads, sizeof(tbuf));
    uint8_t hd[TK_XRAY_HEADER_SIZE];
    memset(hd, 0, sizeof hd);
    tk_st16(hd, w->h.version, 0);
    tk_st16(hd + 2, w->h.type, 0);
    tk_st32(hd + 4, w->h.bitfield, 0);
    tk_st64(hd + 8, w->h.cycle_frequency, 0);
    if (w->h.type == TK_XRAY_FDR)
        tk_st64(hd + 16, w->h.buffer_size, 0);
    else
        memcpy(hd + 16, h->raw + 16, 16);
    put(w, hd, sizeof hd);
    if (w->status != TK_OK) {
        *err = w->err;
        tk_map_free(&w->threads);
        free(w);
        return NULL;
    }
    return w;
}

/* ---------------------------------------------------------------- basic */

static tk_status write_basic(tk_xray_writer *w, const tk_xray_record *rec, tk_error *err)
{
    if (rec->kind > TK_XRAY_ENTER_ARG)
        return tk_error_set(err, TK_EUNSUPPORTED, TK_NO_OFFSET, TK_NO_RECORD,
                            "basic-mode XRay traces cannot hold %s records",
                            tk_xray_kind_name(rec->kind));
    uint8_t b[TK_XRAY_BASIC_RECORD_SIZE];
    memset(b, 0, sizeof b);
    b[2] = (uint8_t)rec->cpu;
    b[3] = (uint8_t)rec->kind;
    tk_st32(b + 4, (uint32_t)rec->func_id, 0);
    tk_st64(b + 8, rec->tsc, 0);
    tk_st32(b + 16, rec->tid, 0);
    tk_st32(b + 20, w->h.version >= 3 ? rec->pid : 0, 0);
    put(w, b, sizeof b);
    for (uint32_t i = 0; i < rec->nargs; i++) {
        memset(b, 0, sizeof b);
        tk_st16(b, 1, 0);
        tk_st32(b + 4, (uint32_t)rec->func_id, 0);
        tk_st32(b + 8, rec->tid, 0);
        tk_st32(b + 12, w->h.version >= 3 ? rec->pid : 0, 0);
        tk_st64(b + 16, rec->args[i], 0);
        put(w, b, sizeof b);
    }
    if (w->status != TK_OK && err)
        *err = w->err;
    return w->status;
}

/* ------------------------------------------------------------------ FDR */

static void meta(uint8_t *m, unsigned kind)
{
    memset(m, 0, META);
    m[0] = (uint8_t)(kind << 1 | 1);
}

/* llvm-xray does not skip a v1 block's padding: it reads it as records
 * (zeros are 8-byte function records, ignored after EndOfBuffer). When the
 * padding is not a multiple of 8, a custom-event marker whose payload
 * takes the odd bytes keeps it in step. */
static void pad_v1(tk_xray_writer *w, tbuf *t)
{
    size_t pad = w->bufsize - t->len;
    memset(t->data + t->len, 0, pad);
    if (pad % 8) { /* readable payload: fdr-dump prints it raw */
        meta(t->data + t->len, TK_XRAY_FDR_CUSTOM_EVENT);
        tk_st32(t->data + t->len + 1, (uint32_t)(pad % 8), 0);
        memcpy(t->data + t->len + META, "padding", pad % 8);
    }
}

/* Write a thread's block (if it has one) and empty its buffer. */
static void flush_block(tk_xray_writer *w, tbuf *t)
{
    if (!t->open)
        return;
    if (w->h.version >= 2) {
        uint8_t m[META];
        meta(m, TK_XRAY_FDR_BUFFER_EXTENTS);
        tk_st64(m + 1, t->len, 0);
        put(w, m, META);
        put(w, t->data, t->len);
    } else { /* v1: EndOfBuffer, then pad to the fixed size */
        meta(t->data + t->len, TK_XRAY_FDR_END_OF_BUFFER);
        t->len += META;
        pad_v1(w, t);
        put(w, t->data, w->bufsize);
    }
    t->len = 0;
    t->open = 0;
}

/* Start a block: NewBuffer, WallClockTime, [Pid], NewCPUId. */
static void open_block(tk_xray_writer *w, tbuf *t, uint16_t cpu, uint64_t tsc)
{
    uint8_t *m = t->data;
    meta(m, TK_XRAY_FDR_NEW_BUFFER);
    tk_st32(m + 1, t->tid, 0);
    m += META;
    meta(m, TK_XRAY_FDR_WALLTIME);
    /* From the TSC, but later than the thread's block before: readers put
     * a thread's blocks in wall-clock order, and this keeps the order in
     * which its records came (even when their TSCs go back). */
    uint64_t f = w->h.cycle_frequency ? w->h.cycle_frequency : 1000000000ULL;
    uint64_t sec = tsc / f;
    uint32_t usec = (uint32_t)((tsc % f) * 1000000.0 / (double)f);
    if (sec < t->next_sec || (sec == t->next_sec && usec < t->next_usec)) {
        sec = t->next_sec;
        usec = t->next_usec;
    }
    t->next_sec = usec < 999999 || sec == UINT64_MAX ? sec : sec + 1;
    t->next_usec = usec < 999999 ? usec + 1 : sec == UINT64_MAX ? usec : 0;
    tk_st64(m + 1, sec, 0);
    tk_st32(m + 9, usec, 0);
    m += META;
    if (w->h.version >= 3) {
        meta(m, TK_XRAY_FDR_PID);
        tk_st32(m + 1, t->pid, 0);
        m += META;
    }
    meta(m, TK_XRAY_FDR_NEW_CPU);
    tk_st16(m + 1, cpu, 0);
    tk_st64(m + 3, tsc, 0);
    m += META;
    t->len = (size_t)(m - t->data);
    t->open = 1;
    t->cpu = cpu;
    t->last_tsc = tsc;
}

/* Whether a block of `used` bytes fits a buffer. A v1 block also needs its
 * EndOfBuffer and, when the padding after that is not a multiple of 8, room
 * for pad_v1's filler. (Fix-ups are 16 bytes, so writing fewer than
 * record_size() counted keeps the padding's remainder mod 8.) */
static int block_fits(const tk_xray_writer *w, size_t used)
{
    if (w->h.version >= 2)
        return used <= w->bufsize;
    if (used + META > w->bufsize)
        return 0;
    size_t pad = w->bufsize - used - META;
    return pad % 8 == 0 || pad >= META + pad % 8;
}

/* Bytes a record takes in a block, including CPU/TSC fix-ups. */
static size_t record_size(const tk_xray_writer *w, const tk_xray_record *rec)
{
    size_t n = 2 * META; /* a possible NewCPUId or TSCWrap */
    if (rec->kind <= TK_XRAY_ENTER_ARG)
        return n + FUNC + (size_t)rec->nargs * META;
    (void)w;
    return n + META + rec->data_len;
}

static tk_status write_fdr(tk_xray_writer *w, const tk_xray_record *rec, tk_error *err)
{
    if (rec->kind == TK_XRAY_TYPED_EVENT && w->h.version < 5)
        return tk_error_set(err, TK_EUNSUPPORTED, TK_NO_OFFSET, TK_NO_RECORD,
                            "typed events need FDR version 5");
    if ((rec->kind >= TK_XRAY_CUSTOM_EVENT) && (rec->data_len == 0 || rec->data_len > INT32_MAX))
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "event payloads must have 1 to 2^31-1 bytes");
    if ((uint32_t)rec->func_id >= (1u << 28) && rec->kind <= TK_XRAY_ENTER_ARG)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "function id %d does not fit FDR's 28 bits", rec->func_id);
    size_t preamble = (w->h.version >= 3 ? 4 : 3) * META;
    size_t need = record_size(w, rec);
    /* v2+ readers take each buffer's size from its BufferExtents, so an
     * oversized record gets a block of its own; v1 buffers are fixed. */
    if (w->h.version == 1 && !block_fits(w, preamble + need))
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "a record of %zu bytes does not fit an FDR v1 buffer of %zu",
                            need, w->bufsize);
    uint32_t pid = w->h.version >= 3 ? rec->pid : 0;
    tbuf *t = tk_map_u64(&w->threads, (uint64_t)pid << 32 | rec->tid);
    if (!t)
        return fail(w, TK_ENOMEM, "out of memory", err);
    if (!t->data) {
        t->data = malloc(w->bufsize);
        if (!t->data)
            return fail(w, TK_ENOMEM, "out of memory", err);
        t->cap = w->bufsize;
        t->tid = rec->tid;
        t->pid = pid;
    }
    /* record_size() counts every byte written below, fix-ups included. */
    if (t->open && !block_fits(w, t->len + need))
        flush_block(w, t);
    if (!t->open)
        open_block(w, t, rec->cpu, rec->tsc);
    if (t->len + need > t->cap) { /* v2+ only, see above */
        uint8_t *d = realloc(t->data, t->len + need);
        if (!d)
            return fail(w, TK_ENOMEM, "out of memory", err);
        t->data = d;
        t->cap = t->len + need;
    }
    uint8_t *m;
    int absolute = rec->kind == TK_XRAY_CUSTOM_EVENT && w->h.version < 5;
    if (!absolute && rec->cpu != t->cpu) {
        m = t->data + t->len;
        meta(m, TK_XRAY_FDR_NEW_CPU);
        tk_st16(m + 1, rec->cpu, 0);
        tk_st64(m + 3, rec->tsc, 0);
        t->len += META;
        t->cpu = rec->cpu;
        t->last_tsc = rec->tsc;
    }
    uint64_t delta = rec->tsc - t->last_tsc;
    int is_func = rec->kind <= TK_XRAY_ENTER_ARG;
    int fits = rec->tsc >= t->last_tsc && (is_func ? delta <= UINT32_MAX : delta <= INT32_MAX);
    if (!absolute && !fits) {
        m = t->data + t->len;
        meta(m, TK_XRAY_FDR_TSC_WRAP);
        tk_st64(m + 1, rec->tsc, 0);
        t->len += META;
        t->last_tsc = rec->tsc;
        delta = 0;
    }
    if (is_func) {
        m = t->data + t->len;
        uint32_t word = (uint32_t)rec->func_id << 4 | (uint32_t)rec->kind << 1;
        if (rec->kind == TK_XRAY_ENTER && rec->nargs)
            word = (uint32_t)rec->func_id << 4 | TK_XRAY_ENTER_ARG << 1;
        tk_st32(m, word, 0);
        tk_st32(m + 4, (uint32_t)delta, 0);
        t->len += FUNC;
        t->last_tsc = rec->tsc;
        for (uint32_t i = 0; i < rec->nargs; i++) {
            m = t->data + t->len;
            meta(m, TK_XRAY_FDR_CALL_ARG);
            tk_st64(m + 1, rec->args[i], 0);
            t->len += META;
        }
    } else {
        int typed = rec->kind == TK_XRAY_TYPED_EVENT;
        m = t->data + t->len;
        meta(m, typed ? TK_XRAY_FDR_TYPED_EVENT : TK_XRAY_FDR_CUSTOM_EVENT);
        tk_st32(m + 1, rec->data_len, 0);
        if (absolute) {
            tk_st64(m + 5, rec->tsc, 0);
            if (w->h.version == 4)
                tk_st16(m + 13, rec->cpu, 0);
        } else {
            tk_st32(m + 5, (uint32_t)delta, 0);
            if (typed)
                tk_st16(m + 9, rec->event_type, 0);
            t->last_tsc = rec->tsc;
        }
        memcpy(m + META, rec->data, rec->data_len);
        t->len += META + rec->data_len;
    }
    if (w->status != TK_OK && err)
        *err = w->err;
    return w->status;
}

tk_status tk_xray_write(tk_xray_writer *w, const tk_xray_record *rec, tk_error *err)
{
    if (w->status != TK_OK) {
        if (err)
            *err = w->err;
        return w->status;
    }
    return w->h.type == TK_XRAY_BASIC ? write_basic(w, rec, err) : write_fdr(w, rec, err);
}

tk_status tk_xray_writer_free(tk_xray_writer *w, tk_error *err)
{
    if (!w)
        return TK_OK;
    for (size_t i = 0; i < w->threads.n; i++) {
        tbuf *t = tk_map_value(&w->threads, i);
        flush_block(w, t);
        free(t->data);
    }
    tk_map_free(&w->threads);
    if (w->status == TK_OK && fflush(w->out) != 0)
        fail(w, TK_EIO, "writing XRay output failed", NULL);
    tk_status st = w->status;
    if (st != TK_OK && err)
        *err = w->err;
    free(w);
    return st;
}
