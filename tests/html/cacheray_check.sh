#!/bin/sh
# One Cacheray trace's HTML report, checked in Chromium by check.mjs against
# the same trace's report --json and cachesim --reuse --json (with the same
# options: -l, --config, -g BIN, a selection), then by cacheray_check.py
# for what check.mjs cannot match by key: the per-level miss columns
# (report --json's `misses` arrays), the windows (they add up to each
# level's misses) and the miss-ratio curve (from the reuse histogram; at
# L1's size it is L1's compulsory + capacity misses).
# usage: cacheray_check.sh TRACEKIT NODE_DIR TRACE [OPTIONS...]
#        cacheray_check.sh TRACEKIT NODE_DIR --gen 'PROGRAM ARGS' [OPTIONS...]
#   --gen writes the trace first: PROGRAM ARGS -o FILE (tk-gen-cacheray),
#   or PROGRAM ARGS FILE when PROGRAM is tk-cachesim-mktrace; a TRACE or an
#   option's file that does not exist (a -g binary, a trace of ../shared)
#   makes the test skip
# Exit: 0 ok, 1 a check failed, 77 no node, chromium, puppeteer-core or input.
set -u
tk=$1 node_dir=$2 trace=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-html-cr-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
if [ "$trace" = --gen ]; then
    gen=$1
    shift
    set -f
    # shellcheck disable=SC2086
    case $gen in
    *mktrace*) $gen "$tmp/gen.trace" ;;
    *) $gen -o "$tmp/gen.trace" >/dev/null ;;
    esac || { echo "FAIL: $gen"; exit 1; }
    set +f
    trace=$tmp/gen.trace
fi
[ -f "$trace" ] || { echo "SKIP: no $trace"; exit 77; }
prev=
for a in "$@"; do
    case $prev in
    -g | --debug-info | --config) [ -f "$a" ] || { echo "SKIP: no $a"; exit 77; } ;;
    esac
    prev=$a
done
command -v node >/dev/null 2>&1 || { echo "SKIP: no node"; exit 77; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3
run() { "$@" || { echo "FAIL: $*"; exit 1; }; }
run "$tk" report --html -o "$tmp/report.html" "$@" "$trace"
run "$tk" report --json "$@" "$trace" >"$tmp/report.json"
run "$tk" cachesim --json --reuse "$@" "$trace" >"$tmp/cachesim.json"
node "$here/check.mjs" --html "$tmp/report.html" --node-dir "$node_dir" --interact \
    --json report="$tmp/report.json" --json cachesim="$tmp/cachesim.json" \
    ${TK_HTML_SCREENSHOT:+--screenshot "$TK_HTML_SCREENSHOT"}
rc=$?
[ $rc -eq 0 ] || exit $rc
"$py" "$here/cacheray_check.py" "$tmp/report.html" "$tmp/report.json" "$tmp/cachesim.json"
