#!/bin/sh
# `make demo`: every tracekit command once, on the sample traces in
# examples/ and on programs recorded now, each after a '#' line saying what
# it shows and a '$' line with the command as a user would type it.
# Usage: scripts/demo.sh [BUILD/tracekit]
set -eu
tk=${1:-build/tracekit}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
[ -x "$tk" ] || { echo "demo.sh: no $tk (make build first)" >&2; exit 2; }
bindir=$(cd "$(dirname "$tk")" && pwd)

# Commands run in a scratch directory where examples/ is the source tree's
# and bin/ puts the build's tracekit and tracekit-cc on PATH, so each '$'
# line is exactly what runs and what a user can type.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
ln -s "$here/examples" "$work/examples"
ln -s "$bindir/tracekit" "$work/bin/tracekit"
ln -s "$bindir/tracekit-cc" "$work/bin/tracekit-cc"
PATH=$work/bin:$PATH
# replay keeps its checkpoint index under $XDG_CACHE_HOME: not the user's
XDG_CACHE_HOME=$work/cache
TRACEKIT_SRC=$here
export PATH XDG_CACHE_HOME TRACEKIT_SRC
cd "$work"

have() { command -v "$1" >/dev/null 2>&1; }

section() { printf '\n======== %s ========\n' "$1"; }

# screenshot PAGE PNG: a 1280x800 view of an HTML report, when a browser is
# here: through tests/html/check.mjs when the test role's puppeteer-core is
# installed (it also checks the page loads cleanly), else Chromium's own
# --screenshot; without chromium on PATH (it is no package of the demo's),
# a note.
screenshot() {
    if ! have chromium; then
        echo "(no chromium: no screenshot of $1; apt-get install chromium to get one)"
        return 0
    fi
    if have node && [ -d "$here/tests/node/node_modules/puppeteer-core" ]; then
        node "$here/tests/html/check.mjs" --html "$1" --node-dir "$here/tests/node" \
            --screenshot "$2" >/dev/null || { echo "demo.sh: $1 did not load cleanly" >&2; exit 1; }
    else
        chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
            --screenshot="$2" --window-size=1280,800 "file://$1" >/dev/null 2>&1 ||
            { echo "(chromium could not take a screenshot of $1)"; return 0; }
    fi
    echo "(screenshot: $2)"
}

# run COMMAND [STATUS]: print the command and run it; a status other than
# STATUS (default 0) stops the demo.
run() {
    printf '$ %s\n' "$1"
    rc=0
    eval "$1" || rc=$?
    if [ "$rc" -ne "${2:-0}" ]; then
        echo "demo.sh: exit status $rc, expected ${2:-0}: $1" >&2
        exit 1
    fi
    [ "$rc" -eq 0 ] || printf '(exit status %s)\n' "$rc"
}

# show CAPTION COMMAND [STATUS]: the caption, then run
show() {
    printf '\n# %s\n' "$1"
    run "$2" "${3:-0}"
}

cat <<'EOF'

tracekit demo: every command once, on the traces in examples/ and on
programs recorded now. '#' says what a command shows, '$' is the command
(run in a scratch directory; from the source tree, put build/ on PATH).
'tracekit --help' lists the commands, 'tracekit COMMAND --help' their options.
EOF

section "Cacheray: memory accesses with run-time type annotations"
show "info: what a trace holds: format, byte order, records per type, threads, addresses, annotated types" \
    "tracekit info examples/cacheray/heap.trace"
show "dump: one record per line (--limit N prints N, --skip N starts later; --json: JSON Lines)" \
    "tracekit dump --limit 5 examples/cacheray/heap.trace"
show "convert: the same trace written big-endian; byte for byte the example heap-be.trace" \
    "tracekit convert --to cacheray --out-endian big -o heap-be.trace examples/cacheray/heap.trace"
run "cmp heap-be.trace examples/cacheray/heap-be.trace && echo identical"

