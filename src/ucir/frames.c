/* Spec frames decoded in parallel, delivered in order.
 *
 * The calling thread reads the top level (OP_FRAME headers) and copies each
 * frame's compressed bytes into a slot of a small ring; threads - 1 worker
 * threads inflate and scan the slots, and so does the caller while the
 * frame it needs next is not ready; it takes them back in file order. The
 * ring has 2 slots per thread, so at most that many frames are in memory
 * however long the trace (flat memory). With one thread there are no
 * workers: frames are inflated straight from the input window, as tiny
 * frames are when there are (TINY_FRAME).
 *
 * Messages are built by the caller when it takes a slot (only it knows the
 * record numbers), from what the worker left: a code or a scan result. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/bytes.h"
#include "core/truncation.h"
#include "ucir/ucir_int.h"

enum { SLOT_FREE, SLOT_PENDING, SLOT_BUSY, SLOT_DONE };
/* KIND_CUT: the end, at a frame cut by the end of the input that may be
 * dropped ("allow-truncated": err_offset, and `trailing` bytes dropped). */
enum { KIND_FRAME, KIND_ERROR, KIND_END, KIND_CUT };

/* A retained inflate buffer this much larger than its frame is freed. */
#define SHRINK_ABOVE ((size_t)64 << 20)
/* Frames of at most this many compressed bytes are inflated by the
 * reading thread as it reads them: waking a worker would cost more (a
 * trace of a million one-instruction frames spent its time switching). */
#define TINY_FRAME 64u

typedef struct slot {
    int state, kind;
    ucir_frame fr;
    const uint8_t *csrc;      /* compressed bytes (cbuf, or the window) */
    uint8_t *cbuf, *dbuf;
    size_t ccap, dcap, last_len;
    int zcode;                /* UCIR_Z_* */
    size_t trailing;
    uint64_t err_offset;      /* KIND_ERROR */
    char message[200];
} slot;

struct ucir_frames {
    tk_cursor cur;
    tk_input *in;
    uint64_t max_frame;
    unsigned workers, nslots;
    slot *slots;
    uint64_t head, tail, next_work; /* sequence numbers; slot = seq % nslots */
    int ended, holding;
    uint64_t next_index;
    ucir_inflater *z;         /* inline decoding */
    pthread_mutex_t mu;
    pthread_cond_t work_cv, done_cv;
    pthread_t *tids;
    unsigned started;
    int no_threads;           /* pthread_create failed: no more tries */
    int stop;
};

unsigned ucir_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}

unsigned ucir_frames_threads(const ucir_frames *f) { return f->workers + 1; }

/* Inflate and scan one slot (a worker, or the caller when inline). A
 * buffer grown for a huge frame is dropped once a frame after it needed
 * far less, so one big keyframe does not pin memory for the rest. */
static void decode(slot *s, ucir_inflater *z, uint64_t limit)
{
    if (s->dcap > SHRINK_ABOVE && s->last_len < s->dcap / 4) {
        ucir_buf_free(s->dbuf, s->dcap);
        s->dbuf = NULL;
        s->dcap = 0;
    }
    size_t len = 0;
    s->zcode = ucir_inflate(z, s->csrc, s->fr.csize, &s->dbuf, &s->dcap, &len, limit, &s->trailing);
    s->fr.body = s->dbuf;
    s->fr.len = len;
    s->last_len = len;
    if (s->zcode == UCIR_Z_OK)
        ucir_scan_spec(s->dbuf, len, s->fr.op_count, &s->fr.scan);
}

/* May the producing thread inflate the frame it is making (at tail)
 * itself? Only when the workers have taken every frame before it: the
 * slots from next_work to tail must all be theirs to take (the consumer
 * frees a slot without the lock only once next_work is past it). Then
 * next_work moves past this one too. */
static int claim_inline(ucir_frames *f)
{
    pthread_mutex_lock(&f->mu);
    int idle = f->next_work == f->tail;
    if (idle)
        f->next_work++;
    pthread_mutex_unlock(&f->mu);
    return idle;
}

static void *worker(void *arg)
{
    ucir_frames *f = arg;
    ucir_inflater *z = ucir_inflater_new();
    pthread_mutex_lock(&f->mu);
    for (;;) {
        while (!f->stop && f->next_work >= f->tail) /* > tail: claimed inline */
            pthread_cond_wait(&f->work_cv, &f->mu);
        if (f->stop)
            break;
        slot *s = &f->slots[f->next_work++ % f->nslots];
        if (s->state != SLOT_PENDING)
            continue;
        s->state = SLOT_BUSY;
        pthread_mutex_unlock(&f->mu);
        if (z)
            decode(s, z, f->max_frame);
        else
            s->zcode = UCIR_Z_NOMEM;
        pthread_mutex_lock(&f->mu);
        s->state = SLOT_DONE;
        pthread_cond_broadcast(&f->done_cv);
    }
    pthread_mutex_unlock(&f->mu);
    ucir_inflater_free(z);
    return NULL;
}

