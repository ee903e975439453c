/* Cacheray reader: a pull parser over an input window. Type names are
 * returned as pointers into the input (zero copy). */
#include <stdlib.h>
#include <string.h>

#include <tracekit/cacheray.h>

#include "core/bytes.h"

/* Bytes asked of the input at a time, and the most used from one window: a
 * mapped file offers all of itself, but handing the input back its position
 * every few MiB lets it release pages behind us (flat memory). */
#define WINDOW_WANT ((size_t)1 << 16)
#define WINDOW_CAP ((size_t)4 << 20)
/* Bytes examined to guess the byte order. */
#define DETECT_BYTES ((size_t)1 << 16)

struct tk_cacheray_reader {
    tk_input *in;
    int big;
    const uint8_t *win, *p, *end; /* current window and position in it */
    uint64_t win_off;             /* input offset of win[0] */
    uint64_t rec_off, rec_index;  /* last record returned */
    uint64_t next_index;
    int failed;
};

const char *tk_cacheray_type_name(tk_cacheray_type t)
{
    switch (t) {
    case TK_CR_READ: return "read";
    case TK_CR_WRITE: return "write";
    case TK_CR_RTTA_ADD: return "rtta_add";
    case TK_CR_RTTA_REMOVE: return "rtta_remove";
    }
    return "unknown";
}

/* ---- byte-order detection */

static int canonical(uint64_t a)
{
    uint64_t top = a >> 47; /* user or kernel half of a 48-bit space */
    return top == 0 || top == 0x1FFFF;
}

static int printable(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 || s[i] >= 0x7F)
            return 0;
    return 1;
}

/* Plausibility points for reading `data` in one byte order. */
static long detect_score(const uint8_t *d, size_t n, int big)
{
    long score = 0;
    size_t i = 0;
    for (int rec = 0; rec < 4096 && i < n; rec++) {
        uint8_t tag = d[i], base = tag & ~TK_CR_FLAG_MASK;
        if (base == TK_CR_READ || base == TK_CR_WRITE) {
            if (n - i < TK_CR_ACCESS_SIZE)
                break;
            score += canonical(tk_ld64(d + i + 1, big));
            score += tk_ld64(d + i + 10, big) < ((uint64_t)1 << 32);
            i += TK_CR_ACCESS_SIZE;
        } else if (base == TK_CR_RTTA_REMOVE && !(tag & TK_CR_FLAG_MASK)) {
            if (n - i < TK_CR_RTTA_REMOVE_SIZE)
                break;
            score += canonical(tk_ld64(d + i + 1, big));
            score += tk_ld64(d + i + 9, big) < ((uint64_t)1 << 32);
            i += TK_CR_RTTA_REMOVE_SIZE;
        } else if (base == TK_CR_RTTA_ADD && !(tag & TK_CR_FLAG_MASK)) {
            if (n - i < TK_CR_RTTA_ADD_FIXED)
                break;
            uint32_t len = tk_ld32(d + i + 25, big);
            if (len > n - i - TK_CR_RTTA_ADD_FIXED) {
                /* A name running past the sample is only plausible when
                 * the sample is cut short and the length is modest. */
                if (len > 4096)
                    score -= 8;
                break;
            }
            score += canonical(tk_ld64(d + i + 1, big));
            score += tk_ld64(d + i + 9, big) < ((uint64_t)1 << 32);
            score += tk_ld32(d + i + 17, big) < (1u << 24);
            score += tk_ld32(d + i + 21, big) < (1u << 24);
            score += 2 * (len < 4096 && printable(d + i + 29, len));
            i += TK_CR_RTTA_ADD_FIXED + len;
        } else {
            score -= 8; /* desynchronised: this order is likely wrong */
            break;
        }
    }
    return score;
}

tk_endian tk_cacheray_detect_endian(const uint8_t *data, size_t n)
{
    long le = detect_score(data, n, 0), be = detect_score(data, n, 1);
    return be > le ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE;
}

/* ---- reader */

tk_cacheray_reader *tk_cacheray_reader_new(tk_input *in, tk_endian endian,
                                           tk_error *err)
{
    tk_cacheray_reader *r = calloc(1, sizeof *r);
    if (!r) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    r->in = in;
    r->win_off = tk_input_offset(in);
    int64_t n = tk_input_window(in, DETECT_BYTES, &r->win, err);
    if (n < 0) {
        free(r);
        return NULL;
    }
    if (endian == TK_ENDIAN_AUTO)
        endian = tk_cacheray_detect_endian(r->win,
                                           (size_t)n < DETECT_BYTES ? (size_t)n : DETECT_BYTES);
    r->p = r->win;
    r->end = r->win + ((uint64_t)n < WINDOW_CAP ? (size_t)n : WINDOW_CAP);
    r->big = endian == TK_ENDIAN_BIG;
    r->rec_off = TK_NO_OFFSET;
    r->rec_index = TK_NO_RECORD;
    return r;
}

void tk_cacheray_reader_free(tk_cacheray_reader *r) { free(r); }

tk_endian tk_cacheray_reader_endian(const tk_cacheray_reader *r)
{
    return r->big ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE;
}

uint64_t tk_cacheray_reader_tell(const tk_cacheray_reader *r)
{
    return r->win_off + (uint64_t)(r->p - r->win);
}

uint64_t tk_cacheray_reader_offset(const tk_cacheray_reader *r) { return r->rec_off; }
uint64_t tk_cacheray_reader_index(const tk_cacheray_reader *r) { return r->rec_index; }

