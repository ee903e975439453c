#!/bin/sh
# Many Cacheray regions live at the trace end (issue 23): a trace from
# gen_cacheray_live.py converted to Parquet, read back by DuckDB and
# hyparquet (tables.mjs), its regions rows compared in order with those the
# generator computed (the ones ended at the trace end in address order).
# Usage: cacheray_live_test.sh TRACEKIT SRC_DIR [--big] [--thread T]
# Exit 0 pass, 1 fail, 77 skip (node or its packages missing).
set -u
[ $# -ge 2 ] || {
    echo "usage: cacheray_live_test.sh TRACEKIT SRC_DIR [--big] [--thread T]" >&2
    exit 2
}
tracekit=$1 src=$2
shift 2
big= thread=
[ "${1:-}" = --big ] && { big=--big; shift; }
[ "${1:-}" = --thread ] && thread=$2
here=$src/tests/parquet
py=$(command -v python3 || echo /usr/bin/python3)
command -v node >/dev/null 2>&1 || { echo "SKIP: no node"; exit 77; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

"$py" "$here/gen_cacheray_live.py" gen "$tmp/live.trace" "$tmp/expect.json" $big || exit 1
if ! "$tracekit" convert --to parquet --format cacheray ${thread:+--thread "$thread"} \
        "$tmp/live.trace" -o "$tmp/out" >"$tmp/convert.log" 2>&1; then
    cat "$tmp/convert.log"
    echo "FAIL: tracekit convert --to parquet failed"
    exit 1
fi
node "$here/tables.mjs" "$src/tests/node" "$tmp/out" "$tmp/tables.json"
rc=$?
case $rc in
0) ;;
77) exit 77 ;;
*) echo "FAIL: the readers disagree or cannot read the tables (exit $rc)"; exit 1 ;;
esac
"$py" "$here/gen_cacheray_live.py" check "$tmp/expect.json" "$tmp/tables.json" \
    ${thread:+--thread "$thread"}
