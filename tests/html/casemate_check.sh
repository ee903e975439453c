#!/bin/sh
# One casemate log's HTML report, checked in Chromium: check.mjs compares
# the page's numbers with the same log's report, info, bbm and (when bbm
# finds a violation) dump --json, sorts a table and opens a tree node;
# casemate_tree.mjs compares the page-table tree with bbm --dot and opens
# a collapsed node (--must-expand: the page must have one).
# usage: casemate_check.sh TRACEKIT NODE_DIR LOG [--must-expand]
# Exit: 0 ok, 1 a check failed, 77 no node, chromium or puppeteer-core.
set -u
tk=$1 node_dir=$2 log=$3
expand=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null 2>&1 || { echo "SKIP: no node"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-html-cm-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
run() { "$@" || { echo "FAIL: $*"; exit 1; }; }
run "$tk" report --html -o "$tmp/report.html" "$log"
run "$tk" report --json "$log" >"$tmp/report.json"
run "$tk" info --json "$log" >"$tmp/info.json"
docs="--json report=$tmp/report.json"
# info's threads (none in a log without records: nothing to compare)
grep -q '"threads":\[\]' "$tmp/info.json" || docs="$docs --json info=$tmp/info.json"
# bbm: 0 passes, 1 a violation; where the model gives up it fails (2) and
# writes neither JSON nor graph, as the report's verdict "not_checked" says
"$tk" bbm --json --dot "$tmp/bbm.dot" "$log" >"$tmp/bbm.json" 2>"$tmp/bbm.err"
rc=$?
if grep -q '"verdict":"not_checked"' "$tmp/report.json"; then
    [ "$rc" = 2 ] || { echo "FAIL: bbm exited $rc where the model gives up"; exit 1; }
    : >"$tmp/bbm.json"
elif [ "$rc" -gt 1 ]; then
    echo "FAIL: bbm exited $rc"
    cat "$tmp/bbm.err"
    exit 1
fi
dot=
if [ -s "$tmp/bbm.json" ]; then
    docs="$docs --json bbm=$tmp/bbm.json"
    dot="--dot $tmp/bbm.dot"
    if [ "$rc" = 1 ]; then
        run "$tk" dump --json "$log" >"$tmp/dump.json"
        docs="$docs --json dump=$tmp/dump.json"
    fi
fi
# shellcheck disable=SC2086 # the lists split on blanks (no blank in $tmp)
node "$here/check.mjs" --html "$tmp/report.html" --node-dir "$node_dir" --interact $docs \
    ${TK_HTML_SCREENSHOT:+--screenshot "$TK_HTML_SCREENSHOT"} || exit $?
# shellcheck disable=SC2086
node "$here/casemate_tree.mjs" --html "$tmp/report.html" --node-dir "$node_dir" $dot $expand
