#!/bin/sh
# --max-memory (issue 23, item 2): an analysis that outgrows the limit ends
# with one line naming the record that asked, exit 2; the same run without
# the limit succeeds. Sizes the input declares are checked against what the
# file holds before anything is buffered, so a lying length field in a
# large (sparse) file is a malformed trace (exit 1), not out of memory.
# usage: memory_test.sh TRACEKIT SOURCE_DIR BIN_DIR
set -u
tk=$1
src=$2
bin=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-memory-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/cli_lib.sh"

# 60000 distinct functions, each called once: account keeps a row each
n=60000
"$bin/tk-gen-xray-shapes" roots $n -o "$tmp/roots.xray" 2>/dev/null || { echo "cannot generate"; exit 1; }

run 2 account --max-memory 6M "$tmp/roots.xray"
line=$(cat "$tmp/err")
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "account at 6M: stderr '$line'"
off=$(printf '%s' "$line" | sed -n "s|^tracekit: $tmp/roots.xray: offset 0x\([0-9a-f]*\) (record \([0-9]*\)): out of memory: --max-memory 6M reached\$|\1 \2|p")
[ -n "$off" ] || fail "account at 6M: stderr '$line'"
if [ -n "$off" ]; then
    set -- $off
    # basic mode v3: a 32-byte header, then 32-byte records
    [ $((0x$1)) -eq $((32 + 32 * $2)) ] || fail "offset 0x$1 is not that of record $2"
    [ "$2" -gt 0 ] && [ "$2" -lt $((2 * n)) ] || fail "record $2 is not in the trace"
fi
[ ! -s "$tmp/out" ] || fail "account at 6M printed a table"

# without the limit (none, 0, or the default) it succeeds: a row per function
for limit in none 0 ""; do
    run 0 account ${limit:+--max-memory "$limit"} --format xray "$tmp/roots.xray"
    rows=$(grep -c '^ *[0-9][0-9]* *1 \[' "$tmp/out")
    [ "$rows" = $n ] || fail "account --max-memory '$limit': $rows rows of 1 call, wanted $n"
done
run 0 account --max-memory 1G "$tmp/roots.xray"

# the option is every command's, and its value is checked
for cmd in info dump validate report stack; do
    run 0 "$cmd" --max-memory 512M "$src/examples/xray/basic-v3.xray"
done
run 2 validate --max-memory 12Q "$tmp/roots.xray"
expect_err "tracekit: validate: --max-memory takes a size like 512M, or none, not '12Q' (try 'tracekit validate --help')"
run 2 validate --max-memory -1 "$tmp/roots.xray"
grep -q "takes a size like 512M" "$tmp/err" || fail "--max-memory -1: $(cat "$tmp/err")"

# a length field the file cannot hold fails before it is buffered: with
# 64 MiB after it (sparse) and a 16 MiB limit, the error is the trace's
# XRay FDR v1: its header, then a custom event of 2^31 - 1 bytes
printf '\001\000\001\000\003\000\000\000\000\312\232\073\000\000\000\000' >"$tmp/event.xray"
printf '\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' >>"$tmp/event.xray"
printf '\013\377\377\377\177\000\000\000\000\000\000\000\000\000\000\000' >>"$tmp/event.xray"
truncate -s 64M "$tmp/event.xray"
run 1 validate --max-memory 16M "$tmp/event.xray"
expect_err "tracekit: $tmp/event.xray: offset 0x21 (record 0): event payload of 2147483647 bytes runs past the end of the trace (67108816 bytes left)"
# UCIR: the spec header of the example, then an OP_FRAME of 100 MiB
head -c 80 "$src/examples/ucir/hello.ucir" >"$tmp/frame.ucir"
printf '\001\001\000\000\000\001\006\100\000\000' >>"$tmp/frame.ucir"
truncate -s 64M "$tmp/frame.ucir"
run 1 validate --max-memory 16M "$tmp/frame.ucir"
expect_err "tracekit: $tmp/frame.ucir: offset 0x50 (record 0): frame 0: truncated: OP_FRAME needs 104857600 compressed bytes, 67108774 left"

if [ "$failures" -ne 0 ]; then
    echo "$failures memory-limit check(s) failed"
    exit 1
fi
echo "--max-memory: a clear error at the record that asked; lying sizes are malformed"
