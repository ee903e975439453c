#!/usr/bin/python3
"""Compares an XRay trace's Perfetto timeline with tracekit's own analyses.

Usage (tests/perfetto/run_check.sh runs it after check.py):
  compare_xray.py --tracekit TK --trace FILE --summary S.json
                  --events E.jsonl -- [convert args...]

Asserts (docs/formats/xray.md, "Perfetto timeline"):
 - event by event, each thread track holds what an independent model of
   the rules makes of `dump --records logical --json`'s records (with the
   selection given to convert): a thread per (pid, tid), records in the
   thread's past skipped, a slice per call from entry to the exit that
   matches it (-d: a deeper match closes the calls above it), exits that
   match nothing skipped, calls open at the end closed at the thread's
   last time, arguments as arg0.., events as instants with their payload
   in hex; times = floor(tsc * 10^9 / cycle frequency) exactly;
 - the tracks: a process track per pid, a thread track per thread, under
   its process;
 - slices per function (summed over threads), less those the end of the
   trace closed, == the call counts of `account --json -k` (-d when given),
   by name; and per thread (account --thread T) for up to 16 threads;
 - `convert --to chrome` (same arguments) still works: a "B" event per
   slice, by name and thread.
Exit 0 when all hold, 1 otherwise (the differences printed).
"""
import argparse
import collections
import json
import subprocess
import sys

SELECTION = ("--thread", "--range", "--func")
NAMING = ("-m", "--instr-map", "--no-demangle")
MAX_THREADS = 16
problems = []


def problem(msg):
    problems.append(msg)


def split_args(args):
    """convert's arguments: the selection, naming and -d."""
    sel, naming, deduce, i = [], [], False, 0
    while i < len(args):
        a = args[i]
        name = a.split("=", 1)[0]
        if name in SELECTION or name in NAMING:
            dest = sel if name in SELECTION else naming
            dest.append(a)
            if "=" not in a and name != "--no-demangle":
                i += 1
                dest.append(args[i])
        elif a in ("-d", "--deduce-sibling-calls"):
            deduce = True
        i += 1
    return sel, naming, deduce


