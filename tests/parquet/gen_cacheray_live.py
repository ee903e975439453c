#!/usr/bin/env python3
"""Many RTTA regions live at once, most of them ended at the trace end
(tests/parquet/cacheray.cmake, issue 23): the regions table must list those
in address order, after the ones the trace ends itself, with their first
and last indexes. The regions are added in shuffled address order, some
removed, replaced (an RTTA_ADD at a live start) and added again where one
was removed (so the converter's slots are reused out of address order),
by many threads (small ids, ids past 2^32 and 2^63, 2^64 - 1), empty ones
among them.

  gen_cacheray_live.py gen OUT EXPECT.json [--regions N] [--seed S] [--big]
      writes the trace (no header: convert with --format cacheray) and the
      regions rows it must give, computed here from the records written
  gen_cacheray_live.py check EXPECT.json TABLES.json [--thread T]
      compares the regions rows tables.mjs read (TABLES.json) with them,
      in order; --thread T: only T's regions are rows (convert --thread T),
      and unless T is 1 (the accesses' thread) the trace ends after the
      last RTTA record

Each region lies in a 64-byte cell of its own, so two regions clash only
when they start at the same address: the expected rows follow from the
records without a model of overlaps. Exit 0 pass, 1 fail."""
import argparse
import json
import random
import struct
import sys

BASE = 0x7F0000000000
NAMES = [b"struct.node", b"double", b"i32", b"struct.pair", b"void*", b"char"]
SHAPES = [(8, 8), (4, 16), (24, 2), (16, 4), (1, 64), (8, 0), (0, 5)]  # <= 64 bytes
THREADS = ([1, 2, 3, 7, 100] + [(1 << 32) + i for i in range(150)]
           + [(1 << 63) + 17 * i for i in range(140)] + [(1 << 64) - 1])


def gen(a):
    rng = random.Random(a.seed)
    e = ">" if a.big else "<"
    cells = list(range(a.regions + a.regions // 4))
    rng.shuffle(cells)
    free = cells[a.regions:]
    out = bytearray()
    live = {}  # start -> row (without last_index, ended_by)
    starts, pos = [], {}  # live's keys, to pick one from; start -> index in starts
    rows = []  # the regions table, in order
    idx = 0

    def add(start):
        nonlocal idx
        esize, count = rng.choice(SHAPES)
        name, thread = rng.choice(NAMES), rng.choice(THREADS)
        out.extend(struct.pack(e + "BQQIII", 2, start, thread, esize, count, len(name)) + name)
        if start in live:  # same start: the old region ends here
            rows.append(live.pop(start) + [idx, "overlap"])
        else:
            pos[start] = len(starts)
            starts.append(start)
        live[start] = [name.decode(), start, esize, count, esize * count, thread, idx]
        idx += 1

    def remove(start):
        nonlocal idx
        out.extend(struct.pack(e + "BQQ", 3, start, rng.choice(THREADS)))
        if start in live:
            rows.append(live.pop(start) + [idx, "remove"])
            i, last = pos.pop(start), starts.pop()
            if last != start:
                starts[i], pos[last] = last, i
        idx += 1

    for c in cells[:a.regions]:
        add(BASE + 64 * c)
    for _ in range(a.regions // 5):
        r = rng.random()
        start = rng.choice(starts) if r < 0.9 else BASE - 64  # unknown: no row
        if r < 0.5:
            remove(start)
            free.append((start - BASE) // 64)
        elif r < 0.7:
            add(start)  # replaces it
        elif r < 0.9:
            add(BASE + 64 * free.pop(rng.randrange(len(free))))
        else:
            remove(start)
    rtta_end = idx
    for _ in range(200):  # a few accesses (thread 1), in regions or not
        out.extend(struct.pack(e + "BQBQ", rng.choice([0, 1]),
                               BASE + rng.randrange(0, 64 * len(cells)), 8, 1))
        idx += 1
    rows += [live[s] + [idx, "trace_end"] for s in sorted(live)]
    open(a.out, "wb").write(out)
    json.dump({"rows": rows, "rtta_end": rtta_end}, open(a.expect, "w"))


def big(v):
    """tables.mjs gives integers past 2^53 as decimal strings."""
    return int(v) if isinstance(v, str) and v.isdigit() else v


def check(a):
    expect = json.load(open(a.expect))
    want = expect["rows"]
    if a.thread is not None:  # the accesses (thread 1's) are not read: the
        # trace ends after the last RTTA record (context)
        want = [r[:7] + ([expect["rtta_end"]] if r[8] == "trace_end" and a.thread != 1 else [r[7]])
                + r[8:] for r in want if r[5] == a.thread]
    got = [[big(v) for v in r[:9]] for r in json.load(open(a.tables))["tables"]["regions"]["rows"]]
    bad = 0
    if len(got) != len(want):
        print(f"FAIL: {len(got)} regions rows, expected {len(want)}")
        bad += 1
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            bad += 1
            if bad <= 10:
                print(f"FAIL: regions row {i}: {g}, expected {w}")
    ends = sum(r[8] == "trace_end" for r in expect["rows"])
    if bad:
        return 1
    print(f"ok: {len(want)} regions rows, {ends} ended at the trace end in address order")
    return 0 if ends > 1000 else 1  # the test needs many: fail when it has not


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("out")
    g.add_argument("expect")
    g.add_argument("--regions", type=int, default=20000)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--big", action="store_true")
    c = sub.add_parser("check")
    c.add_argument("expect")
    c.add_argument("tables")
    c.add_argument("--thread", type=int)
    a = ap.parse_args()
    if a.cmd == "gen":
        gen(a)
        return 0
    return check(a)


if __name__ == "__main__":
    sys.exit(main())
