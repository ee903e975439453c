#!/bin/sh
# diff and graph-diff read their two traces on two threads, and diff ranks
# its rows on two (src/xray/cmd/diff.c, graph_diff.c, analysis/diff.c):
# the output and exit status must be byte for byte those of one thread
# (TRACEKIT_THREADS=1), with latencies spilled, per call path, on traces
# cut short, and when either trace is bad (the message names that one).
# Also run under ThreadSanitizer (label tsan).
# usage: diff_threads.sh TRACEKIT TK_GEN_XRAY
set -u
tk=$1 gen=$2
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
for s in 1 2; do
    "$gen" --mode fdr --threads 3 --functions 300 --buffer-size 64K --seed $s \
        --bytes 512K -o "$dir/f$s.xray" 2>/dev/null || { echo "cannot generate"; exit 2; }
done
"$gen" --mode basic --threads 2 --functions 300 --seed 3 --bytes 256K \
    -o "$dir/b3.xray" 2>/dev/null || { echo "cannot generate"; exit 2; }
head -c 150000 "$dir/f2.xray" >"$dir/cut.xray"
printf 'not a trace at all' >"$dir/junk.xray"

# same CMD ARGS...: two threads and one give the same output and status
same() {
    "$tk" "$@" >"$dir/two" 2>&1
    echo "exit $?" >>"$dir/two"
    TRACEKIT_THREADS=1 "$tk" "$@" >"$dir/one" 2>&1
    echo "exit $?" >>"$dir/one"
    cmp -s "$dir/two" "$dir/one" || { bad "$* differs on one thread"; diff "$dir/one" "$dir/two" | head -5; }
}
f1=$dir/f1.xray f2=$dir/f2.xray b3=$dir/b3.xray
same diff "$f1" "$f2"
same diff --memory-limit 64K --stacks --json "$f1" "$f2"
same diff --memory-limit 64K --folded "$f2" "$b3"
same diff -k "$f1" "$dir/cut.xray"
same diff "$f1" "$dir/cut.xray"
same diff "$dir/junk.xray" "$f2"
same diff "$f1" "$dir/junk.xray"
same graph-diff -e sum -v med -c 90p -b sum "$f1" "$f2"
same graph-diff --json "$b3" "$f1"
same graph-diff -k "$f1" "$dir/cut.xray"
same graph-diff "$dir/cut.xray" "$f1"
same graph-diff "$dir/junk.xray" "$f2"
same graph-diff "$f1" "$dir/junk.xray"

# the values are real: diff's calls of A are account's, spilled or not
"$tk" account --format csv "$f1" 2>/dev/null | awk -F, 'NR > 1 { n += $2 } END { print n }' >"$dir/acct"
for m in 64K 64M; do
    "$tk" diff --memory-limit $m --json "$f1" "$f2" 2>/dev/null |
        grep -o '"a":{"count":[0-9]*' | awk -F: '{ n += $3 } END { print n }' >"$dir/diffn"
    cmp -s "$dir/acct" "$dir/diffn" ||
        bad "diff --memory-limit $m: A has $(cat "$dir/diffn") calls, account $(cat "$dir/acct")"
done
[ "$(cat "$dir/acct")" -gt 10000 ] || bad "too few calls in A: $(cat "$dir/acct")"
# an error in B names B, once
"$tk" diff "$f1" "$dir/junk.xray" 2>"$dir/err" >/dev/null
[ "$(grep -c 'junk.xray' "$dir/err")" = 1 ] || bad "diff: B's error: $(cat "$dir/err")"
"$tk" graph-diff "$f1" "$dir/junk.xray" 2>"$dir/err" >/dev/null
[ "$(grep -c 'junk.xray' "$dir/err")" = 1 ] || bad "graph-diff: B's error: $(cat "$dir/err")"
grep -q "f1.xray" "$dir/err" && bad "graph-diff: B's error names A: $(cat "$dir/err")"
[ $fail = 0 ] && echo "diff_threads: all the same on one thread and two"
exit $fail
