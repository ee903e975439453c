# XRay on a Perfetto timeline (docs/formats/xray.md, "Perfetto timeline"):
# each trace converted, checked by check.py, then by compare_xray.py
# against a model of the rules over `dump`'s records, `account --json` and
# `convert --to chrome` of the same trace. Included by
# tests/perfetto/CMakeLists.txt.
set(TK_PF_XR_RUN ${CMAKE_CURRENT_SOURCE_DIR}/run_check.sh)
set(TK_PF_XR_COMPARE ${CMAKE_CURRENT_SOURCE_DIR}/compare_xray.py)
set(TK_PF_XR_GEN ${CMAKE_CURRENT_BINARY_DIR}/xray)

# perfetto.xray.NAME: TRACE converted with the convert arguments after it.
function(tk_pf_xray_test name trace)
  add_test(NAME perfetto.xray.${name}
           COMMAND sh ${TK_PF_XR_RUN} $<TARGET_FILE:tracekit> ${TK_PERFETTO_PROTO}
                   ${TK_PF_XR_COMPARE} ${trace} ${ARGN})
  set_tests_properties(perfetto.xray.${name} PROPERTIES SKIP_RETURN_CODE 77
                       LABELS perfetto TIMEOUT 300)
endfunction()

# The examples and the YAML traces of the XRay tests.
file(GLOB tk_pf_xr_traces ${PROJECT_SOURCE_DIR}/examples/xray/*.xray
     ${PROJECT_SOURCE_DIR}/tests/xray/yaml/*.yaml)
foreach(trace ${tk_pf_xr_traces})
  get_filename_component(name ${trace} NAME_WE)
  tk_pf_xray_test(example.${name} ${trace})
endforeach()

# Shapes the others lack: unmatched and deeper exits (with and without -d),
# events, a thread's TSC going back, calls open at the end.
set(tk_pf_xr_shapes ${CMAKE_CURRENT_SOURCE_DIR}/xray_shapes.yaml)
tk_pf_xray_test(shapes ${tk_pf_xr_shapes})
tk_pf_xray_test(shapes.deduce ${tk_pf_xr_shapes} -d)
tk_pf_xray_test(shapes.thread ${tk_pf_xr_shapes} --thread 12)

# Traces from tk-gen-xray (bench/gen_xray.c), generated once by the fixture
# perfetto.xray.generate: every FDR and basic version, many threads and
# buffers, TSC wraps, tail calls, arguments; then selections.
set(tk_pf_xr_gen_cmds "")
foreach(v 1 2 3 4 5)
  string(APPEND tk_pf_xr_gen_cmds
         "'$<TARGET_FILE:tk-gen-xray>' --mode fdr --version ${v} --threads 6 --seed ${v} "
         "--buffer-size 4096 --records 60000 -o '${TK_PF_XR_GEN}/fdr-v${v}.xray' && ")
endforeach()
foreach(v 1 2 3)
  string(APPEND tk_pf_xr_gen_cmds
         "'$<TARGET_FILE:tk-gen-xray>' --mode basic --version ${v} --threads 5 --seed ${v} "
         "--records 40000 -o '${TK_PF_XR_GEN}/basic-v${v}.xray' && ")
endforeach()
add_test(NAME perfetto.xray.generate
         COMMAND sh -c "mkdir -p '${TK_PF_XR_GEN}' && ${tk_pf_xr_gen_cmds} true")
set_tests_properties(perfetto.xray.generate PROPERTIES FIXTURES_SETUP tk_pf_xray_gen
                     LABELS perfetto)
foreach(t fdr-v1 fdr-v2 fdr-v3 fdr-v4 fdr-v5 basic-v1 basic-v2 basic-v3)
  tk_pf_xray_test(generated.${t} ${TK_PF_XR_GEN}/${t}.xray)
  set_tests_properties(perfetto.xray.generated.${t} PROPERTIES FIXTURES_REQUIRED tk_pf_xray_gen)
endforeach()
foreach(sel "thread|--thread;31339,31341-31342" "range|--range;1ms:3ms"
        "func|--func;2" "deduce|-d")
  string(REPLACE "|" ";" sel "${sel}")
  list(GET sel 0 name)
  list(REMOVE_AT sel 0)
  tk_pf_xray_test(generated.fdr-v5.${name} ${TK_PF_XR_GEN}/fdr-v5.xray ${sel})
  set_tests_properties(perfetto.xray.generated.fdr-v5.${name} PROPERTIES
                       FIXTURES_REQUIRED tk_pf_xray_gen)
endforeach()

# Programs recorded now (clang -fxray-instrument), named by -m and not.
add_test(NAME perfetto.xray.recorded
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/xray_recorded.sh $<TARGET_FILE:tracekit>
                 ${TK_PERFETTO_PROTO} ${PROJECT_SOURCE_DIR}/tests/xray "${TK_CLANG}"
                 "${TK_CLANGXX}")
set_tests_properties(perfetto.xray.recorded PROPERTIES SKIP_RETURN_CODE 77 LABELS perfetto
                     TIMEOUT 300)

# The XRay traces of ../shared/corpus, when it has some.
add_test(NAME perfetto.xray.corpus
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/xray_dir.sh $<TARGET_FILE:tracekit>
                 ${TK_PERFETTO_PROTO} ${TK_SHARED_DIR}/corpus/xray)
set_tests_properties(perfetto.xray.corpus PROPERTIES SKIP_RETURN_CODE 77 LABELS perfetto
                     TIMEOUT 600)
