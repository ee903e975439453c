# Cacheray on a Perfetto timeline (docs/formats/cacheray.md, "Perfetto
# timeline"): each trace converted, checked by check.py, then by
# compare_cacheray.py against tracekit's own dump, info, report and
# cachesim on the same trace. Included by tests/perfetto/CMakeLists.txt.
set(TK_PF_CR_RUN ${CMAKE_CURRENT_SOURCE_DIR}/run_check.sh)
set(TK_PF_CR_COMPARE ${CMAKE_CURRENT_SOURCE_DIR}/compare_cacheray.py)
set(TK_PF_CR_SEEDS ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/cacheray)

# perfetto.cacheray.NAME: TRACE converted with the convert arguments after it.
function(tk_pf_cacheray_test name trace)
  add_test(NAME perfetto.cacheray.${name}
           COMMAND sh ${TK_PF_CR_RUN} $<TARGET_FILE:tracekit> ${TK_PERFETTO_PROTO}
                   ${TK_PF_CR_COMPARE} ${trace} ${ARGN})
  set_tests_properties(perfetto.cacheray.${name} PROPERTIES SKIP_RETURN_CODE 77
                       LABELS perfetto TIMEOUT 120)
endfunction()

# Every example (heap-be.trace: big-endian), as is, with small windows and
# with the simulator (cachesim's default hierarchy, and -l levels).
file(GLOB tk_pf_cr_examples ${PROJECT_SOURCE_DIR}/examples/cacheray/*.trace)
foreach(trace ${tk_pf_cr_examples})
  get_filename_component(name ${trace} NAME_WE)
  tk_pf_cacheray_test(example.${name} ${trace})
  tk_pf_cacheray_test(example.${name}.window7.cachesim ${trace} --window 7 --cachesim)
  tk_pf_cacheray_test(example.${name}.levels ${trace} --window 50 -l L1:1K:2:64
                      -l L2:4K:4:64:fifo)
endforeach()
set(tk_pf_cr_heap ${PROJECT_SOURCE_DIR}/examples/cacheray/heap.trace)
tk_pf_cacheray_test(example.heap.range ${tk_pf_cr_heap} --range 100:300 --window 16)
tk_pf_cacheray_test(example.heap.thread ${tk_pf_cr_heap} --thread 1001 -l L1:512:2:32)
tk_pf_cacheray_test(example.heap.addr ${tk_pf_cr_heap} --window 3
                    --addr 0x5555555a0000+20000 --cachesim)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/cacheray-levels.json
     "{\"levels\": [{\"name\": \"L1\", \"size\": \"1K\", \"ways\": 2, \"line\": 64},
  {\"name\": \"L2\", \"size\": \"8K\", \"ways\": \"full\", \"line\": 128}]}\n")
tk_pf_cacheray_test(example.heap.config ${tk_pf_cr_heap} --window 20
                    --config ${CMAKE_CURRENT_BINARY_DIR}/cacheray-levels.json)

# The fuzz seeds that are whole traces: every record kind and flag, many
# threads and types, both byte orders, regions removed, overlapped, empty,
# wrapping and never added (le-warnings), odd type names (invalid UTF-8
# becomes U+FFFD as in dump --json). Some need --format: no probe takes them.
foreach(seed every-type many-threads-types mix-6k warnings one-read one-rtta-add
             one-rtta-remove one-write-flags)
  foreach(order le be)
    tk_pf_cacheray_test(seed.${order}-${seed} ${TK_PF_CR_SEEDS}/${order}-${seed}
                        --window 3 -l L1:1K:2:64)
  endforeach()
endforeach()
tk_pf_cacheray_test(seed.le-mix-6k.default ${TK_PF_CR_SEEDS}/le-mix-6k)
tk_pf_cacheray_test(seed.le-name-ends-file ${TK_PF_CR_SEEDS}/le-name-ends-file)
tk_pf_cacheray_test(seed.be-ambiguous ${TK_PF_CR_SEEDS}/be-ambiguous --cachesim)
foreach(seed le-names be-names le-extreme-values be-extreme-values le-rtta-add-empty-name
             be-rtta-add-empty-name zeros-4-reads)
  tk_pf_cacheray_test(seed.${seed} ${TK_PF_CR_SEEDS}/${seed} --format cacheray --window 2
                      -l L1:1K:full:64)
endforeach()

# ../shared's corpus (skipped without it).
foreach(name bubble-sort struct-test)
  set(trace ${TK_SHARED_DIR}/corpus/cacheray/${name}.trace)
  tk_pf_cacheray_test(corpus.${name} ${trace})
  tk_pf_cacheray_test(corpus.${name}.levels ${trace} --window 1000 -l L1:1K:2:64
                      -l L2:8K:4:64:plru)
endforeach()

# --max-tracks: a small trace past the caps (lanes per type, threads with
# counters of their own), its counters checked value by value.
add_test(NAME perfetto.cacheray.max_tracks
         COMMAND ${TK_DEBIAN_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cacheray_caps.py
                 $<TARGET_FILE:tracekit> ${TK_PERFETTO_PROTO}
                 ${CMAKE_CURRENT_SOURCE_DIR}/check.py ${CMAKE_CURRENT_BINARY_DIR}/cacheray-caps)
set_tests_properties(perfetto.cacheray.max_tracks PROPERTIES SKIP_RETURN_CODE 77
                     LABELS perfetto TIMEOUT 120)

# Options refused with a usage error (exit 2), without ../shared.
add_test(NAME perfetto.cacheray.options
         COMMAND sh -c "t=$0 f=$1 out=$2
           for args in '--window 0' '--window x' '--config c.json -l L1:1K:2:64' \
                       '-l L1:1K:3:64' '--to jsonl --window 5' '--to cacheray --cachesim' \
                       '--max-tracks x' '--to jsonl --max-tracks 5'; do
             \"$t\" convert --to perfetto $args \"$f\" -o \"$out\" 2>/dev/null
             rc=$?
             [ $rc = 2 ] || { echo \"FAIL: convert $args exited $rc, not 2\"; exit 1; }
           done
           [ ! -e \"$out\" ] || { echo 'FAIL: a refused convert left its output'; exit 1; }
           echo PASS"
           $<TARGET_FILE:tracekit> ${tk_pf_cr_heap}
           ${CMAKE_CURRENT_BINARY_DIR}/cacheray-refused.pftrace)
set_tests_properties(perfetto.cacheray.options PROPERTIES LABELS perfetto TIMEOUT 60)
