# cacheray's mappings to the shared encoders (src/export/).
list(APPEND TK_EXPORT_SOURCES src/cacheray/perfetto.c src/cacheray/perfetto_regions.c
  src/cacheray/perfetto_counters.c)
list(APPEND TK_EXPORT_SOURCES src/cacheray/parquet.c src/cacheray/parquet_regions.c
  src/cacheray/parquet_sort.c)
list(APPEND TK_EXPORT_SOURCES src/cacheray/html.c src/cacheray/html_collect.c
  src/cacheray/html_levels.c src/cacheray/html_tables.c src/cacheray/html_sharing.c
  src/cacheray/html_reuse.c)
