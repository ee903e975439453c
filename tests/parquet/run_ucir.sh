#!/bin/sh
# One UCIR Parquet test (issue 20): convert TRACE to tables, read them back
# with DuckDB and hyparquet (tables.mjs, with the queries of ucir.sql), then
# compare every table and query with tracekit's own dump, report and info
# of the same trace (compare_ucir.py).
# Usage: run_ucir.sh TRACEKIT SOURCE_DIR TRACE MODE [convert args...]
#   MODE  plain     DIR/<table>.parquet (or parts with --rows-per-file)
#         hive:ID   written to a directory named trace_id=ID: no trace_id
#                   column, and DuckDB's hive_partitioning gives it back
#         truncate  TRACE cut in the middle: convert must exit 1 and leave
#                   no file in DIR (no node needed)
# Exit 0 pass, 1 fail (a FAIL: line says which step), 77 skip (TRACE
# missing, or node / the npm readers missing: scripts/deps.sh test).
set -u
if [ $# -lt 4 ]; then
    echo "usage: run_ucir.sh TRACEKIT SOURCE_DIR TRACE MODE [convert args...]" >&2
    exit 2
fi
tracekit=$1 src=$2 trace=$3 mode=$4
shift 4
name=$(basename "$trace")
[ -f "$trace" ] || { echo "SKIP: no $trace"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-pq-ucir-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

if [ "$mode" = truncate ]; then
    size=$(wc -c <"$trace")
    head -c $((size / 2)) "$trace" >"$tmp/$name"
    mkdir "$tmp/out"
    "$tracekit" convert --to parquet "$tmp/$name" -o "$tmp/out" "$@" >"$tmp/log" 2>&1
    rc=$?
    cat "$tmp/log"
    [ $rc -eq 1 ] || { echo "FAIL: $name cut to $((size / 2)) bytes: exit $rc, not 1"; exit 1; }
    grep -q . "$tmp/log" || { echo "FAIL: $name cut: no error message"; exit 1; }
    left=$(find "$tmp/out" -mindepth 1 | head -5)
    [ -z "$left" ] || { echo "FAIL: $name cut: files left behind: $left"; exit 1; }
    echo "PASS: $name cut to $((size / 2)) bytes: exit 1, nothing left"
    exit 0
fi

command -v node >/dev/null 2>&1 || { echo "SKIP: no node (scripts/deps.sh test)"; exit 77; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3
case $mode in
hive:*) id=${mode#hive:}; out=$tmp/trace_id=$id ;;
plain) id=; out=$tmp/out ;;
*) echo "run_ucir.sh: unknown mode $mode" >&2; exit 2 ;;
esac

if ! "$tracekit" convert --to parquet "$trace" -o "$out" "$@" >"$tmp/convert.log" 2>&1; then
    cat "$tmp/convert.log"
    echo "FAIL: $name: tracekit convert --to parquet $* failed"
    exit 1
fi
sql=$tmp/queries.sql
cp "$src/tests/parquet/ucir.sql" "$sql"
if [ -n "$id" ]; then
    q='select trace_id, count(*) from read_parquet(%s, hive_partitioning = true) group by 1'
    printf "hive\t$q\n" "'$tmp/trace_id=*/instructions.parquet'" >>"$sql"
fi
# DuckDB's read_parquet detects key=value directories by itself (a
# trace_id column hyparquet does not have): the readers compare the files
# through a plain name, and the hive query above reads the real one
read=$out
[ -z "$id" ] || { ln -s "$out" "$tmp/plain" && read=$tmp/plain; } || exit 2
node "$src/tests/parquet/tables.mjs" "$src/tests/node" "$read" "$tmp/tables.json" "$sql"
rc=$?
case $rc in
0) ;;
77) exit 77 ;;
*) echo "FAIL: $name: the readers disagree or cannot read the tables (exit $rc)"; exit 1 ;;
esac
"$py" "$src/tests/parquet/compare_ucir.py" --tracekit "$tracekit" --trace "$trace" \
    --tables "$tmp/tables.json" --dir "$out" ${id:+--hive "$id"} -- "$@"
rc=$?
case $rc in
0) echo "PASS: $name $mode $*" ;;
*) echo "FAIL: $name: compare_ucir.py disagrees with tracekit's analyses (exit $rc)"; exit 1 ;;
esac
