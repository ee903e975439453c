# XRay's report --html (docs/formats/xray.md, "HTML report"): every example,
# programs recorded now named by -m, a selection, and the size bound on a
# big generated trace. Included by tests/html/CMakeLists.txt.
set(TK_HTML_XR_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/xray_check.sh)

# html.xray.NAME: TRACE's page checked against its --json outputs, with the
# report options after it (the same given to each command).
function(tk_html_xray_test name trace)
  add_test(NAME html.xray.${name}
           COMMAND sh ${TK_HTML_XR_CHECK} $<TARGET_FILE:tracekit> ${TK_HTML_NODE_DIR}
                   ${trace} ${ARGN})
  set_tests_properties(html.xray.${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS html
                       TIMEOUT 300)
endfunction()

file(GLOB tk_html_xr_traces ${PROJECT_SOURCE_DIR}/examples/xray/*.xray)
foreach(trace ${tk_html_xr_traces})
  get_filename_component(name ${trace} NAME_WE)
  tk_html_xray_test(example.${name} ${trace})
endforeach()
tk_html_xray_test(example.fdr-v5.thread ${PROJECT_SOURCE_DIR}/examples/xray/fdr-v5.xray
                  --thread 2524)
tk_html_xray_test(yaml.shapes ${PROJECT_SOURCE_DIR}/tests/perfetto/xray_shapes.yaml)

# examples/xray/demo.c and a C++ program (names with <, >, &) recorded
# with clang -fxray-instrument, checked with -m and without.
add_test(NAME html.xray.recorded
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/xray_recorded.sh $<TARGET_FILE:tracekit>
                 ${TK_HTML_NODE_DIR} ${PROJECT_SOURCE_DIR} "${TK_CLANG}" "${TK_CLANGXX}")
set_tests_properties(html.xray.recorded PROPERTIES SKIP_RETURN_CODE 77 LABELS html
                     TIMEOUT 300)

# The bound: a trace of many functions, threads and call paths makes a page
# of at most 5 MB that still loads cleanly and matches --json.
add_test(NAME html.xray.size
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/xray_size.sh $<TARGET_FILE:tracekit>
                 $<TARGET_FILE:tk-gen-xray> ${TK_HTML_NODE_DIR})
set_tests_properties(html.xray.size PROPERTIES SKIP_RETURN_CODE 77 LABELS html TIMEOUT 600)
