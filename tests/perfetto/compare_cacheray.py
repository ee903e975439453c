#!/usr/bin/python3
"""Compares a Cacheray trace's Perfetto timeline with tracekit's own analyses.

Usage (tests/perfetto/run_check.sh runs it after check.py):
  compare_cacheray.py --tracekit TK --trace TRACE --summary S.json
                      --events E.jsonl -- [convert args...]

Asserts (docs/formats/cacheray.md, "Perfetto timeline"):
 - region slices: one per rtta_add of `dump --json` (with convert's
   selection), in order: begin at the record's index, on a lane (a track
   under a track named for the type, under "regions"), named for the type,
   with its address, elem_size, elem_count, bytes and thread; per type
   == `info --json`'s rtta_types regions without a selection; each slice
   ends where an independent model of the regions says: its rtta_remove,
   the rtta_add overlapping it, or the end of the trace; an rtta_remove of
   no live region is an instant on "regions";
 - per thread, the reads and writes counters hold each window's counts of
   dump's records (window = --window, default 10000, written at the
   window's end), and sum to `report --json`'s per-thread reads and writes
   (and to info's by_kind without a selection);
 - with --cachesim / -l / --config: per level, the misses counters sum to
   `cachesim --json`'s read_misses + write_misses for the same levels and
   selection, each miss rate is misses / accesses in [0, 1]; without, no
   "cache simulation" track.
Exit 0 when all hold, 1 otherwise (the differences printed).
"""
import argparse
import collections
import json
import re
import subprocess
import sys

READING = ("--format", "--endian")
SELECTION = ("--thread", "--range", "--addr")
problems = []


def problem(msg):
    problems.append(msg)


def split_args(args):
    """convert's arguments: reading, selection, window, simulator."""
    out = {"read": [], "sel": [], "sim": [], "window": "10000", "cachesim": False}
    i = 0
    while i < len(args):
        a = args[i]
        name, eq, val = a.partition("=")
        if name.startswith("-l") and not name.startswith("--") and len(name) > 2:
            name, eq, val = "-l", "=", name[2:]
        takes = name in READING + SELECTION + ("--window", "-l", "--level", "--config")
        if takes and not eq:
            i += 1
            val = args[i]
        if name in READING:
            out["read"] += [name, val]
        elif name in SELECTION:
            out["sel"] += [name, val]
        elif name == "--window":
            out["window"] = val
        elif name in ("-l", "--level"):
            out["sim"] += ["--level", val]
        elif name == "--config":
            out["sim"] += ["--config", val]
        elif name == "--cachesim":
            out["cachesim"] = True
        i += 1
    out["cachesim"] = out["cachesim"] or bool(out["sim"])
    return out


def number(s):
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|[0-9]+)([kKmMgG]?)", s)
    shift = {"": 0, "k": 10, "m": 20, "g": 30}[m.group(2).lower()]
    return int(m.group(1), 0) << shift


