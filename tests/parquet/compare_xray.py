#!/usr/bin/python3
"""Compares an XRay trace's Parquet tables with tracekit's own outputs.

Usage (tests/parquet/xray_check.sh runs it after tables.mjs):
  compare_xray.py --tracekit TK --trace FILE --dir DIR --tables T.json
                  [--hive ID] -- [convert args...]

Asserts (docs/formats/xray.md, "Parquet tables"):
 - each table's schema (names and DuckDB types, trace_id last unless DIR is
   a trace_id=ID partition) and layout (T.parquet, or T/part-NNNNN.parquet
   of at most --rows-per-file rows);
 - records: every value equal to `dump --json --records logical` (with
   the selection given to convert); events: its custom and typed events,
   with time_ns = floor(tsc * 10^9 / cycle frequency);
 - calls: row by row, in end order, what an independent model of account's
   matching makes of those records (threads by tid, records in a thread's
   past skipped, -d deeper exits, unmatched exits ignored, calls open at
   the end closed at their thread's last TSC and flagged unfinished):
   call_id, parent_call_id, depth, times, self_ns, arguments; names as
   `account --json` has them;
 - the SQL of xray.sql reproduces `account --json -k` (same -m, -d and
   selection) exactly: count, min, median, p90, p99, max, sum in seconds;
   the other queries' cross-checks hold.
Exit 0 when all hold, 1 otherwise (the differences printed).
"""
import argparse
import json
import math
import os
import subprocess
import sys

SELECTION = ("--thread", "--range", "--func")
NAMING = ("-m", "--instr-map", "--no-demangle")
INT_TYPES = ("UBIGINT", "BIGINT", "INTEGER", "UINTEGER", "USMALLINT", "SMALLINT", "HUGEINT",
             "UHUGEINT", "UTINYINT", "TINYINT")
INT64_MAX = (1 << 63) - 1

COLUMNS = {
    "calls": [("call_id", "UBIGINT"), ("parent_call_id", "UBIGINT"), ("thread", "UBIGINT"),
              ("pid", "UINTEGER"), ("func_id", "INTEGER"), ("function", "VARCHAR"),
              ("depth", "UINTEGER"), ("start_ns", "BIGINT"), ("duration_ns", "BIGINT"),
              ("self_ns", "BIGINT"), ("duration_tsc", "UBIGINT"), ("unfinished", "BOOLEAN"),
              ("args", "VARCHAR")],
    "records": [("index", "UBIGINT"), ("offset", "UBIGINT"), ("kind", "VARCHAR"),
                ("func_id", "INTEGER"), ("tsc", "UBIGINT"), ("cpu", "USMALLINT"),
                ("thread", "UBIGINT"), ("pid", "UINTEGER"), ("args", "VARCHAR"),
                ("event_type", "USMALLINT"), ("data", "BLOB")],
    "events": [("index", "UBIGINT"), ("kind", "VARCHAR"), ("event_type", "USMALLINT"),
               ("thread", "UBIGINT"), ("pid", "UINTEGER"), ("cpu", "USMALLINT"),
               ("tsc", "UBIGINT"), ("time_ns", "BIGINT"), ("data", "BLOB")],
}
EVENTS = ("custom_event", "typed_event")
problems = []


def problem(msg):
    problems.append(msg)


def split_args(args):
    """convert's arguments: selection, naming, -d, --trace-id, --rows-per-file."""
    sel, naming, deduce, trace_id, per_file, i = [], [], False, None, 0, 0
    while i < len(args):
        a = args[i]
        name = a.split("=", 1)[0]
        value = a.split("=", 1)[1] if "=" in a else None
        takes = name in SELECTION or name in ("-m", "--instr-map", "--trace-id", "--rows-per-file",
                                              "--compression", "--row-group-rows")
        if takes and value is None:
            i += 1
            value = args[i]
        if name in SELECTION:
            sel += [name, value]
        elif name in ("-m", "--instr-map"):
            naming += [name, value]
        elif name == "--no-demangle":
            naming.append(name)
        elif a in ("-d", "--deduce-sibling-calls"):
            deduce = True
        elif name == "--trace-id":
            trace_id = value
        elif name == "--rows-per-file":
            per_file = int(value)
        i += 1
    return sel, naming, deduce, trace_id, per_file


