#!/bin/sh
# Every XRay trace in DIR (what `tracekit info` detects as xray, searched
# recursively) through run_check.sh with compare_xray.py.
# Usage: xray_dir.sh TRACEKIT PROTO DIR
# Exit 0 all pass, 1 one failed, 77 skip: DIR missing or holding no XRay
# trace (no ../shared corpus), or run_check.sh skipped.
set -u
tk=$1 proto=$2 dir=$3
here=$(cd "$(dirname "$0")" && pwd)
[ -d "$dir" ] || { echo "SKIP: no $dir"; exit 77; }
n=0 failed=0
for f in $(find "$dir" -type f | sort); do
    "$tk" info --json "$f" 2>/dev/null | grep -q '"format":"xray"' || continue
    n=$((n + 1))
    sh "$here/run_check.sh" "$tk" "$proto" "$here/compare_xray.py" "$f"
    case $? in 0) ;; 77) exit 77 ;; *) failed=1 ;; esac
done
[ "$n" -gt 0 ] || { echo "SKIP: no XRay trace in $dir"; exit 77; }
echo "$n XRay traces checked"
exit $failed
