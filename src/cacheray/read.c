/* Cacheray reader: a pull parser over an input window. Type names are
 * returned as pointers into the input (zero copy). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/cacheray.h>

#include "cacheray/cacheray_int.h"
#include "core/bytes.h"
#include "core/cursor.h"
#include "core/select.h"
#include "core/truncation.h"

/* Bytes examined to guess the byte order. */
#define DETECT_BYTES ((size_t)1 << 16)

struct tk_cacheray_reader {
    tk_cursor cur;
    int big;
    uint64_t rec_off, rec_index;  /* last record returned */
    uint64_t next_index;
    int failed;
    int cut;                      /* stopped at a truncated tail */
    tk_selection *sel;            /* our copy; NULL: every record */
    unsigned sel_flags;           /* TK_CACHERAY_SELECT_* */
    int selected;                 /* the last record is selected (else context) */
};

const char *tk_cacheray_type_name(tk_cacheray_type t)
{
    switch (t) {
    case TK_CACHERAY_READ: return "read";
    case TK_CACHERAY_WRITE: return "write";
    case TK_CACHERAY_RTTA_ADD: return "rtta_add";
    case TK_CACHERAY_RTTA_REMOVE: return "rtta_remove";
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
        uint8_t tag = d[i], base = tag & ~TK_CACHERAY_FLAG_MASK;
        if (base == TK_CACHERAY_READ || base == TK_CACHERAY_WRITE) {
            if (n - i < TK_CACHERAY_ACCESS_SIZE)
                break;
            score += canonical(tk_ld64(d + i + 1, big));
            score += tk_ld64(d + i + 10, big) < ((uint64_t)1 << 32);
            i += TK_CACHERAY_ACCESS_SIZE;
        } else if (base == TK_CACHERAY_RTTA_REMOVE && !(tag & TK_CACHERAY_FLAG_MASK)) {
            if (n - i < TK_CACHERAY_RTTA_REMOVE_SIZE)
                break;
            score += canonical(tk_ld64(d + i + 1, big));
            score += tk_ld64(d + i + 9, big) < ((uint64_t)1 << 32);
            i += TK_CACHERAY_RTTA_REMOVE_SIZE;
        } else if (base == TK_CACHERAY_RTTA_ADD && !(tag & TK_CACHERAY_FLAG_MASK)) {
            if (n - i < TK_CACHERAY_RTTA_ADD_FIXED)
                break;
            uint32_t len = tk_ld32(d + i + 25, big);
            if (len > n - i - TK_CACHERAY_RTTA_ADD_FIXED) {
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
            i += TK_CACHERAY_RTTA_ADD_FIXED + len;
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
    int64_t n = tk_cursor_init(&r->cur, in, DETECT_BYTES, err);
    if (n < 0) {
        free(r);
        return NULL;
    }
    if (endian == TK_ENDIAN_AUTO)
        endian = tk_cacheray_detect_endian(r->cur.win,
                                           (size_t)n < DETECT_BYTES ? (size_t)n : DETECT_BYTES);
    r->big = endian == TK_ENDIAN_BIG;
    r->rec_off = TK_NO_OFFSET;
    r->rec_index = TK_NO_RECORD;
    return r;
}

void tk_cacheray_reader_free(tk_cacheray_reader *r)
{
    if (r)
        tk_selection_free(r->sel);
    free(r);
}

tk_endian tk_cacheray_reader_endian(const tk_cacheray_reader *r)
{
    return r->big ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE;
}

uint64_t tk_cacheray_reader_tell(const tk_cacheray_reader *r)
{
    return tk_cursor_offset(&r->cur);
}

uint64_t tk_cacheray_reader_offset(const tk_cacheray_reader *r) { return r->rec_off; }
uint64_t tk_cacheray_reader_index(const tk_cacheray_reader *r) { return r->rec_index; }

/* Reading stops at the first structural error. */
#define FAIL(off, ...)                                                       \
    do {                                                                     \
        r->failed = 1;                                                       \
        tk_error_set(err, TK_EMALFORMED, (off), r->next_index, __VA_ARGS__); \
        return -1;                                                           \
    } while (0)

static const char *record_label(uint8_t base)
{
    return base == TK_CACHERAY_RTTA_ADD ? "rtta_add" : base == TK_CACHERAY_RTTA_REMOVE ? "rtta_remove"
           : base == TK_CACHERAY_WRITE  ? "write" : "read";
}

/* "allow-truncated" (<tracekit/input.h>): the record at `off`, cut by the
 * end of the input after a valid beginning (its tag), ends the trace. Its
 * `dropped` bytes are consumed, up to the input itself, so that whoever
 * reads on from the input (the simulator's fast path) sees the end too.
 * Returns 0, or -1 when not allowed (err: the caller's FAIL) or on an I/O
 * error. */
static int cut_tail(tk_cacheray_reader *r, uint64_t off, uint64_t dropped, uint8_t base,
                    tk_error *err)
{
    if (!tk_input_allows_truncated(r->cur.in))
        return -1;
    char what[32];
    int rtta = base == TK_CACHERAY_RTTA_ADD || base == TK_CACHERAY_RTTA_REMOVE;
    snprintf(what, sizeof what, "%s %s record", rtta ? "an" : "a", record_label(base));
    if (tk_cursor_skip(&r->cur, dropped, err) < 0 || tk_cursor_refill(&r->cur, 1, err) < 0) {
        r->failed = 1;
        return -1;
    }
    tk_input_note_cut(r->cur.in, off, dropped, what);
    r->cut = 1;
    return 0;
}

static int next_record(tk_cacheray_reader *r, tk_cacheray_record *rec, tk_error *err)
{
    if (r->failed)
        return -1;
    if (r->cut)
        return 0;
    size_t avail = tk_cursor_avail(&r->cur);
    if (avail < TK_CACHERAY_RTTA_ADD_FIXED) {
        int64_t n = tk_cursor_refill(&r->cur, TK_CACHERAY_RTTA_ADD_FIXED, err);
        if (n < 0) {
            r->failed = 1;
            return -1;
        }
        if (n == 0)
            return 0;
        avail = (size_t)n;
    }
    const uint8_t *p = r->cur.p;
    uint64_t off = tk_cursor_offset(&r->cur);
    uint8_t tag = p[0], base = tag & (uint8_t)~TK_CACHERAY_FLAG_MASK, flags = tag & TK_CACHERAY_FLAG_MASK;
    size_t len;
    int big = r->big;
    switch (base) {
    case TK_CACHERAY_READ:
    case TK_CACHERAY_WRITE:
        len = TK_CACHERAY_ACCESS_SIZE;
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
    case TK_CACHERAY_RTTA_ADD:
        if (flags)
            goto flagged;
        len = TK_CACHERAY_RTTA_ADD_FIXED;
        if (avail < len)
            goto truncated;
        rec->typename_len = tk_ld32(p + 25, big);
        if (rec->typename_len > avail - TK_CACHERAY_RTTA_ADD_FIXED) {
            size_t need = TK_CACHERAY_RTTA_ADD_FIXED + (size_t)rec->typename_len;
            int64_t total = tk_input_size(r->cur.in);
            if (total >= 0 && off + need > (uint64_t)total &&
                cut_tail(r, off, (uint64_t)total - off, base, err) == 0)
                return 0;
            if (r->failed)
                return -1;
            if (total >= 0 && off + need > (uint64_t)total)
                FAIL(off + 25,
                            "rtta_add type name of %llu bytes runs past the end "
                            "of the file (%llu bytes left)",
                            (unsigned long long)rec->typename_len,
                            (unsigned long long)((uint64_t)total - off - TK_CACHERAY_RTTA_ADD_FIXED));
            int64_t n = tk_cursor_refill(&r->cur, need, err); /* a pipe: buffer the name */
            if (n < 0) {
                r->failed = 1;
                return -1;
            }
            p = r->cur.p;
            avail = (size_t)n;
            if (avail < need && cut_tail(r, off, avail, base, err) == 0)
                return 0;
            if (r->failed)
                return -1;
            if (avail < need)
                FAIL(off + 25,
                            "rtta_add type name of %llu bytes runs past the end "
                            "of the input (%llu bytes left)",
                            (unsigned long long)rec->typename_len,
                            (unsigned long long)(avail - TK_CACHERAY_RTTA_ADD_FIXED));
        }
        len = TK_CACHERAY_RTTA_ADD_FIXED + rec->typename_len;
        rec->type = TK_CACHERAY_RTTA_ADD;
        rec->flags = 0;
        rec->size = 0;
        rec->addr = tk_ld64(p + 1, big);
        rec->thread = tk_ld64(p + 9, big);
        rec->elemsize = tk_ld32(p + 17, big);
        rec->elemcount = tk_ld32(p + 21, big);
        rec->type_name = (const char *)p + TK_CACHERAY_RTTA_ADD_FIXED;
        break;
    case TK_CACHERAY_RTTA_REMOVE:
        if (flags)
            goto flagged;
        len = TK_CACHERAY_RTTA_REMOVE_SIZE;
        if (avail < len)
            goto truncated;
        rec->type = TK_CACHERAY_RTTA_REMOVE;
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
    r->cur.p = p + len;
    r->rec_off = off;
    r->rec_index = r->next_index++;
    return 1;
truncated:
    if (cut_tail(r, off, avail, base, err) == 0)
        return 0;
    if (r->failed)
        return -1;
    FAIL(off, "truncated %s record: needs %zu bytes, %zu left",
         record_label(base), len, avail);
flagged:
    FAIL(off, "%s record with flag bits 0x%02x (flags are only allowed on "
              "read and write)",
         record_label(base), flags);
}

int tk_cacheray_next(tk_cacheray_reader *r, tk_cacheray_record *rec, tk_error *err)
{
    if (!r->sel)
        return next_record(r, rec, err);
    for (;;) {
        int rc = next_record(r, rec, err);
        if (rc <= 0)
            return rc;
        int v = tk_cacheray_select(r->sel, r->sel_flags, rec, r->rec_index);
        if (v == TK_CACHERAY_SEL_END)
            return 0;
        r->selected = v == TK_CACHERAY_SEL_KEEP;
        if (v != TK_CACHERAY_SEL_DROP)
            return 1;
    }
}

tk_status tk_cacheray_reader_select(tk_cacheray_reader *r, const tk_selection *sel,
                                    unsigned flags, tk_error *err)
{
    tk_selection_free(r->sel);
    r->sel = NULL;
    r->selected = 1;
    if (tk_selection_empty(sel))
        return TK_OK;
    if (sel->func)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--func does not apply to cacheray traces");
    if (tk_sel_check_counts(sel, "cacheray", "record indexes", err) != TK_OK)
        return err->status;
    r->sel = tk_sel_dup(sel, err);
    r->sel_flags = flags;
    return r->sel ? TK_OK : err->status;
}

int tk_cacheray_reader_selected(const tk_cacheray_reader *r) { return !r->sel || r->selected; }
