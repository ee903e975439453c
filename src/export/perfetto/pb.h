/* Protocol buffer encoding, the few parts a trace writer needs: varints,
 * fixed64, length-delimited fields and nested messages written in place.
 *
 * A tk_pb is a growable byte buffer. A nested message is opened with
 * tk_pb_open, which writes its tag and leaves one byte for the length, and
 * closed with tk_pb_close, which writes the length there (moving the body
 * when it needs more than one byte): lengths stay minimal without
 * encoding anything twice. On allocation failure `oom` is set and further
 * writes are dropped; check it once per packet. */
#ifndef TK_EXPORT_PB_H
#define TK_EXPORT_PB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { TK_PB_VARINT = 0, TK_PB_FIXED64 = 1, TK_PB_LEN = 2 };

typedef struct tk_pb {
    uint8_t *p;
    size_t len, cap;
    int oom;
} tk_pb;

void tk_pb_free(tk_pb *b);
/* Room for `extra` more bytes; -1 (oom set) when memory runs out. */
int tk_pb_grow(tk_pb *b, size_t extra);

static inline int tk_pb_room(tk_pb *b, size_t extra)
{
    return b->len + extra <= b->cap ? 0 : tk_pb_grow(b, extra);
}

/* Bytes of v as a varint: 7 bits a byte, ceil(bits / 7) as
 * (9 * bits + 64) / 64 (exact for 1 to 64 bits; no division). */
static inline size_t tk_pb_varint_size(uint64_t v)
{
    size_t bits = 64 - (size_t)__builtin_clzll(v | 1);
    return (9 * bits + 64) >> 6;
}

static inline void tk_pb_raw_varint(uint8_t *p, size_t *len, uint64_t v)
{
    size_t n = *len;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    *len = n;
}

static inline void tk_pb_varint(tk_pb *b, uint64_t v)
{
    if (tk_pb_room(b, 10) == 0)
        tk_pb_raw_varint(b->p, &b->len, v);
}

static inline void tk_pb_tag(tk_pb *b, uint32_t field, int wire)
{
    tk_pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

/* uint32/uint64/int32/int64/bool/enum fields (negative ints take 10 bytes,
 * as protobuf's int64 does). */
static inline void tk_pb_uint(tk_pb *b, uint32_t field, uint64_t v)
{
    if (tk_pb_room(b, 15) != 0)
        return;
    tk_pb_raw_varint(b->p, &b->len, (uint64_t)field << 3 | TK_PB_VARINT);
    tk_pb_raw_varint(b->p, &b->len, v);
}

void tk_pb_fixed64(tk_pb *b, uint32_t field, uint64_t v);
void tk_pb_double(tk_pb *b, uint32_t field, double v);
void tk_pb_bytes(tk_pb *b, uint32_t field, const void *p, size_t n);
/* A `string` field: protobuf wants UTF-8, so invalid bytes become U+FFFD
 * (as --json writes them). */
void tk_pb_utf8(tk_pb *b, uint32_t field, const char *s, size_t n);
static inline void tk_pb_str(tk_pb *b, uint32_t field, const char *s)
{
    tk_pb_utf8(b, field, s, strlen(s));
}

/* Open a nested message (or packed field): returns where its body starts,
 * to pass to tk_pb_close. Inline, as is a close that needs no move: a
 * packet nests three or four messages, and packets can be millions. */
static inline size_t tk_pb_open(tk_pb *b, uint32_t field)
{
    if (tk_pb_room(b, 11) != 0)
        return b->len;
    tk_pb_raw_varint(b->p, &b->len, (uint64_t)field << 3 | TK_PB_LEN);
    b->p[b->len++] = 0; /* the length, when it fits one byte */
    return b->len;
}

/* A body of 128 bytes or more: its length takes more than the byte left. */
void tk_pb_close_long(tk_pb *b, size_t start);

static inline void tk_pb_close(tk_pb *b, size_t start)
{
    size_t body = b->len - start;
    if (!b->oom && body < 0x80)
        b->p[start - 1] = (uint8_t)body;
    else
        tk_pb_close_long(b, start);
}

#endif
