# The HTML report page (src/export/html/): the encoder every format's
# report --html writes through (src/<format>/html*.c).
list(APPEND TK_EXPORT_SOURCES
  src/export/html/page.c src/export/html/escape.c src/export/html/table.c
  src/export/html/svg.c src/export/html/bars.c src/export/html/lines.c
  src/export/html/histogram.c src/export/html/timeline.c src/export/html/flame.c
  src/export/html/tree.c src/export/html/css.c src/export/html/js.c)
