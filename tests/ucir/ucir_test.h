/* Helpers shared by the UCIR tests: hex test data, hand-made zlib streams
 * (stored blocks, so the reader is not checked against the library's own
 * compressor), hand-made .uc files (Snappy framing with uncompressed
 * chunks), and whole traces read into owned records. */
#ifndef TK_UCIR_TEST_H
#define TK_UCIR_TEST_H

#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* ---- bytes */
typedef struct ub {
    uint8_t *p;
    size_t len, cap;
} ub;

static inline void ub_put(ub *b, const void *d, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        assert_non_null(b->p);
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, d, n);
    b->len += n;
}

static inline void ub_u8(ub *b, unsigned v)
{
    uint8_t x = (uint8_t)v;
    ub_put(b, &x, 1);
}

/* big-endian (spec) and little-endian (.uc) integers */
static inline void ub_be(ub *b, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--)
        ub_u8(b, (unsigned)(v >> (8 * i)) & 0xFF);
}

static inline void ub_le(ub *b, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        ub_u8(b, (unsigned)(v >> (8 * i)) & 0xFF);
}

/* Hex digits; blanks and '|' are ignored. */
static inline void ub_hex(ub *b, const char *s)
{
    int hi = -1;
    for (; *s; s++) {
        int v;
        if (*s >= '0' && *s <= '9') v = *s - '0';
        else if (*s >= 'a' && *s <= 'f') v = *s - 'a' + 10;
        else if (*s >= 'A' && *s <= 'F') v = *s - 'A' + 10;
        else continue;
        if (hi < 0) {
            hi = v;
        } else {
            ub_u8(b, (unsigned)(hi << 4 | v));
            hi = -1;
        }
    }
    assert_int_equal(hi, -1);
}

static inline void ub_free(ub *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* ---- zlib streams of stored blocks (RFC 1950/1951) */
static inline void ub_zlib(ub *b, const uint8_t *d, size_t n)
{
    ub_u8(b, 0x78);
    ub_u8(b, 0x01);
    size_t at = 0;
    do {
        size_t k = n - at > 65535 ? 65535 : n - at;
        ub_u8(b, at + k == n ? 1 : 0);
        ub_le(b, k, 2);
        ub_le(b, ~k & 0xFFFF, 2);
        ub_put(b, d + at, k);
        at += k;
    } while (at < n);
    uint32_t a = 1, c = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + d[i]) % 65521;
        c = (c + a) % 65521;
    }
    ub_be(b, (uint64_t)c << 16 | a, 4);
}

/* The 80-byte spec header. */
static inline void ub_spec_header(ub *b, uint32_t arch, uint32_t mode, const char *sarch,
                                  const char *os)
{
    char name[32];
    ub_put(b, "UCIR", 4);
    ub_be(b, 0, 4);
    ub_be(b, arch, 4);
    ub_be(b, mode, 4);
    memset(name, 0, sizeof name);
    memcpy(name, sarch, strlen(sarch));
    ub_put(b, name, 32);
    memset(name, 0, sizeof name);
    memcpy(name, os, strlen(os));
    ub_put(b, name, 32);
}

/* An OP_FRAME holding `body` (given as hex) stored-compressed. */
static inline void ub_frame_hex(ub *b, int key, uint32_t op_count, const char *body_hex)
{
    ub body = {0}, z = {0};
    ub_hex(&body, body_hex);
    ub_zlib(&z, body.p, body.len);
    ub_u8(b, 1);
    ub_u8(b, key ? 1 : 0);
    ub_be(b, op_count, 4);
    ub_be(b, z.len, 4);
    ub_put(b, z.p, z.len);
    ub_free(&body);
    ub_free(&z);
}

/* The x86_64 demo of the notes (§6), frames as printed there. */
static inline void ub_spec_demo(ub *b)
{
    ub_spec_header(b, 4, 8, "x86_64", "linux");
    ub_frame_hex(b, 1, 5,
                 "08 0000000000400000 00001000 05"
                 "07 0000000000400000 000000000000000c b801000000bf010000000f05"
                 "08 000000007ffef000 00011000 03"
                 "07 000000007fff0000 0000000000000003 68690a"
                 "04 002c 000000007fff0000");
    ub_frame_hex(b, 0, 6,
                 "02 0000000000400000 00000005 | 04 0023 0000000000000001 | 03 00000005 |"
                 "04 0027 0000000000000001 | 03 00000002 |"
                 "0a 0001 0000000000000003 0003 0002 0000000000000001 000000007fff0000 0000000000000003"
                 "06 000000007fff0000 0000000000000003 68690a | 04 0023 0000000000000003");
    ub_frame_hex(b, 0, 2, "0a 003c 0000000000000000 0001 0000 0000000000000000 | 0b");
}

/* ---- .uc files: header + Snappy framing with uncompressed chunks */
static inline uint32_t t_crc32c(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    }
    c = ~c;
    return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

