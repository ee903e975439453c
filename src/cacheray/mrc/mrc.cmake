# Cacheray miss-ratio curves (include/tracekit/cacheray_mrc.h): the
# engine's sources (the `tracekit mrc` command is src/cacheray/cmd/mrc.c).
set(TK_CACHERAY_MRC_SOURCES
  src/cacheray/mrc/map.c src/cacheray/mrc/stack.c src/cacheray/mrc/hist.c
  src/cacheray/mrc/shards.c src/cacheray/mrc/mini.c src/cacheray/mrc/mrc.c
  src/cacheray/mrc/run.c src/cacheray/mrc/points.c src/cacheray/mrc/output.c
  src/cacheray/mrc/svg.c)