def tracekit(tk, *args):
    p = subprocess.run([tk, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("compare: %s %s exited %d: %s" % (tk, " ".join(args), p.returncode, p.stderr))
    return p.stdout


def args_text(args):
    return "[" + ",".join(str(a) for a in args) + "]" if args else None


def expected_records(dump):
    return [[r["record"], r["offset"], r["kind"], r.get("func_id"), r["tsc"], r["cpu"],
             r["thread"], r["pid"], args_text(r["args"]), r.get("event_type"), r.get("data")]
            for r in dump]


def ns_of(tsc, freq):
    return min(tsc * 10**9 // freq if freq else tsc, INT64_MAX)


class Thread:
    def __init__(self):
        self.max, self.behind, self.stack = 0, False, []

    def is_behind(self, tsc):
        """The record is in the thread's past (src/xray/xray_int.h)."""
        if tsc > self.max or (tsc == self.max and not self.behind):
            self.max, self.behind = tsc, False
            return False
        self.behind = True
        return True


def close(t, tid, end, unfinished, freq, rows):
    f = t.stack.pop()
    s, e = ns_of(f["tsc"], freq), ns_of(end, freq)
    parent = t.stack[-1] if t.stack else None
    rows.append([f["id"], parent["id"] if parent else None, tid, f["pid"], f["func"], None,
                 len(t.stack), s, e - s, e - s - f["child"], end - f["tsc"], unfinished,
                 args_text(f["args"])])
    if parent:
        parent["child"] += e - s


def model_calls(dump, freq, deduce):
    """The calls account's matching makes of the records, in end order."""
    threads, rows = {}, []
    for r in dump:
        if r["kind"] in EVENTS:
            continue
        t = threads.setdefault(r["thread"], Thread())
        if t.is_behind(r["tsc"]):
            continue
        if r["kind"] in ("function_enter", "function_enter_arg"):
            t.stack.append({"id": r["record"], "func": r["func_id"], "tsc": r["tsc"],
                            "pid": r["pid"], "args": r["args"], "child": 0})
            continue
        funcs = [f["func"] for f in t.stack]
        f = r["func_id"]
        if not funcs or (funcs[-1] != f and (not deduce or f not in funcs[:-1])):
            continue
        while True:
            g = t.stack[-1]["func"]
            close(t, r["thread"], r["tsc"], False, freq, rows)
            if g == f:
                break
    for tid, t in threads.items():
        while t.stack:
            close(t, tid, t.max, True, freq, rows)
    return rows


def norm_rows(table):
    """Integers as ints (tables.mjs writes those past 2^53 as strings)."""
    ints = [i for i, (_, typ) in enumerate(table["columns"]) if typ in INT_TYPES]
    rows = []
    for r in table["rows"]:
        r = list(r)
        for i in ints:
            if r[i] is not None:
                r[i] = int(r[i])
        rows.append(r)
    return rows


def compare_rows(name, got, want):
    if len(got) != len(want):
        problem("%s: %d rows, expected %d" % (name, len(got), len(want)))
    bad = 0
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            bad += 1
            if bad <= 5:
                problem("%s row %d: %s, expected %s" % (name, i, g, w))
    if bad > 5:
        problem("%s: %d rows differ in all" % (name, bad))


def check_schema(tables, trace_id):
    for t, cols in COLUMNS.items():
        if t not in tables:
            problem("no table %s" % t)
            continue
        want = [list(c) for c in cols] + ([["trace_id", "VARCHAR"]] if trace_id else [])
        if tables[t]["columns"] != want:
            problem("%s: columns %s, expected %s" % (t, tables[t]["columns"], want))
    if set(tables) != set(COLUMNS):
        problem("tables %s, expected %s" % (sorted(tables), sorted(COLUMNS)))


def check_layout(d, tables, per_file):
    for t in COLUMNS:
        n = len(tables.get(t, {}).get("rows", []))
        if not per_file:
            if not os.path.isfile(os.path.join(d, t + ".parquet")):
                problem("no file %s.parquet" % t)
            continue
        parts = sorted(os.listdir(os.path.join(d, t))) if os.path.isdir(os.path.join(d, t)) else []
        want = ["part-%05d.parquet" % i for i in range(max(1, math.ceil(n / per_file)))]
        if parts != want or os.path.exists(os.path.join(d, t + ".parquet")):
            problem("%s: files %s, expected %s (%d rows, %d per file)" % (t, parts, want, n, per_file))


def check_names(calls, acct, naming):
    """function: account's name of the id; "#<id>" without -m; one per id."""
    names, seen = {r["func_id"]: r["function"] for r in acct}, {}
    for r in calls:
        f, name = r[4], r[5]
        want = names.get(f, None if naming else "#%d" % f)
        if want is None:
            want = seen.setdefault(f, name)
        if name != want:
            problem("calls: function %d named %r, expected %r" % (f, name, want))
            return
        seen[f] = name


def check_queries(q, acct, dump, model, hive, ncalls):
    keys = ["func_id", "function", "count", "min_s", "med_s", "p90_s", "p99_s", "max_s", "sum_s"]
    got = [dict(zip(keys, r)) for r in q["account"]]
    if got != acct:
        problem("SQL account != account --json:\n  %s\n  %s" % (got[:3], acct[:3]))
    ticks = {}
    for r in model:
        if not r[11]:
            c = ticks.setdefault(r[4], [0, r[10], r[10], 0])
            c[0] += 1
            c[1], c[2], c[3] = min(c[1], r[10]), max(c[2], r[10]), c[3] + r[10]
    want = [[f] + ticks[f] for f in sorted(ticks)]
    if [[int(v) for v in r] for r in q["ticks"]] != want:
        problem("SQL ticks: %s, the model has %s" % (q["ticks"][:3], want[:3]))
    kinds = {}
    for r in dump:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    if q["by_kind"] != [[k, kinds[k]] for k in sorted(kinds)]:
        problem("SQL by_kind: %s, dump has %s" % (q["by_kind"], kinds))
    for name in ("self_wrong", "entry_wrong"):
        if q[name] != [[0]]:
            problem("SQL %s: %s, expected 0" % (name, q[name]))
    args = [a for r in dump for a in r["args"]]
    want = [[len(args), sum(args)]] if args else [[None, None]]
    if [[None if v is None else int(v) for v in r] for r in q["args_list"]] != want:
        problem("SQL args_list: %s, expected %s" % (q["args_list"], want))
    if hive and q.get("hive") != [[hive, ncalls]]:
        problem("SQL hive: %s, expected %s" % (q.get("hive"), [[hive, ncalls]]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tracekit", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--tables", required=True)
    ap.add_argument("--hive", default="")
    ap.add_argument("convert_args", nargs="*")
    a = ap.parse_args()
    sel, naming, deduce, trace_id, per_file = split_args(a.convert_args)
    if a.hive:
        trace_id = None
    elif trace_id is None:
        trace_id = os.path.basename(a.trace)
    tk, name = a.tracekit, os.path.basename(a.trace)
    with open(a.tables) as f:
        data = json.load(f)
    tables, queries = data["tables"], data["queries"]
    info = json.loads(tracekit(tk, "info", "--json", a.trace))
    freq = info.get("cycle_frequency") or 0
    dump = [json.loads(l) for l in
            tracekit(tk, "dump", "--json", "--records", "logical", *sel, a.trace).splitlines()]
    acct = json.loads(tracekit(tk, "account", "--json", "-k", *naming, *sel,
                               *(["-d"] if deduce else []), a.trace))
    check_schema(tables, trace_id)
    check_layout(a.dir, tables, per_file)
    tail = [trace_id] if trace_id else []
    recs = expected_records(dump)
    compare_rows("records", norm_rows(tables["records"]), [r + tail for r in recs])
    events = [[r[0], r[2], r[9], r[6], r[7], r[5], r[4], ns_of(r[4], freq), r[10]] + tail
              for r in recs if r[2] in EVENTS]
    compare_rows("events", norm_rows(tables["events"]), events)
    calls = norm_rows(tables["calls"])
    check_names(calls, acct, naming)
    model = model_calls(dump, freq, deduce)
    for got, want in zip(calls, model):
        want[5] = got[5]  # names: check_names
    compare_rows("calls", calls, [r + tail for r in model])
    check_queries(queries, acct, dump, model, a.hive, len(model))
    for p in problems:
        print("FAIL: %s: %s" % (name, p))
    if problems:
        return 1
    print("PASS: %s %s: %d records, %d events, %d calls (%d unfinished), %d functions == account"
          % (name, " ".join(a.convert_args), len(recs), len(events), len(model),
             sum(1 for r in model if r[11]), len(acct)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