if have clang; then
    src=examples/cacheray/programs/false_sharing.c
    show "tracekit-cc: clang, with every load and store of the program recorded (-g: struct fields for cachesim)" \
        "tracekit-cc -O1 -g $src -o false_sharing"
    show "run it: TRACEKIT_CACHERAY names the trace it writes (two threads, each incrementing its own counter)" \
        "TRACEKIT_CACHERAY=false_sharing.trace ./false_sharing"
    show "cachesim: L1 misses per type, struct field and thread, and the cache line both threads write (false sharing)" \
        "tracekit cachesim -g false_sharing -l L1:32K:8:64 false_sharing.trace"
else
    echo "(clang not found: no recording; scripts/deps.sh demo installs it)"
    show "cachesim: an L1 cache over the accesses: misses per level, type and thread" \
        "tracekit cachesim -l L1:32K:8:64 examples/cacheray/heap.trace"
fi
show "mrc: the miss rate of every cache size from one pass (exact LRU; --sample for SHARDS, --ways/--policy for set-associative caches)" \
    "tracekit mrc examples/cacheray/heap.trace | head -n 12"
mkdir -p "$bindir/demo"
show "report --html: Cacheray's report as a page: misses per level with the 3C split, miss rate over the trace, per-type tables, the miss-ratio curve" \
    "tracekit report --html -o $bindir/demo/cacheray-report.html examples/cacheray/heap.trace"
screenshot "$bindir/demo/cacheray-report.html" "$bindir/demo/cacheray-report.png"

section "casemate: page-table updates logged by a hypervisor"
show "validate: checks that a trace is well-formed; this log is (valid=yes)" \
    "tracekit validate examples/casemate/missing-tlbi.log"
show "its end: thread 1 breaks entry 0x81000 (writes 0), a DSB, then makes it valid: no TLBI (last: the expected verdict)" \
    "tail -n 4 examples/casemate/missing-tlbi.log"
show "bbm: well-formed is not correct; replayed on casemate's page-table model, that is a break-before-make violation" \
    "tracekit bbm examples/casemate/missing-tlbi.log" 1
show "the same update with its DSB, TLBI, DSB passes (-q: only the verdict)" \
    "tracekit bbm -q examples/casemate/bbm.log"
show "report --html: the verdict first, the violation with bbm's context, each thread's events, the page tables around the entry" \
    "tracekit report --html -o $bindir/demo/casemate-report.html examples/casemate/missing-tlbi.log"
screenshot "$bindir/demo/casemate-report.html" "$bindir/demo/casemate-report.png"

section "Usercorn replay (UCIR): an emulated x86-64 program"
show "dump: each instruction disassembled, with its register and memory effects: a loop summing four numbers into rax" \
    "tracekit dump --skip 2 --limit 5 examples/ucir/hello.ucir"
show "replay --at: the machine after instruction 8: registers, memory map and (--mem) 32 bytes at 0x401000" \
    "tracekit replay --at 8 --mem 0x401000:32 examples/ucir/hello.ucir"
show "replay --reg: every change of rax and the instruction that made it (--history ADDR:LEN does memory)" \
    "tracekit replay --reg rax examples/ucir/hello.ucir"
show "report --html: counts, the syscall timeline, memory map changes, hot code with its disassembly" \
    "tracekit report --html -o $bindir/demo/ucir-report.html examples/ucir/hello.ucir"
screenshot "$bindir/demo/ucir-report.html" "$bindir/demo/ucir-report.png"

section "LLVM XRay: function entries and exits"
if have clang; then
    show "record: clang's XRay instrumentation (-g: source lines), then the program run with XRay's basic log on" \
        "clang -O0 -g -fxray-instrument -fxray-instruction-threshold=1 -pthread examples/xray/demo.c -o demo"
    # XRay warns on stderr when it cannot read the CPU frequency
    run "XRAY_OPTIONS='patch_premain=true xray_mode=xray-basic xray_logfile_base=demo-' XRAY_BASIC_OPTIONS='func_duration_threshold_us=0' ./demo 2>/dev/null"
    run "mv demo-demo.* demo.xray"
    trace=demo.xray
    m="-m demo "
else
    echo "(clang not found: examples/xray/basic-v3.xray instead of a recording, functions by id only;"
    echo " scripts/deps.sh demo installs clang)"
    trace=examples/xray/basic-v3.xray
    m=
