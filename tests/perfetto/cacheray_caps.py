#!/usr/bin/python3
"""convert --to perfetto --max-tracks on a small Cacheray trace it writes
(docs/formats/cacheray.md, "Perfetto timeline": the caps).

Usage: cacheray_caps.py TRACEKIT PROTO CHECK_PY WORKDIR

The trace: five regions of type "T" live at once, then removed, reused,
overlapped and left live at the end (a region of type "U" overlaps one),
and four threads' reads and writes. With --max-tracks 2 --window 1:
 - "T" has exactly 2 lanes (T #1, T #2) and 3 slices on them, "U" 1;
 - "T regions without a lane" (a counter under "T") goes 1, 2, 3 as the
   third to fifth regions find no lane, then down as they end (remove,
   overlap, the end of the trace), each value at the window end after it;
 - threads 1 and 2 have their own counters; threads 3 and 4 none, and
   "other threads reads" / "writes" sum exactly their accesses, window
   by window.
Without the cap (--max-tracks 0) the same trace shows 5 lanes and 4
threads' counters, and the default (1000) writes the same bytes. Its
first 22 records in one window (ending with a region without a lane):
the counter's 1 at the window's end, then 0 at the trace's.
Each output passes check.py first. Exit 0 pass, 1 fail, 77 skip (no
protoc, google.protobuf or PROTO: check.py's own skip).
"""
import json
import os
import struct
import subprocess
import sys

problems = []


def problem(msg):
    problems.append(msg)


def add(addr, thread, name, elemsize=8, count=8):
    n = name.encode()
    return struct.pack("<BQQIII", 2, addr, thread, elemsize, count, len(n)) + n


def remove(addr, thread):
    return struct.pack("<BQQ", 3, addr, thread)


def access(write, addr, thread):
    return struct.pack("<BQBQ", 1 if write else 0, addr, 8, thread)


A, B, C, D, E, F = (0x10000 * k for k in range(1, 7))
# (record, the "T" regions without a lane after it); accesses as (write, thread)
RECORDS = [
    add(A, 1, "T"), add(B, 1, "T"),               # 0, 1: lanes T #1, T #2
    add(C, 1, "T"), add(D, 1, "T"), add(E, 1, "T"),  # 2-4: no lane: 1, 2, 3
    access(0, A, 1), access(1, B, 2), access(1, B, 2),          # 5-7
    access(0, C, 3), access(0, C, 4), access(0, C, 3),          # 8-10
    access(1, D, 4), access(0, D, 3), access(1, D, 3),          # 11-13
    access(0, E, 4), access(1, E, 4),                            # 14, 15
    remove(C, 1),                                  # 16: no lane: 2
    remove(A, 1), add(F, 1, "T"),                  # 17, 18: F takes T #1
    remove(D, 1),                                  # 19: 1
    add(E + 8, 2, "U"),                            # 20: overlaps E: 0
    add(A, 1, "T"),                                # 21: no lane: 1 (0 at the end)
    access(0, A, 3), access(1, A, 4),              # 22, 23
]
# "T regions without a lane": (ts, value); ts = the window end after the record
WANT_NOLANE = [(3, 1), (4, 2), (5, 3), (17, 2), (20, 1), (21, 0), (22, 1), (24, 0)]
WANT_T_SLICES = [(0, 17), (1, 24), (18, 24)]  # (begin, end) on T's lanes


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def convert(tk, check, proto, trace, out, args):
    """Convert and check: the summary and events, or exit 77 / None."""
    p = run([tk, "convert", "--to", "perfetto", trace, "-o", out] + args)
    if p.returncode != 0:
        problem("convert %s exited %d: %s" % (args, p.returncode, p.stderr))
        return None
    summary, events = out + ".summary.json", out + ".events.jsonl"
    p = run([sys.executable, check, "--proto", proto, "--summary", summary, "--events",
             events, out])
    if p.returncode == 77:
        print(p.stdout.strip() or "SKIP: check.py")
        sys.exit(77)
    if p.returncode != 0:
        problem("check.py %s: %s" % (args, p.stdout[-2000:]))
        return None
    with open(summary) as f:
        tracks = json.load(f)["tracks"]
    with open(events) as f:
        evs = [json.loads(line) for line in f if line.strip()]
    return tracks, evs


def named(tracks, name):
    return [u for u, t in tracks.items() if t["name"] == name]


def values(evs, uuid):
    return [(e["ts"], e["value"]) for e in evs if e["type"] == "counter" and e["track"] == uuid]


def check_lanes(tracks, evs, want_lanes):
    (t,) = named(tracks, "T") or [None]
    lanes = sorted(t2["name"] for t2 in tracks.values() if t2["parent"] == t and
                   t2["kind"] == "track")
    want = ["T #%d" % k for k in range(1, want_lanes + 1)]
    if lanes != want:
        problem("lanes of T: %s, want %s" % (lanes, want))
    on_t = {u for u, t2 in tracks.items() if t2["parent"] == t and t2["kind"] == "track"}
    begins = [e for e in evs if e["type"] == "begin" and e["track"] in on_t]
    return t, begins


