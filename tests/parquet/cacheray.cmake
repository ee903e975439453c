# Cacheray as Parquet tables (docs/formats/cacheray.md, "Parquet tables"):
# each trace converted, read back by DuckDB and hyparquet (tables.mjs, with
# cacheray.sql), then compared by compare_cacheray.py with dump --json, an
# independent model of the live-region rule, report --json and info --json.
# Included by tests/parquet/CMakeLists.txt. Skipped (77) without node or
# its packages (scripts/deps.sh test), or ../shared for the corpus.
set(TK_PQ_CR_RUN ${CMAKE_CURRENT_SOURCE_DIR}/cacheray_test.sh)
set(TK_PQ_CR_SEEDS ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/cacheray)
set(TK_PQ_CR_GEN ${CMAKE_CURRENT_BINARY_DIR}/cacheray-gen)

# parquet.cacheray.NAME: TRACE converted with the arguments after it
# (--hive ID first: into a trace_id=ID directory).
function(tk_pq_cacheray_test name trace)
  add_test(NAME parquet.cacheray.${name}
           COMMAND sh ${TK_PQ_CR_RUN} $<TARGET_FILE:tracekit> ${PROJECT_SOURCE_DIR} ${trace}
                   ${ARGN})
  set_tests_properties(parquet.cacheray.${name} PROPERTIES SKIP_RETURN_CODE 77
                       LABELS parquet TIMEOUT 180)
endfunction()

