#!/bin/sh
# tracekit account and stack must print exactly what llvm-xray prints, on
# basic and FDR traces recorded now from programs/.
# usage: vs_llvm.sh TRACEKIT SRCDIR CLANG CLANGXX LLVM_XRAY
set -u
tk=$1 src=$2 cc=$3 cxx=$4 xr=$5
if [ ! -x "$cc" ] || [ ! -x "$cxx" ] || [ ! -x "$xr" ]; then
    echo "skipped: clang, clang++ or llvm-xray missing"; exit 77
fi
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
flags="-O0 -fxray-instrument -fxray-instruction-threshold=1"
$cc $flags "$src/programs/acct_st.c" -o "$dir/st" || exit 2
$cc $flags -pthread "$src/../../examples/xray/demo.c" -o "$dir/mt" || exit 2
$cxx $flags "$src/programs/acct_fdr.cc" -o "$dir/fdr" || exit 2
basic="patch_premain=true xray_mode=xray-basic"
(cd "$dir" && XRAY_OPTIONS="$basic xray_logfile_base=st-" \
    XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./st 2>/dev/null)
(cd "$dir" && XRAY_OPTIONS="$basic xray_logfile_base=mt-" \
    XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./mt 2>/dev/null)
(cd "$dir" && XRAY_OPTIONS="xray_logfile_base=fdr-" ./fdr 2>/dev/null)
fail=0 n=0

same() { # same DESCRIPTION TK-ARGS... -- XRAY-ARGS...
    what=$1; shift
    n=$((n + 1))
    tkargs="" ; while [ "$1" != "--" ]; do tkargs="$tkargs $1"; shift; done; shift
    # shellcheck disable=SC2086
    "$tk" $tkargs > "$dir/tk.out" 2>&1
    "$xr" "$@" > "$dir/xr.out" 2>&1
    if ! cmp -s "$dir/tk.out" "$dir/xr.out"; then
        echo "DIFF: $what"; diff "$dir/tk.out" "$dir/xr.out" | head -10
        fail=$((fail + 1))
    fi
}

for trace in "$dir"/st-* "$dir"/fdr-* "$dir"/mt-*; do
    [ -f "$trace" ] || { echo "no trace recorded ($trace)"; exit 1; }
    t=$(basename "$trace")
    case "$t" in st-*) bin=$dir/st ;; fdr-*) bin=$dir/fdr ;; *) bin=$dir/mt ;; esac
    # llvm-xray account fails on multi-threaded traces (its global TSC
    # floor); tracekit's answers there are checked in test_account.c.
    case "$t" in mt-*) ;; *)
    for opts in "" "-s count -r dsc" "-s sum -p 2" "-s 90p" "-s 99p -r dsc" \
                "--recursive-calls-only" "-d" "-s min" "-s max -p 1"; do
        # shellcheck disable=SC2086
        same "account $opts $t" account $opts "$trace" -- account $opts "$trace"
    done
    same "account csv $t" account --format csv "$trace" -- account -f csv "$trace"
    # latencies spilled to the temporary file: still exact
    same "account spilled $t" account --memory-limit 1K "$trace" -- account "$trace"
    # names and locations from the binary's instrumentation map
    same "account -m $t" account -m "$bin" "$trace" -- account -m "$bin" "$trace"
    same "account -m csv $t" account -m "$bin" --format csv "$trace" -- account -m "$bin" -f csv "$trace"
    n=$((n + 1))
    rows=$("$tk" account --json "$trace" | grep -o '"funcid"' | wc -l)
    want=$("$xr" account "$trace" | sed -n 's/^Functions with latencies: //p')
    [ "$rows" = "$want" ] || { echo "DIFF: json rows $rows != $want"; fail=$((fail + 1)); }
    ;; esac
    for opts in "" "--per-thread-stacks" "--aggregate-threads" \
                "--all-stacks --stack-format flame" \
                "--all-stacks --stack-format flame --aggregate-threads" \
                "--all-stacks --stack-format flame --aggregation-type count"; do
        # shellcheck disable=SC2086
        same "stack $opts $t" stack $opts "$trace" -- stack $opts "$trace"
    done
    same "convert yaml $t" convert --to yaml -o - "$trace" -- convert -f yaml "$trace"
    # sorted through runs in the temporary file: the same bytes
    same "convert yaml spilled $t" convert --to yaml --memory-limit 1K -o - "$trace" \
        -- convert -f yaml "$trace"
    same "convert yaml -m $t" convert --to yaml -m "$bin" -o - "$trace" \
        -- convert -f yaml -y -m "$bin" "$trace"
    same "stack -m $t" stack -m "$bin" "$trace" -- stack -m "$bin" "$trace"
    same "stack -m flame $t" stack -m "$bin" --all-stacks --stack-format flame "$trace" \
        -- stack -m "$bin" --all-stacks --stack-format flame "$trace"
    # folded self times add up to the time of the root calls
    n=$((n + 1))
    folded=$("$tk" stack --folded "$trace" | awk '{s += $NF} END {print s}')
    roots=$("$tk" stack --all-stacks --stack-format flame --aggregate-threads "$trace" |
            awk 'gsub(/;/, ";", $1) == 1 {s += $NF} END {print s}')
    [ "$folded" = "$roots" ] || { echo "DIFF: folded total $folded != roots $roots"; fail=$((fail + 1)); }
done
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
