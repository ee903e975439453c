/* Growable byte string used by the output sinks and formatters. */
#ifndef TK_CORE_STRBUF_H
#define TK_CORE_STRBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct tk_strbuf {
    char *p;
    size_t len, cap;
    int oom; /* an allocation failed; further appends are dropped */
} tk_strbuf;

/* Grow an allocation `*p` of `*cap` bytes to at least `need` (doubling,
 * from 256): the one growth rule of the byte buffers (this one, the
 * Perfetto and Parquet encoders'). 0, or -1 on overflow or OOM (`*p`
 * untouched). */
int tk_buf_grow(void **p, size_t *cap, size_t need);

/* Grow the array `*p` of `*n` elements of `size` bytes, doubling from
 * `first`, until `index` is in it; the new elements are zero. 0, or -1 on
 * overflow or OOM (`*p` untouched). */
int tk_array_grow_zeroed(void **p, size_t *n, size_t index, size_t size, size_t first);

void sb_free(tk_strbuf *b);
void sb_reset(tk_strbuf *b);
/* Grow so `extra` more bytes (and a NUL) fit; -1 (and oom set) on failure. */
int sb_grow(tk_strbuf *b, size_t extra);

/* The appenders run per output byte: keep their fast path inline. */
static inline int sb_reserve(tk_strbuf *b, size_t extra)
{
    return b->len + extra + 1 <= b->cap ? 0 : sb_grow(b, extra);
}

static inline void sb_putn(tk_strbuf *b, const char *s, size_t n)
{
    if (sb_reserve(b, n) != 0)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static inline void sb_puts(tk_strbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

static inline void sb_putc(tk_strbuf *b, char c)
{
    if (sb_reserve(b, 1) != 0)
        return;
    b->p[b->len++] = c;
    b->p[b->len] = '\0';
}
void sb_pad(tk_strbuf *b, char c, size_t n);
void sb_u64(tk_strbuf *b, uint64_t v);
void sb_i64(tk_strbuf *b, int64_t v);
void sb_hex(tk_strbuf *b, uint64_t v); /* 0x... */
void sb_f64(tk_strbuf *b, double v);   /* shortest text that reads back */
void sb_printf(tk_strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* JSON string literal with quotes; invalid UTF-8 becomes U+FFFD. */
void sb_json_str(tk_strbuf *b, const char *s, size_t n);
/* Human text: printable bytes as is, others as \xNN; quoted with "" when
 * `quote_if_needed` and the text is empty or has spaces, '=' or '"'. */
void sb_text_str(tk_strbuf *b, const char *s, size_t n, int quote_if_needed);
/* NUL-terminated copy of the contents (caller frees), NULL on OOM. */
char *sb_strdup(const tk_strbuf *b);

/* Length of the valid UTF-8 sequence at s (1..4), 0 if invalid (overlong,
 * surrogate, past U+10FFFF or cut short). */
size_t tk_utf8_len(const unsigned char *s, size_t n);

#endif
