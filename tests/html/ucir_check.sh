#!/bin/sh
# One UCIR trace's HTML report (both layouts), checked: ucir_check.py
# recomputes the hot-code and regions tables from the trace's records
# (dump --json) and splits its syscall and memory-map records out; then
# check.mjs, in Chromium, compares the page's numbers with report --json,
# info --json and those records, and sorts a table.
# --no-disasm: the trace's machine has no disassembler, and the page must
# say so.
# usage: ucir_check.sh TRACEKIT NODE_DIR TRACE [--no-disasm]
# Exit: 0 ok, 1 a check failed, 77 no node, chromium or puppeteer-core.
set -u
tk=$1 node_dir=$2 trace=$3
nodis=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-html-uc-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
run() { "$@" || { echo "FAIL: $*"; exit 1; }; }
run "$tk" report --html -o "$tmp/report.html" "$trace"
run "$tk" report --json "$trace" >"$tmp/report.json"
run "$tk" info --json "$trace" >"$tmp/info.json"
run "$tk" dump --json "$trace" >"$tmp/dump.json"
run "$py" "$here/ucir_check.py" "$tmp/dump.json" "$tmp/report.html" "$tmp"
if [ -n "$nodis" ]; then
    grep -q 'No disassembly: capstone' "$tmp/report.html" ||
        { echo "FAIL: the page does not say it has no disassembly"; exit 1; }
fi
command -v node >/dev/null 2>&1 || { echo "SKIP: no node"; exit 77; }
docs="--json report=$tmp/report.json --json info=$tmp/info.json"
for d in syscalls memevents; do
    [ -f "$tmp/$d.json" ] && docs="$docs --json $d=$tmp/$d.json"
done
# shellcheck disable=SC2086 # the list splits on blanks (no blank in $tmp)
node "$here/check.mjs" --html "$tmp/report.html" --node-dir "$node_dir" --interact $docs \
    ${TK_HTML_SCREENSHOT:+--screenshot "$TK_HTML_SCREENSHOT"}
