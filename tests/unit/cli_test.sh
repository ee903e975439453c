#!/bin/sh
# CLI tests: exit codes, the one-line error format, stdin, convert round
# trips and atomic output, dump --skip/--limit.
# Usage: cli_test.sh TRACEKIT EXAMPLES_DIR
set -u
tk=$1
ex=$2/cacheray
le=$ex/heap.trace
be=$ex/heap-be.trace
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-cli-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../cli_lib.sh"

# ---- help and usage
run 0 --help
grep -q '^usage: tracekit COMMAND' "$tmp/out" || fail "tracekit --help text"
for cmd in info dump validate convert; do
    run 0 "$cmd" --help
    head -n 1 "$tmp/out" | grep -q "^usage: tracekit $cmd " || fail "$cmd --help text"
    [ -s "$tmp/err" ] && fail "$cmd --help wrote to stderr"
    run 0 "$cmd" -h
done
run 0 --version
expect_out "tracekit 0.1.0"
run 2
run 2 bogus "$le"
expect_err "tracekit: unknown command 'bogus' (try 'tracekit --help')"

# ---- usage and I/O trouble: exit 2
run 2 info "$tmp/missing.trace"
expect_err "tracekit: $tmp/missing.trace: No such file or directory"
run 2 validate "$tmp"
expect_err "tracekit: $tmp: is a directory"
run 2 dump --bogus "$le"
expect_err "tracekit: dump: bad option '--bogus' or missing value (try 'tracekit dump --help')"
run 2 info --format nope "$le"
expect_err "tracekit: info: unknown format 'nope' (try 'tracekit info --help')"
run 2 info
expect_err "tracekit: info: missing FILE (try 'tracekit info --help')"
run 2 info "$le" "$be"
run 2 dump --endian middle "$le"
run 2 dump --limit -1 "$le"
expect_err "tracekit: $le: --limit: '-1' is not a non-negative number"
run 2 dump --skip 1x "$le"
run 2 convert "$le"
expect_err "tracekit: convert: --to TARGET is required (try 'tracekit convert --help')"
run 2 convert --to nope -o "$tmp/x" "$le"
expect_err "tracekit: convert: cacheray cannot be converted to 'nope'"
[ -e "$tmp/x" ] && fail "convert to an unknown target left $tmp/x"
run 2 convert --to cacheray --out-endian middle -o "$tmp/x" "$le"
if [ -w /dev/full ]; then
    "$tk" dump "$le" >/dev/full 2>"$tmp/err"
    [ $? -eq 2 ] || fail "dump >/dev/full did not exit 2"
    expect_err "tracekit: <stdout>: writing output failed"
fi

# ---- malformed traces: exit 1, one error line with offset and record
head -c 7248 "$le" >"$tmp/cut.trace"   # the last write loses 7 of its 18 bytes
run 1 validate "$tmp/cut.trace"
expect_err "tracekit: $tmp/cut.trace: offset 0x1c45 (record 399): truncated write record: needs 18 bytes, 11 left"
expect_out "$tmp/cut.trace format=cacheray valid=no warnings=0 error=\"truncated write record: needs 18 bytes, 11 left\" offset=0x1c45 record=399"
run 1 info "$tmp/cut.trace"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "info error is not exactly one line"
grep -Eq '^tracekit: .*: offset 0x[0-9a-f]+ \(record [0-9]+\): .+$' "$tmp/err" ||
    fail "error line format: $(cat "$tmp/err")"
run 1 dump "$tmp/cut.trace"
[ "$(wc -l <"$tmp/out")" -eq 399 ] || fail "dump of a cut trace printed $(wc -l <"$tmp/out") records before the error, wanted 399"
run 0 dump --limit 399 "$tmp/cut.trace" # the damage is never reached
{ cat "$le"; printf '\004'; } >"$tmp/bad.trace"
run 1 validate "$tmp/bad.trace"
expect_err "tracekit: $tmp/bad.trace: offset 0x1c57 (record 400): unknown record tag 0x04"
: >"$tmp/empty.trace"
run 1 info "$tmp/empty.trace"
expect_err "tracekit: $tmp/empty.trace: offset 0x0: empty input: cannot tell its format (use --format)"
run 0 validate --format cacheray "$tmp/empty.trace"
expect_out "$tmp/empty.trace format=cacheray valid=yes warnings=0"

# ---- warnings: exit 0, or 1 with --strict
head -c 36 /dev/zero >"$tmp/zero.trace"   # two reads of 0 bytes at address 0
run 0 validate "$tmp/zero.trace"
cat >"$tmp/want" <<EOF
warning i=0 offset=0x0 code=zero-size addr=0x0 message="access of 0 bytes"
warning i=1 offset=0x12 code=zero-size addr=0x0 message="access of 0 bytes"
$tmp/zero.trace format=cacheray valid=yes warnings=2
EOF
cmp -s "$tmp/out" "$tmp/want" || fail "validate warnings: $(cat "$tmp/out")"
run 1 validate --strict "$tmp/zero.trace"
expect_err "tracekit: $tmp/zero.trace: 2 warnings (--strict)"
run 0 validate -q "$tmp/zero.trace"
expect_out "$tmp/zero.trace format=cacheray valid=yes warnings=2"
run 0 validate --strict "$le"

