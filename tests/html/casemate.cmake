# casemate's report --html (docs/formats/casemate.md, "HTML report"): every
# example, logs made here (a violation beside collapsed subtrees, a lock
# violation with its taker, a log the model gives up on, one without
# records), rems-project/casemate's logs when ../shared has them, the
# selection refused as the text report refuses it, and the size bound on a
# generated log. Included by tests/html/CMakeLists.txt.
set(TK_HTML_CM_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/casemate_check.sh)
set(TK_HTML_CM_LOGS ${CMAKE_CURRENT_BINARY_DIR}/casemate)

# html.casemate.NAME: LOG's page checked against report, info, bbm and dump
# --json and bbm --dot; --must-expand after it: the tree must have a
# collapsed node to open.
function(tk_html_casemate_test name log)
  add_test(NAME html.casemate.${name}
           COMMAND sh ${TK_HTML_CM_CHECK} $<TARGET_FILE:tracekit> ${TK_HTML_NODE_DIR} ${log}
                   ${ARGN})
  set_tests_properties(html.casemate.${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS html
                       TIMEOUT 300)
endfunction()

file(GLOB tk_html_cm_examples ${PROJECT_SOURCE_DIR}/examples/casemate/*.log)
foreach(log ${tk_html_cm_examples})
  get_filename_component(name ${log} NAME_WE)
  tk_html_casemate_test(example.${name} ${log})
endforeach()
# bbm.log passes: its start tables open, the entries below them collapsed
tk_html_casemate_test(example.bbm.expand ${PROJECT_SOURCE_DIR}/examples/casemate/bbm.log
                      --must-expand)

# missing-tlbi.log's violation in a tree with a second branch: the way to
# the faulting entry open, the branch beside it collapsed.
file(WRITE ${TK_HTML_CM_LOGS}/siblings.log
"(sysreg-write 0 0 vtcr_el2 10)
(mem-init 1 0 80000 3000)
(hint 2 0 set_root_lock 80000 90000)
(mem-write 3 0 plain 80000 81003)
(mem-write 4 0 plain 81000 400004fd)
(mem-write 5 0 plain 81008 82003)
(mem-write 6 0 plain 82000 4fd)
(mem-write 7 0 plain 82008 14fd)
(sysreg-write 8 0 vttbr_el2 1000000080000)
(lock 9 1 90000)
(mem-write 10 1 plain 81000 0)
(barrier 11 1 dsb ish)
(mem-write 12 1 plain 81000 800004fd)
")
tk_html_casemate_test(siblings ${TK_HTML_CM_LOGS}/siblings.log --must-expand)
# a lock taken twice: the related events are the lock and its taker (3
# threads, a re-entrant trylock, src strings)
file(WRITE ${TK_HTML_CM_LOGS}/lock-held.log
"(mem-init 0 0 10000 1000)
(lock 1 0 100 \"l.c:1\")
(trylock 2 0 100 \"l.c:2\")
(unlock 3 0 100)
(lock 4 2 100 \"l.c:4\")
(lock 5 1 100 (src 5))
")
tk_html_casemate_test(lock-held ${TK_HTML_CM_LOGS}/lock-held.log)
# 64 KiB pages: the model gives up (verdict not_checked, bbm fails)
file(WRITE ${TK_HTML_CM_LOGS}/64k.log
     "(sysreg-write 0 0 vtcr_el2 4010)\n(mem-init 1 0 10000 1000)\n"
     "(sysreg-write 2 0 vttbr_el2 10000)\n(mem-write 3 0 plain 10000 0)\n(lock 4 1 5)\n")
tk_html_casemate_test(not-checked ${TK_HTML_CM_LOGS}/64k.log)
file(WRITE ${TK_HTML_CM_LOGS}/empty.log "! no records\n")
tk_html_casemate_test(empty ${TK_HTML_CM_LOGS}/empty.log)

# rems-project/casemate's 23 expected logs (13 bad_*), when ../shared has them.
if(EXISTS ${TK_SHARED_DIR}/corpus/casemate)
  file(GLOB tk_html_cm_corpus ${TK_SHARED_DIR}/corpus/casemate/*.log)
  foreach(log ${tk_html_cm_corpus})
    get_filename_component(name ${log} NAME_WE)
    tk_html_casemate_test(corpus.${name} ${log})
  endforeach()
else()
  add_test(NAME html.casemate.corpus
           COMMAND sh -c "echo 'SKIP: no ../shared/corpus/casemate'; exit 77")
  set_tests_properties(html.casemate.corpus PROPERTIES SKIP_RETURN_CODE 77 LABELS html)
endif()

# The report checks the whole log: a selection is a usage error (exit 2),
# as for the text report, and no page is left.
add_test(NAME html.casemate.selection
         COMMAND sh -c "\"$0\" report --html -o \"$2/sel.html\" --thread 1 \"$1\"; \
echo \"exit $?\"; test -e \"$2/sel.html\" && echo 'page left'"
                 $<TARGET_FILE:tracekit> ${PROJECT_SOURCE_DIR}/examples/casemate/bbm.log
                 ${TK_HTML_CM_LOGS})
set_tests_properties(html.casemate.selection PROPERTIES LABELS html
                     PASS_REGULAR_EXPRESSION "--thread does not apply.*exit 2"
                     FAIL_REGULAR_EXPRESSION "page left")

# The bound: 64 trees and 256 threads make a page of at most 5 MB.
add_test(NAME html.casemate.size
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/casemate_size.sh $<TARGET_FILE:tracekit>
                 $<TARGET_FILE:tk-gen-casemate> ${TK_HTML_NODE_DIR})
set_tests_properties(html.casemate.size PROPERTIES SKIP_RETURN_CODE 77 LABELS html TIMEOUT 600)
