#!/bin/sh
# Traces whose shape misled the analyses, recorded now from real programs
# (clang -fxray-instrument) and checked against an independent reference:
#  - FDR buffers out of time order (programs/fdr_ring.cc: a 4-buffer ring
#    that wrapped): tracekit's answers equal its answers on the same
#    records put in time order by llvm-xray (convert -f yaml sorts them),
#    from a file and from standard input; validate warns;
#  - an FDR header over basic records (llvm-xray convert -f raw of that
#    trace): read as the basic records they are, validate says so;
#  - a forked program's repeated records (programs/fork.c): validate warns,
#    and account, stack and graph give what the trace gives with the
#    repeated records removed (found here by comparing raw bytes);
#  - the multi-threaded stack example of docs/formats/xray.md, as written.
# usage: real_shapes.sh TRACEKIT SRCDIR CLANG CLANGXX LLVM_XRAY
set -u
tk=$1 src=$2 cc=$3 cxx=$4 xr=$5
if [ ! -x "$cc" ] || [ ! -x "$cxx" ] || [ ! -x "$xr" ]; then
    echo "skipped: clang, clang++ or llvm-xray missing"; exit 77
fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$src/../cli_lib.sh"
flags="-O0 -fxray-instrument -fxray-instruction-threshold=1"
$cxx $flags "$src/programs/fdr_ring.cc" -o "$tmp/ring" || exit 2
$cc $flags "$src/programs/fork.c" -o "$tmp/fork" || exit 2
(cd "$tmp" && XRAY_OPTIONS="xray_logfile_base=ring-" ./ring 2>/dev/null)
(cd "$tmp" && XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=fork-" \
    XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./fork 2>/dev/null)
ring=$(ls "$tmp"/ring-* 2>/dev/null) && fork=$(ls "$tmp"/fork-* 2>/dev/null) ||
    { echo "FAIL: no trace recorded"; exit 1; }

# same "WHAT" CMD-A -- CMD-B: tracekit's stdout for both argument lists equal
same() {
    what=$1; shift
    a=""; while [ "$1" != "--" ]; do a="$a $1"; shift; done; shift
    # shellcheck disable=SC2086
    "$tk" $a >"$tmp/a" 2>/dev/null
    "$tk" "$@" >"$tmp/b" 2>/dev/null
    if [ ! -s "$tmp/a" ] || ! cmp -s "$tmp/a" "$tmp/b"; then
        fail "$what"; diff "$tmp/a" "$tmp/b" | head -5
    fi
}

# ---- buffers out of time order
walls=$("$tk" dump "$ring" | sed -n 's/<Wall Time: seconds = \(.*\)>/\1/p')
[ "$(echo "$walls" | wc -l)" -ge 3 ] || fail "ring: fewer than 3 buffers"
[ "$(echo "$walls" | sort -n)" != "$walls" ] ||
    fail "ring: the recording's buffers are in time order (the ring did not wrap)"
run 0 validate "$ring"
grep -q "code=buffers_out_of_order buffers=[1-9][0-9]* thread_count=1 " "$tmp/out" ||
    fail "ring: validate does not warn: $(cat "$tmp/out")"
"$xr" convert -f yaml "$ring" -o "$tmp/sorted.yaml" || exit 2
for args in "account -k" "account -k -s count -r dsc" "stack -k" \
            "stack -k --all-stacks --stack-format flame" "graph -k -e count -v sum" \
            "convert --to folded -o -"; do
    same "ring: $args" $args "$ring" -- $args "$tmp/sorted.yaml"
done
n_file=$("$tk" dump --records logical "$ring" | wc -l)
n_yaml=$("$tk" dump --records logical "$tmp/sorted.yaml" | wc -l)
[ "$n_file" = "$n_yaml" ] && [ "$n_file" -gt 1000 ] || fail "ring: $n_file vs $n_yaml records"
# the logical records in time order: TSCs never decrease
"$tk" dump --records logical --json "$ring" | sed 's/.*"tsc":\([0-9]*\).*/\1/' >"$tmp/tscs"
sort -n -c "$tmp/tscs" 2>/dev/null || fail "ring: records not in time order"
# standard input: copied to a temporary file, then the same answers
"$tk" account -k "$ring" >"$tmp/a" 2>/dev/null
"$tk" account -k - <"$ring" >"$tmp/b" 2>/dev/null
cmp -s "$tmp/a" "$tmp/b" || fail "ring: account from standard input differs"

# ---- an FDR header over basic records
"$xr" convert -f raw "$ring" -o "$tmp/raw.xray" || exit 2
[ "$(od -An -tu2 -j2 -N2 "$tmp/raw.xray" | tr -d ' ')" = 1 ] ||
    fail "raw: llvm-xray no longer keeps the FDR type"
run 0 validate "$tmp/raw.xray"
grep -q "code=fdr_header_basic_records" "$tmp/out" || fail "raw: validate does not say what it is"
run 0 info "$tmp/raw.xray"
grep -q "^records_layout: basic" "$tmp/out" || fail "raw: info layout"
for args in "account -k" "stack -k" "graph -k -e sum"; do
    same "raw: $args" $args "$tmp/raw.xray" -- $args "$tmp/sorted.yaml"
done

# ---- a forked program's repeated records
run 0 validate "$fork"
grep -q "code=tsc_goes_back thread=[0-9]* pid=[0-9]* records=4 " "$tmp/out" ||
    fail "fork: validate does not warn of 4 repeated records: $(cat "$tmp/out")"
run 1 graph "$fork" # the child's exits of calls its parent entered
# the trace without records that repeat an earlier one byte for byte
od -An -v -to1 -w32 "$fork" | awk 'NR == 1 || !seen[$0]++' >"$tmp/kept.oct"
[ $(($(wc -l <"$tmp/kept.oct") + 4)) = $(($(wc -c <"$fork") / 32)) ] ||
    fail "fork: not 4 repeated records"
# shellcheck disable=SC2059
printf "$(sed 's/ *\([0-7][0-7][0-7]\)/\\\1/g' "$tmp/kept.oct" | tr -d '\n')" >"$tmp/dedup.xray"
for args in "account -k" "stack -k" "stack -k --per-thread-stacks" "graph -k -e count -v count" \
            "convert --to chrome -o -"; do
    same "fork: $args" $args "$fork" -- $args "$tmp/dedup.xray"
done
run 0 report "$fork"
grep -q "^records_in_thread_past: 4$" "$tmp/out" || fail "fork: report $(cat "$tmp/out")"
"$tk" graph -k "$fork" 2>"$tmp/err" >/dev/null
[ "$(grep -c "TSC goes back" "$tmp/err")" = 4 ] || fail "fork: graph -k reports $(cat "$tmp/err")"

# ---- the stack difference worked through in docs/formats/xray.md
leafsum() { # the stack lines of the top-by-sum list, one line
    sed -n '/by leaf sum/,/by leaf count/p' | grep '^#' | tr -s ' ' | tr '\n' '|'
}
y=$src/yaml/stack-threads.yaml
got=$("$tk" stack "$y" | leafsum)
[ "$got" = "#0 #3 1 20|#0 #1 1 40|#1 #2 1 10|" ] || fail "documented stack example: $got"
got=$("$xr" stack "$y" | leafsum)
[ "$got" = "#0 #1 1 40|#0 #1 0 0|#1 #2 1 10|" ] || fail "llvm-xray's documented stack: $got"

[ "$failures" -eq 0 ] && echo "real shapes: all passed"
[ "$failures" -eq 0 ]