# ---- standard input gives what the file gives
"$tk" dump "$le" >"$tmp/file.dump"
"$tk" dump - <"$le" >"$tmp/stdin.dump" || fail "dump - <file"
cmp -s "$tmp/file.dump" "$tmp/stdin.dump" || fail "dump - <file differs from dump file"
cat "$be" | "$tk" dump - >"$tmp/pipe.dump" || fail "cat | dump -"
cmp -s "$tmp/file.dump" "$tmp/pipe.dump" || fail "dump of the big-endian pipe differs"
"$tk" info "$le" | sed 1d >"$tmp/file.info"
cat "$le" | "$tk" info - >"$tmp/pipe.info" || fail "cat | info -"
[ "$(head -n 1 "$tmp/pipe.info")" = "file: <stdin>" ] || fail "info - names the input <stdin>"
sed 1d "$tmp/pipe.info" | cmp -s - "$tmp/file.info" || fail "info of a pipe differs"
cat "$tmp/cut.trace" | "$tk" validate - >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "validate of a cut pipe did not exit 1"
expect_err "tracekit: <stdin>: offset 0x1c45 (record 399): truncated write record: needs 18 bytes, 11 left"

# ---- convert: byte order round trip, jsonl, atomic output
run 0 convert --to cacheray --out-endian big -o "$tmp/be.trace" "$le"
cmp -s "$tmp/be.trace" "$be" || fail "little -> big differs from heap-be.trace"
run 0 convert --to cacheray --out-endian little -o "$tmp/le.trace" "$tmp/be.trace"
cmp -s "$tmp/le.trace" "$le" || fail "big -> little does not reproduce heap.trace"
run 0 convert --to cacheray -o "$tmp/same.trace" "$be"   # keeps the input's order
cmp -s "$tmp/same.trace" "$be" || fail "convert without --out-endian changed the bytes"
cat "$le" | "$tk" convert --to cacheray --out-endian big -o - - >"$tmp/be2.trace" ||
    fail "convert from stdin to stdout"
cmp -s "$tmp/be2.trace" "$be" || fail "stdin -> stdout convert differs"
run 0 convert --to jsonl -o "$tmp/out.jsonl" "$le"
"$tk" dump --json "$le" >"$tmp/dump.jsonl"
cmp -s "$tmp/out.jsonl" "$tmp/dump.jsonl" || fail "convert --to jsonl differs from dump --json"
[ "$(wc -l <"$tmp/out.jsonl")" -eq 400 ] || fail "jsonl has $(wc -l <"$tmp/out.jsonl") lines"
mkdir "$tmp/o"
for to in cacheray jsonl; do
    run 1 convert --to "$to" -o "$tmp/o/x.out" "$tmp/cut.trace"
    expect_err "tracekit: $tmp/cut.trace: offset 0x1c45 (record 399): truncated write record: needs 18 bytes, 11 left"
    [ -z "$(ls -A "$tmp/o")" ] || fail "failed convert --to $to left: $(ls -A "$tmp/o")"
done
echo keep >"$tmp/o/x.out"
run 1 convert --to cacheray -o "$tmp/o/x.out" "$tmp/cut.trace"
[ "$(cat "$tmp/o/x.out")" = keep ] || fail "failed convert changed an existing output"
[ "$(ls -A "$tmp/o")" = x.out ] || fail "failed convert left a temporary file"
run 2 convert --to cacheray -o "$tmp/nodir/x.out" "$le"

# ---- dump --skip / --limit
run 0 dump --skip 3 --limit 2 "$le"
cat >"$tmp/want" <<'EOF'
3 0x6d read addr=0x5555555ac538 size=8 thread=1000
4 0x7f write addr=0x5555555a10f0 size=8 thread=1002
EOF
cmp -s "$tmp/out" "$tmp/want" || fail "dump --skip 3 --limit 2: $(cat "$tmp/out")"
sed -n '4,5p' "$tmp/file.dump" | cmp -s - "$tmp/want" || fail "--skip/--limit lines differ from the full dump"
run 0 dump --skip 398 "$le"
sed -n '399,400p' "$tmp/file.dump" | cmp -s - "$tmp/out" || fail "dump --skip 398"
run 0 dump --limit 0 "$le"
[ -s "$tmp/out" ] && fail "dump --limit 0 printed something"
run 0 dump --skip 400 "$le"
[ -s "$tmp/out" ] && fail "dump --skip 400 printed something"
run 0 dump --skip 1K "$le"
[ -s "$tmp/out" ] && fail "dump --skip 1K printed something"
run 0 dump --json --skip 2 --limit 1 "$le"
expect_out '{"i":2,"offset":69,"type":"rtta_add","addr":93824992591872,"thread":1000,"elemsize":24,"elemcount":1260,"typename":"struct.node"}'
run 0 dump --skip 28 --limit 1 "$le"   # text names only the flags that are set
expect_out "28 0x22f read addr=0x5555555b3568 size=8 thread=1000 atomic"
run 0 dump --skip 199 --limit 1 "$be"
expect_out "199 0xe35 write addr=0x5555555a8801 size=8 thread=1001 unaligned"
run 0 dump --skip 0x10 --limit 1 "$be"
expect_out "16 0x157 read addr=0x5555555a8450 size=8 thread=1001"

if [ "$failures" -ne 0 ]; then
    echo "$failures CLI check(s) failed"
    exit 1
fi
echo "all CLI checks passed"
