# Cacheray cache simulator: the library's sources (the `tracekit cachesim`
# command is Cacheray's, in src/cacheray/cmd/).
set(TK_CACHESIM_SOURCES
  src/cacheray/sim/linemap.c src/cacheray/sim/cache.c src/cacheray/sim/shadow.c src/cacheray/sim/hierarchy.c
  src/cacheray/sim/stream.c src/cacheray/sim/queue3c.c src/cacheray/sim/pipe.c
  src/cacheray/sim/split3c.c
  src/cacheray/sim/toplevel.c
  src/cacheray/sim/regions.c src/cacheray/sim/types.c src/cacheray/sim/threads.c
  src/cacheray/sim/falseshare.c src/cacheray/sim/reuse.c src/cacheray/sim/sim_config.c
  src/cacheray/sim/sim.c src/cacheray/sim/sim_select.c src/cacheray/sim/sim_report.c)

# On x86-64, the fast passes of the first level and of the levels below
# also in an AVX2 build, chosen at run time (toplevel.c, stream.c) when
# the CPU has AVX2.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" AND
   CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  list(APPEND TK_CACHESIM_SOURCES src/cacheray/sim/toplevel_avx2.c src/cacheray/sim/stream_avx2.c)
  set_source_files_properties(src/cacheray/sim/toplevel_avx2.c src/cacheray/sim/stream_avx2.c
                              PROPERTIES COMPILE_OPTIONS -mavx2)
  set_source_files_properties(src/cacheray/sim/toplevel.c src/cacheray/sim/stream.c
                              PROPERTIES COMPILE_DEFINITIONS TK_CACHESIM_AVX2)
endif()
