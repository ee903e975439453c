#!/bin/sh
# casemate through the command line: detection, exit codes, the one-line
# error with line:col, validate's warnings, dump, convert round trips and
# atomic output, standard input, CRLF; and every log of casemate's corpus
# (when CORPUS_DIR exists) validating with its expected line in info.
# Usage: cli_test.sh TRACEKIT EXAMPLES_DIR [CORPUS_DIR]
set -u
tk=$1
ex=$2
corpus=${3:-}
good=$ex/bbm.log
bad=$ex/missing-tlbi.log
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-cm-cli-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../cli_lib.sh"

# ---- detection and the valid examples
for f in "$good" "$bad"; do
    run 0 validate "$f"
    expect_out "$f format=casemate valid=yes warnings=0"
    [ -s "$tmp/err" ] && fail "validate $f wrote to stderr"
done
run 0 info "$good"
grep -q '^format: casemate$' "$tmp/out" || fail "info does not name the format"
grep -q '^records: 21$' "$tmp/out" || fail "info record count"
grep -q '^expected: -$' "$tmp/out" || fail "info expected (none)"
run 0 info --json "$bad"
grep -q '"records":11,' "$tmp/out" || fail "info --json record count: $(cat "$tmp/out")"
grep -q '"expected":"BBM invalid unclean->valid"}$' "$tmp/out" || fail "info --json expected line"
run 0 info --json "$good"
grep -q '"thread_count":2,"threads":\[{"thread":0,"records":10},{"thread":1,"records":11}\]' "$tmp/out" ||
    fail "info --json threads"
grep -q '"tlbis":\[{"tlbi":"vmalle1is","count":1},{"tlbi":"ipas2e1is","count":1}\]' "$tmp/out" ||
    fail "info --json tlbis"

# ---- dump
run 0 dump "$good"
[ "$(wc -l <"$tmp/out")" -eq 21 ] || fail "dump printed $(wc -l <"$tmp/out") lines, wanted 21"
run 0 dump --skip 12 --limit 3 "$good"
cat >"$tmp/want" <<'EOF'
12 16:1 mem_write id=12 thread=1 mem_order=plain addr=0x81000 value=0x0 src=examples/bbm.c:32
13 17:1 barrier id=13 thread=1 barrier=dsb domain=ish src=examples/bbm.c:33
14 18:1 tlbi id=14 thread=1 tlbi=ipas2e1is value=0x0 src=examples/bbm.c:34
EOF
cmp -s "$tmp/out" "$tmp/want" || fail "dump --skip 12 --limit 3: $(cat "$tmp/out")"
run 0 dump --json --skip 18 --limit 1 "$good"
expect_out '{"record":18,"line":22,"col":1,"kind":"mem_write","id":18,"thread":1,"mem_order":"release","addr":528384,"value":2147484925,"src":"examples/bbm.c:38"}'
run 0 dump --json "$bad"
[ "$(wc -l <"$tmp/out")" -eq 11 ] || fail "dump --json $bad: $(wc -l <"$tmp/out") lines"

# ---- errors: exit 1, one line FILE:LINE:COL (record N): message
printf '(lock 1 0 10)\r\n(lock 2 0 zz "x")\r\n' >"$tmp/bad.log"
run 1 validate "$tmp/bad.log"
expect_err "tracekit: $tmp/bad.log:2:11 (record 1): expected the address (a hex number), got 'zz'"
expect_out "$tmp/bad.log format=casemate valid=no warnings=0 error=\"expected the address (a hex number), got 'zz'\" line=2 col=11 record=1"
run 1 dump "$tmp/bad.log"
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "dump printed $(wc -l <"$tmp/out") records before the error, wanted 1"
expect_err "tracekit: $tmp/bad.log:2:11 (record 1): expected the address (a hex number), got 'zz'"
run 0 dump --limit 1 "$tmp/bad.log" # the damage is never reached
run 1 info "$tmp/bad.log"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "info error is not exactly one line"
grep -Eq '^tracekit: .*:[0-9]+:[0-9]+ \(record [0-9]+\): .+$' "$tmp/err" ||
    fail "error line format: $(cat "$tmp/err")"
