# UCIR's report --html (docs/formats/ucir.md, "HTML report"), both layouts:
# every example, a .uc trace (compare_ucir.py --make-uc: two code regions,
# map, protect and unmap in syscalls, a failed syscall) and tk-gen-ucir's
# spec trace of several frames with later keyframes (skipped, as the
# replay skips them), and hello.ucir with an architecture capstone has no
# decoder for (the page degrades: bytes, no disassembly). ucir_check.sh checks each page against report, info
# and dump --json and sorts a table. Included by tests/html/CMakeLists.txt.
set(TK_HTML_UC_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/ucir_check.sh)
set(TK_HTML_UC_DIR ${CMAKE_CURRENT_BINARY_DIR}/ucir)

function(tk_html_ucir_test name trace)
  add_test(NAME html.ucir.${name}
           COMMAND sh ${TK_HTML_UC_CHECK} $<TARGET_FILE:tracekit> ${TK_HTML_NODE_DIR} ${trace}
                   ${ARGN})
  set_tests_properties(html.ucir.${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS html
                       TIMEOUT 300)
endfunction()

file(GLOB tk_html_uc_examples ${PROJECT_SOURCE_DIR}/examples/ucir/*.ucir)
foreach(trace ${tk_html_uc_examples})
  get_filename_component(name ${trace} NAME_WE)
  tk_html_ucir_test(example.${name} ${trace})
endforeach()

add_test(NAME html.ucir.make
         COMMAND sh -c "mkdir -p '${TK_HTML_UC_DIR}' && py=/usr/bin/python3 && \
{ [ -x $py ] || py=python3; } && \
$py '${PROJECT_SOURCE_DIR}/tests/perfetto/compare_ucir.py' --make-uc '${TK_HTML_UC_DIR}/demo.uc' && \
'$<TARGET_FILE:tk-gen-ucir>' --bytes 600K --frame-bytes 64K --keyframe-every 3 \
  -o '${TK_HTML_UC_DIR}/gen.ucir' && \
$py -c \"import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[8:12] = (99).to_bytes(4, 'big'); \
open(sys.argv[2], 'wb').write(d)\" '${PROJECT_SOURCE_DIR}/examples/ucir/hello.ucir' \
  '${TK_HTML_UC_DIR}/noarch.ucir'")
set_tests_properties(html.ucir.make PROPERTIES FIXTURES_SETUP tk_html_ucir LABELS html
                     TIMEOUT 120)
tk_html_ucir_test(uc ${TK_HTML_UC_DIR}/demo.uc)
tk_html_ucir_test(gen ${TK_HTML_UC_DIR}/gen.ucir)
tk_html_ucir_test(nodisasm ${TK_HTML_UC_DIR}/noarch.ucir --no-disasm)
set_tests_properties(html.ucir.uc html.ucir.gen html.ucir.nodisasm PROPERTIES
                     FIXTURES_REQUIRED tk_html_ucir)

# The report is the whole replay's: a selection is refused, as by report,
# and no page is written.
add_test(NAME html.ucir.selection
         COMMAND sh -c "'$<TARGET_FILE:tracekit>' report --html --range 1:5 \
-o '${TK_HTML_UC_DIR}/sel.html' '${PROJECT_SOURCE_DIR}/examples/ucir/hello.ucir' \
2>'${TK_HTML_UC_DIR}/sel.err'; [ $? = 2 ] && \
grep -q 'summarises the whole replay' '${TK_HTML_UC_DIR}/sel.err' && \
[ ! -e '${TK_HTML_UC_DIR}/sel.html' ]")
set_tests_properties(html.ucir.selection PROPERTIES LABELS html FIXTURES_REQUIRED tk_html_ucir)
