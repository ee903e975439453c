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
run 0 --version   # the same version everywhere: docs_test.sh
grep -qx 'tracekit [0-9]*\.[0-9]*\.[0-9]*' "$tmp/out" || fail "--version: $(cat "$tmp/out")"
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
expect_err "tracekit: dump: --limit takes a number, not '-1' (try 'tracekit dump --help')"
run 2 dump --skip 1x "$le"
run 2 convert "$le"
expect_err "tracekit: convert: --to TARGET is required (try 'tracekit convert --help')"
run 2 convert --to nope -o "$tmp/x" "$le"
expect_err "tracekit: convert: cacheray cannot be converted to 'nope'"
[ -e "$tmp/x" ] && fail "convert to an unknown target left $tmp/x"
run 2 convert --to cacheray --out-endian middle -o "$tmp/x" "$le"
# ---- one write-failure form, naming the file, with the system's reason
if [ -w /dev/full ]; then
    for args in "dump $le" "info $le" "validate $le" "--help" "dump --help" "help dump" \
                "-V" "convert --to jsonl $le" "report $le"; do
        # shellcheck disable=SC2086
        "$tk" $args >/dev/full 2>"$tmp/err"
        [ $? -eq 2 ] || fail "$args >/dev/full did not exit 2"
        expect_err "tracekit: <stdout>: write failed: No space left on device"
    done
    run 2 convert --to cacheray -o /dev/full "$le"
    expect_err "tracekit: /dev/full: write failed: No space left on device"
fi
run 2 convert --to cacheray -o "$tmp/no/such/dir/x" "$le"
expect_err "tracekit: $tmp/no/such/dir/x: cannot create a temporary file beside it: No such file or directory"

# ---- help and version spellings
"$tk" dump --help >"$tmp/want"
run 0 help dump
cmp -s "$tmp/out" "$tmp/want" || fail "tracekit help dump differs from dump --help"
run 2 help bogus
expect_err "tracekit: unknown command 'bogus' (try 'tracekit --help')"
run 0 -V
"$tk" --version >"$tmp/want"
cmp -s "$tmp/out" "$tmp/want" || fail "-V differs from --version"

# ---- an option the format does not read is refused, not ignored
run 2 dump --records logical "$le"
expect_err "tracekit: $le: --records does not apply to cacheray traces"
run 2 info --threads 2 "$le"
expect_err "tracekit: $le: --threads does not apply to cacheray traces"

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

# ---- probing: zeros and short garbage are no trace; a cut header is the
# format's own truncation error (exit 1 either way)
head -c 1800 /dev/zero >"$tmp/zeros"
run 1 validate "$tmp/zeros"
expect_err "tracekit: $tmp/zeros: not a recognized trace (use --format)"
[ -s "$tmp/out" ] && fail "validate of zeros printed: $(cat "$tmp/out")"
printf 'hello' >"$tmp/hello"
run 1 info "$tmp/hello"
expect_err "tracekit: $tmp/hello: not a recognized trace (use --format)"
head -c 7 "$2/xray/basic-v3.xray" >"$tmp/x7"
run 1 validate "$tmp/x7"
expect_err "tracekit: $tmp/x7: offset 0x0: file too small for an XRay header (7 of 32 bytes)"
expect_out "$tmp/x7 format=xray valid=no warnings=0 error=\"file too small for an XRay header (7 of 32 bytes)\" offset=0x0"

# ---- warnings: exit 0, or 1 with --strict (zeros need --format)
head -c 36 /dev/zero >"$tmp/zero.trace"   # two reads of 0 bytes at address 0
run 0 validate --format cacheray "$tmp/zero.trace"
cat >"$tmp/want" <<EOF
warning record=0 offset=0x0 code=zero_size addr=0x0 message="access of 0 bytes"
warning record=1 offset=0x12 code=zero_size addr=0x0 message="access of 0 bytes"
$tmp/zero.trace format=cacheray valid=yes warnings=2
EOF
cmp -s "$tmp/out" "$tmp/want" || fail "validate warnings: $(cat "$tmp/out")"
run 1 validate --format cacheray --strict "$tmp/zero.trace"
expect_err "tracekit: $tmp/zero.trace: 2 warnings (--strict)"
run 0 validate --format cacheray -q "$tmp/zero.trace"
expect_out "$tmp/zero.trace format=cacheray valid=yes warnings=2"
run 0 validate --strict "$le"

