#!/bin/sh
# The 5 MB bound of casemate's report --html on a generated log of 64
# page-table trees (768 tables, ~390,000 entries) and 256 threads: the page
# stays at most 5,000,000 bytes, the trees away from a violation are cut
# (and say so), and the page still loads cleanly and matches --json and
# bbm --dot (casemate_check.sh; without a browser, only the size), also
# with a violation at its end.
# usage: casemate_size.sh TRACEKIT TK_GEN_CASEMATE NODE_DIR
set -u
tk=$1 gen=$2 node_dir=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-html-cm-size-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
"$gen" --events 400000 --threads 256 --roots 64 --seed 5 -o "$tmp/big.log" >/dev/null ||
    { echo "FAIL: tk-gen-casemate"; exit 1; }
"$tk" report --html -o "$tmp/big.html" "$tmp/big.log" || { echo "FAIL: report --html"; exit 1; }
size=$(wc -c <"$tmp/big.html")
echo "report --html of a $(wc -c <"$tmp/big.log")-byte log: $size bytes"
[ "$size" -le 5000000 ] || { echo "FAIL: the page is $size bytes, over 5000000"; exit 1; }
grep -q 'more entries (not shown: the tree is long)' "$tmp/big.html" ||
    { echo "FAIL: the page-table tree was not cut"; exit 1; }
grep -q 'more rows not shown' "$tmp/big.html" ||
    { echo "FAIL: the threads table shows all 256 threads"; exit 1; }
sh "$here/casemate_check.sh" "$tk" "$node_dir" "$tmp/big.log" --must-expand || exit $?
# a write without the lock at the end: the way to its entry open in the cut tree
cp "$tmp/big.log" "$tmp/bad.log"
echo '(mem-write (id 99999999) (tid 9999) (mem-order plain) (address 0x40004008) (value 0x0))' \
    >>"$tmp/bad.log"
sh "$here/casemate_check.sh" "$tk" "$node_dir" "$tmp/bad.log" --must-expand
