#!/bin/sh
# `make demo`: run tracekit over every sample trace in examples/.
set -eu
tk=${1:-build/tracekit}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
for f in examples/*/*; do
    [ -f "$f" ] || continue # examples/cacheray/programs/: sources, below
    case "$f" in *.md | *.c) continue ;; esac
    rel=$f
    printf '\n==== %s ====\n' "$rel"
    printf '\n$ tracekit info %s\n' "$rel"
    "$tk" info "$f"
    printf '\n$ tracekit validate %s\n' "$rel"
    "$tk" validate "$f"
    printf '\n$ tracekit dump --limit 8 %s\n' "$rel"
    "$tk" dump --limit 8 "$f"
done

# Record a real program with XRay (clang -fxray-instrument) and report on it.
if command -v clang >/dev/null 2>&1; then
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    printf '\n==== XRay: recording examples/xray/demo.c ====\n'
    clang -O0 -fxray-instrument -fxray-instruction-threshold=1 -pthread \
        examples/xray/demo.c -o "$dir/demo"
    (cd "$dir" && XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=demo-" \
        XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./demo 2>/dev/null) || true
    trace=$(ls "$dir"/demo-* | head -1)
    printf '\n$ tracekit report -m demo TRACE\n'
    "$tk" report -m "$dir/demo" "$trace"
    printf '\n$ tracekit account -m demo TRACE\n'
    "$tk" account -m "$dir/demo" "$trace"
    printf '\n$ tracekit stack --folded -m demo TRACE   (flamegraph.pl input)\n'
    "$tk" stack --folded -m "$dir/demo" "$trace"
fi

# Record real programs with the Cacheray recorder (tracekit-cc, built next to
# tracekit) and analyze their traces.
cc=$(dirname "$tk")/tracekit-cc
if command -v clang >/dev/null 2>&1 && [ -x "$cc" ]; then
    crdir=$(mktemp -d)
    trap 'rm -rf "${dir:-}" "$crdir"' EXIT
    tkabs=$(cd "$(dirname "$tk")" && pwd)/$(basename "$tk")
    for prog in items false_sharing; do
        src=examples/cacheray/programs/$prog.c
        printf '\n==== Cacheray: recording %s ====\n' "$src"
        printf '\n$ tracekit-cc -O1 -g %s -o %s\n' "$src" "$prog"
        "$cc" -O1 -g "$src" -o "$crdir/$prog"
        printf '$ TRACEKIT_CACHERAY=%s.trace ./%s\n' "$prog" "$prog"
        (cd "$crdir" && TRACEKIT_CACHERAY=$prog.trace "./$prog")
        printf '\n$ tracekit validate %s.trace\n' "$prog"
        (cd "$crdir" && "$tkabs" validate "$prog.trace")
        # the cache simulator's summary: types (per field, from the
        # program's DWARF), levels, threads, false sharing
        printf '\n$ tracekit report %s.trace\n' "$prog"
        (cd "$crdir" && "$tkabs" report "$prog.trace")
        printf '\n$ tracekit cachesim --debug-info %s --level L1:32K:8:64 %s.trace\n' "$prog" "$prog"
        (cd "$crdir" && "$tkabs" cachesim --debug-info "$prog" --level L1:32K:8:64 "$prog.trace")
    done
fi