ucir_frames *ucir_frames_new(tk_input *in, unsigned threads, uint64_t max_frame, tk_error *err)
{
    ucir_frames *f = calloc(1, sizeof *f);
    if (!f) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    f->in = in;
    f->max_frame = max_frame;
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->work_cv, NULL);
    pthread_cond_init(&f->done_cv, NULL);
    if (threads > 256)
        threads = 256;
    /* the calling thread decodes too while it waits: threads - 1 workers */
    f->workers = threads > 1 ? threads - 1 : 0;
    f->nslots = threads > 1 ? 2 * threads : 1;
    f->slots = calloc(f->nslots, sizeof *f->slots);
    f->z = ucir_inflater_new();
    if (f->workers)
        f->tids = calloc(f->workers, sizeof *f->tids);
    if (!f->slots || !f->z || (f->workers && !f->tids)) {
        ucir_frames_free(f);
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    if (tk_cursor_init(&f->cur, in, 0, err) < 0) {
        ucir_frames_free(f);
        return NULL;
    }
    return f;
}

void ucir_frames_free(ucir_frames *f)
{
    if (!f)
        return;
    if (f->started) {
        pthread_mutex_lock(&f->mu);
        f->stop = 1;
        pthread_cond_broadcast(&f->work_cv);
        pthread_mutex_unlock(&f->mu);
        for (unsigned i = 0; i < f->started; i++)
            pthread_join(f->tids[i], NULL);
    }
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->work_cv);
    pthread_cond_destroy(&f->done_cv);
    if (f->slots) {
        for (unsigned i = 0; i < f->nslots; i++) {
            free(f->slots[i].cbuf);
            ucir_buf_free(f->slots[i].dbuf, f->slots[i].dcap);
        }
    }
    free(f->slots);
    free(f->tids);
    ucir_inflater_free(f->z);
    free(f);
}

static void end_with(slot *s, int kind, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static void end_with(slot *s, int kind, uint64_t offset, const char *fmt, ...)
{
    s->kind = kind;
    s->err_offset = offset;
    s->message[0] = '\0';
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->message, sizeof s->message, fmt, ap);
        va_end(ap);
    }
    s->state = SLOT_DONE;
}

/* "allow-truncated" (<tracekit/input.h>): may the frame at `p`, of which
 * the end of the input leaves `got` bytes, be dropped as a cut tail? Its
 * header must read as one as far as it goes, and its compressed bytes
 * start as a zlib stream does (CMF: deflate with a window of at most
 * 32 KiB; FLG: the check bits). The deflate data after them is not
 * checked: libdeflate inflates whole streams only. Then `s` says so. */
static int cut_frame(const ucir_frames *f, slot *s, uint64_t at, const uint8_t *p, int64_t got)
{
    if (!tk_input_allows_truncated(f->in))
        return 0;
    if (got >= UCIR_FRAME_HEADER + 1 && ((p[10] & 0x0F) != 8 || (p[10] >> 4) > 7))
        return 0;
    if (got >= UCIR_FRAME_HEADER + 2 && (((unsigned)p[10] << 8) | p[11]) % 31 != 0)
        return 0;
    s->kind = KIND_CUT;
    s->err_offset = at;
    s->trailing = (size_t)got;
    s->state = SLOT_DONE;
    return 1;
}

/* Read the next top-level item into slot `s`; returns -1 on an I/O error
 * (err set), else 0 (s is a frame to decode, an error, or the end). */
