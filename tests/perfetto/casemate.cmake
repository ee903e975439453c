# casemate on a Perfetto timeline (docs/formats/casemate.md, "Perfetto
# timeline"): each log converted, checked by check.py, then by
# compare_casemate.py against tracekit's own dump, report and bbm on the
# same log. Included by tests/perfetto/CMakeLists.txt.
set(TK_PF_CM_RUN ${CMAKE_CURRENT_SOURCE_DIR}/run_check.sh)
set(TK_PF_CM_COMPARE ${CMAKE_CURRENT_SOURCE_DIR}/compare_casemate.py)
set(TK_PF_CM_LOGS ${CMAKE_CURRENT_BINARY_DIR}/casemate)

# perfetto.casemate.NAME: LOG converted with the convert arguments after it.
function(tk_pf_casemate_test name log)
  add_test(NAME perfetto.casemate.${name}
           COMMAND sh ${TK_PF_CM_RUN} $<TARGET_FILE:tracekit> ${TK_PERFETTO_PROTO}
                   ${TK_PF_CM_COMPARE} ${log} ${ARGN})
  set_tests_properties(perfetto.casemate.${name} PROPERTIES SKIP_RETURN_CODE 77
                       LABELS perfetto TIMEOUT 120)
endfunction()

file(GLOB tk_pf_cm_examples ${PROJECT_SOURCE_DIR}/examples/casemate/*.log)
foreach(log ${tk_pf_cm_examples})
  get_filename_component(name ${log} NAME_WE)
  tk_pf_casemate_test(example.${name} ${log})
endforeach()
tk_pf_casemate_test(example.missing-tlbi.thread1
                    ${PROJECT_SOURCE_DIR}/examples/casemate/missing-tlbi.log --thread 1)

# Small logs for what the examples lack: every kind and operand form, locks
# released out of order, a re-entrant trylock, an unlock without a lock, a
# lock taken while held, an unlock by another thread, locks never released.
file(WRITE ${TK_PF_CM_LOGS}/locks.log
"; locks as slices, every kind of record, both TLBI operand forms, both src forms
(mem-init 0 0 10000 1000)
(lock 1 0 100 \"l.c:1\")
(lock 2 1 200 \"l.c:2\")
(lock 3 0 300 (src 7))
(unlock 4 0 100 \"l.c:4\")
(trylock 5 0 300)
(unlock 6 0 300)
(unlock 7 5 999)
(lock 8 2 200)
(unlock 9 2 200)
(mem-read 10 0 10000 0)
(mem-set 11 0 10000 8 0)
(mem-free 12 0 10008 8)
(barrier 13 0 isb)
(barrier 14 0 dsb ishst)
(tlbi 15 0 vae2is (value 1234))
(tlbi 16 0 vale2is (addr 5000) (level 3))
(tlbi 17 0 alle2)
(hint 18 0 set_root_lock 10000 100)
(sysreg-write 19 1 mair_el2 ff)
(mem-write 20 1 release 10010 42 \"l.c:20\")
(trylock 21 3 400)
")
# bbm's options reach the checker: the first violation moves from the
# unlock without a lock (7) to the lock taken while held (8).
tk_pf_casemate_test(locks ${TK_PF_CM_LOGS}/locks.log)
tk_pf_casemate_test(locks.ignore-uninit ${TK_PF_CM_LOGS}/locks.log --ignore-uninit)
tk_pf_casemate_test(locks.thread0 ${TK_PF_CM_LOGS}/locks.log --thread 0)
tk_pf_casemate_test(locks.range ${TK_PF_CM_LOGS}/locks.log --range 3:10 --racy)
tk_pf_casemate_test(locks.addr ${TK_PF_CM_LOGS}/locks.log --addr 0x200)

# bbm's own option logs (tests/casemate/bbm_test.sh): a write to
# uninitialised memory (violation; none with --ignore-uninit), a
# configuration the model does not cover (a "not checked" instant).
file(WRITE ${TK_PF_CM_LOGS}/uninit.log "(mem-write 0 0 plain 1000 0)\n(unlock 1 0 10)\n")
tk_pf_casemate_test(uninit ${TK_PF_CM_LOGS}/uninit.log)
tk_pf_casemate_test(uninit.ignore-uninit ${TK_PF_CM_LOGS}/uninit.log --ignore-uninit)
file(WRITE ${TK_PF_CM_LOGS}/nolock.log
     "(mem-init 0 0 10000 1000)\n(sysreg-write 1 0 vttbr_el2 10000)\n"
     "(mem-write 2 0 plain 10000 0)\n")
tk_pf_casemate_test(nolock ${TK_PF_CM_LOGS}/nolock.log)
tk_pf_casemate_test(nolock.racy ${TK_PF_CM_LOGS}/nolock.log --racy)
file(WRITE ${TK_PF_CM_LOGS}/64k.log
     "(sysreg-write 0 0 vtcr_el2 4010)\n(mem-init 1 0 10000 1000)\n"
     "(sysreg-write 2 0 vttbr_el2 10000)\n(mem-write 3 0 plain 10000 0)\n")
tk_pf_casemate_test(not-checked ${TK_PF_CM_LOGS}/64k.log)
# a valid block with AF = 0 given a new output address: no violation while
# hardware Access-flag management is off, BBM valid->valid with --hw-af
file(WRITE ${TK_PF_CM_LOGS}/af0.log
"(mem-init 0 0 10000 2000)
(hint 1 0 set_root_lock 10000 90000)
(mem-write 2 0 plain 10000 11003)
(mem-write 3 0 plain 11000 400000fd)
(sysreg-write 4 0 vttbr_el2 10000)
(lock 5 0 90000)
(mem-write 6 0 plain 11000 800000fd)
")
tk_pf_casemate_test(af0 ${TK_PF_CM_LOGS}/af0.log)
tk_pf_casemate_test(af0.hw-af ${TK_PF_CM_LOGS}/af0.log --hw-af)

# A malformed log: the reader's error, and no output.
file(WRITE ${TK_PF_CM_LOGS}/bad.log "(lock 1 0 10)\n(lock 2 0 zz \"x\")\n")
add_test(NAME perfetto.casemate.malformed
         COMMAND sh -c "\"$1\" convert --to perfetto \"$2\" -o \"$3\" 2>&1; rc=$?; [ $rc -eq 1 ] && [ ! -e \"$3\" ] && echo malformed-ok"
                 sh $<TARGET_FILE:tracekit> ${TK_PF_CM_LOGS}/bad.log ${TK_PF_CM_LOGS}/bad.pftrace)
set_tests_properties(perfetto.casemate.malformed PROPERTIES LABELS perfetto PASS_REGULAR_EXPRESSION
                     "bad.log:2:11 \\(record 1\\): expected the address.*malformed-ok")

# rems-project/casemate's 23 expected logs, when ../shared has them.
if(EXISTS ${TK_SHARED_DIR}/corpus/casemate)
  file(GLOB tk_pf_cm_corpus ${TK_SHARED_DIR}/corpus/casemate/*.log)
  foreach(log ${tk_pf_cm_corpus})
    get_filename_component(name ${log} NAME_WE)
    tk_pf_casemate_test(corpus.${name} ${log})
  endforeach()
else()
  add_test(NAME perfetto.casemate.corpus
           COMMAND sh -c "echo 'SKIP: no ../shared/corpus/casemate'; exit 77")
  set_tests_properties(perfetto.casemate.corpus PROPERTIES SKIP_RETURN_CODE 77 LABELS perfetto)
endif()
