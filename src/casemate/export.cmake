# casemate's mappings to the shared encoders (src/export/).
list(APPEND TK_EXPORT_SOURCES src/casemate/perfetto.c src/casemate/perfetto_events.c
     src/casemate/perfetto_check.c src/casemate/export_check.c)
list(APPEND TK_EXPORT_SOURCES src/casemate/parquet.c src/casemate/parquet_check.c)
list(APPEND TK_EXPORT_SOURCES src/casemate/html.c src/casemate/html_collect.c
     src/casemate/html_card.c src/casemate/html_locks.c src/casemate/html_timeline.c
     src/casemate/html_tree.c)
