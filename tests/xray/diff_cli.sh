#!/bin/sh
# tracekit diff's command line on the example traces (no compiler needed):
# --fail-if's exit status (1 only for a significant regression past the
# threshold, 2 for a bad expression), --folded against --stacks --json,
# and YAML maps matching functions by name when B's ids are permuted.
# usage: diff_cli.sh TRACEKIT SOURCE_DIR
set -u
tk=$1 src=$2
ex=$src/examples/xray
py=/usr/bin/python3
[ -x "$py" ] || py=python3
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
status() { # status WANT ARGS...: diff's exit status must be WANT
    want=$1
    shift
    "$tk" diff "$@" >"$dir/out" 2>"$dir/err"
    got=$?
    [ "$got" = "$want" ] || bad "diff $*: exit $got, not $want ($(head -c 200 "$dir/err"))"
}
# fdr-v5 is the faster recording: B = basic-v3 is significantly slower
status 1 --fail-if 'p90>+1%' "$ex/fdr-v5.xray" "$ex/basic-v3.xray"
status 1 --fail-if 'count>+1%' --fail-if 'med>+50%' "$ex/fdr-v5.xray" "$ex/basic-v3.xray"
status 0 --fail-if 'med>+100000%,count>+1%' "$ex/fdr-v5.xray" "$ex/basic-v3.xray"
status 0 --fail-if 'p90>+1%' "$ex/basic-v3.xray" "$ex/fdr-v5.xray"  # faster: no fail
status 0 --fail-if 'p90>0%' "$ex/basic-v3.xray" "$ex/basic-v3.xray"
status 2 --fail-if 'p95>+1%' "$ex/basic-v3.xray" "$ex/fdr-v5.xray"
status 2 --fail-if 'p90>+1' "$ex/basic-v3.xray" "$ex/fdr-v5.xray"
status 2 --alpha 1.5 "$ex/basic-v3.xray" "$ex/fdr-v5.xray"
status 2 --json --folded "$ex/basic-v3.xray" "$ex/fdr-v5.xray"
status 2 "$ex/basic-v3.xray"
# the failing rows are counted in --json and marked in the table
"$tk" diff --json --fail-if 'p90>+1%' "$ex/fdr-v5.xray" "$ex/basic-v3.xray" >"$dir/f.json" 2>/dev/null
"$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
marked = [r for r in d["by_function"] if r["fail_if"]]
assert d["failed"] == len(marked) > 0, d["failed"]
assert all(r["verdict"] == "slower" and r["b"]["p90_s"] > r["a"]["p90_s"] for r in marked)
' "$dir/f.json" || bad "--json: failed rows"
# --folded: a line per call path, the self times of --stacks --json
"$tk" diff --folded "$ex/basic-v3.xray" "$ex/fdr-v5.xray" >"$dir/folded"
"$tk" diff --stacks --json "$ex/basic-v3.xray" "$ex/fdr-v5.xray" >"$dir/s.json"
"$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
want = {r["path"]: (round((r["a"] or {"self_s": 0})["self_s"] * 1e9),
                    round((r["b"] or {"self_s": 0})["self_s"] * 1e9)) for r in d["by_path"]}
got = {}
for line in open(sys.argv[2]):
    p, a, b = line.split()
    got[p] = (int(a), int(b))
assert got == want, (got, want)
' "$dir/s.json" "$dir/folded" || bad "--folded differs from --stacks --json (1 GHz traces: ticks = ns)"
# YAML maps: B's ids 1..6 are A's 6..1; by name the rows are those of A
# against itself
for id in 1 2 3 4 5 6; do
    printf -- "- { id: %d, address: 0x%x0, function: 0x%x0, kind: function-enter, always-instrument: false, function-name: f%d }\n" \
        "$id" "$id" "$id" "$id" >>"$dir/a.yaml"
    printf -- "- { id: %d, address: 0x%x0, function: 0x%x0, kind: function-enter, always-instrument: false, function-name: f%d }\n" \
        "$id" "$id" "$id" "$((7 - id))" >>"$dir/b.yaml"
done
"$tk" diff --json -m "$dir/a.yaml" --map-b "$dir/a.yaml" "$ex/basic-v3.xray" "$ex/basic-v3.xray" \
    >"$dir/same.json"
"$tk" diff --json -m "$dir/a.yaml" --map-b "$dir/b.yaml" "$ex/basic-v3.xray" "$ex/basic-v3.xray" \
    >"$dir/perm.json"
"$py" -c '
import json, sys
same = json.load(open(sys.argv[1]))["by_function"]
perm = json.load(open(sys.argv[2]))["by_function"]
assert all(r["verdict"] == "same" and r["p"] == 1 for r in same), same
by = {r["function"]: r for r in perm}
assert len(perm) == 6 and set(by) == {"f%d" % i for i in range(1, 7)}
for r in perm:  # f1 in A is id 1, in B id 6
    i = int(r["function"][1:])
    assert r["func_id_a"] == i and r["func_id_b"] == 7 - i, r
# A f1 (id 1) against B f1 = the trace id 6: other counts
assert by["f1"]["a"]["count"] != by["f1"]["b"]["count"]
' "$dir/same.json" "$dir/perm.json" || bad "YAML maps: functions not matched by name"
[ $fail -eq 0 ] || exit 1
echo "diff command line: ok"
