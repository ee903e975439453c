/* zlib streams of spec frames: libdeflate when available (whole-buffer and
 * about twice as fast), zlib otherwise. Both report the same outcomes, so
 * errors read the same whichever library a build uses. */
#include <stdlib.h>
#include <string.h>

#include "core/hugemem.h"
#include "ucir/ucir_int.h"

#ifdef TK_HAVE_LIBDEFLATE
#include <libdeflate.h>
#else
#include <zlib.h>
#endif

/* First guess of an inflated size when the buffer is empty. */
#define MIN_GUESS ((size_t)64 << 10)

/* Buffers this large are backed by huge pages (core/hugemem.h): frames
 * are inflated into fresh buffers of about a MiB by every reader, and
 * their first touch a page fault per 4 KiB would cost milliseconds. */
#define HUGE_BUF ((size_t)256 << 10)

void ucir_buf_free(uint8_t *buf, size_t cap)
{
    if (buf && cap + UCIR_SLACK >= HUGE_BUF)
        tk_huge_free(buf, cap + UCIR_SLACK);
    else
        free(buf);
}

/* Inflate buffers get UCIR_SLACK bytes past their capacity (the scan's
 * overread); deflate buffers do not need them but do not mind. The
 * content is kept (zlib grows the buffer in the middle of a stream). */
static int grow(uint8_t **buf, size_t *cap, size_t want)
{
    if (want > SIZE_MAX - UCIR_SLACK - TK_HUGE_PAGE)
        return -1;
    size_t bytes = want + UCIR_SLACK;
    int huge = bytes >= HUGE_BUF;
    if (huge)
        bytes = (bytes + TK_HUGE_PAGE - 1) & ~(TK_HUGE_PAGE - 1);
    uint8_t *nb = huge ? tk_huge_alloc(bytes) : malloc(bytes);
    if (!nb)
        return -1;
    if (*buf) {
        memcpy(nb, *buf, *cap < want ? *cap : want);
        ucir_buf_free(*buf, *cap);
    }
    *buf = nb;
    *cap = bytes - UCIR_SLACK;
    return 0;
}

#ifdef TK_HAVE_LIBDEFLATE

struct ucir_inflater {
    struct libdeflate_decompressor *d;
};

ucir_inflater *ucir_inflater_new(void)
{
    ucir_inflater *z = calloc(1, sizeof *z);
    if (z && !(z->d = libdeflate_alloc_decompressor())) {
        free(z);
        z = NULL;
    }
    return z;
}

void ucir_inflater_free(ucir_inflater *z)
{
    if (z)
        libdeflate_free_decompressor(z->d);
    free(z);
}

int ucir_inflate(ucir_inflater *z, const uint8_t *src, size_t n, uint8_t **buf, size_t *cap,
                 size_t *out, uint64_t limit, size_t *trailing)
{
    /* libdeflate needs the whole output space up front: start from the
     * buffer we have (frames of one trace are alike) and double on
     * LIBDEFLATE_INSUFFICIENT_SPACE up to the limit. */
    size_t want = *cap;
    if (want < MIN_GUESS)
        want = MIN_GUESS;
    if (want / 4 < n && n < SIZE_MAX / 4)
        want = n * 4;
    for (;;) {
        if (want > limit)
            want = (size_t)limit;
        if (want > *cap && grow(buf, cap, want) != 0)
            return UCIR_Z_NOMEM;
        size_t in_used = 0, got = 0;
        enum libdeflate_result r =
            libdeflate_zlib_decompress_ex(z->d, src, n, *buf, *cap, &in_used, &got);
        if (r == LIBDEFLATE_SUCCESS) {
            memset(*buf + got, 0, UCIR_SLACK);
            *out = got;
            *trailing = n - in_used;
            return in_used < n ? UCIR_Z_TRAILING : UCIR_Z_OK;
        }
        if (r != LIBDEFLATE_INSUFFICIENT_SPACE)
            return UCIR_Z_CORRUPT;
        if (*cap >= limit)
            return UCIR_Z_TOO_BIG;
        want = *cap > SIZE_MAX / 2 ? SIZE_MAX : *cap * 2;
    }
}

struct ucir_deflater {
    struct libdeflate_compressor *c;
};

ucir_deflater *ucir_deflater_new(int level)
{
    ucir_deflater *z = calloc(1, sizeof *z);
    if (z && !(z->c = libdeflate_alloc_compressor(level))) {
        free(z);
        z = NULL;
    }
    return z;
}

