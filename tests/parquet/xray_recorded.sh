#!/bin/sh
# XRay traces recorded now from tests/xray/programs (clang
# -fxray-instrument), each through xray_check.sh without and with -m (names
# from the binary, C++ names demangled): rw_fdr (FDR, 3 threads, logged
# arguments, custom events), rw_fdr typed (typed events too), rw_basic
# (basic mode), fork (a forked child's repeated records: TSC going back),
# names (C++ names).
# Usage: xray_recorded.sh TRACEKIT NODE_DIR XRAY_TEST_DIR CLANG CLANGXX
# Exit 0 pass, 1 fail, 77 skip (no clang, or the readers missing).
set -u
tk=$1 node_dir=$2 src=$3/programs cc=$4 cxx=$5
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$cc" ] || [ ! -x "$cxx" ]; then echo "SKIP: clang or clang++ missing"; exit 77; fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fl="-fxray-instrument -fxray-instruction-threshold=1"
(
    cd "$tmp" &&
    $cc -O2 $fl -c "$src/rw_work.c" -o work.o &&
    $cc -O0 $fl -c "$src/rw_events.c" -o events.o &&
    $cc -O2 $fl -pthread "$src/rw_basic.c" work.o events.o -o rw_basic &&
    $cxx -O2 $fl -pthread "$src/rw_fdr.cc" work.o events.o -o rw_fdr &&
    $cc -O0 $fl "$src/fork.c" -o fork &&
    $cxx -O0 $fl -pthread "$src/names.cc" -o names
) || { echo "FAIL: building the programs"; exit 1; }
basic="patch_premain=true xray_mode=xray-basic"
(
    cd "$tmp" &&
    XRAY_OPTIONS="xray_logfile_base=fdr-" ./rw_fdr &&
    XRAY_OPTIONS="xray_logfile_base=typed-" taskset -c 0 ./rw_fdr typed &&
    XRAY_OPTIONS="$basic xray_logfile_base=basic-" \
        XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./rw_basic &&
    XRAY_OPTIONS="$basic xray_logfile_base=fork-" \
        XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./fork &&
    XRAY_OPTIONS="$basic xray_logfile_base=names-" \
        XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./names 1
) >/dev/null 2>&1 || { echo "FAIL: running the programs"; exit 1; }
failed=0
check() { # TRACE [convert args...]
    sh "$here/xray_check.sh" "$tk" "$node_dir" "$@"
    case $? in 0) ;; 77) exit 77 ;; *) failed=1 ;; esac
}
for p in fdr typed basic fork names; do
    f=$(ls "$tmp/$p"-* 2>/dev/null | head -n 1)
    [ -n "$f" ] || { echo "FAIL: $p: no trace recorded"; failed=1; continue; }
    case $p in fdr | typed) bin=$tmp/rw_fdr ;; basic) bin=$tmp/rw_basic ;; *) bin=$tmp/$p ;; esac
    check "$f"
    check "$f" -m "$bin"
done
exit $failed
