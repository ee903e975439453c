#!/bin/sh
# One XRay trace's HTML report, checked in Chromium by check.mjs against
# the same trace's report, account, stack and graph --json (with the same
# options: -m BIN, a selection; -k: the report goes on past records that
# match no call, as account -k does).
# usage: xray_check.sh TRACEKIT NODE_DIR TRACE [OPTIONS...]
# Exit: 0 ok, 1 a check failed, 77 no node, chromium or puppeteer-core.
set -u
tk=$1 node_dir=$2 trace=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null 2>&1 || { echo "SKIP: no node"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-html-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
run() { "$@" || { echo "FAIL: $*"; exit 1; }; }
run "$tk" report --html -o "$tmp/report.html" "$@" "$trace"
run "$tk" report --json "$@" "$trace" >"$tmp/report.json"
run "$tk" account --json -k "$@" "$trace" >"$tmp/account.json"
run "$tk" stack --json -k --aggregate-threads "$@" "$trace" >"$tmp/stack.json"
run "$tk" stack --json -k "$@" "$trace" >"$tmp/stack_threads.json"
run "$tk" graph --json -k "$@" "$trace" >"$tmp/graph.json"
node "$here/check.mjs" --html "$tmp/report.html" --node-dir "$node_dir" --interact \
    --json report="$tmp/report.json" --json account="$tmp/account.json" \
    --json stack="$tmp/stack.json" --json stack_threads="$tmp/stack_threads.json" \
    --json graph="$tmp/graph.json" ${TK_HTML_SCREENSHOT:+--screenshot "$TK_HTML_SCREENSHOT"}