fi
show "report: the trace in one page: threads, time span, the functions taking the most time (-m BINARY names them)" \
    "tracekit report $m$trace"
show "account: llvm-xray account's latency table per function, here by total time (llvm-xray's options work too)" \
    "tracekit account $m-s sum -r dsc $trace"
show "stack --folded: call stacks weighted by self time, for flamegraph.pl or speedscope" \
    "tracekit stack --folded $m$trace | head -n 6"
show "graph: the call graph in Graphviz DOT, edges labelled with call counts (| dot -Tsvg draws it)" \
    "tracekit graph $m-e count $trace"
show "graph-diff: two traces' call graphs as one, labelled and coloured by the change of total time (here the example recording against this one)" \
    "tracekit graph-diff -e sum -c sum examples/xray/basic-v3.xray $trace | head -n 6"
show "diff: which functions got slower, by how much, and whether it is noise (Mann-Whitney per function; --fail-if for CI)" \
    "tracekit diff examples/xray/basic-v3.xray $trace | head -n 10"
if [ -n "$m" ]; then
    show "extract: the binary's instrumentation map as llvm-xray extract prints it (-s: with names)" \
        "tracekit extract -s demo | head -n 4"
fi
# the timeline outlives the scratch directory: BUILD/demo/
mkdir -p "$bindir/demo"
show "convert --to perfetto: the calls on a timeline, a track per thread; open the file at https://ui.perfetto.dev (\"Open trace file\": it is read in the browser, not uploaded)" \
    "tracekit convert --to perfetto $m$trace -o $bindir/demo/demo.pftrace && ls -l $bindir/demo/demo.pftrace"
show "report --html: the same report as one page for a browser: the calls as a flame graph (click to zoom, search), busy time per thread, sortable tables (no network; open it from the disk)" \
    "tracekit report --html $m-o $bindir/demo/xray-report.html $trace && ls -l $bindir/demo/xray-report.html"
screenshot "$bindir/demo/xray-report.html" "$bindir/demo/xray-report.png"
if have jq; then
    show "--json: every command's output as JSON (docs/json.md), for scripts; jq keeps the functions called over 100 times" \
        "tracekit account --json $m$trace | jq -r '.[] | select(.count > 100) | \"\\(.function): \\(.count) calls\"'"
else
    echo "(jq not found: no --json example; scripts/deps.sh demo installs it)"
fi

section "Many traces as one dataset (docs/scale.md)"
show "convert --to parquet: each trace into its own Hive partition directory, all cores at once (xargs -P; on a cluster, one task each)" \
    "ls examples/xray/*.xray $trace | xargs -P 4 -I{} sh -c 'tracekit convert --to parquet \"{}\" -o \"dataset/trace_id=\$(basename \"{}\")\"' && ls dataset/*"
sql="select trace_id, count(*) as calls, sum(duration_ns) as total_ns from read_parquet('dataset/*/calls.parquet', hive_partitioning = true) where not unfinished group by trace_id order by trace_id"
printf '\n# one SQL query over every trace (DuckDB here; the Spark SQL is in docs/scale.md)\n'
if have node && node "$here/scripts/duckdb.mjs" "select 1" >/dev/null 2>&1; then
    run "node \$TRACEKIT_SRC/scripts/duckdb.mjs \"$sql\""
else
    printf '%s\n(no DuckDB here: scripts/deps.sh test installs it; any engine reading Parquet runs this)\n' "$sql"
fi

section "Where to go next"
cat <<'EOF'
README.md, "Using it"     more command lines for each format, recording with tracekit-cc
tracekit COMMAND --help   a command's options
man docs/tracekit.1       the manual page (man tracekit after make install)
docs/formats/             one page per trace format: cacheray, casemate, ucir, xray
docs/json.md              the --json output's names, per command, with a schema each
docs/parquet.md           convert --to parquet: the tables, trace_id, Hive directories
docs/scale.md             many traces in parallel, one SQL query (DuckDB, Spark SQL)
recorder/README.md        recording C and C++ programs for Cacheray
docs/architecture.md      the library's layers, and how to add a format
make test                 the test suite (installs cmocka and LLVM's tools first)
EOF
