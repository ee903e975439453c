# UCIR as Parquet tables (docs/formats/ucir.md, "Parquet tables"): each
# trace converted, read back by DuckDB and hyparquet (tables.mjs) and
# compared by compare_ucir.py with dump --json, report --json and info
# --json of the same trace. Both layouts: the spec's example, the .uc trace
# and the tk-gen-ucir multi-keyframe trace that tests/perfetto/ucir.cmake
# makes (fixture tk_pf_ucir), the corpus's UCIR traces (skipped when
# absent); --rows-per-file, --trace-id, a trace_id=ID directory, and
# truncated traces (exit 1, nothing left). Included by
# tests/parquet/CMakeLists.txt.
set(TK_PQ_UC_RUN ${CMAKE_CURRENT_SOURCE_DIR}/run_ucir.sh)
set(TK_PQ_UC_GEN ${CMAKE_BINARY_DIR}/tests/perfetto/ucir)

# parquet.ucir.NAME: TRACE in MODE (run_ucir.sh) with the convert arguments
# after it.
function(tk_pq_ucir_test name trace mode)
  add_test(NAME parquet.ucir.${name}
           COMMAND sh ${TK_PQ_UC_RUN} $<TARGET_FILE:tracekit> ${PROJECT_SOURCE_DIR} ${trace}
                   ${mode} ${ARGN})
  set_tests_properties(parquet.ucir.${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS parquet
                       TIMEOUT 300)
endfunction()

set(tk_pq_uc_hello ${PROJECT_SOURCE_DIR}/examples/ucir/hello.ucir)
tk_pq_ucir_test(hello ${tk_pq_uc_hello} plain)
tk_pq_ucir_test(hello.parts ${tk_pq_uc_hello} plain --rows-per-file 4)
tk_pq_ucir_test(hello.trace_id ${tk_pq_uc_hello} plain --trace-id "night run 7")
tk_pq_ucir_test(hello.hive ${tk_pq_uc_hello} hive:host-42)
tk_pq_ucir_test(hello.truncated ${tk_pq_uc_hello} truncate)

# The traces tests/perfetto/ucir.cmake generates (perfetto.ucir.make).
tk_pq_ucir_test(uc ${TK_PQ_UC_GEN}/demo.uc plain)
tk_pq_ucir_test(uc.parts ${TK_PQ_UC_GEN}/demo.uc plain --rows-per-file 1000
                --compression snappy)
tk_pq_ucir_test(uc.truncated ${TK_PQ_UC_GEN}/demo.uc truncate)
tk_pq_ucir_test(gen ${TK_PQ_UC_GEN}/gen.ucir plain --threads 2)
tk_pq_ucir_test(gen.parts ${TK_PQ_UC_GEN}/gen.ucir plain --rows-per-file 5000
                --row-group-rows 1000 --compression none)
tk_pq_ucir_test(gen.truncated ${TK_PQ_UC_GEN}/gen.ucir truncate)
foreach(t uc uc.parts uc.truncated gen gen.parts gen.truncated)
  set_tests_properties(parquet.ucir.${t} PROPERTIES FIXTURES_REQUIRED tk_pf_ucir)
endforeach()

# A selection is refused (the tables are the whole trace: select with SQL).
add_test(NAME parquet.ucir.selection
         COMMAND sh -c "d=$(mktemp -d) && '$<TARGET_FILE:tracekit>' convert --to parquet \
'${tk_pq_uc_hello}' -o \"$d/out\" --range 0:4; rc=$?; left=$(ls -A \"$d\"); rm -rf \"$d\"; \
[ $rc -eq 2 ] && [ -z \"$left\" ]")
set_tests_properties(parquet.ucir.selection PROPERTIES LABELS parquet TIMEOUT 60)

# The shared corpus's UCIR and .uc traces, found when the test runs.
add_test(NAME parquet.ucir.corpus
         COMMAND sh -c "n=0; for f in '${TK_SHARED_DIR}'/corpus/ucir/*.ucir \
'${TK_SHARED_DIR}'/corpus/ucir/*.uc '${TK_SHARED_DIR}'/corpus/usercorn/*.uc; do \
[ -f \"$f\" ] || continue; n=$((n+1)); \
sh '${TK_PQ_UC_RUN}' '$<TARGET_FILE:tracekit>' '${PROJECT_SOURCE_DIR}' \"$f\" plain || exit $?; \
done; [ $n -gt 0 ] || { echo 'SKIP: no UCIR traces in the corpus'; exit 77; }")
set_tests_properties(parquet.ucir.corpus PROPERTIES SKIP_RETURN_CODE 77 LABELS parquet
                     TIMEOUT 900)
