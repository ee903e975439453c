#!/bin/sh
# One XRay Parquet test (docs/formats/xray.md, "Parquet tables"): convert
# TRACE --to parquet, read the tables back with DuckDB and hyparquet
# (tables.mjs, which fails when they disagree) and run xray.sql's queries,
# then compare_xray.py checks every value against `dump --json` and
# `account --json` of the same trace.
#
# Usage: xray_check.sh TRACEKIT NODE_DIR TRACE [--hive ID | --expect-fail] [convert args...]
#   --hive ID      write into DIR/trace_id=ID (no trace_id column; DuckDB's
#                  hive_partitioning gives it back)
#   --expect-fail  the conversion must fail (exit 1) and leave no table file
# Exit 0 pass, 1 fail, 77 skip (node or its packages missing).
set -u
[ $# -ge 3 ] || { echo "usage: xray_check.sh TRACEKIT NODE_DIR TRACE [--hive ID | --expect-fail] [args...]" >&2; exit 2; }
tk=$1 node_dir=$2 trace=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
hive= fail=0
case ${1:-} in
--hive) hive=$2; shift 2 ;;
--expect-fail) fail=1; shift ;;
esac
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
name=$(basename "$trace")
[ -f "$trace" ] || { echo "FAIL: $name: no such trace: $trace"; exit 1; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
out=$tmp/out
[ -n "$hive" ] && out=$tmp/trace_id=$hive

if [ $fail = 1 ]; then
    "$tk" convert --to parquet "$trace" -o "$out" "$@" >"$tmp/log" 2>&1
    rc=$?
    left=$(find "$tmp" -name '*.parquet*' | wc -l)
    if [ $rc != 1 ] || [ "$left" != 0 ] || ! grep -q "$name" "$tmp/log"; then
        cat "$tmp/log"
        find "$tmp"
        echo "FAIL: $name: convert exited $rc (expected 1) and left $left file(s)"
        exit 1
    fi
    echo "PASS: $name: convert failed as expected, no table left: $(head -n 1 "$tmp/log")"
    exit 0
fi

command -v node >/dev/null 2>&1 || { echo "SKIP: node not installed"; exit 77; }
if ! "$tk" convert --to parquet "$trace" -o "$out" "$@" >"$tmp/log" 2>&1; then
    cat "$tmp/log"
    echo "FAIL: $name: tracekit convert --to parquet $* failed"
    exit 1
fi
freq=$("$tk" info --json "$trace" | sed -n 's/.*"cycle_frequency":\([0-9]*\).*/\1/p')
[ -n "$freq" ] || { echo "FAIL: $name: no cycle_frequency in info --json"; exit 1; }
sed "s/@F@/(nullif($freq, 0)::DOUBLE)/g" "$here/xray.sql" >"$tmp/q.sql"
if [ -n "$hive" ]; then
    files="$tmp/trace_id=*/calls.parquet"
    [ -d "$out/calls" ] && files="$tmp/trace_id=*/calls/part-*.parquet"
    printf 'hive\tselect trace_id, count(*) from read_parquet(%s, hive_partitioning = true) group by trace_id\n' \
        "'$files'" >>"$tmp/q.sql"
fi
node "$here/tables.mjs" "$node_dir" "$out" "$tmp/tables.json" "$tmp/q.sql" >"$tmp/read.log" 2>&1
rc=$?
if [ $rc = 77 ]; then cat "$tmp/read.log"; exit 77; fi
if [ $rc != 0 ]; then
    cat "$tmp/read.log"
    echo "FAIL: $name: reading the tables back (tables.mjs exit $rc)"
    exit 1
fi
"$py" "$here/compare_xray.py" --tracekit "$tk" --trace "$trace" --dir "$out" \
    --tables "$tmp/tables.json" --hive "$hive" -- "$@"
