#!/bin/sh
# tracekit mrc through the command line, on traces from tk-mrc-gen: the
# exact curve's misses against cachesim's fully associative levels,
# SHARDS at rate 1 against exact, the JSON against docs/schema/mrc.json,
# the SVG well-formed, the HTML report's LRU curve (its reuse table's
# "its miss rate" column, which the chart plots) against mrc --json's
# points, the levels marked, and the exit status and one-line message of
# every kind of mistake.
# Usage: cli_test.sh TRACEKIT MRC_GEN SOURCE_DIR
set -u
tk=$1
gen=$2
src=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-mrc-cli-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/cli_lib.sh"
# Debian's python has jsonschema; the PATH one may not
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3

cd "$tmp" || exit 2
"$gen" t.trace 60000 4096 5 || { echo "tk-mrc-gen failed"; exit 2; }

# ---- exact misses = cachesim's fully associative LRU level, cold misses in
run 0 mrc --json t.trace
cp out exact.json
for lines in 1 8 96 512 4096; do
    run 0 cachesim --json --no-3c --level "L1:$((lines * 64)):full:64" t.trace
    want=$($py -c 'import json,sys; l=json.load(open("out"))["levels"][0]; print(l["read_misses"] + l["write_misses"])')
    got=$($py -c 'import json,sys
d = json.load(open("exact.json"))
print([p["line_misses"] for p in d["curves"][0]["points"] if p["lines"] == int(sys.argv[1])][0])' "$lines")
    [ "$got" = "$want" ] || fail "mrc: $lines lines miss $got times, cachesim $want"
done

# ---- SHARDS at rate 1 is exact: an error of 0, the same points
run 0 mrc --json --sample 1 --exact t.trace
$py - out <<'PY' || fail "SHARDS at rate 1 differs from exact"
import json, sys
d = json.load(open(sys.argv[1]))
e, s = d["curves"]
assert e["method"] == "exact" and s["method"] == "shards" and s["mae"] == 0, (e["method"], s["mae"])
assert [p["miss_rate"] for p in e["points"]] == [p["miss_rate"] for p in s["points"]]
PY

# ---- SHARDS alone decodes in its own loop: the same curve as the reader's
# path (a selection of every thread), at a fixed rate and a fixed size
for args in "--sample 0.3" "--max-samples 500"; do
    # shellcheck disable=SC2086
    run 0 mrc --json $args t.trace
    mv out fast.json
    # shellcheck disable=SC2086
    run 0 mrc --json $args --thread 1-2 t.trace
    $py - fast.json out <<'PY' || fail "mrc $args: the fast path's curve differs from the reader's"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["curves"] == b["curves"] and a["accesses"] == b["accesses"], (a["curves"][0]["samples"], b["curves"][0]["samples"])
PY
done

# ---- the text table: the default levels marked at their sizes
run 0 mrc t.trace
grep -q '^ *32K  *512  *0\.[0-9]*  L1$' out || fail "no L1 mark at 32K: $(cat out)"
grep -q '^ *1M  *16384  *0\.[0-9]*  L2$' out || fail "no L2 mark at 1M: $(cat out)"
run 0 mrc -l L1:48K:12:64 t.trace
grep -q '^ *48K  *768  *0\.[0-9]*  L1$' out || fail "no mark at a level between doublings"

# ---- JSON against the schema (with jsonschema), and the miniatures
run 0 mrc --json --sample 0.5 --exact --ways 4 --sizes 4K,16K --line-size 64 --line-size 32 t.trace
if $py -c 'import jsonschema' 2>/dev/null; then
    $py - out "$src/docs/schema/mrc.json" <<'PY' || fail "mrc --json does not validate"
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
PY
else
    echo "note: no jsonschema module, schema not checked"
fi
$py - out <<'PY' || fail "mrc --json: wrong curves or miniatures"
import json, sys
d = json.load(open(sys.argv[1]))
assert [(c["line_size"], c["method"]) for c in d["curves"]] == [(64, "exact"), (64, "shards"), (32, "exact"), (32, "shards")]
m = d["miniature"]
assert m["ways"] == 4 and m["policy"] == "lru" and [p["size"] for p in m["points"]] == [4096, 16384]
assert [p["sets"] for p in m["points"]] == [16, 64]
PY

# ---- the SVG: well-formed, a curve, the levels
run 0 mrc --sample 0.5 --exact --ways 4 --sizes 4K,16K --svg plot.svg t.trace
if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout plot.svg || fail "plot.svg is not well-formed XML"
else
    $py -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' plot.svg ||
        fail "plot.svg is not well-formed XML"
fi
[ "$(grep -c '<polyline' plot.svg)" = 2 ] || fail "plot.svg: wanted 2 curves"
grep -q '>L1</text>' plot.svg && grep -q '>L2</text>' plot.svg || fail "plot.svg: levels not marked"
run 0 mrc -l '<L&1>:32K:8:64' --svg esc.svg t.trace
xmllint --noout esc.svg 2>/dev/null || $py -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' esc.svg ||
    fail "a level name is not escaped in the SVG"

# ---- the HTML report's LRU curve: the same miss rates at every doubling
run 0 report --html -o page.html t.trace
$py - page.html exact.json <<'PY' || fail "report --html's LRU curve differs from mrc --json"
import json, re, sys
page = open(sys.argv[1]).read()
table = page[page.index('id="reuse-table"'):]
table = table[:table.index("</table>")]
rows = re.findall(r"<tr>(.*?)</tr>", table)
points = {p["size"]: p["miss_rate"] for p in json.load(open(sys.argv[2]))["curves"][0]["points"]}
n = 0
for r in rows:
    v = re.findall(r'data-v="([^"]*)"', r)
    if len(v) < 6:
        continue
    size, rate = int(float(v[4])), float(v[5])
    assert size in points, size
    assert points[size] == rate, (size, points[size], rate)
    n += 1
assert n >= 10, n
PY

# ---- mistakes: exit 2 with one line
for args in "--sample 0" "--sample 1.5" "--sample x" "--max-samples 0" "--line-size 48" \
            "--ways 65" "--ways 6 --policy plru" "--policy mru" "--ways 4 --sizes 1000" \
            "--sizes 32K" "--exact" "--level L1:32K" "--sizes 0,1K --ways 2"; do
    # shellcheck disable=SC2086
    run 2 mrc $args t.trace
    [ "$(wc -l <err)" = 1 ] || fail "mrc $args: wanted one line, got: $(cat err)"
done
run 2 mrc --sample 0 t.trace
expect_err "tracekit: mrc: --sample takes a rate in (0, 1] like 0.01, not '0' (try 'tracekit mrc --help')"
run 2 mrc --ways 4 --sizes 1000 t.trace
expect_err "tracekit: mrc: cache size 1000 is not a multiple of line size * ways (256) (try 'tracekit mrc --help')"
run 2 mrc "$src/examples/casemate/bbm.log"
expect_err "tracekit: mrc: $src/examples/casemate/bbm.log is a casemate trace; mrc needs Cacheray (try 'tracekit mrc --help')"
printf '\001\000\000\001\000\000\000\000\000\010\001\000\000\000\000\000\000\000\007' >bad.trace
run 1 mrc --format cacheray bad.trace
[ "$(wc -l <err)" = 1 ] || fail "malformed trace: wanted one line, got: $(cat err)"

if [ "$failures" -ne 0 ]; then
    echo "$failures mrc command-line check(s) failed"
    exit 1
fi
echo "mrc: command line, JSON, SVG and the HTML report's curve agree"
