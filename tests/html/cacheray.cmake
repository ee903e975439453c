# Cacheray's report --html (docs/formats/cacheray.md, "HTML report"):
# every example, selections, hierarchies given with -l, per-field tables
# with -g (the cachesim tests' DWARF fixture), the original tool's samples
# from ${TK_SHARED_DIR} (skipped when absent) and a generated trace of
# several threads and types. Each page is checked by check.mjs against
# report --json and cachesim --reuse --json with the same options (and a
# table sorted), then by cacheray_check.py (misses per level, windows, the
# miss-ratio curve). Included by tests/html/CMakeLists.txt.
set(TK_HTML_CR_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/cacheray_check.sh)
# tests/cachesim's fixture: built with the tests (target cachesim_fixture)
set(TK_HTML_CR_FIXTURE ${PROJECT_BINARY_DIR}/tests/cachesim/fixture_structs)

# html.cacheray.NAME: TRACE's page (or --gen 'PROGRAM ARGS'), the options
# after it given to every command.
function(tk_html_cacheray_test name trace)
  add_test(NAME html.cacheray.${name}
           COMMAND sh ${TK_HTML_CR_CHECK} $<TARGET_FILE:tracekit> ${TK_HTML_NODE_DIR}
                   ${trace} ${ARGN})
  set_tests_properties(html.cacheray.${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS html
                       TIMEOUT 300)
endfunction()

file(GLOB tk_html_cr_traces ${PROJECT_SOURCE_DIR}/examples/cacheray/*.trace)
foreach(trace ${tk_html_cr_traces})
  get_filename_component(name ${trace} NAME_WE)
  tk_html_cacheray_test(example.${name} ${trace})
endforeach()
set(tk_html_cr_heap ${PROJECT_SOURCE_DIR}/examples/cacheray/heap.trace)
tk_html_cacheray_test(example.heap.selection ${tk_html_cr_heap} --thread 1001,1002
                      --range 40:)
tk_html_cacheray_test(example.heap.levels ${tk_html_cr_heap} -l L1:2K:full:64
                      -l L2:8K:4:64:fifo -l L3:64K:8:128:random)

# tk-cachesim-mktrace's two-thread trace: false sharing, an untyped
# access, a struct the fixture's DWARF lays out
set(tk_html_cr_shared "$<TARGET_FILE:tk-cachesim-mktrace> shared")
tk_html_cacheray_test(shared.fields --gen ${tk_html_cr_shared} -l L1:1K:2:64 -l L2:4K:4:64
                      -g ${TK_HTML_CR_FIXTURE})
tk_html_cacheray_test(shared.thread --gen ${tk_html_cr_shared} --thread 2
                      -g ${TK_HTML_CR_FIXTURE})

foreach(sample bubble-sort struct-test)
  tk_html_cacheray_test(corpus.${sample} ${TK_SHARED_DIR}/corpus/cacheray/${sample}.trace)
endforeach()
tk_html_cacheray_test(corpus.bubble-sort.range
                      ${TK_SHARED_DIR}/corpus/cacheray/bubble-sort.trace --range 1000:9000
                      -l L1:1K:4:32)

# many records, 8 threads, every type the generator writes: windows merged
# many times, and the page still far under 5 MB
tk_html_cacheray_test(generated
                      --gen "$<TARGET_FILE:tk-gen-cacheray> --bytes 24M --threads 8 --seed 7")
