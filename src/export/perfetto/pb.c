/* Protocol buffer encoding helpers (pb.h). */
#include "export/perfetto/pb.h"

#include "core/strbuf.h"

#include <stdlib.h>

void tk_pb_free(tk_pb *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

int tk_pb_grow(tk_pb *b, size_t extra)
{
    void *p = b->p;
    if (b->oom || extra > SIZE_MAX - b->len || tk_buf_grow(&p, &b->cap, b->len + extra) != 0) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    return 0;
}

void tk_pb_fixed64(tk_pb *b, uint32_t field, uint64_t v)
{
    tk_pb_tag(b, field, TK_PB_FIXED64);
    if (tk_pb_room(b, 8) != 0)
        return;
    for (int i = 0; i < 8; i++)
        b->p[b->len++] = (uint8_t)(v >> (8 * i)); /* little-endian, always */
}

void tk_pb_double(tk_pb *b, uint32_t field, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    tk_pb_fixed64(b, field, bits);
}

void tk_pb_bytes(tk_pb *b, uint32_t field, const void *p, size_t n)
{
    tk_pb_tag(b, field, TK_PB_LEN);
    tk_pb_varint(b, n);
    if (n == 0 || tk_pb_room(b, n) != 0)
        return;
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

void tk_pb_close_long(tk_pb *b, size_t start)
{
    if (b->oom)
        return;
    size_t body = b->len - start, n = tk_pb_varint_size(body);
    if (n > 1) {
        if (tk_pb_room(b, n - 1) != 0)
            return;
        memmove(b->p + start + n - 1, b->p + start, body);
        b->len += n - 1;
    }
    size_t at = start - 1;
    tk_pb_raw_varint(b->p, &at, body);
}

/* Length of the valid UTF-8 sequence at s[0..n), 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    unsigned cp = c & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

void tk_pb_utf8(tk_pb *b, uint32_t field, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, k;
    for (uint64_t w; i + 8 <= n; i += 8) { /* ASCII, the usual case: 8 bytes a step */
        memcpy(&w, u + i, 8);
        if (w & 0x8080808080808080u)
            break;
    }
    while (i < n && u[i] < 0x80)
        i++;
    while (i < n && (k = utf8_len(u + i, n - i)) != 0)
        i += k;
    if (i == n) { /* the usual case: valid as it is */
        tk_pb_bytes(b, field, s, n);
        return;
    }
    size_t at = tk_pb_open(b, field);
    for (i = 0; i < n; i += k ? k : 1) {
        k = utf8_len(u + i, n - i);
        if (tk_pb_room(b, 4) != 0)
            return;
        if (k) {
            memcpy(b->p + b->len, u + i, k);
            b->len += k;
        } else {
            memcpy(b->p + b->len, "\xef\xbf\xbd", 3);
            b->len += 3;
        }
    }
    tk_pb_close(b, at);
}