def tracekit(tk, *args):
    p = subprocess.run([tk, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("compare: %s %s exited %d: %s" % (tk, " ".join(args), p.returncode, p.stderr))
    return p.stdout


def signed32(v):
    return v - (1 << 32) if v >= 1 << 31 else v


class Thread:
    def __init__(self):
        self.max = 0
        self.behind = False
        self.last = 0
        self.stack = []
        self.events = []  # (type, ts, func id or event name, args)
        self.closed = collections.Counter()  # func id -> calls closed by an exit

    def is_behind(self, tsc):
        """The record is in the thread's past (src/xray/xray_int.h)."""
        if tsc > self.max or (tsc == self.max and not self.behind):
            self.max, self.behind = tsc, False
            return False
        self.behind = True
        return True

    def stamp(self, ns):
        self.last = max(self.last, ns)
        return self.last


def model(records, freq, deduce):
    """(pid, tid) -> Thread, in order of first appearance."""
    threads = {}
    for r in records:
        t = threads.setdefault((r["pid"], r["thread"]), Thread())
        kind, tsc = r["kind"], r["tsc"]
        if kind in ("custom_event", "typed_event"):
            if t.behind or tsc < t.max:
                continue
            name = ("typed-event %d" % r["event_type"]) if kind == "typed_event" else "custom-event"
            t.events.append(("instant", t.stamp(tsc * 10**9 // freq), name, {"data": r["data"]}))
            continue
        if t.is_behind(tsc):
            continue
        ts = t.stamp(tsc * 10**9 // freq)
        if kind in ("function_enter", "function_enter_arg"):
            t.stack.append(r["func_id"])
            args = {"arg%d" % i: v for i, v in enumerate(r["args"])}
            t.events.append(("begin", ts, r["func_id"], args))
            continue
        f = r["func_id"]
        if not t.stack or (t.stack[-1] != f and (not deduce or f not in t.stack)):
            continue
        while True:
            g = t.stack.pop()
            t.closed[g] += 1
            t.events.append(("end", ts, None, {}))
            if g == f:
                break
    for t in threads.values():
        while t.stack:
            t.stack.pop()
            t.events.append(("end", t.last, None, {}))
    return threads


def account(tk, trace, naming, sel, deduce, extra=()):
    args = ["account", "--json", "-k", *naming, *sel, *extra]
    if deduce:
        args.append("-d")
    return json.loads(tracekit(tk, *args, trace))


def name_of(rows):
    return {r["func_id"]: r["function"] for r in rows}


def check_tracks(summary, threads):
    """The process and thread tracks; returns (pid, tid) -> thread track uuid."""
    tracks = summary["tracks"]
    procs = {v["pid"]: k for k, v in tracks.items() if v["kind"] == "process"}
    by_thread = {}
    for uuid, v in tracks.items():
        if v["kind"] == "thread":
            if (v["pid"], v["tid"]) in by_thread:
                problem("two thread tracks for pid %s tid %s" % (v["pid"], v["tid"]))
            by_thread[(v["pid"], v["tid"])] = uuid
            if v["parent"] != procs.get(v["pid"]):
                problem("thread track %s is not under its process's track" % uuid)
        elif v["kind"] != "process":
            problem("track %s: unexpected kind %s" % (uuid, v["kind"]))
    want = {(signed32(p), t) for p, t in threads}
    if set(by_thread) != want:
        problem("thread tracks %s, expected %s" % (sorted(by_thread), sorted(want)))
    if set(procs) != {p for p, _ in want}:
        problem("process tracks for pids %s, expected %s" % (sorted(procs), sorted({p for p, _ in want})))
    return {(p, t): by_thread.get((signed32(p), t)) for p, t in threads}


def check_events(events, threads, uuids, names):
    """Each thread track's events == the model's, in order. names(f): the
    name of function f, None when only the map knows it (the same each
    time, then). Returns each function's name as the timeline has it."""
    seen = {}
    per_track = collections.defaultdict(list)
    for e in events:
        per_track[e["track"]].append(e)
    for key, t in threads.items():
        got = per_track.pop(uuids[key], [])
        if len(got) != len(t.events):
            problem("thread %s: %d events, the model has %d" % (key, len(got), len(t.events)))
        for i, (e, (typ, ts, what, args)) in enumerate(zip(got, t.events)):
            name = names(what) if typ == "begin" else what
            if name is None:
                name = seen.setdefault(what, e["name"])
            want = {"type": typ, "ts": ts, "args": args}
            have = {"type": e["type"], "ts": e["ts"], "args": e["args"]}
            if typ != "end":
                have["name"], want["name"] = e["name"], name
                if e["category"] is not None:
                    problem("thread %s event %d: category %r" % (key, i, e["category"]))
            if have != want:
                problem("thread %s event %d: %s, the model says %s" % (key, i, have, want))
                break
            if typ == "begin":
                seen[what] = name
    for uuid, evs in per_track.items():
        problem("%d events on track %s, not a thread's" % (len(evs), uuid))
    return seen


def check_account(tk, trace, naming, sel, deduce, threads, summary, uuids, names):
    """Slices less those the end closed == account's counts, by name
    (names: function id -> name on the timeline)."""
    rows = account(tk, trace, naming, sel, deduce)
    by_tid = collections.defaultdict(set)
    for p, t in threads:
        by_tid[t].add(p)
    if any(len(p) > 1 for p in by_tid.values()):
        print("compare: a tid under two pids (account keys threads by tid): counts not compared")
        return
    slices = collections.Counter()
    for per_name in summary["slices"].values():
        slices.update(per_name)
    at_end = collections.Counter()
    for t in threads.values():
        opened = collections.Counter(e[2] for e in t.events if e[0] == "begin")
        for f, n in (opened - t.closed).items():
            at_end[names[f]] += n
    want = collections.Counter()
    for r in rows:
        want[r["function"]] += r["count"]
    got = +(slices - at_end)
    if got != +want:
        diff = {k: (got[k], want[k]) for k in set(got) | set(want) if got[k] != want[k]}
        problem("slices per function (perfetto, account): %s" % dict(list(diff.items())[:10]))
    # per thread, as account --thread counts them
    for (pid, tid) in list(threads)[:MAX_THREADS]:
        if sel:  # a selection and --thread do not combine simply; the totals say enough
            break
        rows = account(tk, trace, naming, [], deduce, ["--thread", str(tid)])
        per = collections.Counter()
        for r in rows:
            per[r["function"]] += r["count"]
        got = collections.Counter(summary["slices"].get(uuids[(pid, tid)], {}))
        t = threads[(pid, tid)]
        opened = collections.Counter(e[2] for e in t.events if e[0] == "begin")
        for f, n in (opened - t.closed).items():
            got[names[f]] -= n
        if +got != +per:
            problem("thread %d: slices %s, account --thread %d: %s" % (tid, dict(+got), tid, dict(per)))


def check_chrome(tk, trace, args, summary):
    """Chrome's begins per (pid, tid, name) == the slices on that thread."""
    doc = json.loads(tracekit(tk, "convert", "--to", "chrome", "-o", "-", *args, trace))
    chrome = collections.Counter()
    for e in doc["traceEvents"]:
        if e["ph"] == "B":
            chrome[(signed32(e["pid"]), e["tid"], e["name"])] += 1
    ours = collections.Counter()
    for uuid, per_name in summary["slices"].items():
        t = summary["tracks"][uuid]
        for name, n in per_name.items():
            ours[(t["pid"], t["tid"], name)] += n
    if chrome != ours:
        diff = {k: (ours[k], chrome[k]) for k in set(ours) | set(chrome) if ours[k] != chrome[k]}
        problem("slices (perfetto, chrome B events): %s" % dict(list(diff.items())[:10]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tracekit", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--summary", required=True)
    ap.add_argument("--events", required=True)
    ap.add_argument("convert_args", nargs="*")
    a = ap.parse_args()
    sel, naming, deduce = split_args(a.convert_args)
    info = json.loads(tracekit(a.tracekit, "info", "--json", a.trace))
    freq = info.get("cycle_frequency") or 10**9
    out = tracekit(a.tracekit, "dump", "--json", "--records", "logical", *sel, a.trace)
    records = [json.loads(line) for line in out.splitlines() if line.strip()]
    with open(a.summary) as f:
        summary = json.load(f)
    with open(a.events) as f:
        events = [json.loads(line) for line in f if line.strip()]
    threads = model(records, freq, deduce)
    acct_names = name_of(account(a.tracekit, a.trace, naming, sel, deduce))
    uuids = check_tracks(summary, threads)
    if not problems:
        names = check_events(events, threads, uuids,
                             lambda f: acct_names.get(f, None if naming else "#%d" % f))
    if not problems:
        check_account(a.tracekit, a.trace, naming, sel, deduce, threads, summary, uuids, names)
    if not problems:
        check_chrome(a.tracekit, a.trace, naming + sel, summary)
    for p in problems[:20]:
        print("compare_xray: " + p)
    if problems:
        return 1
    calls = sum(sum(v.values()) for v in summary["slices"].values())
    print("compare_xray: %d threads, %d slices, %d events match the model and account"
          % (len(threads), calls, len(events)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
