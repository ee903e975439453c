# casemate's mappings to the shared encoders (src/export/).
list(APPEND TK_EXPORT_SOURCES src/casemate/perfetto.c src/casemate/perfetto_events.c
     src/casemate/perfetto_check.c)
