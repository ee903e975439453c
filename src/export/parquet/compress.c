/* Page compression (compress.h). */
#include "export/parquet/compress.h"

#include <stdlib.h>
#include <zstd.h>
#ifdef TK_HAVE_SNAPPY
#include <snappy-c.h>
#endif

#include "export/parquet/pq_int.h"

struct tk_pq_compressor {
    int codec;
    int level;
    ZSTD_CCtx *zstd;
};

tk_pq_compressor *tk_pq_compressor_new(int codec, int level, tk_error *err)
{
#ifndef TK_HAVE_SNAPPY
    if (codec == TK_PQ_SNAPPY) {
        tk_error_set(err, TK_EUNSUPPORTED, TK_NO_OFFSET, TK_NO_RECORD,
                     "Parquet: this tracekit was built without Snappy");
        return NULL;
    }
#endif
    if (codec != TK_PQ_ZSTD && codec != TK_PQ_SNAPPY && codec != TK_PQ_UNCOMPRESSED) {
        tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                     "Parquet: unknown compression codec %d", codec);
        return NULL;
    }
    tk_pq_compressor *c = calloc(1, sizeof *c);
    if (c && codec == TK_PQ_ZSTD && !(c->zstd = ZSTD_createCCtx())) {
        free(c);
        c = NULL;
    }
    if (!c) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    c->codec = codec;
    c->level = level ? level : TK_PQ_ZSTD_LEVEL;
    return c;
}

void tk_pq_compressor_free(tk_pq_compressor *c)
{
    if (!c)
        return;
    ZSTD_freeCCtx(c->zstd);
    free(c);
}

int tk_pq_compressor_thrift_codec(const tk_pq_compressor *c)
{
    switch (c->codec) {
    case TK_PQ_ZSTD: return 6;
    case TK_PQ_SNAPPY: return 1;
    default: return 0;
    }
}

static int oom(tk_error *err) { return tk_pq_err(err, TK_ENOMEM, "out of memory"); }

int tk_pq_compress(tk_pq_compressor *c, const void *src, size_t n, tk_pq_buf *dst,
                   tk_error *err)
{
    dst->len = 0;
    if (c->codec == TK_PQ_ZSTD) {
        size_t bound = ZSTD_compressBound(n);
        if (tk_pq_buf_reserve(dst, bound) != 0)
            return oom(err);
        size_t r = ZSTD_compressCCtx(c->zstd, dst->p, bound, src, n, c->level);
        if (ZSTD_isError(r))
            return tk_pq_err(err, TK_EIO, "Parquet: zstd: %s", ZSTD_getErrorName(r));
        dst->len = r;
        return 0;
    }
#ifdef TK_HAVE_SNAPPY
    if (c->codec == TK_PQ_SNAPPY) {
        size_t out = snappy_max_compressed_length(n);
        if (tk_pq_buf_reserve(dst, out) != 0)
            return oom(err);
        if (snappy_compress(src, n, (char *)dst->p, &out) != SNAPPY_OK)
            return tk_pq_err(err, TK_EIO, "Parquet: snappy compression failed");
        dst->len = out;
        return 0;
    }
#endif
    tk_pq_buf_put(dst, src, n);
    return dst->oom ? oom(err) : 0;
}
