#!/bin/sh
# Fault injection through tests/fault/shim.c (issue 23, item 5): reads of
# the trace fail with EIO part way (every command, every format), writes of
# every output fail with ENOSPC part way, or its close with EIO (convert to
# each target, every -o, bbm --dot, mrc --svg, replay's --index). Each must
# end with one line naming the file and the system's reason, exit 2, leave
# no output (nor temporary file) behind, and never change the input. A
# fault past the end of the output changes nothing: the output is the
# fault-free run's, byte for byte.
# usage: shim_test.sh TRACEKIT SOURCE_DIR BIN_DIR SHIM
set -u
tk=$1
src=$2
bin=$3
shim=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-fault-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/cli_lib.sh"

# Traces of each format, large enough that the probe's first 256 KiB read
# succeeds and the failure comes from the command's own reading.
mkdir "$tmp/in" "$tmp/out"
in=$tmp/in
{
    "$bin/tk-gen-xray" --mode fdr --version 5 --bytes 1M --threads 2 -o "$in/fdr.xray" &&
    "$bin/tk-gen-xray" --mode basic --version 3 --bytes 1M -o "$in/basic.xray" &&
    "$bin/tk-gen-cacheray" --bytes 1M -o "$in/heap.trace" &&
    "$bin/tk-gen-casemate" --bytes 1M -o "$in/bbm.log" &&
    "$bin/tk-gen-ucir" --bytes 2M --frame-bytes 64K -o "$in/hello.ucir"
} 2>/dev/null || { echo "cannot generate the traces"; exit 1; }
# small ones for the writes: the outputs' size matters, not the input's
for f in xray/basic-v3.xray xray/fdr-v5.xray cacheray/heap.trace casemate/bbm.log ucir/hello.ucir; do
    cp "$src/examples/$f" "$in/small-${f#*/}"
