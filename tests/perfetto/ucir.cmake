# UCIR on a Perfetto timeline (docs/formats/ucir.md, "Perfetto timeline"):
# each trace converted, checked by check.py, then by compare_ucir.py
# against tracekit's own report, info and dump of the same trace. Both
# layouts: the spec's example and a generated multi-keyframe trace, and a
# .uc trace that compare_ucir.py writes. Included by
# tests/perfetto/CMakeLists.txt.
set(TK_PF_UC_RUN ${CMAKE_CURRENT_SOURCE_DIR}/run_check.sh)
set(TK_PF_UC_COMPARE ${CMAKE_CURRENT_SOURCE_DIR}/compare_ucir.py)
set(TK_PF_UC_DIR ${CMAKE_CURRENT_BINARY_DIR}/ucir)

# perfetto.ucir.NAME: TRACE converted with the convert arguments after it.
function(tk_pf_ucir_test name trace)
  add_test(NAME perfetto.ucir.${name}
           COMMAND sh ${TK_PF_UC_RUN} $<TARGET_FILE:tracekit> ${TK_PERFETTO_PROTO}
                   ${TK_PF_UC_COMPARE} ${trace} ${ARGN})
  set_tests_properties(perfetto.ucir.${name} PROPERTIES SKIP_RETURN_CODE 77
                       LABELS perfetto TIMEOUT 300)
endfunction()

file(GLOB tk_pf_uc_examples ${PROJECT_SOURCE_DIR}/examples/ucir/*.ucir)
foreach(trace ${tk_pf_uc_examples})
  get_filename_component(name ${trace} NAME_WE)
  tk_pf_ucir_test(example.${name} ${trace})
  tk_pf_ucir_test(example.${name}.window4 ${trace} --window 4)
endforeach()

# The traces the tests make: a .uc trace (two code regions, map, protect
# and unmap in syscalls, named and unnamed syscalls, a trailing EXIT) and a
# spec trace of several frames with later keyframes (skipped, as the
# replay skips them), by tk-gen-ucir.
add_test(NAME perfetto.ucir.make
         COMMAND sh -c "mkdir -p '${TK_PF_UC_DIR}' && py=/usr/bin/python3 && \
{ [ -x $py ] || py=python3; } && $py '${TK_PF_UC_COMPARE}' --make-uc '${TK_PF_UC_DIR}/demo.uc' && \
'$<TARGET_FILE:tk-gen-ucir>' --bytes 600K --frame-bytes 64K --keyframe-every 3 \
  -o '${TK_PF_UC_DIR}/gen.ucir'")
set_tests_properties(perfetto.ucir.make PROPERTIES FIXTURES_SETUP tk_pf_ucir LABELS perfetto
                     TIMEOUT 120)
foreach(t uc uc.window1000 gen gen.window777)
  string(REGEX REPLACE "\\..*" "" base ${t})
  string(REGEX MATCH "[0-9]+$" w ${t})
  set(file ${TK_PF_UC_DIR}/demo.uc)
  if(base STREQUAL "gen")
    set(file ${TK_PF_UC_DIR}/gen.ucir)
  endif()
  if(w)
    tk_pf_ucir_test(${t} ${file} --window ${w})
  else()
    tk_pf_ucir_test(${t} ${file})
  endif()
  set_tests_properties(perfetto.ucir.${t} PROPERTIES FIXTURES_REQUIRED tk_pf_ucir)
endforeach()

# The shared corpus's UCIR and .uc traces, found when the test runs; it
# skips when there are none (or no ../shared).
add_test(NAME perfetto.ucir.corpus
         COMMAND sh -c "n=0; for f in '${TK_SHARED_DIR}'/corpus/ucir/*.ucir \
'${TK_SHARED_DIR}'/corpus/ucir/*.uc '${TK_SHARED_DIR}'/corpus/usercorn/*.uc; do \
[ -f \"$f\" ] || continue; n=$((n+1)); \
sh '${TK_PF_UC_RUN}' '$<TARGET_FILE:tracekit>' '${TK_PERFETTO_PROTO}' '${TK_PF_UC_COMPARE}' \"$f\" \
|| exit $?; done; [ $n -gt 0 ] || { echo 'SKIP: no UCIR traces in the corpus'; exit 77; }")
set_tests_properties(perfetto.ucir.corpus PROPERTIES SKIP_RETURN_CODE 77 LABELS perfetto
                     TIMEOUT 600)
