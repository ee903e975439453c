# Cacheray struct layouts (DWARF through libdw, dwarf2json files).
# layout.c: the table, loading and lookups; layout_dwarf.c (walking the
# DIE tree, with layout_die.c reading member places and sizes) and
# layout_json.c: the two loaders.
set(TK_CACHERAY_LAYOUT_SOURCES
  src/cacheray/layout/layout.c src/cacheray/layout/layout_dwarf.c src/cacheray/layout/layout_die.c
  src/cacheray/layout/layout_json.c)
