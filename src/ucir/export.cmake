# ucir's mappings to the shared encoders (src/export/).
list(APPEND TK_EXPORT_SOURCES src/ucir/perfetto.c src/ucir/perfetto_events.c
  src/ucir/perfetto_code.c src/ucir/perfetto_syscalls.c src/ucir/regions.c)
list(APPEND TK_EXPORT_SOURCES src/ucir/parquet.c src/ucir/parquet_rows.c
  src/ucir/parquet_code.c)
list(APPEND TK_EXPORT_SOURCES src/ucir/html.c src/ucir/html_collect.c src/ucir/html_events.c
  src/ucir/html_code.c)
