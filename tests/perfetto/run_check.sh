#!/bin/sh
# One Perfetto test (issue 19): convert TRACE, check the output with
# check.py, then compare its summary and events with tracekit's own
# analyses (COMPARE_PY, or "-" for none).
# Usage: run_check.sh TRACEKIT PROTO COMPARE_PY TRACE [convert args...]
# Exit 0 pass, 1 fail (a FAIL: line says which step), 77 skip: protoc,
# python3-protobuf or PROTO missing, or TRACE and PROTO both missing
# (no ../shared). $TK_DEBIAN_PYTHON overrides /usr/bin/python3 (Debian's,
# which has google.protobuf); check.py keeps its generated classes in
# $TK_PERFETTO_CACHE (default: a per-user temp dir).
set -u
[ $# -ge 4 ] || { echo "usage: run_check.sh TRACEKIT PROTO COMPARE_PY TRACE [convert args...]" >&2; exit 2; }
tracekit=$1 proto=$2 compare=$3 trace=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
py=${TK_DEBIAN_PYTHON:-/usr/bin/python3}
name=$(basename "$trace")

if [ ! -f "$trace" ]; then
    if [ ! -f "$proto" ]; then
        echo "SKIP: $trace and $proto missing (no ../shared)"
        exit 77
    fi
    echo "FAIL: $name: no such trace: $trace"
    exit 1
fi
[ -x "$py" ] || { echo "SKIP: no $py (Debian's python3 with python3-protobuf)"; exit 77; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
out=$tmp/out.pftrace

if ! "$tracekit" convert --to perfetto "$trace" -o "$out" "$@" >"$tmp/convert.log" 2>&1; then
    cat "$tmp/convert.log"
    echo "FAIL: $name: tracekit convert --to perfetto $trace $* failed"
    exit 1
fi
if [ ! -s "$out" ]; then
    cat "$tmp/convert.log"
    echo "FAIL: $name: tracekit convert --to perfetto wrote nothing"
    exit 1
fi

"$py" "$here/check.py" --proto "$proto" --summary "$tmp/summary.json" \
    --events "$tmp/events.jsonl" "$out"
rc=$?
case $rc in
0) ;;
77) exit 77 ;;
*) echo "FAIL: $name: check.py found the perfetto output invalid (exit $rc)"; exit 1 ;;
esac

[ "$compare" = - ] && { echo "PASS: $name"; exit 0; }
"$py" "$compare" --tracekit "$tracekit" --trace "$trace" --summary "$tmp/summary.json" \
    --events "$tmp/events.jsonl" -- "$@"
rc=$?
case $rc in
0) echo "PASS: $name" ;;
77) exit 77 ;;
*) echo "FAIL: $name: $(basename "$compare") disagrees with tracekit's analyses (exit $rc)"; exit 1 ;;
esac
