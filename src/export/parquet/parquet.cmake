# The Parquet writer (src/export/parquet/): tracekit's own, from the
# specification (docs/architecture.md, "Parquet writer"). ZSTD pages need
# libzstd; Snappy comes with the UCIR reader's (TK_HAVE_SNAPPY).
list(APPEND TK_EXPORT_SOURCES
  src/export/parquet/writer.c src/export/parquet/column.c src/export/parquet/page.c
  src/export/parquet/stats.c src/export/parquet/footer.c src/export/parquet/thrift_compact.c
  src/export/parquet/rle.c src/export/parquet/delta.c src/export/parquet/dict.c
  src/export/parquet/compress.c src/export/parquet/tables.c)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
list(APPEND TK_EXPORT_LIBS PkgConfig::ZSTD)
