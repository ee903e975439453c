# Cacheray cache simulator: library sources and the `tracekit cachesim` command.
set(TK_CACHESIM_SOURCES
  src/cacheray/linemap.c src/cacheray/cache.c src/cacheray/shadow.c src/cacheray/hierarchy.c
  src/cacheray/stream.c
  src/cacheray/toplevel.c
  src/cacheray/regions.c src/cacheray/types.c src/cacheray/threads.c
  src/cacheray/falseshare.c src/cacheray/reuse.c src/cacheray/sim_config.c
  src/cacheray/sim.c src/cacheray/sim_select.c src/cacheray/sim_report.c)
set(TK_CLI_CACHESIM_SOURCES src/cli/cachesim.c)

# On x86-64, the first level's fast pass also in an AVX2 build, chosen at
# run time (toplevel.c) when the CPU has AVX2.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" AND
   CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  list(APPEND TK_CACHESIM_SOURCES src/cacheray/toplevel_avx2.c)
  set_source_files_properties(src/cacheray/toplevel_avx2.c PROPERTIES COMPILE_OPTIONS -mavx2)
  set_source_files_properties(src/cacheray/toplevel.c PROPERTIES COMPILE_DEFINITIONS TK_CACHESIM_AVX2)
endif()
