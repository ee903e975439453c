# casemate as Parquet tables (docs/formats/casemate.md, "Parquet tables"):
# each log converted, read back by DuckDB and hyparquet (tables.mjs, with
# casemate.sql's queries) and compared by compare_casemate.py with
# tracekit's own dump, report and bbm on the same log. Included by
# tests/parquet/CMakeLists.txt. Skipped (77) without node or the readers.
set(TK_PQ_CM_RUN ${CMAKE_CURRENT_SOURCE_DIR}/casemate_test.sh)
set(TK_PQ_CM_LOGS ${CMAKE_CURRENT_BINARY_DIR}/casemate)

# parquet.casemate.NAME: LOG converted (MODE: tables, hive or malformed)
# with the convert arguments after it.
function(tk_pq_casemate_test name mode log)
  add_test(NAME parquet.casemate.${name}
           COMMAND sh ${TK_PQ_CM_RUN} $<TARGET_FILE:tracekit> ${PROJECT_SOURCE_DIR} ${mode}
                   ${log} ${ARGN})
  set_tests_properties(parquet.casemate.${name} PROPERTIES SKIP_RETURN_CODE 77
                       LABELS parquet TIMEOUT 120)
endfunction()

set(tk_pq_cm_ex ${PROJECT_SOURCE_DIR}/examples/casemate)
file(GLOB tk_pq_cm_examples ${tk_pq_cm_ex}/*.log)
foreach(log ${tk_pq_cm_examples})
  get_filename_component(name ${log} NAME_WE)
  tk_pq_casemate_test(example.${name} tables ${log})
endforeach()
# the selection picks the events; the violation stays the whole log's
tk_pq_casemate_test(example.missing-tlbi.thread1 tables ${tk_pq_cm_ex}/missing-tlbi.log
                    --thread 1)
tk_pq_casemate_test(example.bbm.range tables ${tk_pq_cm_ex}/bbm.log --range 5:12)
tk_pq_casemate_test(example.bbm.addr tables ${tk_pq_cm_ex}/bbm.log --addr 0x81000+0x1000)
tk_pq_casemate_test(example.bbm.none-selected tables ${tk_pq_cm_ex}/bbm.log --thread 99)
# the table options: parts, trace id, Hive partition directory, codec
tk_pq_casemate_test(example.bbm.parts tables ${tk_pq_cm_ex}/bbm.log --rows-per-file 4
                    --trace-id fleet-42)
tk_pq_casemate_test(example.missing-tlbi.parts tables ${tk_pq_cm_ex}/missing-tlbi.log
                    --rows-per-file 1)
tk_pq_casemate_test(example.missing-tlbi.trace-id tables ${tk_pq_cm_ex}/missing-tlbi.log
                    --trace-id=host-3/run-1)
tk_pq_casemate_test(example.missing-tlbi.hive hive ${tk_pq_cm_ex}/missing-tlbi.log)
tk_pq_casemate_test(example.bbm.hive-parts hive ${tk_pq_cm_ex}/bbm.log --rows-per-file 5)
tk_pq_casemate_test(example.bbm.uncompressed tables ${tk_pq_cm_ex}/bbm.log --compression none
                    --row-group-rows 3)

# tests/perfetto/casemate.cmake's logs: every kind and operand form, both
# src forms, lock rules (related ids of a lock violation: the taker).
file(WRITE ${TK_PQ_CM_LOGS}/locks.log
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
tk_pq_casemate_test(locks tables ${TK_PQ_CM_LOGS}/locks.log)
tk_pq_casemate_test(locks.ignore-uninit tables ${TK_PQ_CM_LOGS}/locks.log --ignore-uninit)
tk_pq_casemate_test(locks.thread0 tables ${TK_PQ_CM_LOGS}/locks.log --thread 0)
tk_pq_casemate_test(locks.range tables ${TK_PQ_CM_LOGS}/locks.log --range 3:10 --racy)
tk_pq_casemate_test(locks.addr tables ${TK_PQ_CM_LOGS}/locks.log --addr 0x200)
tk_pq_casemate_test(locks.parts tables ${TK_PQ_CM_LOGS}/locks.log --rows-per-file 7
                    --ignore-uninit)

# Values past 2^63, every sysreg-write form, a trylock re-entered, and
# src strings in UTF-8, not UTF-8 (U+FFFD, as dump --json), and empty.
string(ASCII 233 tk_pq_cm_latin1)
file(WRITE ${TK_PQ_CM_LOGS}/wide.log
"(mem-init 0 0 fffffffffffff000 1000 \"café.c:1\")
(mem-write 1 0 plain fffffffffffffff8 ffffffffffffffff \"caf${tk_pq_cm_latin1}.c:2\")
(mem-read 2 0 fffffffffffffff8 ffffffffffffffff \"\")
(msr 3 18446744073709551615 vttbr_el2 8000000000000000 (src 18446744073709551615))
(trylock 4 2 8 (src 0))
(trylock 5 2 8)
(unlock 6 2 8)
(barrier 7 4 dsb sy)
(barrier 8 4 dsb nsh)
(tlbi 9 4 ipas2e1is (addr ffffffffffff000) (level ffffffffffffffff))
(hint 10 4 release_table 10 ffffffffffffffff)
")
tk_pq_casemate_test(wide tables ${TK_PQ_CM_LOGS}/wide.log)

# bbm's own option logs (tests/casemate/bbm_test.sh): a write to
# uninitialised memory, a write without the lock, a TLBI by VMID,
# a configuration the model does not cover (a not_checked row), an
# unlock without src, a '!' line.
file(WRITE ${TK_PQ_CM_LOGS}/uninit.log "(mem-write 0 0 plain 1000 0)\n(unlock 1 0 10)\n")
tk_pq_casemate_test(uninit tables ${TK_PQ_CM_LOGS}/uninit.log)
tk_pq_casemate_test(uninit.ignore-uninit tables ${TK_PQ_CM_LOGS}/uninit.log --ignore-uninit)
file(WRITE ${TK_PQ_CM_LOGS}/nolock.log
     "(mem-init 0 0 10000 1000)\n(sysreg-write 1 0 vttbr_el2 10000)\n"
     "(mem-write 2 0 plain 10000 0)\n")
tk_pq_casemate_test(nolock tables ${TK_PQ_CM_LOGS}/nolock.log)
tk_pq_casemate_test(nolock.racy tables ${TK_PQ_CM_LOGS}/nolock.log --racy)
tk_pq_casemate_test(nolock.no-sysreg-defaults tables ${TK_PQ_CM_LOGS}/nolock.log
                    --no-sysreg-defaults)
file(WRITE ${TK_PQ_CM_LOGS}/vmid.log
"(mem-init 0 0 10000 1000)
(mem-init 1 0 30000 1000)
(hint 2 0 set_root_lock 10000 90000)
(mem-write 3 0 plain 10000 400004fd)
(sysreg-write 4 0 tcr_el2 19)
(sysreg-write 5 0 vtcr_el2 19)
(sysreg-write 6 0 vttbr_el2 10000)
(lock 7 0 90000)
(mem-write 8 0 plain 10000 0)
(barrier 9 0 dsb ish)
(sysreg-write 10 0 vttbr_el2 1000000030000)
(tlbi 11 0 vmalls12e1is)
(barrier 12 0 dsb ish)
(mem-write 13 0 release 10000 800004fd)
")
tk_pq_casemate_test(vmid tables ${TK_PQ_CM_LOGS}/vmid.log)
tk_pq_casemate_test(vmid.promote-tlbi-by-id tables ${TK_PQ_CM_LOGS}/vmid.log
                    --promote-tlbi-by-id)
file(WRITE ${TK_PQ_CM_LOGS}/64k.log
     "(sysreg-write 0 0 vtcr_el2 4010)\n(mem-init 1 0 10000 1000)\n"
     "(sysreg-write 2 0 vttbr_el2 10000)\n(mem-write 3 0 plain 10000 0)\n")
tk_pq_casemate_test(not-checked tables ${TK_PQ_CM_LOGS}/64k.log)
# tests/perfetto/casemate.cmake's af0.log: a pass, a violation with --hw-af
file(WRITE ${TK_PQ_CM_LOGS}/af0.log
"(mem-init 0 0 10000 2000)
(hint 1 0 set_root_lock 10000 90000)
(mem-write 2 0 plain 10000 11003)
(mem-write 3 0 plain 11000 400000fd)
(sysreg-write 4 0 vttbr_el2 10000)
(lock 5 0 90000)
(mem-write 6 0 plain 11000 800000fd)
")
tk_pq_casemate_test(af0 tables ${TK_PQ_CM_LOGS}/af0.log)
tk_pq_casemate_test(af0.hw-af tables ${TK_PQ_CM_LOGS}/af0.log --hw-af)
file(WRITE ${TK_PQ_CM_LOGS}/nosrc.log "(unlock 1 2 10)\n")
tk_pq_casemate_test(nosrc tables ${TK_PQ_CM_LOGS}/nosrc.log)
file(WRITE ${TK_PQ_CM_LOGS}/expect.log "(lock 1 0 10)\n! BBM valid->valid\n")
tk_pq_casemate_test(expect tables ${TK_PQ_CM_LOGS}/expect.log)
file(WRITE ${TK_PQ_CM_LOGS}/empty.log "! no records\n")
tk_pq_casemate_test(empty tables ${TK_PQ_CM_LOGS}/empty.log --rows-per-file 2)

# A log malformed after rows were written (parts begun): exit 1, the
# reader's error, no table file left.
file(WRITE ${TK_PQ_CM_LOGS}/bad.log
     "(lock 1 0 10)\r\n(unlock 2 0 10)\r\n(lock 3 0 10)\r\n(lock 4 0 zz \"x\")\r\n")
tk_pq_casemate_test(malformed malformed ${TK_PQ_CM_LOGS}/bad.log --rows-per-file 1)
set_tests_properties(parquet.casemate.malformed PROPERTIES PASS_REGULAR_EXPRESSION
                     "bad.log:4:11 \\(record 3\\): expected the address.*malformed-ok")

# rems-project/casemate's 23 expected logs (13 bad_*), when ../shared has them.
if(EXISTS ${TK_SHARED_DIR}/corpus/casemate)
  file(GLOB tk_pq_cm_corpus ${TK_SHARED_DIR}/corpus/casemate/*.log)
  foreach(log ${tk_pq_cm_corpus})
    get_filename_component(name ${log} NAME_WE)
    tk_pq_casemate_test(corpus.${name} tables ${log})
  endforeach()
else()
  add_test(NAME parquet.casemate.corpus
           COMMAND sh -c "echo 'SKIP: no ../shared/corpus/casemate'; exit 77")
  set_tests_properties(parquet.casemate.corpus PROPERTIES SKIP_RETURN_CODE 77 LABELS parquet)
endif()
