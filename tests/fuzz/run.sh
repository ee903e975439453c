#!/bin/sh
# Run every libFuzzer binary of a -DTK_FUZZ=ON build (BUILD_DIR/fuzz-<name>)
# for SECONDS each, starting from a copy of its seed corpus
# tests/fuzz/corpus/<name>/ (the committed corpus is never written), then
# print a summary. Exit status: 0 no findings, 1 a fuzzer found a crash,
# leak, timeout or OOM (inputs kept under BUILD_DIR/fuzz-runs/<name>/
# artifacts/, shown in hex with the report), 2 usage trouble.
#
#   tests/fuzz/run.sh BUILD_DIR [SECONDS]          (make fuzz FUZZ_SECONDS=N)
#
# Environment:
#   FUZZ_JOBS=N    N parallel workers per fuzzer (libFuzzer -fork=N); 1
#   FUZZ_KEEP=1    keep the corpus grown by earlier runs instead of
#                  restarting from the seeds
#   FUZZ_ARGS=...  extra libFuzzer flags (e.g. -max_len=65536)
#   FUZZ_ONLY=a,b  run only these targets
#
# A new format needs nothing here: its fuzz-<name> binary and
# corpus/<name>/ are found by name.
set -u

usage() {
    echo "usage: $0 BUILD_DIR [SECONDS]" >&2
    exit 2
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage
build=$1
seconds=${2:-60}
case $seconds in '' | *[!0-9]*) usage ;; esac
[ -d "$build" ] || { echo "run.sh: no build directory $build" >&2; exit 2; }
build=$(cd "$build" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
runs_dir=$build/fuzz-runs
jobs=${FUZZ_JOBS:-1}

# fuzz-<name> executables, not the replay drivers
targets=
for f in "$build"/fuzz-*; do
    [ -f "$f" ] && [ -x "$f" ] || continue
    name=${f##*/fuzz-}
    case $name in replay-*) continue ;; esac
    if [ -n "${FUZZ_ONLY:-}" ]; then
        case ",$FUZZ_ONLY," in *",$name,"*) ;; *) continue ;; esac
    fi
    targets="$targets $name"
done
if [ -z "$targets" ]; then
    echo "run.sh: no fuzz-* binaries in $build (configure with CC=clang -DTK_FUZZ=ON)" >&2
    exit 2
fi

hex() { od -An -tx1 -v "$1" | tr -d ' \n'; }

# the seed corpora of a target: its own, or, for a target over every format,
# theirs (tk_fuzz_target's SEEDS in CMakeLists.txt)
seed_dirs() {
    case $1 in
    reader) echo "cacheray casemate ucir xray" ;;
    *) echo "$1" ;;
    esac
}

# field NAME LOG: the value of libFuzzer's final "stat::NAME: value"
field() { sed -n "s/^stat::$1: *//p" "$2" | tail -n 1; }

status=0
summary=
for name in $targets; do
    bin=$build/fuzz-$name
    dir=$runs_dir/$name
    if [ "${FUZZ_KEEP:-0}" != 1 ]; then
        rm -rf "$dir"
    fi
    mkdir -p "$dir/corpus" "$dir/artifacts"
    rm -f "$dir"/artifacts/*
    nseeds=0
    dirs=$(seed_dirs "$name")
    for s in $dirs; do
        seeds=$here/corpus/$s
        # several corpora share file names: prefix them
        prefix=
        [ "$dirs" = "$name" ] || prefix=$s-
        if [ -d "$seeds" ]; then
            for f in "$seeds"/*; do
                [ -f "$f" ] && cp "$f" "$dir/corpus/$prefix${f##*/}"
            done
            nseeds=$((nseeds + $(ls "$seeds" | wc -l)))
        else
            echo "run.sh: warning: no seed corpus $seeds; starting empty" >&2
        fi
    done
    fork=
    [ "$jobs" -gt 1 ] 2>/dev/null && fork="-fork=$jobs"
    echo "== fuzz-$name: ${seconds}s from $nseeds seeds (log: $dir/fuzz.log)"
    # shellcheck disable=SC2086
    (cd "$dir" &&
        ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
        UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
        "$bin" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
            -print_final_stats=1 -artifact_prefix=artifacts/ $fork \
            ${FUZZ_ARGS:-} corpus >fuzz.log 2>&1)
    rc=$?
    log=$dir/fuzz.log

    execs=$(field number_of_executed_units "$log")
    speed=$(field average_exec_per_sec "$log")
    rss=$(field peak_rss_mb "$log")
    last=$(grep -E 'cov: [0-9]+' "$log" | tail -n 1)
    cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    if [ -z "$execs" ]; then # fork mode prints no final stats
        execs=$(echo "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
        speed=$(echo "$last" | sed -n 's/.*exec\/s:\{0,1\} \([0-9]*\).*/\1/p')
    fi
    ncorpus=$(ls "$dir/corpus" | wc -l)
    findings=$(ls "$dir/artifacts" 2>/dev/null | grep -E '^(crash|leak|timeout|oom)-' || true)

    result=ok
    if [ -n "$findings" ] || [ "$rc" -ne 0 ]; then
        result=FAILED
        status=1
        echo "!! fuzz-$name exited $rc; report:"
        # the sanitizer or libFuzzer report: from its first line, 60 lines
        awk '/^(==[0-9]+==ERROR|.*runtime error:|==[0-9]+== ERROR: libFuzzer|.*fuzz check failed)/ && !p {p=1}
             p && n < 60 {print "   " $0; n++}' "$log"
        for a in $findings; do
            echo "   input $dir/artifacts/$a ($(wc -c <"$dir/artifacts/$a") bytes):"
            echo "   hex: $(hex "$dir/artifacts/$a" | cut -c1-4000)"
            echo "   reproduce: $bin $dir/artifacts/$a"
        done
        [ -z "$findings" ] && tail -n 20 "$log" | sed 's/^/   /'
    fi
    summary="$summary$(printf '%-12s %-7s %10s %8s %6s %7s %15s %8s' \
        "$name" "$result" "${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" \
        "$nseeds -> $ncorpus" "${rss:-?} MB")
"
done

echo
echo "fuzz summary: ${seconds}s per target, build $build"
printf '%-12s %-7s %10s %8s %6s %7s %15s %8s\n' target result runs exec/s cov features \
    "corpus files" "peak RSS"
printf '%s' "$summary"
if [ $status -ne 0 ]; then
    echo "FAILED: findings above; inputs under $runs_dir/*/artifacts/"
else
    echo "no crashes, leaks, timeouts or OOMs"
fi
exit $status