done
(cd "$in" && md5sum ./*) >"$tmp/sums"

# faulty OP PATH AFTER [ERRNO] -- ARGS: tracekit ARGS under the shim, the
# I/O OP of files whose path contains PATH failing after AFTER bytes.
faulty() {
    op=$1 path=$2 after=$3
    shift 3
    errname=
    [ "$1" = "--" ] || { errname=$1; shift; }
    shift
    env LD_PRELOAD="$shim" TK_FAULT_OP="$op" TK_FAULT_PATH="$path" TK_FAULT_AFTER="$after" \
        ${errname:+TK_FAULT_ERRNO=$errname} "$tk" "$@" >"$tmp/out.txt" 2>"$tmp/err"
    got=$?
}

# expect_fault WHAT LINE: exit 2 and stderr the one LINE.
expect_fault() {
    [ "$got" = 2 ] || fail "$1: exit $got, wanted 2; stderr: $(cat "$tmp/err")"
    printf '%s\n' "$2" >"$tmp/want"
    cmp -s "$tmp/err" "$tmp/want" || fail "$1: stderr '$(cat "$tmp/err")', wanted '$2'"
}

# nothing_left WHAT: the output directory is empty (no file, no temporary).
nothing_left() {
    left=$(ls -A "$tmp/out")
    [ -z "$left" ] || fail "$1: left behind: $left"
    rm -rf "$tmp/out" && mkdir "$tmp/out"
}

# ---- reads: EIO from byte 400000 of the trace on (a bad sector). The
# error names the offset of the read that failed: 400000 (0x61a80), or
# past it for XRay FDR, whose reader seeks from buffer to buffer.
read_fault() { # FILE ARGS...
    f=$1
    shift
    faulty read "$f" 400000 -- "$@" "$in/$f"
    what="read fault: $* $f"
    [ "$got" = 2 ] || fail "$what: exit $got, wanted 2; stderr: $(cat "$tmp/err")"
    at=$(sed -n "s|^tracekit: $in/$f: offset 0x\([0-9a-f]*\): read failed: Input/output error\$|\1|p" "$tmp/err")
    if [ "$(wc -l <"$tmp/err")" != 1 ] || [ -z "$at" ]; then
        fail "$what: stderr '$(cat "$tmp/err")'"
    elif [ "$f" = fdr.xray ]; then
        [ $((0x$at)) -ge 400000 ] && [ $((0x$at)) -lt "$(stat -c %s "$in/$f")" ] ||
            fail "$what: offset 0x$at"
    else
        [ "$at" = 61a80 ] || fail "$what: offset 0x$at, wanted 0x61a80"
    fi
    nothing_left "$what"
}
for f in fdr.xray basic.xray heap.trace bbm.log hello.ucir; do
    for cmd in info dump validate report; do read_fault "$f" "$cmd"; done
    read_fault "$f" convert --to jsonl -o "$tmp/out/o.jsonl"
    read_fault "$f" convert --to parquet -o "$tmp/out/o.pq"
    read_fault "$f" report --html -o "$tmp/out/o.html"
done
for cmd in account stack graph; do read_fault fdr.xray "$cmd"; done
read_fault basic.xray account -o "$tmp/out/o.txt"
read_fault heap.trace cachesim
read_fault heap.trace mrc --svg "$tmp/out/o.svg"
read_fault bbm.log bbm --dot "$tmp/out/o.dot"
read_fault hello.ucir replay
read_fault hello.ucir replay --at 50000 --index "$tmp/out/o.idx"

# ---- writes: ENOSPC half way through the output, EIO at its close, and a
# fault past its end (which must change nothing)
# write_faults WHAT OUT ARGS...: OUT is the output's path (a file, or a
# directory for parquet); the failing file's line is
# "tracekit: OUT...: ...: No space left on device" (the Parquet writer
# names the table's file in OUT). WHAT "convert ..." skips targets the
# format has not (usage errors of the fault-free run).
write_faults() {
    what=$1 out=$2
    shift 2
    "$tk" "$@" >"$tmp/base.txt" 2>"$tmp/err"
    rc=$?
    case $rc.$what in
    0.*) ;;
    2.convert*) grep -q "^tracekit: convert: .* cannot be converted to '" "$tmp/err" && return ;;
    *) fail "$what: fault-free run failed: $(cat "$tmp/err")"; return ;;
    esac
    [ -e "$out" ] || { fail "$what: no output $out"; return; }
    size=$(du -sb "$out" | cut -f1)
    mv "$out" "$tmp/base"
    faulty write "$out" $((size / 2)) -- "$@"
    [ "$got" = 2 ] || fail "$what: ENOSPC: exit $got, wanted 2; stderr: $(cat "$tmp/err")"
    grep -q "^tracekit: $out.*: No space left on device\$" "$tmp/err" &&
        [ "$(wc -l <"$tmp/err")" = 1 ] ||
        fail "$what: ENOSPC: stderr '$(cat "$tmp/err")'"
    nothing_left "$what: ENOSPC"
    faulty write "$out" $((size * 2)) -- "$@"
    [ "$got" = 0 ] || fail "$what: a fault past the end: exit $got"
    diff -r "$tmp/base" "$out" >/dev/null 2>&1 || fail "$what: a fault past the end changed the output"
    rm -rf "$tmp/base" "$out"
    nothing_left "$what: past the end"
}

targets=$("$tk" --list-targets)
for f in small-fdr-v5.xray small-basic-v3.xray small-heap.trace small-bbm.log small-hello.ucir; do
    for t in $targets; do
        write_faults "convert $f --to $t" "$tmp/out/o.$t" convert --to "$t" -o "$tmp/out/o.$t" "$in/$f"
    done
    write_faults "report --html $f" "$tmp/out/o.html" report --html -o "$tmp/out/o.html" "$in/$f"
done
write_faults "account -o" "$tmp/out/o.txt" account -o "$tmp/out/o.txt" "$in/small-fdr-v5.xray"
write_faults "stack -o" "$tmp/out/o.txt" stack -o "$tmp/out/o.txt" "$in/small-fdr-v5.xray"
write_faults "graph -o" "$tmp/out/o.dot" graph -o "$tmp/out/o.dot" "$in/small-basic-v3.xray"
write_faults "graph-diff -o" "$tmp/out/o.dot" graph-diff -o "$tmp/out/o.dot" \
    "$in/small-basic-v3.xray" "$in/small-fdr-v5.xray"
write_faults "bbm --dot" "$tmp/out/o.dot" bbm --dot "$tmp/out/o.dot" "$in/small-bbm.log"
write_faults "mrc --svg" "$tmp/out/o.svg" mrc --svg "$tmp/out/o.svg" "$in/small-heap.trace"
write_faults "replay --index" "$tmp/out/o.idx" replay --at 50000 --index "$tmp/out/o.idx" "$in/hello.ucir"

# a close that fails (NFS reports write errors there)
faulty close "$tmp/out/o.jsonl" 0 -- convert --to jsonl -o "$tmp/out/o.jsonl" "$in/small-heap.trace"
expect_fault "close fault" "tracekit: $tmp/out/o.jsonl: write failed: Input/output error"
nothing_left "close fault"

# replay's default index is a cache: one it cannot write is a note, and the
# replay goes on from the start (the state printed is the same)
XDG_CACHE_HOME=$tmp/out/cache
export XDG_CACHE_HOME
"$tk" replay --no-index --at 50000 "$in/hello.ucir" >"$tmp/base.txt"
faulty write "$tmp/out/cache/" 1000 -- replay --at 50000 "$in/hello.ucir"
[ "$got" = 0 ] || fail "replay, default index unwritable: exit $got"
grep -q "^tracekit: replay: note: no checkpoint index ($tmp/out/cache/tracekit/ucir-[0-9a-f]*\.idx: checkpoint index: cannot write: No space left on device); replaying from the start\$" "$tmp/err" ||
    fail "replay, default index unwritable: stderr '$(cat "$tmp/err")'"
cmp -s "$tmp/out.txt" "$tmp/base.txt" || fail "replay, default index unwritable: another state"
[ -z "$(ls -A "$tmp/out/cache/tracekit")" ] || fail "replay left $(ls "$tmp/out/cache/tracekit")"
rm -rf "$tmp/out/cache"
unset XDG_CACHE_HOME

# the inputs were never written
(cd "$in" && md5sum -c --quiet "$tmp/sums") >/dev/null 2>&1 || fail "an input was modified"

if [ "$failures" -ne 0 ]; then
    echo "$failures fault-injection check(s) failed"
    exit 1
fi
echo "read and write faults: reported with the file and reason, exit 2, nothing left behind"
