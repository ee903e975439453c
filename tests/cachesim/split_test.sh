#!/bin/sh
# The simulator's two-thread modes (src/cacheray/sim/pipe.c) against one
# thread: on traces of locality then random traffic and the other way
# round (mkphases), three levels with 3C, per-type and per-thread counts
# (and reuse): text and --json byte-identical with
# TRACEKIT_CACHESIM_THREADS=1, with the mode chosen after 4 batches by the
# usual rule, always split and never split (TRACEKIT_CACHESIM_SPLIT,
# a test-only knob: K,P = choose after K batches, split below P requests
# to the levels below per 100 accesses).
# Usage: split_test.sh TRACEKIT MKPHASES
set -u
tk=$1
mk=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-cachesim-split-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

three="--level L1:4K:8:64 --level L2:32K:16:64 --level L3:256K:16:64"
for order in local-random random-local; do
    "$mk" $order "$tmp/$order.cr" || fail "mkphases $order"
    for opts in "" "--json" "--reuse --json"; do
        # shellcheck disable=SC2086
        TRACEKIT_CACHESIM_THREADS=1 "$tk" cachesim $three $opts "$tmp/$order.cr" \
            >"$tmp/one" 2>&1 || fail "$order $opts: one thread exited $?"
        # the trace must reach every level and count per type and thread
        grep -q 'struct\.b' "$tmp/one" || fail "$order $opts: no types: $(cat "$tmp/one")"
        grep -q 'L3' "$tmp/one" || fail "$order $opts: no L3"
        for rule in "" 4,40 4,1000000 1,1000000 4,0; do
            # shellcheck disable=SC2086
            TRACEKIT_CACHESIM_SPLIT=$rule "$tk" cachesim $three $opts "$tmp/$order.cr" \
                >"$tmp/two" 2>&1 || fail "$order $opts split=$rule: exited $?"
            cmp -s "$tmp/one" "$tmp/two" ||
                fail "$order $opts split=$rule differs from one thread: $(diff "$tmp/one" "$tmp/two" | head -20)"
        done
    done
done
echo "split: ok"
