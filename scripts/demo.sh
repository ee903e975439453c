#!/bin/sh
# `make demo`: run tracekit over every sample trace in examples/.
set -eu
tk=${1:-build/tracekit}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
for f in examples/*/*; do
    case "$f" in *.md) continue ;; esac
    rel=$f
    printf '\n==== %s ====\n' "$rel"
    printf '\n$ tracekit info %s\n' "$rel"
    "$tk" info "$f"
    printf '\n$ tracekit validate %s\n' "$rel"
    "$tk" validate "$f"
    printf '\n$ tracekit dump --limit 8 %s\n' "$rel"
    "$tk" dump --limit 8 "$f"
done
