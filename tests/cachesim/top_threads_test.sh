#!/bin/sh
# The text threads table past --top: of more threads than N, the N with the
# most accesses, most first (ties in order of first access), after a
# thread_count line; with N or more rows, or --top 0, every thread in order
# of first access as before; --json lists every thread whatever --top; and
# `tracekit report` lists 20. On mktrace's 30 threads of distinct access
# counts (thread 100 + 11t mod 31, the t-th to come, has 7t mod 31 + 1).
# Usage: top_threads_test.sh TRACEKIT MKTRACE
set -u
tk=$1
mk=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-top-threads-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../cli_lib.sh"

cd "$tmp" || exit 2
"$mk" threads threads.trace && "$mk" threads-ties ties.trace || { echo "mktrace failed"; exit 2; }

# rows OUT: the threads table's rows of OUT, single-spaced
rows() {
    sed -n '/^threads:/,/^lines_written_by_several_threads:/p' "$1" | sed '1,2d;$d' |
        tr -s ' ' | sed 's/^ //'
}
# same WANT_FILE WHAT: the rows of $tmp/out are WANT_FILE's
same() {
    rows "$tmp/out" >"$tmp/got"
    cmp -s "$tmp/got" "$1" || fail "$2: rows were $(tr '\n' '|' <"$tmp/got")"
}
count_line() { grep '^thread_count:' "$tmp/out"; }

# every thread, in order of first access: the reference rows
run 0 cachesim --top 0 threads.trace
rows "$tmp/out" >"$tmp/all"
t=1
: >"$tmp/want"
while [ $t -le 30 ]; do
    n=$((t * 7 % 31 + 1))
    echo "$((100 + t * 11 % 31)) $n $(((n + 1) / 2)) $((n / 2)) $((n * 8)) $(((n + 7) / 8))" >>"$tmp/want"
    t=$((t + 1))
done
cut -d' ' -f1-6 "$tmp/all" | cmp -s - "$tmp/want" ||
    fail "--top 0: the 30 rows were $(tr '\n' '|' <"$tmp/all")"
[ -z "$(count_line)" ] || fail "--top 0 printed '$(count_line)'"
# as many rows as threads, or more: the same document
for n in 30 31 1000; do
    cp "$tmp/out" "$tmp/top0"
    run 0 cachesim --top $n threads.trace
    cmp -s "$tmp/out" "$tmp/top0" || fail "--top $n differs from --top 0"
    cp "$tmp/top0" "$tmp/out"
done

# the five busiest, most first, their rows as --top 0 has them
run 0 cachesim --top 5 threads.trace
[ "$(count_line)" = "thread_count: 30 (5 listed, most accesses first)" ] ||
    fail "--top 5: count line '$(count_line)'"
printf '%s\n' "125 31 16 15 248 4" "119 30 15 15 240 4" "113 29 15 14 232 4" \
    "107 28 14 14 224 4" "101 27 14 13 216 4" >"$tmp/want5"
rows "$tmp/out" | cut -d' ' -f1-6 | cmp -s - "$tmp/want5" ||
    fail "--top 5: rows $(rows "$tmp/out" | tr '\n' '|')"
sort -k2,2nr "$tmp/all" | head -5 >"$tmp/busiest"
same "$tmp/busiest" "--top 5 against --top 0's rows"
grep -q '^thread_count:' "$tmp/out" && sed -n '/^thread_count:/{n;p;}' "$tmp/out" | grep -q '^threads:$' ||
    fail "--top 5: the count line is not right before the table"

# the default, 20
run 0 cachesim threads.trace
[ "$(count_line)" = "thread_count: 30 (20 listed, most accesses first)" ] ||
    fail "default --top: count line '$(count_line)'"
sort -k2,2nr "$tmp/all" | head -20 >"$tmp/busiest"
same "$tmp/busiest" "default --top"
# report: 20 as well
run 0 report threads.trace
[ "$(count_line)" = "thread_count: 30 (20 listed, most accesses first)" ] ||
    fail "report: count line '$(count_line)'"
same "$tmp/busiest" "report"

# --json: all 30, in order of first access, whatever --top
for n in 5 0; do
    run 0 cachesim --top $n --json threads.trace
    tr '{' '\n' <"$tmp/out" | sed -n 's/^"thread":\([0-9]*\),"accesses":\([0-9]*\),.*/\1 \2/p' \
        >"$tmp/json"
    cut -d' ' -f1-2 "$tmp/want" | cmp -s - "$tmp/json" ||
        fail "--top $n --json: threads $(tr '\n' '|' <"$tmp/json")"
    grep -q 'thread_count' "$tmp/out" && fail "--top $n --json has a thread_count"
done
run 0 report --json threads.trace
grep -o '"thread":' "$tmp/out" | wc -l | grep -qx ' *30' || fail "report --json: not 30 threads"

# ties: in order of first access (threads 6, 5, 4, 3, 2, 1 with 3, 5, 3,
# 5, 3, 1 accesses)
run 0 cachesim --top 3 ties.trace
[ "$(count_line)" = "thread_count: 6 (3 listed, most accesses first)" ] ||
    fail "ties: count line '$(count_line)'"
rows "$tmp/out" | cut -d' ' -f1-2 | tr '\n' ' ' | grep -qx '5 5 3 5 6 3 ' ||
    fail "ties: rows $(rows "$tmp/out" | tr '\n' '|')"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "ok"
