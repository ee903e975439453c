# cacheray's mappings to the shared encoders (src/export/).
list(APPEND TK_EXPORT_SOURCES src/cacheray/perfetto.c src/cacheray/perfetto_regions.c
  src/cacheray/perfetto_counters.c)
