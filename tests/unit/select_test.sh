#!/bin/sh
# Selections (--thread, --range, --addr, --func, cachesim --warmup) on every
# format: what a command selects equals what select_check.py computes from
# the whole trace with the documented rules; an analysis of a selection
# equals the analysis of the trace cut by select_check.py; what does not
# apply is a usage error. Skipped (77) without python3.
# usage: select_test.sh TRACEKIT SOURCE_DIR
set -u
tk=$1
src=$2
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-select-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/cli_lib.sh"
# the interpreter itself, not a version manager's shim in front of it
py="$(python3 -c 'import sys; print(sys.executable)') $src/tests/unit/select_check.py"
ex=$src/examples

# same NAME FILE1 FILE2: the files are equal
same() {
    cmp -s "$2" "$3" || fail "$1: $(diff "$2" "$3" | head -5 | tr '\n' ' ')"
}

# selects FORMAT TRACE SPEC OPTIONS...: dump --json OPTIONS keeps the
# records select_check.py expects (by index; casemate: by id)
selects() {
    fmt=$1 trace=$2 spec=$3
    shift 3
    run 0 dump --json "$@" "$trace"
    if [ "$fmt" = casemate ]; then
        $py ids <"$tmp/out" >"$tmp/got"
    else
        $py indexes <"$tmp/out" >"$tmp/got"
    fi
    $py "expect-$fmt" "$trace" "$spec" >"$tmp/want"
    [ -s "$tmp/want" ] || fail "$fmt $*: the test selects nothing"
    same "$fmt dump $*" "$tmp/got" "$tmp/want"
}

# usage_error TEXT ARGS...: exit 2, and stderr holds TEXT
usage_error() {
    needle=$1
    shift
    run 2 "$@"
    grep -qF -- "$needle" "$tmp/err" || fail "tracekit $*: stderr '$(cat "$tmp/err")' lacks '$needle'"
}

$py gen-cacheray "$tmp/c.trace"
$py gen-casemate "$tmp/m.log"
$py gen-xray "$tmp/x.xray" "$tmp/x.yaml"

# ---- Cacheray: records by index, thread, bytes touched
cr=$tmp/c.trace
selects cacheray "$cr" "thread=2" --thread 2
selects cacheray "$cr" "thread=1,3-7" --thread 1,3-7
selects cacheray "$cr" "range=1000:1500" --range 1000:1500
selects cacheray "$cr" "range=:0x100" --range :0x100
selects cacheray "$cr" "range=5000:" --range 5000:
selects cacheray "$cr" "addr=0x50100-0x50104,0x90000+64" --addr 0x50100-0x50104,0x90000+64
selects cacheray "$cr" "addr=0x30203" --addr 0x30203
selects cacheray "$cr" "thread=7;range=2K:4K;addr=0x30000-0x60000" \
    --thread 7 --range 2K:4K --addr 0x30000-0x60000
# --skip and --limit count the records selected
run 0 dump --json --thread 3 "$cr"
$py indexes <"$tmp/out" | sed -n '11,15p' >"$tmp/want"
run 0 dump --json --thread 3 --skip 10 --limit 5 "$cr"
$py indexes <"$tmp/out" >"$tmp/got"
same "dump --thread 3 --skip 10 --limit 5" "$tmp/got" "$tmp/want"
# jsonl and info see the same records as dump
run 0 convert --to jsonl --thread 2 --range 100:3000 "$cr" -o "$tmp/sel.jsonl"
run 0 dump --json --thread 2 --range 100:3000 "$cr"
same "convert --to jsonl = dump --json" "$tmp/sel.jsonl" "$tmp/out"
run 0 info --json --thread 2 --range 100:3000 "$cr"
grep -q "\"records\":$(wc -l <"$tmp/sel.jsonl" | tr -d ' ')," "$tmp/out" ||
    fail "info --thread 2 --range 100:3000 counts other records: $(cat "$tmp/out")"
# a converted selection keeps the annotations before the window's end, and
# cachesim on it counts what cachesim on the selection counts
for sel in "--thread 2" "--range 1500:4500" "--addr 0x40000-0x90000" "--thread 1,7 --range 3000:"; do
    spec=$(echo "$sel" | sed 's/--\([a-z]*\) /\1=/g; s/ /;/g')
    $py cut-cacheray "$cr" "$spec" "$tmp/cut.trace"
    run 0 convert --to cacheray $sel "$cr" -o "$tmp/conv.trace"
    same "convert --to cacheray $sel" "$tmp/conv.trace" "$tmp/cut.trace"
    run 0 validate -q "$tmp/conv.trace"
    run 0 cachesim --json --reuse $sel "$cr"
    $py warm "$tmp/out" none >"$tmp/got"
    run 0 cachesim --json --reuse "$tmp/cut.trace"
    $py warm "$tmp/out" none >"$tmp/want"
    same "cachesim $sel = cachesim of the cut trace" "$tmp/got" "$tmp/want"
