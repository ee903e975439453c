#!/bin/sh
# XRay traces recorded now, their HTML reports checked by xray_check.sh
# with -m (names from the binary; C++ names with <, > and & escaped) and
# without: examples/xray/demo.c (basic mode, threads) and
# tests/xray/programs/names.cc.
# usage: xray_recorded.sh TRACEKIT NODE_DIR SOURCE_DIR CLANG CLANGXX
# Exit 0 pass, 1 fail, 77 skip (no clang, or no browser).
set -u
tk=$1 node_dir=$2 src=$3 cc=$4 cxx=$5
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$cc" ] || [ ! -x "$cxx" ]; then echo "SKIP: clang or clang++ missing"; exit 77; fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-html-rec-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
fl="-fxray-instrument -fxray-instruction-threshold=1"
basic="patch_premain=true xray_mode=xray-basic"
(
    cd "$tmp" &&
    $cc -O0 -g $fl -pthread "$src/examples/xray/demo.c" -o demo &&
    $cxx -O0 $fl -pthread "$src/tests/xray/programs/names.cc" -o names &&
    XRAY_OPTIONS="$basic xray_logfile_base=demo-" \
        XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./demo &&
    XRAY_OPTIONS="$basic xray_logfile_base=names-" \
        XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./names 1
) >/dev/null 2>&1 || { echo "FAIL: building or running the programs"; exit 1; }
failed=0
for p in demo names; do
    f=$(ls "$tmp/$p"-* 2>/dev/null | head -n 1)
    [ -n "$f" ] || { echo "FAIL: $p: no trace recorded"; failed=1; continue; }
    for m in "" "-m $tmp/$p"; do
        # shellcheck disable=SC2086
        sh "$here/xray_check.sh" "$tk" "$node_dir" "$f" $m
        case $? in 0) ;; 77) exit 77 ;; *) failed=1 ;; esac
    done
done
exit $failed