/* Make `need` bytes readable at r->p; returns bytes available or -1. */
static int64_t refill(tk_cacheray_reader *r, size_t need, tk_error *err)
{
    tk_input_advance(r->in, (size_t)(r->p - r->win));
    r->win_off = tk_input_offset(r->in);
    int64_t n = tk_input_window(r->in, need > WINDOW_WANT ? need : WINDOW_WANT,
                                &r->win, err);
    if (n < 0)
        return -1;
    size_t cap = need > WINDOW_CAP ? need : WINDOW_CAP;
    if ((uint64_t)n > cap)
        n = (int64_t)cap;
    r->p = r->win;
    r->end = r->win + n;
    return n;
}

/* Reading stops at the first structural error. */
#define FAIL(off, ...)                                                       \
    do {                                                                     \
        r->failed = 1;                                                       \
        tk_error_set(err, TK_EMALFORMED, (off), r->next_index, __VA_ARGS__); \
        return -1;                                                           \
    } while (0)

static const char *record_label(uint8_t base)
{
    return base == TK_CR_RTTA_ADD ? "rtta_add" : base == TK_CR_RTTA_REMOVE ? "rtta_remove"
           : base == TK_CR_WRITE  ? "write" : "read";
}

int tk_cacheray_next(tk_cacheray_reader *r, tk_cacheray_record *rec,
                     tk_error *err)
{
    if (r->failed)
        return -1;
    size_t avail = (size_t)(r->end - r->p);
    if (avail < TK_CR_RTTA_ADD_FIXED) {
        int64_t n = refill(r, TK_CR_RTTA_ADD_FIXED, err);
        if (n < 0) {
            r->failed = 1;
            return -1;
        }
        if (n == 0)
            return 0;
        avail = (size_t)n;
    }
    const uint8_t *p = r->p;
    uint64_t off = r->win_off + (uint64_t)(p - r->win);
    uint8_t tag = p[0], base = tag & (uint8_t)~TK_CR_FLAG_MASK, flags = tag & TK_CR_FLAG_MASK;
    size_t len;
    int big = r->big;
    switch (base) {
    case TK_CR_READ:
    case TK_CR_WRITE:
        len = TK_CR_ACCESS_SIZE;
        if (avail < len)
            goto truncated;
        rec->type = (tk_cacheray_type)base;
        rec->flags = flags;
        rec->addr = tk_ld64(p + 1, big);
        rec->size = p[9];
        rec->thread = tk_ld64(p + 10, big);
        rec->elemsize = rec->elemcount = rec->typename_len = 0;
        rec->type_name = NULL;
        break;
    case TK_CR_RTTA_ADD:
        if (flags)
            goto flagged;
        len = TK_CR_RTTA_ADD_FIXED;
        if (avail < len)
            goto truncated;
        rec->typename_len = tk_ld32(p + 25, big);
        if (rec->typename_len > avail - TK_CR_RTTA_ADD_FIXED) {
            size_t need = TK_CR_RTTA_ADD_FIXED + (size_t)rec->typename_len;
            int64_t total = tk_input_size(r->in);
            if (total >= 0 && off + need > (uint64_t)total)
                FAIL(off + 25,
                            "rtta_add type name of %llu bytes runs past the end "
                            "of the file (%llu bytes left)",
                            (unsigned long long)rec->typename_len,
                            (unsigned long long)((uint64_t)total - off - TK_CR_RTTA_ADD_FIXED));
            int64_t n = refill(r, need, err); /* a pipe: buffer the name */
            if (n < 0) {
                r->failed = 1;
                return -1;
            }
            p = r->p;
            avail = (size_t)n;
            if (avail < need)
                FAIL(off + 25,
                            "rtta_add type name of %llu bytes runs past the end "
                            "of the input (%llu bytes left)",
                            (unsigned long long)rec->typename_len,
                            (unsigned long long)(avail - TK_CR_RTTA_ADD_FIXED));
        }
        len = TK_CR_RTTA_ADD_FIXED + rec->typename_len;
        rec->type = TK_CR_RTTA_ADD;
        rec->flags = 0;
        rec->size = 0;
        rec->addr = tk_ld64(p + 1, big);
        rec->thread = tk_ld64(p + 9, big);
        rec->elemsize = tk_ld32(p + 17, big);
        rec->elemcount = tk_ld32(p + 21, big);
        rec->type_name = (const char *)p + TK_CR_RTTA_ADD_FIXED;
        break;
    case TK_CR_RTTA_REMOVE:
        if (flags)
            goto flagged;
        len = TK_CR_RTTA_REMOVE_SIZE;
        if (avail < len)
            goto truncated;
        rec->type = TK_CR_RTTA_REMOVE;
        rec->flags = 0;
        rec->size = 0;
        rec->addr = tk_ld64(p + 1, big);
        rec->thread = tk_ld64(p + 9, big);
        rec->elemsize = rec->elemcount = rec->typename_len = 0;
        rec->type_name = NULL;
        break;
    default:
        FAIL(off, "unknown record tag 0x%02x", tag);
    }
    r->p = p + len;
    r->rec_off = off;
    r->rec_index = r->next_index++;
    return 1;
truncated:
    FAIL(off, "truncated %s record: needs %zu bytes, %zu left",
         record_label(base), len, avail);
flagged:
    FAIL(off, "%s record with flag bits 0x%02x (flags are only allowed on "
              "read and write)",
         record_label(base), flags);
}
