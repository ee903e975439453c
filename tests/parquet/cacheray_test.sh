#!/bin/sh
# One Cacheray Parquet test (issue 20): convert TRACE into a directory,
# read every table back with DuckDB and hyparquet (tables.mjs, running
# cacheray.sql), then compare with tracekit's own outputs
# (compare_cacheray.py).
# Usage: cacheray_test.sh TRACEKIT SRC_DIR TRACE [--hive ID] [convert args...]
#   --hive ID: convert into DIR/trace_id=ID (no trace_id column; DuckDB's
#   hive_partitioning gives it back).
# Exit 0 pass, 1 fail, 77 skip (node or its packages missing; TRACE under a
# missing ../shared).
set -u
[ $# -ge 3 ] || { echo "usage: cacheray_test.sh TRACEKIT SRC_DIR TRACE [--hive ID] [args...]" >&2; exit 2; }
tracekit=$1 src=$2 trace=$3
shift 3
hive=
if [ "${1:-}" = --hive ]; then hive=$2; shift 2; fi
here=$src/tests/parquet
py=$(command -v python3 || echo /usr/bin/python3)
name=$(basename "$trace")

[ -f "$trace" ] || { echo "SKIP: no $trace (../shared missing)"; exit 77; }
command -v node >/dev/null 2>&1 || { echo "SKIP: no node"; exit 77; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
dir=$tmp/out
[ -z "$hive" ] || { mkdir "$dir"; dir=$dir/trace_id=$hive; }

if ! "$tracekit" convert --to parquet "$trace" -o "$dir" "$@" >"$tmp/convert.log" 2>&1; then
    cat "$tmp/convert.log"
    echo "FAIL: $name: tracekit convert --to parquet $* failed"
    exit 1
fi

# the trace id the column should hold
id=$name
prev=
for a in "$@"; do
    case $prev in --trace-id) id=$a ;; esac
    case $a in --trace-id=*) id=${a#--trace-id=} ;; esac
    prev=$a
done

sql=$tmp/queries.sql
cp "$here/cacheray.sql" "$sql"
read_dir=$dir
if [ -n "$hive" ]; then
    # DuckDB takes trace_id from a trace_id=X path by itself (hyparquet does
    # not): the files are read from a copy under a plain name, and the
    # partition column from the real path with hive_partitioning on.
    read_dir=$tmp/plain
    cp -R "$dir" "$read_dir"
    printf 'hive_ids\tselect distinct trace_id from read_parquet(%s, hive_partitioning = true, union_by_name = true)\n' \
        "'$dir/**/*.parquet'" >>"$sql"
fi
node "$here/tables.mjs" "$src/tests/node" "$read_dir" "$tmp/tables.json" "$sql"
rc=$?
case $rc in
0) ;;
77) exit 77 ;;
*) echo "FAIL: $name: the readers disagree or cannot read the tables (exit $rc)"; exit 1 ;;
esac

"$py" "$here/compare_cacheray.py" --tracekit "$tracekit" --trace "$trace" \
    --tables "$tmp/tables.json" --dir "$dir" --trace-id "$id" ${hive:+--hive "$hive"} -- "$@"
rc=$?
[ $rc = 0 ] && echo "PASS: $name $*" || echo "FAIL: $name $*"
exit $rc