void ucir_deflater_free(ucir_deflater *z)
{
    if (z)
        libdeflate_free_compressor(z->c);
    free(z);
}

size_t ucir_deflate(ucir_deflater *z, const uint8_t *src, size_t n, uint8_t **buf, size_t *cap)
{
    size_t bound = libdeflate_zlib_compress_bound(z->c, n);
    if (bound > *cap && grow(buf, cap, bound) != 0)
        return 0;
    return libdeflate_zlib_compress(z->c, src, n, *buf, *cap);
}

const char *ucir_zlib_library(void) { return "libdeflate " LIBDEFLATE_VERSION_STRING; }

#else /* zlib */

struct ucir_inflater {
    z_stream s;
};

ucir_inflater *ucir_inflater_new(void)
{
    ucir_inflater *z = calloc(1, sizeof *z);
    if (z && inflateInit(&z->s) != Z_OK) {
        free(z);
        z = NULL;
    }
    return z;
}

void ucir_inflater_free(ucir_inflater *z)
{
    if (z)
        inflateEnd(&z->s);
    free(z);
}

int ucir_inflate(ucir_inflater *z, const uint8_t *src, size_t n, uint8_t **buf, size_t *cap,
                 size_t *out, uint64_t limit, size_t *trailing)
{
    z_stream *s = &z->s;
    if (inflateReset(s) != Z_OK)
        return UCIR_Z_CORRUPT;
    size_t in_done = 0, got = 0;
    for (;;) {
        if (got == *cap) {
            if (*cap > limit)
                return UCIR_Z_TOO_BIG;
            size_t want = *cap < MIN_GUESS ? MIN_GUESS : *cap * 2;
            if (want > limit + 1) /* one byte past the limit tells "too big" */
                want = (size_t)limit + 1;
            if (grow(buf, cap, want) != 0)
                return UCIR_Z_NOMEM;
        }
        /* avail_* are 32-bit: feed at most 1 GiB at a time */
        size_t in_chunk = n - in_done < ((size_t)1 << 30) ? n - in_done : (size_t)1 << 30;
        size_t out_chunk = *cap - got < ((size_t)1 << 30) ? *cap - got : (size_t)1 << 30;
        s->next_in = (Bytef *)(uintptr_t)(src + in_done);
        s->avail_in = (uInt)in_chunk;
        s->next_out = *buf + got;
        s->avail_out = (uInt)out_chunk;
        int r = inflate(s, Z_NO_FLUSH);
        in_done += in_chunk - s->avail_in;
        got += out_chunk - s->avail_out;
        if (got > limit)
            return UCIR_Z_TOO_BIG;
        if (r == Z_STREAM_END) {
            memset(*buf + got, 0, UCIR_SLACK);
            *out = got;
            *trailing = n - in_done;
            return in_done < n ? UCIR_Z_TRAILING : UCIR_Z_OK;
        }
        if (r == Z_BUF_ERROR && in_done == n)
            return UCIR_Z_CORRUPT; /* the stream stops early */
        if (r != Z_OK && r != Z_BUF_ERROR)
            return UCIR_Z_CORRUPT;
    }
}

struct ucir_deflater {
    z_stream s;
};

ucir_deflater *ucir_deflater_new(int level)
{
    ucir_deflater *z = calloc(1, sizeof *z);
    if (z && deflateInit(&z->s, level) != Z_OK) {
        free(z);
        z = NULL;
    }
    return z;
}

void ucir_deflater_free(ucir_deflater *z)
{
    if (z)
        deflateEnd(&z->s);
    free(z);
}

size_t ucir_deflate(ucir_deflater *z, const uint8_t *src, size_t n, uint8_t **buf, size_t *cap)
{
    z_stream *s = &z->s;
    if (n > 0xFFFFFFFFu || deflateReset(s) != Z_OK)
        return 0;
    size_t bound = deflateBound(s, (uLong)n);
    if (bound > *cap && grow(buf, cap, bound) != 0)
        return 0;
    s->next_in = (Bytef *)(uintptr_t)src;
    s->avail_in = (uInt)n;
    s->next_out = *buf;
    s->avail_out = (uInt)(*cap > 0xFFFFFFFFu ? 0xFFFFFFFFu : *cap);
    if (deflate(s, Z_FINISH) != Z_STREAM_END)
        return 0;
    return (size_t)s->total_out;
}

const char *ucir_zlib_library(void) { return "zlib " ZLIB_VERSION; }

#endif
