# xray's mappings to the shared encoders (src/export/).
list(APPEND TK_EXPORT_SOURCES src/xray/perfetto.c src/xray/perfetto_names.c)
list(APPEND TK_EXPORT_SOURCES src/xray/parquet.c src/xray/parquet_calls.c)
list(APPEND TK_EXPORT_SOURCES src/xray/html.c src/xray/html_collect.c src/xray/html_flame.c
  src/xray/html_tables.c src/xray/html_timeline.c src/xray/html_edges.c)