done
# --warmup N: the counts of the window less those of its first N records
run 0 cachesim --json --reuse --range 1000:5000 "$cr"
cp "$tmp/out" "$tmp/full.json"
run 0 cachesim --json --reuse --range 1000:1800 "$cr"
cp "$tmp/out" "$tmp/first.json"
$py warm "$tmp/full.json" "$tmp/first.json" >"$tmp/want"
run 0 cachesim --json --reuse --range 1000:5000 --warmup 800 "$cr"
$py warm "$tmp/out" none >"$tmp/got"
same "cachesim --warmup 800" "$tmp/got" "$tmp/want"
grep -q '"records":3200,' "$tmp/out" || fail "cachesim --warmup 800 of 4000 records: $(cat "$tmp/out")"
# report is the one-level simulation of the selection
run 0 report --json --thread 3 "$cr"
grep -q '"accesses":' "$tmp/out" || fail "report --thread 3: $(cat "$tmp/out")"

# ---- casemate: event ids, tids, locations
cm=$tmp/m.log
selects casemate "$cm" "thread=1" --thread 1
selects casemate "$cm" "range=500:900" --range 500:900
selects casemate "$cm" "addr=0x80100-0x80200" --addr 0x80100-0x80200
selects casemate "$cm" "addr=0x81000+8;thread=0,9" --addr 0x81000+8 --thread 0,9
run 0 convert --to casemate --range 1000:2000 "$cm" -o "$tmp/cut.log"
grep -q '^!' "$tmp/cut.log" && fail "convert --range kept the log's '!' line"
run 0 dump --json "$tmp/cut.log"
$py ids <"$tmp/out" >"$tmp/got"
$py expect-casemate "$cm" "range=1000:2000" >"$tmp/want"
same "convert --to casemate --range 1000:2000" "$tmp/got" "$tmp/want"

# ---- XRay: calls that start in the window, whole; a function's calls
xr=$tmp/x.xray
selects xray "$xr" "thread=12" --thread 12
selects xray "$xr" "range=50us:150us" --range 50us:150us
selects xray "$xr" "range=:100000" --range :100000
selects xray "$xr" "range=0.2ms:" --range 0.2ms:
selects xray "$xr" "func=2" --func 2
# a window's ends fall between ticks: an entry at the first tick at or
# past FROM ns is in, one before it out
for k in 101 2000 3333; do
    for t in $($py xray-edge "$xr" $k); do
        selects xray "$xr" "range=${t}ns:" --range "${t}ns:"
        selects xray "$xr" "range=:$t" --range ":$t"
    done
done
selects xray "$xr" "func=3;range=10us:300us;thread=11,13" --func '#3' --range 10us:300us --thread 11,13
# analyses of a window are those of the trace cut to it
for sel in "--range 50us:150us" "--func 2" "--thread 13 --range 100us:" "--func 1 --range :200us"; do
    spec=$(echo "$sel" | sed 's/--\([a-z]*\) /\1=/g; s/ /;/g')
    $py cut-xray "$xr" "$spec" "$tmp/cut.xray"
    for cmd in "account" "stack" "graph -e sum -v count" "report --json"; do
        run 0 $cmd $sel "$xr"
        $py strip-file <"$tmp/out" 2>/dev/null >"$tmp/got" || cp "$tmp/out" "$tmp/got"
        run 0 $cmd "$tmp/cut.xray"
        $py strip-file <"$tmp/out" 2>/dev/null >"$tmp/want" || cp "$tmp/out" "$tmp/want"
        same "$cmd $sel = $cmd of the cut trace" "$tmp/got" "$tmp/want"
    done
    # an FDR copy and a pipe select the same
    run 0 account $sel "$xr"
    cp "$tmp/out" "$tmp/want"
    run 0 convert --to xray-fdr "$xr" -o "$tmp/x.fdr"
    run 0 account $sel "$tmp/x.fdr"
    same "account $sel on FDR" "$tmp/out" "$tmp/want"
    "$tk" account $sel - <"$xr" >"$tmp/out" 2>"$tmp/err" || fail "account $sel on a pipe"
    same "account $sel on a pipe" "$tmp/out" "$tmp/want"
    # the selection converted is a trace of its own
    run 0 convert --to xray-basic $sel "$xr" -o "$tmp/conv.xray"
    run 0 account "$tmp/conv.xray"
    same "account of convert $sel" "$tmp/out" "$tmp/want"
    run 0 convert --to xray-fdr $sel "$xr" -o "$tmp/conv.fdr"
    run 0 validate --strict -q "$tmp/conv.fdr"
    run 0 account "$tmp/conv.fdr"
    same "account of convert --to xray-fdr $sel" "$tmp/out" "$tmp/want"
