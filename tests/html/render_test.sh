#!/bin/sh
# The pages' C side on every example and corpus trace, without a browser:
# report --html succeeds, writes a whole page (it ends with </html>) under
# 5 MB, and fails cleanly on a cut trace. The sanitized build runs this
# where the optimized one runs the browser checks (tests/CMakeLists.txt).
# Usage: render_test.sh TRACEKIT SOURCE_DIR SHARED_DIR
set -u
tk=$1 src=$2 shared=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-render-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0 n=0
for f in "$src"/examples/xray/*.xray "$src"/examples/casemate/*.log \
         "$src"/examples/cacheray/*.trace "$src"/examples/ucir/*.ucir \
         "$shared"/corpus/casemate/*.log "$shared"/corpus/cacheray/*.trace; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    out=$tmp/page.html
    if ! "$tk" report --html -o "$out" "$f" 2>"$tmp/err"; then
        echo "FAIL: report --html $f: $(cat "$tmp/err")"
        failed=1
        continue
    fi
    size=$(wc -c <"$out")
    if [ "$size" -gt 5000000 ] || [ "$(tail -c 8 "$out" | tr -d '\n')" != "</html>" ]; then
        echo "FAIL: $f: a page of $size bytes that does not end with </html>"
        failed=1
    fi
    head -c $(( $(wc -c <"$f") / 2 )) "$f" >"$tmp/cut"
    "$tk" report --html -o "$tmp/cut.html" "$tmp/cut" 2>/dev/null
    rc=$?
    if [ "$rc" -ne 0 ] && [ -e "$tmp/cut.html" ]; then
        echo "FAIL: $f cut in half: exit $rc but a page was left behind"
        failed=1
    fi
    rm -f "$tmp/cut.html"
done
[ "$n" -gt 0 ] || { echo "FAIL: no traces in $src/examples"; exit 1; }
[ "$failed" -eq 0 ] && echo "render: $n pages"
exit "$failed"
