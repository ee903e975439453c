#!/bin/sh
# tracekit cachesim through the command line: exact JSON and text outputs
# on a small two-thread trace (both byte orders, file and stdin), per-field
# tables with --debug-info, --reuse, --no-3c, configuration files in both
# formats, `tracekit report`, and the exit status and one-line message of
# every kind of mistake.
# Usage: cli_test.sh TRACEKIT MKTRACE FIXTURE SOURCE_DIR [SHARED_DIR]
set -u
tk=$1
mk=$2
fixture=$3
src=$4
shared=${5:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-cachesim-cli-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../cli_lib.sh"

has() { grep -q -- "$1" "$tmp/out" || fail "output lacks '$1': $(cat "$tmp/out")"; }

cd "$tmp" || exit 2
for t in shared shared-be badtag truncated; do
    "$mk" $t $t.trace || { echo "mktrace $t failed"; exit 2; }
done
two="--level L1:1K:2:64 --level L2:4K:4:64"

# ---- the JSON document, exactly
# shellcheck disable=SC2086
run 0 cachesim $two --json shared.trace
expect_out '{"file":"shared.trace","format":"cacheray","records":25,"accesses":22,"reads":9,"writes":13,"bytes":161,"zero_size":0,"rtta_add":2,"rtta_remove":1,"levels":[{"name":"L1","size":1024,"line_size":64,"ways":2,"sets":8,"policy":"lru","write_back":true,"write_allocate":true,"inclusive":false,"reads":9,"writes":13,"read_misses":4,"write_misses":1,"miss_rate":0.227273,"compulsory":4,"capacity":0,"conflict":1,"writebacks":2,"invalidations":0},{"name":"L2","size":4096,"line_size":64,"ways":4,"sets":16,"policy":"lru","write_back":true,"write_allocate":true,"inclusive":false,"reads":5,"writes":2,"read_misses":4,"write_misses":0,"miss_rate":0.571429,"compulsory":4,"capacity":0,"conflict":0,"writebacks":0,"invalidations":0}],"types":[{"name":"struct.counters","accesses":12,"reads":0,"writes":12,"bytes":96,"misses":[1,1],"regions":1,"live":1,"peak_live":1,"layout":null},{"name":"struct.Pad","accesses":7,"reads":6,"writes":1,"bytes":49,"misses":[1,1],"regions":1,"live":0,"peak_live":1,"layout":null},{"name":"(untyped)","accesses":3,"reads":3,"writes":0,"bytes":16,"misses":[3,2],"regions":0,"live":0,"peak_live":0,"layout":null}],"threads":[{"thread":1,"accesses":15,"reads":9,"writes":6,"bytes":112,"misses":[5,4]},{"thread":2,"accesses":7,"reads":0,"writes":7,"bytes":49,"misses":[0,0]}],"lines_written_by_several_threads":1,"false_sharing_lines":1,"false_sharing":[{"line_addr":65536,"writes":12,"alternations":11,"threads":[{"thread":1,"first_addr":65536,"last_addr":65543,"writes":6,"type_name":"struct.counters","offset":0,"field":null},{"thread":2,"first_addr":65544,"last_addr":65551,"writes":6,"type_name":"struct.counters","offset":8,"field":null}]}],"reuse":null}'
cp "$tmp/out" "$tmp/le.json"
# big-endian (--format: its first bytes also pass for an XRay header), and
# standard input: the same numbers
# shellcheck disable=SC2086
run 0 cachesim $two --json --format cacheray shared-be.trace
sed 's/"file":"shared-be.trace"/"file":"shared.trace"/' "$tmp/out" | cmp -s - "$tmp/le.json" ||
    fail "big-endian trace simulates differently"
# shellcheck disable=SC2086
"$tk" cachesim $two --json - <shared.trace >"$tmp/out" 2>"$tmp/err" || fail "cachesim - exited $?"
sed 's/"file":"<stdin>"/"file":"shared.trace"/' "$tmp/out" | cmp -s - "$tmp/le.json" ||
    fail "stdin simulates differently: $(cat "$tmp/out")"

# ---- the text tables
# shellcheck disable=SC2086
run 0 cachesim $two shared.trace
cat >"$tmp/want" <<'EOF'
levels:
  level  reads  writes  read_misses  write_misses  miss_rate  compulsory  capacity  conflict  writebacks  invalidations
  L1         9      13            4             1     22.73%           4         0         1           2              0
  L2         5       2            4             0     57.14%           4         0         0           0              0
types:
  type             accesses  reads  writes  bytes  L1_misses  L2_misses  regions  live  peak_live
  struct.counters        12      0      12     96          1          1        1     1          1
  struct.Pad              7      6       1     49          1          1        1     0          1
  (untyped)               3      3       0     16          3          2        0     0          0
EOF
sed -n '/^levels:/,/^threads:/p' "$tmp/out" | sed '$d' | cmp -s - "$tmp/want" ||
    fail "text tables differ: $(cat "$tmp/out")"
has '^    0x10000            11       1  0-7         6  struct.counters       0  -$'
has '^    0x10000            11       2  8-15        6  struct.counters       8  -$'
has '^  L2     4096         64     4    16  lru     yes         yes             no$'

# ---- fields from DWARF, reuse, no 3C, write options
run 0 cachesim --level L1:1K:2:64 --debug-info "$fixture" --reuse shared.trace
has '^struct.Pad (struct Pad, 16 bytes):$'
has '^    a           0     8         3      3       0     24          1$'
has '^    b           8     1         4      3       1      4          0$'
has '^    min  max  count$'
has '^      0    0     17$'
run 0 cachesim --level L1:1K:2:64 -g "$fixture" --json shared.trace
has '"layout":"struct Pad","layout_size":16,"unmatched":0,"padding":0,"fields":\[{"name":"a","offset":0,"size":8,"accesses":3,"reads":3,"writes":0,"bytes":24,"misses":\[1\]},{"name":"b"'
run 0 cachesim --level L1:1K:2:64 --reuse --json shared.trace
has '"reuse":{"cold":4,"histogram":\[{"min":0,"max":0,"count":17},{"min":1,"max":1,"count":0},{"min":2,"max":3,"count":1}\]}'
run 0 cachesim --no-3c --json shared.trace
has '"compulsory":null,"capacity":null,"conflict":null'
# shellcheck disable=SC2086
run 0 cachesim $two --write-through --no-write-allocate --inclusive --json shared.trace
has '"write_back":false,"write_allocate":false,"inclusive":true,"reads":9,"writes":13,'
# the default hierarchy
run 0 cachesim --json shared.trace
has '"levels":\[{"name":"L1","size":32768,"line_size":64,"ways":8,"sets":64,"policy":"lru",'
has '{"name":"L2","size":1048576,"line_size":64,"ways":16,"sets":1024,"policy":"lru",'
run 0 cachesim --level L1:1K:full:64:random --seed 7 --json shared.trace
has '"ways":16,"sets":1,"policy":"random"'

# ---- configuration files
cat >"$tmp/own.json" <<'EOF'
{"levels": [{"name": "L1", "size": "1K", "ways": 2, "line_size": 64},
            {"name": "L2", "size": "4K", "ways": 4, "line": 64}]}
EOF
run 0 cachesim --config "$tmp/own.json" --json shared.trace
cmp -s "$tmp/out" "$tmp/le.json" || fail "--config own.json differs from --level"
cat >"$tmp/basic.json" <<'EOF'
{"caches":[{"name":"L1","cache_size":16,"block_size":6,"write_policy":0,"set_assoc":1,"rep_policy":0}]}
EOF
run 0 cachesim -c "$tmp/basic.json" --json shared.trace
has '"levels":\[{"name":"L1","size":65536,"line_size":64,"ways":1,"sets":1024,"policy":"lru",'

# ---- tracekit report: the default hierarchy, types first
run 0 report shared.trace
[ "$(grep -n '^types:' "$tmp/out" | cut -d: -f1)" -lt "$(grep -n '^levels:' "$tmp/out" | cut -d: -f1)" ] ||
    fail "report does not show the types first: $(cat "$tmp/out")"
run 0 report --json shared.trace
has '"rtta_remove":1,"types":\[{"name":"struct.counters"'

# ---- mistakes: exit 2 with one line, or 1 for a malformed trace
run 2 cachesim --level L1:24K:3:64:plru shared.trace
expect_err "tracekit: cachesim: --level 'L1:24K:3:64:plru': plru needs a power-of-two number of ways (try 'tracekit cachesim --help')"
run 2 cachesim --level L1:32K:8 shared.trace
expect_err "tracekit: cachesim: --level 'L1:32K:8': expected NAME:SIZE:WAYS:LINE[:POLICY], e.g. L1:32K:8:64:lru (try 'tracekit cachesim --help')"
run 2 cachesim --level L1:32K:8:64 --config "$tmp/own.json" shared.trace
expect_err "tracekit: cachesim: --config and --level do not mix (try 'tracekit cachesim --help')"
run 2 cachesim --config "$tmp/absent.json" shared.trace
expect_err "tracekit: $tmp/absent.json: cannot open: No such file or directory"
printf '{"caches":[{"cache_size":16,"block_size":6,"set_assoc":1,"rep_policy":2}]}' >"$tmp/lifo.json"
run 2 cachesim --config "$tmp/lifo.json" shared.trace
expect_err "tracekit: $tmp/lifo.json: caches[0]: rep_policy LIFO is not supported (the original simulator fails on it too)"
run 2 cachesim --seed x shared.trace
expect_err "tracekit: cachesim: --seed takes a number, not 'x' (try 'tracekit cachesim --help')"
run 2 cachesim --bogus shared.trace
run 2 cachesim
expect_err "tracekit: cachesim: missing FILE (try 'tracekit cachesim --help')"
run 2 cachesim absent.trace
run 2 cachesim --debug-info "$tmp/absent" shared.trace
expect_err "tracekit: $tmp/absent: cannot open: No such file or directory"
run 2 cachesim "$src/examples/casemate/bbm.log"
expect_err "tracekit: cachesim: $src/examples/casemate/bbm.log is a casemate trace; cachesim needs Cacheray (try 'tracekit cachesim --help')"
run 1 cachesim --format cacheray badtag.trace
expect_err "tracekit: badtag.trace: offset 0x24 (record 2): unknown record tag 0x07"
run 1 cachesim truncated.trace
expect_err "tracekit: truncated.trace: offset 0x24 (record 2): truncated read record: needs 18 bytes, 3 left"
run 0 cachesim --help
grep -q '^usage: tracekit cachesim' "$tmp/out" || fail "--help"
run 0 --help
has '^  cachesim '

# ---- the original's struct test, when ../shared has it
if [ -n "$shared" ] && [ -f "$shared/corpus/cacheray/struct-test.trace" ]; then
    run 0 cachesim -c "$tmp/basic.json" --json "$shared/corpus/cacheray/struct-test.trace"
    has '"reads":5,"writes":2,"read_misses":1,"write_misses":1,"miss_rate":0.285714,"compulsory":2,"capacity":0,"conflict":0'
fi

if [ $failures -ne 0 ]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "cachesim cli: all passed"