# Every example (heap-be.trace: big-endian).
file(GLOB tk_pq_cr_examples ${PROJECT_SOURCE_DIR}/examples/cacheray/*.trace)
foreach(trace ${tk_pq_cr_examples})
  get_filename_component(name ${trace} NAME_WE)
  tk_pq_cacheray_test(example.${name} ${trace})
endforeach()

# Selections (the RTTA records outside them still type the accesses), parts,
# trace ids, a Hive partition directory.
set(tk_pq_cr_heap ${PROJECT_SOURCE_DIR}/examples/cacheray/heap.trace)
tk_pq_cacheray_test(example.heap.range ${tk_pq_cr_heap} --range 100:300)
tk_pq_cacheray_test(example.heap.thread ${tk_pq_cr_heap} --thread 1001)
tk_pq_cacheray_test(example.heap.addr ${tk_pq_cr_heap} --addr 0x5555555a0000+20000)
tk_pq_cacheray_test(example.heap.parts ${tk_pq_cr_heap} --rows-per-file 50 --row-group-rows 16)
tk_pq_cacheray_test(example.heap.trace_id ${tk_pq_cr_heap} --trace-id run-42)
tk_pq_cacheray_test(example.heap.hive ${tk_pq_cr_heap} --hive heap-7)

# The fuzz seeds that are whole traces: every record kind and flag, many
# threads and types, both byte orders, regions overlapped, empty, wrapping,
# removed unknown, odd type names (invalid UTF-8 becomes U+FFFD as in dump
# --json). Some need --format: no probe takes them.
foreach(seed every-type many-threads-types mix-6k warnings one-read one-rtta-add
             one-rtta-remove one-write-flags)
  foreach(order le be)
    tk_pq_cacheray_test(seed.${order}-${seed} ${TK_PQ_CR_SEEDS}/${order}-${seed} --format cacheray)
  endforeach()
endforeach()
tk_pq_cacheray_test(seed.le-name-ends-file ${TK_PQ_CR_SEEDS}/le-name-ends-file --format cacheray)
tk_pq_cacheray_test(seed.be-ambiguous ${TK_PQ_CR_SEEDS}/be-ambiguous)
foreach(seed le-names be-names le-extreme-values be-extreme-values le-rtta-add-empty-name
             be-rtta-add-empty-name zeros-4-reads)
  tk_pq_cacheray_test(seed.${seed} ${TK_PQ_CR_SEEDS}/${seed} --format cacheray)
endforeach()

# Generated traces: random overlapping, empty, wrapping and removed regions
# with accesses at their boundaries (both byte orders), and the bench's
# generator at a small size (arrays freed and reallocated at reused
# addresses, many threads).
add_test(NAME parquet.cacheray.generate
         COMMAND sh -c "mkdir -p \"$0\" &&
           python3 \"$1\" \"$0/overlaps-le.trace\" --records 4000 --seed 3 &&
           python3 \"$1\" \"$0/overlaps-be.trace\" --records 4000 --seed 4 --big &&
           \"$2\" --records 30000 --threads 4 -o \"$0/gen.trace\" &&
           python3 \"$3\" gen \"$0/live.trace\" \"$0/live.json\" --regions 3000 --seed 5"
         ${TK_PQ_CR_GEN} ${CMAKE_CURRENT_SOURCE_DIR}/gen_cacheray_overlaps.py
         $<TARGET_FILE:tk-gen-cacheray> ${CMAKE_CURRENT_SOURCE_DIR}/gen_cacheray_live.py)
set_tests_properties(parquet.cacheray.generate PROPERTIES FIXTURES_SETUP tk_pq_cr_gen
                     LABELS parquet TIMEOUT 60)
set(tk_pq_cr_le ${TK_PQ_CR_GEN}/overlaps-le.trace)
set(tk_pq_cr_be ${TK_PQ_CR_GEN}/overlaps-be.trace)
set(tk_pq_cr_gen ${TK_PQ_CR_GEN}/gen.trace)
tk_pq_cacheray_test(gen.overlaps-le ${tk_pq_cr_le} --format cacheray)
tk_pq_cacheray_test(gen.overlaps-be ${tk_pq_cr_be} --format cacheray)
tk_pq_cacheray_test(gen.overlaps-le.range ${tk_pq_cr_le} --format cacheray --range 1000:3000)
tk_pq_cacheray_test(gen.overlaps-le.thread ${tk_pq_cr_le} --format cacheray --thread 8)
tk_pq_cacheray_test(gen.overlaps-le.addr ${tk_pq_cr_le} --format cacheray
                    --addr 0x5555555a0100-0x5555555a0400)
tk_pq_cacheray_test(gen.overlaps-be.mixed ${tk_pq_cr_be} --format cacheray --thread 7,9
                    --range 500: --rows-per-file 300 --trace-id mixed)
tk_pq_cacheray_test(gen.overlaps-be.hive ${tk_pq_cr_be} --hive be --format cacheray
                    --rows-per-file 1000)
tk_pq_cacheray_test(gen.bench ${tk_pq_cr_gen})
tk_pq_cacheray_test(gen.bench.parts ${tk_pq_cr_gen} --rows-per-file 7000 --range 2000:25000)
# Thousands of regions live at the trace end, added out of address order
# (gen_cacheray_live.py), against the model.
tk_pq_cacheray_test(gen.live ${TK_PQ_CR_GEN}/live.trace --format cacheray)
foreach(name overlaps-le overlaps-be overlaps-le.range overlaps-le.thread overlaps-le.addr
             overlaps-be.mixed overlaps-be.hive bench bench.parts live)
  set_tests_properties(parquet.cacheray.gen.${name} PROPERTIES FIXTURES_REQUIRED tk_pq_cr_gen)
endforeach()

# Tens of thousands of regions live at the trace end (issue 23: the
# converter sorts their slots in place), added out of address order,
# removed, replaced and added again, by many threads: the regions rows in
# order against those gen_cacheray_live.py computed; both byte orders, and
# one thread's regions only (the others are context).
function(tk_pq_cacheray_live name)
  add_test(NAME parquet.cacheray.${name}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cacheray_live_test.sh $<TARGET_FILE:tracekit>
                   ${PROJECT_SOURCE_DIR} ${ARGN})
  set_tests_properties(parquet.cacheray.${name} PROPERTIES SKIP_RETURN_CODE 77
                       LABELS parquet TIMEOUT 120)
endfunction()
tk_pq_cacheray_live(live)
tk_pq_cacheray_live(live.be --big)
tk_pq_cacheray_live(live.thread --thread 4294967300)

# ../shared's corpus (skipped without it).
foreach(name bubble-sort struct-test)
  tk_pq_cacheray_test(corpus.${name} ${TK_SHARED_DIR}/corpus/cacheray/${name}.trace)
endforeach()

# A conversion that fails midway (a truncated trace, a bad tag after valid
# records): exit 1 and no table file left in DIR, whose other files stay.
add_test(NAME parquet.cacheray.malformed
         COMMAND sh -c "t=$0 d=$1/cacheray-malformed
           rm -rf \"$d\" && mkdir -p \"$d/out\" && echo keep >\"$d/out/keep.txt\" || exit 1
           head -c 7000 \"$2\" >\"$d/trunc.trace\"
           for f in \"$d/trunc.trace\" \"$3/trunc-after-valid\" \"$3/bad-tag-after-valid\"; do
             for args in '' '--rows-per-file 10'; do
               \"$t\" convert --to parquet $args \"$f\" -o \"$d/out\" 2>/dev/null
               rc=$?
               [ $rc = 1 ] || { echo \"FAIL: convert $args $f exited $rc, not 1\"; exit 1; }
               left=$(find \"$d/out\" -type f ! -name keep.txt)
               [ -z \"$left\" ] || { echo \"FAIL: $f left $left\"; exit 1; }
               [ -f \"$d/out/keep.txt\" ] || { echo 'FAIL: keep.txt removed'; exit 1; }
             done
           done
           rm -rf \"$d\"; echo PASS"
         $<TARGET_FILE:tracekit> ${CMAKE_CURRENT_BINARY_DIR} ${tk_pq_cr_heap} ${TK_PQ_CR_SEEDS})
set_tests_properties(parquet.cacheray.malformed PROPERTIES LABELS parquet TIMEOUT 60)