static int produce(ucir_frames *f, slot *s, tk_error *err)
{
    tk_cursor *c = &f->cur;
    uint64_t at = tk_cursor_offset(c);
    int64_t got = tk_cursor_need(c, UCIR_FRAME_HEADER, err);
    if (got < 0)
        return -1;
    if (got == 0) {
        end_with(s, KIND_END, at, NULL);
        return 0;
    }
    const uint8_t *p = c->p;
    if (p[0] != 1) {
        const char *name = ucir_spec_op_name(p[0]);
        if (name)
            end_with(s, KIND_ERROR, at, "%s outside a frame (the top level holds only OP_FRAME)", name);
        else
            end_with(s, KIND_ERROR, at, "unknown op 0x%02x at the top level (expected OP_FRAME)", p[0]);
        return 0;
    }
    if (got < UCIR_FRAME_HEADER && cut_frame(f, s, at, p, got))
        return 0;
    if (got < UCIR_FRAME_HEADER) {
        end_with(s, KIND_ERROR, at, "truncated OP_FRAME header: needs 10 bytes, %lld left",
                 (long long)got);
        return 0;
    }
    s->fr.index = f->next_index;
    s->fr.offset = at;
    s->fr.keyframe = p[1] != 0;
    s->fr.op_count = tk_ld32(p + 2, 1);
    s->fr.csize = tk_ld32(p + 6, 1);
    s->fr.failed = 0;
    /* A zlib stream is at most ~0.1% larger than its data: a bigger one
     * cannot inflate within the limit (and would cost its size in memory). */
    if (s->fr.csize > f->max_frame + (f->max_frame >> 9) + 64) {
        end_with(s, KIND_ERROR, at, "frame %llu: %u compressed bytes cannot inflate within max-frame (%llu bytes)",
                 (unsigned long long)s->fr.index, s->fr.csize, (unsigned long long)f->max_frame);
        return 0;
    }
    size_t need = UCIR_FRAME_HEADER + (size_t)s->fr.csize;
    /* A file that cannot hold the frame fails before it is buffered
     * (cut_frame looks at its first 2 compressed bytes). */
    int64_t total = tk_input_size(f->in);
    int short_file = total >= 0 && at <= (uint64_t)total && need > (uint64_t)total - at;
    got = tk_cursor_need(c, short_file ? UCIR_FRAME_HEADER + 2 : need, err);
    if (got < 0)
        return -1;
    if (short_file)
        got = (int64_t)((uint64_t)total - at);
    if ((size_t)got < need && cut_frame(f, s, at, c->p, got))
        return 0;
    if ((size_t)got < need) {
        end_with(s, KIND_ERROR, at, "frame %llu: truncated: OP_FRAME needs %u compressed bytes, %lld left",
                 (unsigned long long)s->fr.index, s->fr.csize,
                 (long long)got - UCIR_FRAME_HEADER);
        return 0;
    }
    p = c->p + UCIR_FRAME_HEADER;
    s->kind = KIND_FRAME;
    f->next_index++;
    if (!f->workers || (s->fr.csize <= TINY_FRAME && claim_inline(f))) {
        s->csrc = p;
        decode(s, f->z, f->max_frame);
        c->p += need;
        s->state = SLOT_DONE;
        return 0;
    }
    if (s->fr.csize > s->ccap || (s->ccap > SHRINK_ABOVE && s->fr.csize < s->ccap / 4)) {
        uint8_t *nb = realloc(s->cbuf, s->fr.csize ? s->fr.csize : 1);
        if (!nb) {
            tk_error_set(err, TK_ENOMEM, at, TK_NO_RECORD, "out of memory");
            return -1;
        }
        s->cbuf = nb;
        s->ccap = s->fr.csize;
    }
    if (s->fr.csize)
        memcpy(s->cbuf, p, s->fr.csize);
    s->csrc = s->cbuf;
    c->p += need;
    s->state = SLOT_PENDING;
    return 0;
}

/* Fewer workers than asked, or none (memory for their stacks ran out:
 * --max-memory), are fine: the calling thread decodes every frame nobody
 * took. A failure is not retried. */
static void start_workers(ucir_frames *f)
{
    while (f->started < f->workers && !f->no_threads) {
        if (pthread_create(&f->tids[f->started], NULL, worker, f) != 0)
            f->no_threads = 1;
        else
            f->started++;
    }
}

static void release_head(ucir_frames *f)
{
    if (!f->holding)
        return;
    slot *s = &f->slots[f->head % f->nslots];
    if (s->kind == KIND_FRAME) {
        s->state = SLOT_FREE;
        f->head++;
    }
    f->holding = 0;
}

