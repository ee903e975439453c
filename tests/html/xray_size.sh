#!/bin/sh
# The 5 MB bound of report --html: a generated FDR trace with 50,000
# functions, 600 threads and hundreds of thousands of call paths. The page
# must stay at most 5,000,000 bytes, and still load cleanly in Chromium and
# match --json (xray_check.sh; without a browser, only the size is checked).
# usage: xray_size.sh TRACEKIT TK_GEN_XRAY NODE_DIR
set -u
tk=$1 gen=$2 node_dir=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-html-size-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
"$gen" --mode fdr --version 5 --threads 600 --functions 50000 --records 1500000 --seed 11 \
    -o "$tmp/big.xray" >/dev/null || { echo "FAIL: tk-gen-xray"; exit 1; }
"$tk" report --html -o "$tmp/big.html" "$tmp/big.xray" || { echo "FAIL: report --html"; exit 1; }
size=$(wc -c <"$tmp/big.html")
echo "report --html of a $(wc -c <"$tmp/big.xray")-byte trace: $size bytes"
[ "$size" -le 5000000 ] || { echo "FAIL: the page is $size bytes, over 5000000"; exit 1; }
# the caps really cut: far more functions than rows shown
rows=$(grep -o '<tr><td class="tk-num" data-key="func_id"' "$tmp/big.html" | wc -l)
[ "$rows" -le 500 ] && grep -q 'more rows not shown' "$tmp/big.html" ||
    { echo "FAIL: the account table shows $rows rows, or no 'more rows not shown'"; exit 1; }
sh "$here/xray_check.sh" "$tk" "$node_dir" "$tmp/big.xray"