static inline void ub_uc_header(ub *b, const char *arch, const char *os)
{
    char name[32];
    ub_put(b, "UCIR", 4);
    ub_be(b, 1, 4);
    memset(name, 0, sizeof name);
    memcpy(name, arch, strlen(arch));
    ub_put(b, name, 32);
    memset(name, 0, sizeof name);
    memcpy(name, os, strlen(os));
    ub_put(b, name, 32);
    ub_u8(b, 0);
    ub_u8(b, 0);
    ub_hex(b, "ff060000734e61507059");
}

/* `d` as uncompressed chunks of at most `chunk` bytes. */
static inline void ub_uc_chunks(ub *b, const uint8_t *d, size_t n, size_t chunk)
{
    for (size_t at = 0; at < n; at += chunk) {
        size_t k = n - at < chunk ? n - at : chunk;
        ub_u8(b, 0x01);
        ub_le(b, k + 4, 3);
        ub_le(b, t_crc32c(d + at, k), 4);
        ub_put(b, d + at, k);
    }
}

/* ---- whole traces */
typedef struct urecs {
    tk_ucir_op *v;          /* data/args/desc/path point into owned copies */
    tk_ucir_pos *pos;
    size_t n, cap;
    tk_ucir_header h;
    tk_ucir_counts counts;
} urecs;

static inline void *dup_bytes(const void *p, size_t n)
{
    void *c = malloc(n ? n : 1);
    assert_non_null(c);
    if (n)
        memcpy(c, p, n);
    return c;
}

static inline void urecs_push(urecs *r, const tk_ucir_op *op, const tk_ucir_pos *pos)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        r->pos = realloc(r->pos, r->cap * sizeof *r->pos);
        assert_true(r->v && r->pos);
    }
    tk_ucir_op *c = &r->v[r->n];
    *c = *op;
    c->data = op->len ? dup_bytes(op->data, (size_t)op->len) : NULL;
    c->args = op->argc ? dup_bytes(op->args, op->argc * sizeof *op->args) : NULL;
    c->desc = op->desc_len ? dup_bytes(op->desc, op->desc_len) : NULL;
    c->path = op->path_len ? dup_bytes(op->path, op->path_len) : NULL;
    r->pos[r->n] = *pos;
    r->n++;
}

static inline void urecs_free(urecs *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free((void *)r->v[i].data);
        free((void *)r->v[i].args);
        free((void *)r->v[i].desc);
        free((void *)r->v[i].path);
    }
    free(r->v);
    free(r->pos);
    memset(r, 0, sizeof *r);
}

/* Read everything; returns the last tk_ucir_next result (0 or -1; -2 when
 * the header does not read). */
static inline int ucir_read_mem(const void *d, size_t n, unsigned threads, urecs *out,
                                tk_error *err)
{
    memset(out, 0, sizeof *out);
    tk_error_clear(err);
    tk_input *in = tk_input_from_memory(d, n, "mem", err);
    assert_non_null(in);
    tk_ucir_reader_options o = {threads, 0};
    tk_ucir_reader *r = tk_ucir_reader_new(in, &o, err);
    if (!r) {
        tk_input_close(in);
        return -2;
    }
    out->h = *tk_ucir_reader_header(r);
    tk_ucir_op op;
    tk_ucir_pos pos;
    int rc;
    while ((rc = tk_ucir_next(r, &op, err)) > 0) {
        tk_ucir_reader_pos(r, &pos);
        assert_int_equal(pos.record, out->n);
        urecs_push(out, &op, &pos);
    }
    tk_error again;
    assert_int_equal(tk_ucir_next(r, &op, &again), rc); /* the end is sticky */
    if (rc < 0)
        assert_string_equal(again.message, err->message);
    tk_ucir_reader_counts(r, &out->counts);
    tk_ucir_reader_free(r);
    tk_input_close(in);
    return rc;
}

/* Read `d` expecting exactly this error. */
static inline void expect_error(const void *d, size_t n, uint64_t offset, uint64_t record,
                                const char *message)
{
    urecs r;
    tk_error err;
    int rc = ucir_read_mem(d, n, 1, &r, &err);
    if (rc != -1 && rc != -2)
        fail_msg("read cleanly, expected '%s'", message);
    if (strcmp(err.message, message) != 0 || err.offset != offset || err.record != record)
        fail_msg("got offset %llu record %llu '%s'\n  want offset %llu record %llu '%s'",
                 (unsigned long long)err.offset, (unsigned long long)err.record, err.message,
                 (unsigned long long)offset, (unsigned long long)record, message);
    assert_int_equal(err.status, TK_EMALFORMED);
    /* the threaded reader says the same */
    if (rc == -1) {
        urecs t;
        tk_error e2;
        assert_int_equal(ucir_read_mem(d, n, 3, &t, &e2), -1);
        assert_string_equal(e2.message, err.message);
        assert_int_equal(e2.offset, err.offset);
        assert_int_equal(e2.record, err.record);
        assert_int_equal(t.n, r.n);
        urecs_free(&t);
    }
    urecs_free(&r);
}

#endif