done
# names through -m (a YAML map here) are the ids they name
run 0 account -m "$tmp/x.yaml" --func 2 "$xr"
cp "$tmp/out" "$tmp/want"
run 0 account -m "$tmp/x.yaml" --func parse "$xr"
same "account --func parse = --func 2" "$tmp/out" "$tmp/want"
run 0 stack --func parse -m "$tmp/x.yaml" "$xr"
cp "$tmp/out" "$tmp/named"
run 0 stack --func 2 -m "$tmp/x.yaml" "$xr"
same "stack --func parse = --func 2" "$tmp/named" "$tmp/out"
run 0 report --json -m "$tmp/x.yaml" --func 3 --range 20us: "$xr"
cp "$tmp/out" "$tmp/want"
run 0 report --json -m "$tmp/x.yaml" --func eval --range 20us: "$xr"
same "report --func eval = --func 3" "$tmp/out" "$tmp/want"
usage_error "has no function of that name" account -m "$tmp/x.yaml" --func nosuch "$xr"
usage_error "a name needs the instrumentation map" account --func parse "$xr"
usage_error "a name needs the instrumentation map" dump --func main "$xr"
# FDR dumps select logical records
run 0 dump --thread 2524 "$ex/xray/fdr-v5.xray"
[ "$(wc -l <"$tmp/out")" -eq 30 ] || fail "dump --thread 2524 fdr-v5.xray: $(wc -l <"$tmp/out") records"
usage_error "--records raw and --thread exclude each other" \
    dump --records raw --thread 1 "$ex/xray/fdr-v5.xray"
usage_error "not counts with K, M or G" dump --range 1K:2K "$xr"
usage_error "--range '10ms:': cacheray ranges are record indexes, not times" \
    dump --range 10ms: "$cr"

# ---- UCIR: instructions as the replay counts them, memory reads and writes
uc=$ex/ucir/hello.ucir
run 0 dump --json "$uc"
cp "$tmp/out" "$tmp/full.jsonl"
for w in 0:3 3:9 5:200; do
    $py ucir-window "${w%:*}" "${w#*:}" <"$tmp/full.jsonl" >"$tmp/want"
    run 0 dump --json --range "$w" "$uc"
    same "ucir dump --json --range $w" "$tmp/out" "$tmp/want"
    $py ucir-raw "${w%:*}" "${w#*:}" <"$tmp/full.jsonl" >"$tmp/want"
    run 0 dump --json --records raw --range "$w" "$uc"
    $py indexes <"$tmp/out" >"$tmp/got"
    same "ucir dump --records raw --range $w" "$tmp/got" "$tmp/want"
done
$py ucir-addr 0x401008 0x401010 <"$tmp/full.jsonl" >"$tmp/want"
run 0 dump --json --addr 0x401008+8 "$uc"
same "ucir dump --json --addr 0x401008+8" "$tmp/out" "$tmp/want"
run 0 dump "$uc"
sed -n '/^3 /,/^9 /p' "$tmp/out" | sed '$d' >"$tmp/want"
run 0 dump --range 3:9 "$uc"
same "ucir dump --range 3:9" "$tmp/out" "$tmp/want"
# Tenet: the window's lines; its first holds every register
run 0 convert --to tenet "$uc" -o "$tmp/full.tenet"
run 0 convert --to tenet --range 4:10 "$uc" -o "$tmp/win.tenet"
sed -n '6,10p' "$tmp/full.tenet" >"$tmp/want"
sed -n '2,$p' "$tmp/win.tenet" >"$tmp/got"
same "tenet --range 4:10" "$tmp/got" "$tmp/want"
[ "$(sed -n '1s/.*rip=/rip=/p' "$tmp/win.tenet")" = "$(sed -n '5s/.*rip=/rip=/p' "$tmp/full.tenet")" ] ||
    fail "tenet --range 4:10: first line $(head -1 "$tmp/win.tenet")"
run 0 convert --to drcov --range 0:3 "$uc" -o "$tmp/win.drcov"
grep -q "BB Table: 1 bbs" "$tmp/win.drcov" || fail "drcov --range 0:3: $(grep BB "$tmp/win.drcov")"

# ---- what does not apply
usage_error "--func does not apply to cacheray traces" dump --func 1 "$cr"
usage_error "--addr does not apply to xray traces" dump --addr 0x1000 "$xr"
usage_error "--thread does not apply to ucir traces" dump --thread 1 "$uc"
usage_error "--func does not apply to casemate traces" info --func 1 "$cm"
usage_error "validate: --range does not apply: validate checks the whole trace" \
    validate --range 1:2 "$cr"
usage_error "replay: --thread does not apply" replay --thread 1 "$uc"
usage_error "casemate's report checks break-before-make over the whole log" \
    report --thread 0 "$cm"
usage_error "UCIR's report summarises the whole replay" report --range 1:2 "$uc"
usage_error "--range does not apply to --to ucir" convert --to ucir --range 1:2 "$uc" -o "$tmp/u"
usage_error "--addr does not apply to --to tenet" convert --to tenet --addr 1 "$uc" -o "$tmp/u"
usage_error "is empty" dump --range 9:3 "$cr"
usage_error "not a list of ids" dump --thread one "$cr"
usage_error "--warmup takes a number" cachesim --warmup x "$cr"
usage_error "bad option '--addr'" account --addr 1 "$xr"

if [ "$failures" -ne 0 ]; then
    echo "$failures selection check(s) failed"
    exit 1
fi
echo "selections agree with select_check.py"
