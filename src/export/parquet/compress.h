/* Page compression (Compression.md): the page body is fed as is to the
 * codec, no framing. ZSTD through libzstd, SNAPPY through libsnappy's C
 * API when tracekit was built with it (TK_HAVE_SNAPPY), or none. */
#ifndef TK_EXPORT_PARQUET_COMPRESS_H
#define TK_EXPORT_PARQUET_COMPRESS_H

#include <stddef.h>

#include <tracekit/error.h>

#include "export/parquet/pq_buf.h"

typedef struct tk_pq_compressor tk_pq_compressor;

/* `codec` is a tk_pq_codec (parquet.h), `level` zstd's (0: its default).
 * NULL with TK_EUNSUPPORTED for SNAPPY in a build without Snappy, or
 * TK_ENOMEM. */
tk_pq_compressor *tk_pq_compressor_new(int codec, int level, tk_error *err);
void tk_pq_compressor_free(tk_pq_compressor *c);
/* Replace `dst`'s contents by `src` compressed: 0, or -1 with `err`
 * (TK_ENOMEM, or TK_EIO when the codec fails). UNCOMPRESSED copies. */
int tk_pq_compress(tk_pq_compressor *c, const void *src, size_t n, tk_pq_buf *dst,
                   tk_error *err);
/* Parquet's CompressionCodec number of the codec. */
int tk_pq_compressor_thrift_codec(const tk_pq_compressor *c);

#endif