def tracekit(tk, *args):
    p = subprocess.run([tk, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("compare: %s %s exited %d: %s" % (tk, " ".join(args), p.returncode, p.stderr))
    return p.stdout


def tracks_named(tracks, pattern):
    return {u: t for u, t in tracks.items() if re.fullmatch(pattern, t["name"])}


def region_model(recs, end_ts):
    """Each rtta_add's end (ts, index of the add) and the unmatched removes,
    as validate's checker defines a region's life: removed by its start
    address, ended by an rtta_add it overlaps (or that shares its start)."""
    live = {}  # start -> (last, empty, add number)
    ends, unmatched, n = [], [], 0
    for r in recs:
        if r["kind"] == "rtta_remove":
            if r["addr"] in live:
                ends.append((r["record"], live.pop(r["addr"])[2]))
            else:
                unmatched.append(r)
        elif r["kind"] == "rtta_add":
            size = r["elem_size"] * r["elem_count"]
            start, empty = r["addr"], size == 0
            last = start if empty else min(start + size - 1, 2**64 - 1)
            for s, (l, e, k) in sorted(live.items()):
                if s == start or (not e and not empty and s <= last and start <= l):
                    ends.append((r["record"], k))
                    del live[s]
            live[start] = (last, empty, n)
            n += 1
    ends += [(end_ts, k) for (_, _, k) in live.values()]
    return ends, unmatched


def check_regions(recs, events, tracks, info, sel):
    regions = tracks_named(tracks, "regions")
    reg_uuid = next(iter(regions), None)
    adds = [r for r in recs if r["kind"] == "rtta_add"]
    begins = [e for e in events if e["type"] == "begin"]
    if len(begins) != len(adds):
        problem("%d region slices, dump has %d rtta_add records" % (len(begins), len(adds)))
    for r, e in zip(adds, begins):
        want = {"address": "0x%x" % r["addr"], "elem_size": r["elem_size"],
                "elem_count": r["elem_count"], "bytes": r["elem_size"] * r["elem_count"],
                "thread": r["thread"]}
        lane = tracks.get(e["track"], {})
        typ = tracks.get(lane.get("parent"), {})
        if e["ts"] != r["record"] or e["name"] != r["type_name"] or e["args"] != want:
            problem("record %d: slice %s, dump says %s" % (r["record"], e, r))
        if "\0" not in r["type_name"] and (typ.get("name") != r["type_name"] or
                                           typ.get("parent") != reg_uuid):
            problem("record %d: slice on %s under %s, not a lane of %r under regions" %
                    (r["record"], lane, typ, r["type_name"]))
    per_type = collections.Counter(r["type_name"] for r in adds)
    got = collections.Counter(e["name"] for e in begins)
    if got != per_type:
        problem("slices per type %s, dump's rtta_add per type %s" % (dict(got), dict(per_type)))
    if not sel:
        want = collections.Counter()
        for t in info.get("rtta_types", []):
            want[t["name"]] += t["regions"]
        if want != per_type:
            problem("rtta_add per type %s, info says %s" % (dict(per_type), dict(want)))
    end_ts = max((e["ts"] for e in events), default=0)
    model, unmatched = region_model(recs, end_ts)
    want = collections.Counter((ts, begins[k]["track"]) for ts, k in model if k < len(begins))
    got = collections.Counter((e["ts"], e["track"]) for e in events if e["type"] == "end")
    if got != want:
        problem("slice ends (ts, track) %s, the model says %s" %
                (sorted((got - want).items())[:5], sorted((want - got).items())[:5]))
    inst = [e for e in events if e["type"] == "instant"]
    if [(e["ts"], e["track"]) for e in inst] != [(r["record"], reg_uuid) for r in unmatched]:
        problem("instants %s, unmatched rtta_remove records %s" % (inst[:3], unmatched[:3]))
    return len(begins)


def counter_values(events, uuid):
    vals = collections.Counter()
    for e in events:
        if e["type"] == "counter" and e["track"] == uuid:
            vals[e["ts"]] += e["value"]
    return vals


def check_threads(recs, events, tracks, window, report, info, sel):
    """Each thread's counters: window by window, and in total."""
    end_ts = max((e["ts"] for e in events), default=0)
    want = collections.defaultdict(collections.Counter)  # (thread, kind) -> ts -> n
    for r in recs:
        if r["kind"] in ("read", "write"):
            ts = min((r["record"] // window + 1) * window, end_ts)
            want[(r["thread"], r["kind"] + "s")][ts] += 1
    group = tracks_named(tracks, "memory accesses")
    got = {}
    for uuid, t in tracks_named(tracks, r"thread \d+ (reads|writes)").items():
        thread, kind = t["name"].split()[1:]
        if t["parent"] not in group or t["kind"] != "counter":
            problem("%s: not a counter under \"memory accesses\"" % t["name"])
        vals = counter_values(events, uuid)
        got[(int(thread), kind)] = +vals  # zeros dropped
        if any(ts % window and ts != end_ts for ts in vals):
            problem("%s: values at %s, not at window ends" % (t["name"], sorted(vals)[:5]))
    got = {k: v for k, v in got.items() if v}  # a thread's writes track without writes
    if got != want:
        diff = [k for k in set(got) | set(want) if got.get(k) != want.get(k)]
        problem("per-window counts differ for %s: got %s, dump says %s" %
                (diff[:3], [dict(got.get(k, {})) for k in diff[:1]],
                 [dict(want.get(k, {})) for k in diff[:1]]))
    totals = {k: sum(v.values()) for k, v in got.items()}
    for t in report["threads"]:
        for kind in ("reads", "writes"):
            if totals.get((t["thread"], kind), 0) != t[kind]:
                problem("thread %d: %d %s in the counters, report says %d" %
                        (t["thread"], totals.get((t["thread"], kind), 0), kind, t[kind]))
    if not sel:
        kinds = {k["kind"]: k["count"] for k in info["by_kind"]}
        for kind in ("read", "write"):
            n = sum(v for (_, k), v in totals.items() if k == kind + "s")
            if n != kinds.get(kind, 0):
                problem("%d %ss in the counters, info says %d" % (n, kind, kinds.get(kind, 0)))
    return sum(totals.values())


def check_levels(events, tracks, sim):
    group = tracks_named(tracks, "cache simulation")
    counters = {t["name"]: u for u, t in tracks.items() if t["parent"] in group}
    if sim is None:
        if group:
            problem("a \"cache simulation\" track without --cachesim")
        return []
    out = []
    for lv in sim["levels"]:
        m, r = counters.get(lv["name"] + " misses"), counters.get(lv["name"] + " miss rate")
        if m is None or r is None:
            problem("level %s: no misses or miss rate counter" % lv["name"])
            continue
        misses = counter_values(events, m)
        total = sum(misses.values())
        if total != lv["read_misses"] + lv["write_misses"]:
            problem("level %s: %d misses in the counters, cachesim says %d" %
                    (lv["name"], total, lv["read_misses"] + lv["write_misses"]))
        rates = counter_values(events, r)
        if set(rates) != set(misses) or any(not 0 <= v <= 1 for v in rates.values()) or \
                any(misses[ts] and not rates[ts] for ts in misses):
            problem("level %s: miss rates %s do not go with the misses" % (lv["name"], rates))
        out.append("%s %d" % (lv["name"], total))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tracekit", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--summary", required=True)
    ap.add_argument("--events", required=True)
    ap.add_argument("convert_args", nargs="*")
    o = ap.parse_args()
    with open(o.summary) as f:
        summary = json.load(f)
    with open(o.events) as f:
        events = [json.loads(line) for line in f if line.strip()]
    tracks = summary["tracks"]
    a = split_args(o.convert_args)
    tk, rd, sel = o.tracekit, a["read"], a["sel"]
    recs = [json.loads(line) for line in
            tracekit(tk, "dump", "--json", *rd, *sel, o.trace).splitlines() if line.strip()]
    info = json.loads(tracekit(tk, "info", "--json", *rd, o.trace))
    report = json.loads(tracekit(tk, "report", "--json", *rd, *sel, o.trace))
    sim = None
    if a["cachesim"]:
        sim = json.loads(tracekit(tk, "cachesim", "--json", *rd, *sel, *a["sim"], o.trace))
    nslices = check_regions(recs, events, tracks, info, sel)
    naccesses = check_threads(recs, events, tracks, number(a["window"]), report, info, sel)
    levels = check_levels(events, tracks, sim)
    if problems:
        for p in problems:
            print("compare: " + p)
        return 1
    print("compare: %d records, %d region slices, %d accesses in the counters%s: as "
          "tracekit's analyses" % (len(recs), nslices, naccesses,
                                   ", misses " + ", ".join(levels) if levels else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
