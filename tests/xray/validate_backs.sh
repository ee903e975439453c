#!/bin/sh
# validate on a basic-mode trace whose records are all written twice (as a
# forked child flushing its parent's buffer would), the copy thread by
# thread in reverse: every thread (over 20 of them) steps back by its whole
# run; the first 20 are listed in the order the threads first appeared (not
# the order they stepped back), each with its first record in the past,
# and the rest are counted in one line.
# usage: validate_backs.sh TRACEKIT TK_GEN_XRAY
set -u
tk=$1 gen=$2
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
"$gen" --mode basic --records 3000 --threads 30 --seed 5 -o "$dir/t.xray" 2>/dev/null ||
    { echo "cannot generate"; exit 2; }
size=$(wc -c <"$dir/t.xray")
# the copy groups the records by thread, the last thread to appear first,
# so threads step back in the opposite order of their first appearance
/usr/bin/python3 - "$dir/t.xray" "$dir/dup.xray" <<'PY' || exit 2
import struct, sys
data = open(sys.argv[1], "rb").read()
units, order = [], []  # a function record and the argument records after it
for i in range(32, len(data), 32):
    r = data[i:i + 32]
    if struct.unpack_from("<H", r, 0)[0] != 0 and units:
        units[-1][1].append(r)
        continue
    tid = struct.unpack_from("<I", r, 16)[0]
    units.append((tid, [r]))
    if tid not in order:
        order.append(tid)
copy = [r for t in reversed(order) for u in units if u[0] == t for r in u[1]]
open(sys.argv[2], "wb").write(data + b"".join(copy))
PY
"$tk" validate --json "$dir/dup.xray" >"$dir/out" 2>&1
echo "exit $?" >>"$dir/out"
/usr/bin/python3 - "$dir/out" "$dir/t.xray" "$size" <<'PY' || exit 1
import json, struct, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[-1] == "exit 0", lines[-1]
objs = [json.loads(l) for l in lines[:-1]]
back = [o for o in objs if o.get("code") == "tsc_goes_back" and "thread" in o]
more = [o for o in objs if o.get("code") == "tsc_goes_back" and "thread" not in o]
# threads in the order of their first function record, and their records
data = open(sys.argv[2], "rb").read()[32:]
order, count = [], {}
for i in range(0, len(data), 32):
    tid = struct.unpack_from("<I", data, i + 16)[0]  # basic v3: tid at 16
    if data[i] != 0:  # metadata, not a function record
        continue
    if tid not in count:
        order.append(tid)
        count[tid] = 0
    count[tid] += 1
assert len(order) > 20, len(order)  # the generator's threads that made calls
assert [o["thread"] for o in back] == order[:20], ([o["thread"] for o in back], order[:20])
assert len(more) == 1, more  # "and N more threads"
for o in back:
    assert o["records"] == count[o["thread"]], (o, count[o["thread"]])
    assert o["offset"] >= int(sys.argv[3]), o  # in the repeated half
print("ok:", len(back), "listed,", len(more), "summary lines")
PY