printf '(lock 1 0 10 "unterminated\n\n' >"$tmp/str.log"
run 1 validate "$tmp/str.log"
expect_err "tracekit: $tmp/str.log:1:14 (record 0): unterminated string (no closing '\"')"
printf '(mem-write 1 0 plain 10 20)\n(barrier 2 0 dsb)\n' >"$tmp/eof.log"
run 1 validate "$tmp/eof.log"
expect_err "tracekit: $tmp/eof.log:2:17 (record 1): expected a DSB kind (nsh, ish, ishst, sy), got ')'"
printf '; only a comment\n' >"$tmp/empty.log"
run 1 info "$tmp/empty.log"
expect_err "tracekit: $tmp/empty.log: not a recognized trace (use --format)"
run 0 validate --format casemate "$tmp/empty.log"
expect_out "$tmp/empty.log format=casemate valid=yes warnings=0"
printf '! BBM valid->valid\n' >"$tmp/bang.log"
run 0 info --json "$tmp/bang.log"
grep -q '"records":0,.*"expected":"BBM valid->valid"}$' "$tmp/out" || fail "info of a lone '!' line"

# ---- warnings: exit 0, or 1 with --strict
printf '(lock 5 0 1)\n(unlock 5 0 1)\n(mem-set 6 0 1004 10 0)\n(lock 7 0 1)\n' >"$tmp/warn.log"
run 0 validate "$tmp/warn.log"
cat >"$tmp/want" <<EOF
warning record=1 line=2 code=id_order id=5 message="id not greater than the previous record's"
warning record=2 line=3 code=mem_set_unaligned id=6 message="mem-set address or size not a multiple of 8"
$tmp/warn.log format=casemate valid=yes warnings=2
EOF
cmp -s "$tmp/out" "$tmp/want" || fail "validate warnings: $(cat "$tmp/out")"
run 1 validate --strict "$tmp/warn.log"
expect_err "tracekit: $tmp/warn.log: 2 warnings (--strict)"
run 0 validate --strict -q "$good"

# ---- convert: both forms, round trips, jsonl, atomic output
run 0 convert --to casemate-compact -o "$tmp/c.log" "$good"
run 0 convert --to casemate -o "$tmp/k.log" "$tmp/c.log"
grep -v '^;' "$good" | cmp -s - "$tmp/k.log" || fail "keyword -> compact -> keyword changed the log"
run 0 convert --to casemate-compact -o "$tmp/c2.log" "$tmp/k.log"
cmp -s "$tmp/c.log" "$tmp/c2.log" || fail "compact form not stable"
run 0 convert --to casemate -o - "$bad"
[ "$(tail -n 1 "$tmp/out")" = "! BBM invalid unclean->valid" ] ||
    fail "convert keeps the '!' line: $(tail -n 1 "$tmp/out")"
head -n 1 "$tmp/out" | grep -qx '(sysreg-write (id 0) (tid 0) (sysreg vtcr_el2) (value 0x10) (src "examples/bbm.c:10"))' ||
    fail "keyword form of the compact example: $(head -n 1 "$tmp/out")"
run 0 convert --to jsonl -o "$tmp/out.jsonl" "$good"
"$tk" dump --json "$good" >"$tmp/dump.jsonl"
cmp -s "$tmp/out.jsonl" "$tmp/dump.jsonl" || fail "convert --to jsonl differs from dump --json"
run 2 convert --to nope -o "$tmp/x" "$good"
expect_err "tracekit: convert: casemate cannot be converted to 'nope'"
mkdir "$tmp/o"
for to in casemate casemate-compact jsonl; do
    run 1 convert --to "$to" -o "$tmp/o/x.out" "$tmp/bad.log"
    expect_err "tracekit: $tmp/bad.log:2:11 (record 1): expected the address (a hex number), got 'zz'"
    [ -z "$(ls -A "$tmp/o")" ] || fail "failed convert --to $to left: $(ls -A "$tmp/o")"
done

# ---- standard input and CRLF give what the file gives
"$tk" dump "$good" >"$tmp/file.dump"
cat "$good" | "$tk" dump - >"$tmp/pipe.dump" || fail "cat | dump -"
cmp -s "$tmp/file.dump" "$tmp/pipe.dump" || fail "dump of a pipe differs"
sed 's/$/\r/' "$good" >"$tmp/crlf.log"
"$tk" dump "$tmp/crlf.log" >"$tmp/crlf.dump" || fail "dump of the CRLF log"
cmp -s "$tmp/file.dump" "$tmp/crlf.dump" || fail "dump of the CRLF log differs"
cat "$tmp/bad.log" | "$tk" validate - >/dev/null 2>"$tmp/err"
expect_err "tracekit: <stdin>:2:11 (record 1): expected the address (a hex number), got 'zz'"

