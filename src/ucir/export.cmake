# ucir's mappings to the shared encoders (src/export/).
list(APPEND TK_EXPORT_SOURCES src/ucir/perfetto.c src/ucir/perfetto_events.c
  src/ucir/perfetto_code.c src/ucir/perfetto_syscalls.c)