# ---- at most 20 warnings listed, the rest counted per code: 25 reads of
# 0 bytes, then 5 removals of 0x10, where no region starts
{
    head -c 450 /dev/zero
    for i in 1 2 3 4 5; do
        printf '\003\020\000\000\000\000\000\000\000'
        head -c 8 /dev/zero
    done
} >"$tmp/many.trace"
run 0 validate --format cacheray "$tmp/many.trace"
[ "$(wc -l <"$tmp/out")" -eq 23 ] || fail "capped validate printed $(wc -l <"$tmp/out") lines, wanted 23"
[ "$(head -n 20 "$tmp/out" | grep -c '^warning record=[0-9]* offset=0x[0-9a-f]* code=zero_size ')" -eq 20 ] ||
    fail "the first 20 lines are not the first 20 warnings"
sed -n 20p "$tmp/out" | grep -q '^warning record=19 offset=0x156 ' || fail "line 20 is not warning 19"
tail -n 3 "$tmp/out" >"$tmp/got"
cat >"$tmp/want" <<EOF
warning code=zero_size omitted=5
warning code=remove_unknown omitted=5
$tmp/many.trace format=cacheray valid=yes warnings=30
EOF
cmp -s "$tmp/got" "$tmp/want" || fail "capped validate counts: $(cat "$tmp/got")"
run 0 validate --format cacheray --json "$tmp/many.trace"
[ "$(grep -c '^{"severity":"warning","record":[0-9]*,.*"code":"zero_size"' "$tmp/out")" -eq 20 ] ||
    fail "validate --json listed other than 20 warnings"
tail -n 3 "$tmp/out" >"$tmp/got"
cat >"$tmp/want" <<EOF
{"severity":"warning","code":"zero_size","omitted":5}
{"severity":"warning","code":"remove_unknown","omitted":5}
{"file":"$tmp/many.trace","format":"cacheray","valid":true,"warnings":30}
EOF
cmp -s "$tmp/got" "$tmp/want" || fail "capped validate --json counts: $(cat "$tmp/got")"
run 0 validate --format cacheray --max-warnings 0 "$tmp/many.trace"
expect_out "warning code=zero_size omitted=25
warning code=remove_unknown omitted=5
$tmp/many.trace format=cacheray valid=yes warnings=30"
run 0 validate --format cacheray --max-warnings 30 "$tmp/many.trace"
[ "$(grep -c '^warning record=' "$tmp/out")" -eq 30 ] || fail "--max-warnings 30 did not list all 30"
grep -q omitted "$tmp/out" && fail "--max-warnings 30 counted omitted warnings"
run 2 validate --max-warnings -1 "$tmp/many.trace"
expect_err "tracekit: validate: --max-warnings takes a count, not '-1' (try 'tracekit validate --help')"

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
expect_out '{"record":2,"offset":69,"kind":"rtta_add","addr":93824992591872,"thread":1000,"elem_size":24,"elem_count":1260,"type_name":"struct.node"}'
# --json-hex: addresses as "0x..." strings (and convert --to jsonl alike)
run 0 dump --json-hex --skip 2 --limit 1 "$le"
expect_out '{"record":2,"offset":69,"kind":"rtta_add","addr":"0x5555555ac000","thread":1000,"elem_size":24,"elem_count":1260,"type_name":"struct.node"}'
"$tk" dump --json-hex "$le" >"$tmp/hex.jsonl" || fail "dump --json-hex"
run 0 convert --to jsonl --json-hex -o "$tmp/conv.jsonl" "$le"
cmp -s "$tmp/hex.jsonl" "$tmp/conv.jsonl" || fail "convert --to jsonl --json-hex differs from dump --json-hex"
run 2 convert --to cacheray --json-hex -o "$tmp/conv.bin" "$le"
expect_err "tracekit: convert: --json-hex applies to --to jsonl, not --to cacheray (try 'tracekit convert --help')"
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
