#!/usr/bin/python3
"""Compares a casemate log's Perfetto timeline with tracekit's own analyses.

Usage (tests/perfetto/run_check.sh runs it after check.py):
  compare_casemate.py --tracekit TK --trace LOG --summary S.json
                      --events E.jsonl -- [convert args...]

Asserts (docs/formats/casemate.md, "Perfetto timeline"):
 - record by record, the events on the thread tracks are `dump --json`'s
   records (with the selection given to convert): time = record index,
   name = kind, the annotations = dump's fields, on the track "thread N";
 - locks: a lock/trylock opening a slice on "lock 0xADDR" under its
   thread's track, and where each slice ends, as an independent model of
   the rules (free lock, holder's re-entrant trylock; any unlock of the
   address ends it; the end of the log ends the rest);
 - instants + slices per kind == dump's counts, and without a selection
   == `report --json`'s by_kind;
 - the "violations" track holds `bbm --json`'s violation (same checker
   options): code, message, record (= time), id, thread, line; none when
   bbm passes; one "not checked" instant when the model gave up (exit 2).
Exit 0 when all hold, 1 otherwise (the differences printed).
"""
import argparse
import collections
import json
import re
import subprocess
import sys

SELECTION = ("--thread", "--range", "--addr")
CHECKER = ("--racy", "--ignore-uninit", "--no-sysreg-defaults", "--promote-tlbi-by-id",
           "--hw-af")
problems = []


def problem(msg):
    problems.append(msg)


def split_args(args):
    """convert's arguments: the selection (for dump) and the checker's."""
    sel, chk, i = [], [], 0
    while i < len(args):
        a = args[i]
        name = a.split("=", 1)[0]
        if name in SELECTION:
            sel.append(a)
            if "=" not in a:
                i += 1
                sel.append(args[i])
        elif a in CHECKER:
            chk.append(a)
        i += 1
    return sel, chk


def tracekit(tk, *args, ok=(0,)):
    p = subprocess.run([tk, *args], capture_output=True, text=True)
    if p.returncode not in ok:
        sys.exit("compare: %s %s exited %d: %s" % (tk, " ".join(args), p.returncode, p.stderr))
    return p


def dump(tk, trace, sel):
    out = tracekit(tk, "dump", "--json", *sel, trace).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def word(kind):
    return kind.replace("_", "-")


def hexval(v):
    return int(v, 16) if isinstance(v, str) else v


def check_args(rec, args, where):
    """The annotations carry dump's fields (addresses as pointers)."""
    want = {"id": rec["id"], "thread": rec["thread"]}
    for k in ("addr", "value", "size"):
        if k in rec:
            want[k] = rec[k]
    for k in ("level", "src", "src_id", "mem_order", "sysreg", "tlbi", "hint"):
        if k in rec:
            want[k] = rec[k]
    if "barrier" in rec:
        want["barrier"] = rec["barrier"] if rec["barrier"] == "isb" else "dsb " + rec["domain"]
    got = {k: (hexval(v) if k in ("addr", "value", "size") else v) for k, v in args.items()}
    if got != want:
        problem("%s: annotations %r, dump says %r" % (where, got, want))


def lock_model(all_recs, shown):
    """What each lock record becomes and where slices end, from the rules:
    {record: ("slice"|"instant")}, [(ts, lock addr, holder)] of the ends."""
    held, what, ends = {}, {}, []
    for r in all_recs:
        kind, a = word(r["kind"]), r.get("addr")
        if kind in ("lock", "trylock") and r["record"] in shown:
            h = held.get(a)
            if not h or (kind == "trylock" and h[0] == r["thread"]):
                held[a] = (r["thread"], h[1] + 1 if h else 1)
                what[r["record"]] = "slice"
            else:
                what[r["record"]] = "instant"
        elif kind == "unlock" and a in held:
            tid, depth = held[a]
            ends.append((r["record"], a, tid))
            if depth > 1:
                held[a] = (tid, depth - 1)
            else:
                del held[a]
    n = len(all_recs)
    for a, (tid, depth) in held.items():
        ends += [(n, a, tid)] * depth
    return what, ends


