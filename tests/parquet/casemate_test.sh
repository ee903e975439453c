#!/bin/sh
# One casemate Parquet test (issue 20): convert LOG to tables, read them
# back with both readers (tables.mjs: DuckDB and hyparquet, which must
# agree; with casemate.sql's queries), then compare everything read with
# tracekit's own dump, report and bbm on the same log (compare_casemate.py).
# Usage: casemate_test.sh TRACEKIT SOURCE_DIR MODE LOG [convert args...]
#   MODE  tables     convert into a new DIR
#         hive       convert into DIR/trace_id=hive-7 (a Hive partition: no
#                    trace_id column; DuckDB's hive_partitioning gives it back)
#         malformed  the conversion must fail with exit 1 and leave no file
#                    in DIR (a file already there stays), nor in a DIR it
#                    made; prints the error for the test's regular expression
# Exit 0 pass, 1 fail (a FAIL: line says which step), 77 skip (no node, or
# the readers not installed in tests/node: scripts/deps.sh test).
set -u
[ $# -ge 4 ] || { echo "usage: casemate_test.sh TRACEKIT SOURCE_DIR MODE LOG [convert args...]" >&2; exit 2; }
tk=$1 src=$2 mode=$3 log=$4
shift 4
here=$src/tests/parquet
node_dir=$src/tests/node
name=$(basename "$log")
py=/usr/bin/python3
[ -x "$py" ] || py=python3

[ -f "$log" ] || { echo "FAIL: $name: no such log: $log"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-cmpq-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

if [ "$mode" = malformed ]; then
    mkdir "$tmp/out" && echo keep >"$tmp/out/keep.txt"
    "$tk" convert --to parquet "$log" -o "$tmp/out" "$@" 2>&1
    rc=$?
    [ $rc -eq 1 ] || { echo "FAIL: $name: convert exited $rc, wanted 1"; exit 1; }
    # files only: tables.c leaves the (empty) directory of a parted table
    left=$(cd "$tmp/out" && find . -mindepth 1 ! -type d ! -name keep.txt -print)
    [ -z "$left" ] || { echo "FAIL: $name: left in DIR after the failure: $left"; exit 1; }
    [ "$(cat "$tmp/out/keep.txt")" = keep ] || { echo "FAIL: $name: keep.txt changed"; exit 1; }
    "$tk" convert --to parquet "$log" -o "$tmp/new" "$@" >/dev/null 2>&1
    rc=$?
    left=$( [ -d "$tmp/new" ] && cd "$tmp/new" && find . -mindepth 1 ! -type d -print)
    [ $rc -eq 1 ] && [ -z "$left" ] || { echo "FAIL: $name: a new DIR: exit $rc, left $left"; exit 1; }
    echo "malformed-ok"
    exit 0
fi

command -v node >/dev/null 2>&1 || { echo "SKIP: no node (scripts/deps.sh test installs nodejs)"; exit 77; }
sql=$here/casemate.sql
case $mode in
tables) out=$tmp/out; hive= ;;
hive)
    hive=hive-7
    out=$tmp/trace_id=$hive ;;
*) echo "usage: MODE is tables, hive or malformed" >&2; exit 2 ;;
esac

if ! "$tk" convert --to parquet "$log" -o "$out" "$@" >"$tmp/convert.log" 2>&1; then
    cat "$tmp/convert.log"
    echo "FAIL: $name: tracekit convert --to parquet $log $* failed"
    exit 1
fi
if [ -n "$hive" ]; then # the partition's value, as an engine reads it from the path
    cp "$sql" "$tmp/hive.sql"
    sql=$tmp/hive.sql
    for t in events violations; do
        f=$out/$t.parquet
        [ -f "$f" ] || f=$out/$t/*.parquet
        printf 'hive_%s\tselect distinct trace_id from read_parquet(%s, hive_partitioning=true)\n' \
            "$t" "'$f'" >>"$sql"
    done
fi
read=$out
if [ -n "$hive" ]; then # DuckDB would add the path's trace_id: read a copy elsewhere
    read=$tmp/copy
    cp -R "$out" "$read" || exit 2
fi
node "$here/tables.mjs" "$node_dir" "$read" "$tmp/tables.json" "$sql"
rc=$?
case $rc in
0) ;;
77) exit 77 ;;
*) echo "FAIL: $name: the readers failed or disagree (tables.mjs exit $rc)"; exit 1 ;;
esac
"$py" "$here/compare_casemate.py" --tracekit "$tk" --trace "$log" --tables "$tmp/tables.json" \
    --dir "$out" ${hive:+--hive "$hive"} -- "$@"
rc=$?
[ $rc -eq 0 ] && echo "PASS: $name $*" || echo "FAIL: $name: the tables disagree with tracekit's analyses"
exit $rc
