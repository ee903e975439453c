#!/bin/sh
# Golden outputs: for every example trace (examples/FORMAT/NAME), the exact
# stdout of five commands is kept in tests/golden/FORMAT/NAME.SUFFIX. Run
# from the source root with relative paths, so the "file" fields are stable.
# A command that exits non-zero or writes to stderr gets both appended after
# a "--- stderr / exit N ---" line (no example does so today).
#
# Usage: golden_test.sh TRACEKIT SOURCE_DIR [--update]
#   --update rewrites the golden files; review every diff by hand
#   (git diff tests/golden) before committing them.
set -u
tk=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$2
update=${3:-}
cd "$src" || exit 2
golden=tests/golden
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-golden-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
failures=0
checked=0

# suffix|arguments (the trace path is appended)
commands='info.txt|info
info.json|info --json
validate.txt|validate
dump20.txt|dump --limit 20
dump20.jsonl|dump --json --limit 20'

render() { # render OUT ARGS...
    out=$1
    shift
    "$tk" "$@" >"$out" 2>"$tmp/stderr"
    rc=$?
    if [ "$rc" -ne 0 ] || [ -s "$tmp/stderr" ]; then
        echo "--- stderr / exit $rc ---" >>"$out"
        cat "$tmp/stderr" >>"$out"
    fi
}

for trace in examples/*/*; do
    [ -f "$trace" ] || continue
    case "$trace" in *.md | *.txt | *.c) continue ;; esac
    fmt=$(basename "$(dirname "$trace")")
    name=$(basename "$trace")
    mkdir -p "$golden/$fmt"
    echo "$commands" | while IFS='|' read -r suffix args; do
        want=$golden/$fmt/$name.$suffix
        # shellcheck disable=SC2086 # $args holds several words on purpose
        render "$tmp/got" $args "$trace"
        if [ "$update" = --update ]; then
            cmp -s "$tmp/got" "$want" 2>/dev/null || { cp "$tmp/got" "$want" && echo "updated $want"; }
        elif [ ! -f "$want" ]; then
            echo "FAIL: missing $want (run: sh tests/unit/golden_test.sh TRACEKIT . --update)"
            echo x >>"$tmp/failed"
        elif ! cmp -s "$tmp/got" "$want"; then
            echo "FAIL: tracekit $args $trace differs from $want:"
            diff -u "$want" "$tmp/got" | head -n 40
            echo x >>"$tmp/failed"
        fi
        echo x >>"$tmp/checked"
    done
done

# Golden files whose example is gone are stale.
for want in "$golden"/*/*; do
    [ -f "$want" ] || continue
    fmt=$(basename "$(dirname "$want")")
    base=$(basename "$want")
    trace=examples/$fmt/$(echo "$base" |
        sed -E 's/\.(info\.txt|info\.json|validate\.txt|dump20\.txt|dump20\.jsonl)$//')
    [ -f "$trace" ] || { echo "FAIL: $want has no example $trace"; echo x >>"$tmp/failed"; }
done

[ -f "$tmp/failed" ] && failures=$(wc -l <"$tmp/failed")
[ -f "$tmp/checked" ] && checked=$(wc -l <"$tmp/checked")
[ "$checked" -gt 0 ] || { echo "FAIL: no examples found"; exit 1; }
if [ "$failures" -ne 0 ]; then
    echo "$failures of $checked golden comparisons failed"
    exit 1
fi
[ "$update" = --update ] && echo "$checked golden outputs up to date" ||
    echo "$checked golden outputs match"
