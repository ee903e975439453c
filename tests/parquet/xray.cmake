# XRay as Parquet tables (docs/formats/xray.md, "Parquet tables"): each
# trace converted, read back by DuckDB and hyparquet (tables.mjs, with
# xray.sql's queries) and compared by compare_xray.py with `dump --json`
# and `account --json` of the same trace. Included by
# tests/parquet/CMakeLists.txt. Skipped (77) without node or the readers.
set(TK_PQ_XR_RUN ${CMAKE_CURRENT_SOURCE_DIR}/xray_check.sh)
set(TK_PQ_XR_NODE ${PROJECT_SOURCE_DIR}/tests/node)
set(TK_PQ_XR_GEN ${CMAKE_CURRENT_BINARY_DIR}/xray)

# parquet.xray.NAME: TRACE converted with the arguments after it
# (xray_check.sh's --hive ID or --expect-fail first, then convert's).
function(tk_pq_xray_test name trace)
  add_test(NAME parquet.xray.${name}
           COMMAND sh ${TK_PQ_XR_RUN} $<TARGET_FILE:tracekit> ${TK_PQ_XR_NODE} ${trace} ${ARGN})
  set_tests_properties(parquet.xray.${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS parquet
                       TIMEOUT 300)
endfunction()

# The examples, the YAML traces of the XRay tests and the Perfetto test's
# shapes (unmatched and deeper exits, events, TSC going back, open calls).
file(GLOB tk_pq_xr_traces ${PROJECT_SOURCE_DIR}/examples/xray/*.xray
     ${PROJECT_SOURCE_DIR}/tests/xray/yaml/*.yaml)
foreach(trace ${tk_pq_xr_traces})
  get_filename_component(name ${trace} NAME_WE)
  tk_pq_xray_test(example.${name} ${trace})
endforeach()
set(tk_pq_xr_shapes ${PROJECT_SOURCE_DIR}/tests/perfetto/xray_shapes.yaml)
tk_pq_xray_test(shapes ${tk_pq_xr_shapes})
tk_pq_xray_test(shapes.deduce ${tk_pq_xr_shapes} -d)
tk_pq_xray_test(shapes.thread ${tk_pq_xr_shapes} --thread 12)
tk_pq_xray_test(shapes.parts ${tk_pq_xr_shapes} --rows-per-file 3 --trace-id fleet-7)
tk_pq_xray_test(shapes.hive ${tk_pq_xr_shapes} --hive host-1)

# Traces from tk-gen-xray (bench/gen_xray.c), generated once by the fixture
# parquet.xray.generate: every FDR and basic version, many threads and
# buffers, TSC wraps, tail calls, arguments; then selections, the table
# options, and a corrupted copy that must fail without leaving tables.
set(tk_pq_xr_gen_cmds "")
foreach(v 1 2 3 4 5)
  string(APPEND tk_pq_xr_gen_cmds
         "'$<TARGET_FILE:tk-gen-xray>' --mode fdr --version ${v} --threads 6 --seed ${v} "
         "--buffer-size 4096 --records 30000 -o '${TK_PQ_XR_GEN}/fdr-v${v}.xray' && ")
endforeach()
foreach(v 1 2 3)
  string(APPEND tk_pq_xr_gen_cmds
         "'$<TARGET_FILE:tk-gen-xray>' --mode basic --version ${v} --threads 5 --seed ${v} "
         "--records 20000 -o '${TK_PQ_XR_GEN}/basic-v${v}.xray' && ")
endforeach()
# 16 bytes of 0xff in the middle of a buffer: "unknown metadata record kind"
string(APPEND tk_pq_xr_gen_cmds
       "cp '${TK_PQ_XR_GEN}/fdr-v5.xray' '${TK_PQ_XR_GEN}/bad.xray' && "
       "printf '\\377\\377\\377\\377\\377\\377\\377\\377\\377\\377\\377\\377\\377\\377\\377\\377' | "
       "dd of='${TK_PQ_XR_GEN}/bad.xray' bs=1 seek=131072 conv=notrunc 2>/dev/null && ")
add_test(NAME parquet.xray.generate
         COMMAND sh -c "mkdir -p '${TK_PQ_XR_GEN}' && ${tk_pq_xr_gen_cmds} true")
set_tests_properties(parquet.xray.generate PROPERTIES FIXTURES_SETUP tk_pq_xray_gen
                     LABELS parquet)

function(tk_pq_xray_gen_test name trace)
  tk_pq_xray_test(${name} ${TK_PQ_XR_GEN}/${trace} ${ARGN})
  set_tests_properties(parquet.xray.${name} PROPERTIES FIXTURES_REQUIRED tk_pq_xray_gen)
endfunction()
foreach(t fdr-v1 fdr-v2 fdr-v3 fdr-v4 fdr-v5 basic-v1 basic-v2 basic-v3)
  tk_pq_xray_gen_test(generated.${t} ${t}.xray)
endforeach()
foreach(sel "thread|--thread;31339,31341-31342" "range|--range;1ms:3ms" "func|--func;2"
        "deduce|-d" "parts|--rows-per-file;7000;--row-group-rows;2500"
        "trace-id|--trace-id=host-3/run-1;--compression;snappy"
        "uncompressed|--compression;none" "hive|--hive;host-2;--rows-per-file;10000")
  string(REPLACE "|" ";" sel "${sel}")
  list(GET sel 0 name)
  list(REMOVE_AT sel 0)
  tk_pq_xray_gen_test(generated.fdr-v5.${name} fdr-v5.xray ${sel})
endforeach()
tk_pq_xray_gen_test(generated.malformed bad.xray --expect-fail --row-group-rows 1000)
tk_pq_xray_gen_test(generated.malformed-parts bad.xray --expect-fail --rows-per-file 500)

# Programs recorded now (clang -fxray-instrument), named by -m and not.
find_program(TK_CLANG clang)
find_program(TK_CLANGXX clang++)
add_test(NAME parquet.xray.recorded
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/xray_recorded.sh $<TARGET_FILE:tracekit>
                 ${TK_PQ_XR_NODE} ${PROJECT_SOURCE_DIR}/tests/xray "${TK_CLANG}" "${TK_CLANGXX}")
set_tests_properties(parquet.xray.recorded PROPERTIES SKIP_RETURN_CODE 77 LABELS parquet
                     TIMEOUT 300)