static void frame_error(const slot *s, uint64_t record, uint64_t max_frame, tk_error *err)
{
    const ucir_frame *fr = &s->fr;
    unsigned long long ix = (unsigned long long)fr->index;
    uint64_t at = fr->offset + UCIR_FRAME_HEADER;
    switch (s->zcode) {
    case UCIR_Z_TOO_BIG:
        tk_error_set(err, TK_EMALFORMED, at, record, "frame %llu: inflates to more than max-frame (%llu bytes)",
                     ix, (unsigned long long)max_frame);
        break;
    case UCIR_Z_TRAILING:
        tk_error_set(err, TK_EMALFORMED, at, record, "frame %llu: %zu bytes after the end of its zlib stream",
                     ix, s->trailing);
        break;
    case UCIR_Z_NOMEM:
        tk_error_set(err, TK_ENOMEM, at, record, "frame %llu: out of memory inflating", ix);
        break;
    default:
        tk_error_set(err, TK_EMALFORMED, at, record, "frame %llu: corrupt zlib data", ix);
        break;
    }
}

int ucir_frames_next(ucir_frames *f, ucir_frame **frame, uint64_t record, tk_error *err)
{
    release_head(f);
    if (f->workers)
        start_workers(f);
    /* Slots from tail on belong to this thread until tail moves past them. */
    while (!f->ended && f->tail - f->head < f->nslots) {
        slot *s = &f->slots[f->tail % f->nslots];
        if (produce(f, s, err) != 0)
            return -1;
        if (s->kind != KIND_FRAME)
            f->ended = 1;
        if (f->workers) {
            pthread_mutex_lock(&f->mu);
            f->tail++;
            if (s->state == SLOT_PENDING) /* not inflated already */
                pthread_cond_signal(&f->work_cv);
            pthread_mutex_unlock(&f->mu);
        } else {
            f->tail++;
        }
    }
    slot *s = &f->slots[f->head % f->nslots];
    if (f->workers) {
        pthread_mutex_lock(&f->mu);
        while (s->state != SLOT_DONE) {
            /* rather than sleep, decode the next frame nobody has taken */
            while (f->next_work < f->tail &&
                   f->slots[f->next_work % f->nslots].state != SLOT_PENDING)
                f->next_work++;
            if (f->next_work >= f->tail) {
                pthread_cond_wait(&f->done_cv, &f->mu);
                continue;
            }
            slot *w = &f->slots[f->next_work++ % f->nslots];
            w->state = SLOT_BUSY;
            pthread_mutex_unlock(&f->mu);
            decode(w, f->z, f->max_frame);
            pthread_mutex_lock(&f->mu);
            w->state = SLOT_DONE;
        }
        pthread_mutex_unlock(&f->mu);
    }
    f->holding = 1;
    if (s->kind == KIND_CUT) { /* noted when reached, not when read ahead */
        char what[48];
        snprintf(what, sizeof what, "an OP_FRAME (frame %llu)",
                 (unsigned long long)f->next_index);
        tk_input_note_cut(f->in, s->err_offset, s->trailing, what);
    }
    if (s->kind == KIND_END || s->kind == KIND_CUT)
        return 0;
    if (s->kind == KIND_ERROR) {
        tk_error_set(err, TK_EMALFORMED, s->err_offset, record, "%s", s->message);
        return -1;
    }
    s->fr.failed = s->zcode != UCIR_Z_OK;
    if (s->fr.failed)
        frame_error(s, record + 1, f->max_frame, &s->fr.err); /* after its FRAME record */
    *frame = &s->fr;
    return 1;
}

tk_status ucir_frames_seek(ucir_frames *f, uint64_t offset, uint64_t index, tk_error *err)
{
    f->holding = 0;
    if (f->workers) {
        pthread_mutex_lock(&f->mu);
        for (uint64_t q = f->head; q < f->tail; q++) {
            slot *s = &f->slots[q % f->nslots];
            while (s->state == SLOT_PENDING || s->state == SLOT_BUSY) {
                if (s->state == SLOT_PENDING && q >= f->next_work) {
                    s->state = SLOT_DONE; /* not taken yet: never will be */
                    break;
                }
                pthread_cond_wait(&f->done_cv, &f->mu);
            }
        }
        f->head = f->tail = f->next_work = 0;
        pthread_mutex_unlock(&f->mu);
    } else {
        f->head = f->tail = 0;
    }
    for (unsigned i = 0; i < f->nslots; i++)
        f->slots[i].state = SLOT_FREE;
    f->ended = 0;
    f->next_index = index;
    if (tk_input_rewind(f->in, err) != TK_OK)
        return err->status;
    if (tk_cursor_init(&f->cur, f->in, 0, err) < 0)
        return err->status;
    int r = tk_cursor_skip(&f->cur, offset, err);
    if (r < 0)
        return err->status;
    if (r > 0)
        return tk_error_set(err, TK_EUSAGE, offset, TK_NO_RECORD, "seek past the end of the trace");
    return TK_OK;
}
