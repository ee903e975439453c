# xray's mappings to the shared encoders (src/export/).
list(APPEND TK_EXPORT_SOURCES src/xray/perfetto.c src/xray/perfetto_names.c)