def check_records(recs, all_recs, events, tracks):
    shown = {r["record"] for r in recs}
    what, ends = lock_model(all_recs, shown)
    evs = [e for e in events if e["track"] != VIOL and e["type"] in ("instant", "begin")]
    if len(evs) != len(recs):
        problem("%d events on the thread and lock tracks, dump has %d records" %
                (len(evs), len(recs)))
    for r, e in zip(recs, evs):
        where = "record %d" % r["record"]
        if e["ts"] != r["record"] or e["name"] != word(r["kind"]):
            problem("%s: event %s at %s, dump says %s at %d" %
                    (where, e["name"], e["ts"], word(r["kind"]), r["record"]))
            continue
        check_args(r, e["args"], where)
        t = tracks.get(e["track"], {})
        thread = "thread %d" % r["thread"]
        if what.get(r["record"], "instant") == "slice":
            parent = tracks.get(t.get("parent") or "", {})
            if (e["type"] != "begin" or t.get("name") != "lock 0x%x" % r["addr"] or
                    parent.get("name") != thread):
                problem("%s: %s on %r (under %r), wanted a slice on 'lock 0x%x' under %r" %
                        (where, e["type"], t.get("name"), parent.get("name"), r["addr"], thread))
        elif e["type"] != "instant" or t.get("name") != thread:
            problem("%s: %s on %r, wanted an instant on %r" % (where, e["type"], t.get("name"),
                                                             thread))
    got_ends = [(e["ts"], tracks.get(e["track"], {}).get("name"),
                 tracks.get(tracks.get(e["track"], {}).get("parent") or "", {}).get("name"))
                for e in events if e["type"] == "end"]
    want_ends = [(ts, "lock 0x%x" % a, "thread %d" % tid) for ts, a, tid in ends]
    if sorted(got_ends) != sorted(want_ends):
        problem("slice ends %r, the lock rules give %r" % (got_ends[:10], want_ends[:10]))


def check_counts(recs, summary, report):
    got = collections.Counter()
    for table in ("instants", "slices"):
        for uuid, names in summary[table].items():
            if uuid != VIOL:
                got.update(names)
    want = collections.Counter(word(r["kind"]) for r in recs)
    if got != want:
        problem("instants + slices by kind %r, dump counts %r" % (dict(got), dict(want)))
    if report is not None:
        by_kind = {word(k["kind"]): k["count"] for k in report["by_kind"]}
        if dict(got) != by_kind:
            problem("instants + slices by kind %r, report's by_kind %r" % (dict(got), by_kind))


def check_violations(tk, trace, chk, events, summary):
    p = tracekit(tk, "bbm", "--json", *chk, trace, ok=(0, 1, 2))
    viol = [e for e in events if e["track"] == VIOL]
    names = summary["instants"].get(VIOL, {})
    if p.returncode == 2:  # the model gave up: where
        m = re.search(r"\(record (\d+)\)", p.stderr)
        if (len(viol) != 1 or viol[0]["name"] != "not checked" or
                not m or viol[0]["ts"] != int(m.group(1))):
            problem("bbm gave up (%s), violations track %r" % (p.stderr.strip(), viol))
        return
    v = json.loads(p.stdout)["violation"]
    if v is None:
        if viol or names:
            problem("bbm passes, the violations track holds %r" % viol)
        return
    if len(viol) != 1 or sum(names.values()) != 1:
        problem("bbm found 1 violation, the violations track holds %d" % len(viol))
        return
    e, a = viol[0], viol[0]["args"]
    want = (v["message"], v["record"], v["code"], v["id"], v["thread"], v["line"], "bbm")
    got = (e["name"], e["ts"], a.get("code", "").replace("-", "_"), a.get("id"),
           a.get("thread"), a.get("line"), e["category"])
    if got != want:
        problem("violation %r, bbm says %r" % (got, want))
    if str(a.get("related_ids", "")).split(",")[0] != str(v["id"]):
        problem("related_ids %r do not start with the violating id %d" %
                (a.get("related_ids"), v["id"]))


def main():
    global VIOL
    ap = argparse.ArgumentParser()
    ap.add_argument("--tracekit", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--summary", required=True)
    ap.add_argument("--events", required=True)
    ap.add_argument("convert_args", nargs="*")
    o = ap.parse_args()
    sel, chk = split_args(o.convert_args)
    with open(o.summary) as f:
        summary = json.load(f)
    with open(o.events) as f:
        events = [json.loads(line) for line in f if line.strip()]
    tracks = summary["tracks"]
    vt = [u for u, t in tracks.items() if t["name"] == "violations" and not t["parent"]]
    if len(vt) != 1:
        sys.exit("compare: %d top-level 'violations' tracks" % len(vt))
    VIOL = vt[0]
    all_recs = dump(o.tracekit, o.trace, [])
    recs = dump(o.tracekit, o.trace, sel) if sel else all_recs
    report = None if sel else json.loads(tracekit(o.tracekit, "report", "--json",
                                                  o.trace).stdout)
    check_records(recs, all_recs, events, tracks)
    check_counts(recs, summary, report)
    check_violations(o.tracekit, o.trace, chk, events, summary)
    for p in problems[:20]:
        print("compare: " + p)
    if problems:
        print("compare: %d problems" % len(problems))
        return 1
    print("compare: %d records, %d events, violations track %s: as tracekit's analyses" %
          (len(recs), len(events), summary["instants"].get(VIOL, {})))
    return 0


VIOL = None
if __name__ == "__main__":
    sys.exit(main())