# ---- casemate's recorded logs
if [ -n "$corpus" ] && [ -d "$corpus" ]; then
    n=0
    for f in "$corpus"/*.log; do
        n=$((n + 1))
        run 0 validate "$f"
        want=$(sed -n 's/^! *//p' "$f" | head -n 1)
        got=$("$tk" info --json "$f" | sed -n 's/.*"expected":\(.*\)}$/\1/p')
        if [ -n "$want" ]; then
            [ "$got" = "\"$want\"" ] || fail "$f: info expected $got, wanted \"$want\""
        else
            [ "$got" = null ] || fail "$f: info expected $got, wanted null"
        fi
        "$tk" convert --to casemate -o "$tmp/k1.log" "$f" || fail "convert $f"
        "$tk" convert --to casemate-compact -o - "$f" | "$tk" convert --to casemate -o "$tmp/k2.log" - ||
            fail "convert $f through the compact form"
        cmp -s "$tmp/k1.log" "$tmp/k2.log" || fail "$f: compact round trip differs"
    done
    [ "$n" -eq 23 ] || fail "corpus has $n logs, wanted 23"
else
    echo "skipped: casemate corpus (${corpus:-no directory given})"
fi

# ---- report: the log's summary with bbm's verdict, for every log there is
for f in "$good" "$bad" ${corpus:+"$corpus"/*.log}; do
    [ -f "$f" ] || continue
    run 0 report --json "$f"
    verdict=$(sed -n 's/.*"bbm":{"verdict":"\([a-z_]*\)".*/\1/p' "$tmp/out")
    got="$verdict $(sed -n 's/.*"bbm":{.*"violation":{"code":"\([a-z_]*\)".*/\1/p' "$tmp/out")"
    "$tk" bbm --json "$f" >"$tmp/bbm.json" 2>/dev/null
    bbm_rc=$?
    code=$(sed -n 's/.*"code":"\([a-z_]*\)".*/\1/p' "$tmp/bbm.json")
    if [ $bbm_rc -eq 0 ]; then want="ok "; else want="violation $code"; fi
    [ "$got" = "$want" ] || fail "report verdict of $f: '$got', bbm says '$want'"
    records=$(sed -n 's/.*"records":\([0-9]*\).*/\1/p' "$tmp/out")
    [ "$records" = "$("$tk" dump "$f" | wc -l | tr -d ' ')" ] || fail "report records of $f"
done
run 0 report "$bad"
grep -q "^  as_expected: yes$" "$tmp/out" || fail "report of $bad: not as the log expects"

# ---- report --html's thread table: the 64 smallest ids, in order, then
# the other rows summed (picked without sorting every thread: 100 threads
# here, ids in a scrambled order, two records each)
awk 'BEGIN { id = 0
    for (i = 0; i < 100; i++) {
        t = (i * 37) % 100 * 3 + 5
        printf "(sysreg-write (id %d) (tid %d) (sysreg vttbr_el2) (value 0x1000040000000))\n", id++, t
        printf "(barrier (id %d) (tid %d) dsb (kind ish))\n", id++, t
    } }' >"$tmp/threads.log"
run 0 report --html -o "$tmp/threads.html" "$tmp/threads.log"
awk '/id="thread-table"/,/<\/table>/' "$tmp/threads.html" |
    sed -n 's/.*data-key="thread" data-v="\([0-9]*\)".*/\1/p' | tr '\n' ' ' >"$tmp/ids"
want=$(awk 'BEGIN { for (i = 0; i < 64; i++) printf "%d ", i * 3 + 5 }')
[ "$(cat "$tmp/ids")" = "$want" ] || fail "report --html thread table: $(cat "$tmp/ids")"
grep -q 'other (36 rows)</td><td class="tk-num">72</td>' "$tmp/threads.html" ||
    fail "report --html thread table: the other rows"

if [ "$failures" -ne 0 ]; then
    echo "$failures casemate CLI check(s) failed"
    exit 1
fi
echo "all casemate CLI checks passed"
