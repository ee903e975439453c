# Cacheray cache simulator: library sources and the `tracekit cachesim` command.
set(TK_CACHESIM_SOURCES
  src/cacheray/linemap.c src/cacheray/cache.c src/cacheray/falru.c src/cacheray/hierarchy.c
  src/cacheray/regions.c src/cacheray/types.c src/cacheray/threads.c
  src/cacheray/falseshare.c src/cacheray/reuse.c src/cacheray/sim_config.c
  src/cacheray/sim.c src/cacheray/sim_report.c)
set(TK_CLI_CACHESIM_SOURCES src/cli/cachesim.c)