def check_capped(tracks, evs):
    t, begins = check_lanes(tracks, evs, 2)
    ends = {}
    for e in evs:
        if e["type"] == "end" and e["track"] in {b["track"] for b in begins}:
            ends.setdefault(e["track"], []).append(e["ts"])
    got = []
    for b in begins:  # each lane's ends in order, matched to its begins
        got.append((b["ts"], ends[b["track"]].pop(0)))
    if sorted(got) != WANT_T_SLICES:
        problem("T's slices (begin, end) %s, want %s" % (sorted(got), WANT_T_SLICES))
    nolane = named(tracks, "T regions without a lane")
    if len(nolane) != 1 or tracks[nolane[0]]["parent"] != t or \
            tracks[nolane[0]]["kind"] != "counter":
        problem("no counter \"T regions without a lane\" under T: %s" % nolane)
    elif values(evs, nolane[0]) != WANT_NOLANE:
        problem("T regions without a lane: %s, want %s" % (values(evs, nolane[0]),
                                                          WANT_NOLANE))
    if len([e for e in evs if e["type"] == "begin" and e["name"] == "U"]) != 1:
        problem("U's region has no slice")
    check_threads(tracks, evs, {1: "thread 1", 2: "thread 2", 3: "other threads",
                                4: "other threads"})
    for tid in (3, 4):
        if named(tracks, "thread %d reads" % tid):
            problem("thread %d has counters of its own past --max-tracks 2" % tid)


def check_threads(tracks, evs, owner):
    """Each counter's values, window by window, against the records."""
    want = {}
    for i, rec in enumerate(RECORDS):
        if rec[0] in (0, 1):
            thread = struct.unpack_from("<Q", rec, 10)[0]
            key = "%s %s" % (owner[thread], "writes" if rec[0] else "reads")
            want.setdefault(key, {}).setdefault(i + 1, 0)
            want[key][i + 1] += 1
    for key, per_ts in sorted(want.items()):
        uuids = named(tracks, key)
        if len(uuids) != 1:
            problem("%d tracks named %r" % (len(uuids), key))
            continue
        got = {ts: v for ts, v in values(evs, uuids[0]) if v}
        if got != per_ts:
            problem("%s: %s, want %s" % (key, got, per_ts))


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: cacheray_caps.py TRACEKIT PROTO CHECK_PY WORKDIR")
    tk, proto, check, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    trace = os.path.join(work, "caps.cr")
    with open(trace, "wb") as f:
        f.write(b"".join(RECORDS))
    capped = convert(tk, check, proto, trace, os.path.join(work, "capped.pftrace"),
                     ["--max-tracks", "2", "--window", "1"])
    if capped:
        check_capped(*capped)
    free = convert(tk, check, proto, trace, os.path.join(work, "free.pftrace"),
                   ["--max-tracks", "0", "--window", "1"])
    if free:
        tracks, evs = free
        check_lanes(tracks, evs, 5)
        if named(tracks, "T regions without a lane") or named(tracks, "other threads reads"):
            problem("--max-tracks 0: a capped track")
        check_threads(tracks, evs, {k: "thread %d" % k for k in range(1, 5)})
    dflt = os.path.join(work, "default.pftrace")
    if convert(tk, check, proto, trace, dflt, ["--window", "1"]) and free:
        with open(dflt, "rb") as a, open(os.path.join(work, "free.pftrace"), "rb") as b:
            if a.read() != b.read():
                problem("the default cap (1000) changed a trace below it")
    # a trace in one window (the default 10000) ending with an RTTA_ADD
    # that finds no lane: the last window's end writes the count, then the
    # end of the trace its 0 (the regions still live end)
    short = os.path.join(work, "short.cr")
    with open(short, "wb") as f:
        f.write(b"".join(RECORDS[:22]))
    one = convert(tk, check, proto, short, os.path.join(work, "short.pftrace"),
                  ["--max-tracks", "2"])
    if one:
        tracks, evs = one
        nolane = named(tracks, "T regions without a lane")
        got = values(evs, nolane[0]) if len(nolane) == 1 else None
        if got != [(22, 1), (22, 0)]:
            problem("one window: T regions without a lane %s, want [(22, 1), (22, 0)]" % got)
    for p in problems:
        print("FAIL: " + p)
    if problems:
        return 1
    print("PASS: --max-tracks 2: 2 lanes, regions without a lane %s, other threads' "
          "counters as threads 3 and 4" % [v for _, v in WANT_NOLANE])
    return 0


if __name__ == "__main__":
    sys.exit(main())
