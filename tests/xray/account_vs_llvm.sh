#!/bin/sh
# tracekit account must print exactly what llvm-xray account prints, on
# basic and FDR traces recorded now from programs/acct_*.
# usage: account_vs_llvm.sh TRACEKIT SRCDIR CLANG CLANGXX LLVM_XRAY
set -u
tk=$1 src=$2 cc=$3 cxx=$4 xr=$5
if [ ! -x "$cc" ] || [ ! -x "$cxx" ] || [ ! -x "$xr" ]; then
    echo "skipped: clang, clang++ or llvm-xray missing"; exit 77
fi
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
flags="-O0 -fxray-instrument -fxray-instruction-threshold=1"
$cc $flags "$src/programs/acct_st.c" -o "$dir/st" || exit 2
$cxx $flags "$src/programs/acct_fdr.cc" -o "$dir/fdr" || exit 2
(cd "$dir" && XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=basic-" \
    XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./st 2>/dev/null)
(cd "$dir" && XRAY_OPTIONS="xray_logfile_base=fdr-" ./fdr 2>/dev/null)
fail=0 n=0
for trace in "$dir"/basic-* "$dir"/fdr-*; do
    [ -f "$trace" ] || { echo "no trace recorded ($trace)"; exit 1; }
    for opts in "" "-s count -r dsc" "-s sum -p 2" "-s 90p" "-s 99p -r dsc" \
                "--recursive-calls-only" "-d" "-s min" "-s max -p 1"; do
        n=$((n + 1))
        # shellcheck disable=SC2086
        "$tk" account $opts "$trace" > "$dir/tk.txt" 2>&1
        # shellcheck disable=SC2086
        "$xr" account $opts "$trace" > "$dir/xr.txt" 2>&1
        if ! cmp -s "$dir/tk.txt" "$dir/xr.txt"; then
            echo "DIFF: account $opts $(basename "$trace")"; diff "$dir/tk.txt" "$dir/xr.txt" | head -20
            fail=$((fail + 1))
        fi
    done
    n=$((n + 1))
    "$tk" account --format csv "$trace" > "$dir/tk.csv" 2>&1
    "$xr" account -f csv "$trace" > "$dir/xr.csv" 2>&1
    cmp -s "$dir/tk.csv" "$dir/xr.csv" || { echo "DIFF: csv $(basename "$trace")"; fail=$((fail + 1)); }
    # --json carries the same numbers as the text table
    n=$((n + 1))
    rows=$("$tk" account --json "$trace" | grep -o '"funcid"' | wc -l)
    want=$(sed -n 's/^Functions with latencies: //p' "$dir/xr.txt")
    [ "$rows" = "$want" ] || { echo "DIFF: json rows $rows != $want"; fail=$((fail + 1)); }
done
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
