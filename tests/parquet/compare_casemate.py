#!/usr/bin/python3
"""Compares a casemate log's Parquet tables with tracekit's own analyses.

Usage (tests/parquet/casemate_test.sh runs it after tables.mjs):
  compare_casemate.py --tracekit TK --trace LOG --tables T.json --dir DIR
                      [--hive ID] -- [convert args...]

T.json is what both readers read (tables.mjs, with casemate.sql's queries).
Asserts (docs/formats/casemate.md, "Parquet tables"):
 - the tables are events and violations, with the documented columns and
   DuckDB types, trace_id last (the --trace-id value, else the log's base
   name), or no trace_id in a trace_id=ID directory (--hive: DuckDB's
   hive_partitioning reads ID back);
 - events: row by row, every value equal to `dump --json`'s record (with
   the selection given to convert), null exactly where dump has no member;
 - violations: `bbm --json`'s violation (same checker options; the whole
   log whatever the selection): code, message, record, line, id, thread,
   src; related_ids starting with that id and naming events of the log;
   one not_checked row where bbm gives up (exit 2); none when bbm passes;
 - SQL (casemate.sql) reproduces report --json: counts by kind, threads
   (without a selection; with one, dump's counts), and bbm's code;
 - --rows-per-file N: each table in DIR/T/part-NNNNN.parquet of N rows.
Exit 0 when all hold, 1 otherwise (the differences printed).
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

SELECTION = ("--thread", "--range", "--addr")
CHECKER = ("--racy", "--ignore-uninit", "--no-sysreg-defaults", "--promote-tlbi-by-id",
           "--hw-af")
VALUED = SELECTION + ("--trace-id", "--rows-per-file", "--compression", "--row-group-rows")

EVENTS = [("index", "UBIGINT"), ("line", "UBIGINT"), ("col", "UBIGINT"), ("kind", "VARCHAR"),
          ("id", "UBIGINT"), ("thread", "UBIGINT"), ("mem_order", "VARCHAR"),
          ("addr", "UBIGINT"), ("value", "UBIGINT"), ("size", "UBIGINT"),
          ("sysreg", "VARCHAR"), ("barrier", "VARCHAR"), ("domain", "VARCHAR"),
          ("tlbi", "VARCHAR"), ("level", "UBIGINT"), ("hint", "VARCHAR"), ("src", "VARCHAR"),
          ("src_id", "UBIGINT")]
VIOLATIONS = [("record", "UBIGINT"), ("line", "UBIGINT"), ("code", "VARCHAR"),
              ("message", "VARCHAR"), ("detail", "VARCHAR"), ("id", "UBIGINT"),
              ("thread", "UBIGINT"), ("src", "VARCHAR"), ("src_id", "UBIGINT"),
              ("related_ids", "VARCHAR"), ("entries", "VARCHAR")]
problems = []


def problem(msg):
    problems.append(msg)


def split_args(args):
    """convert's arguments: the selection (for dump), the checker's, and
    the table options by name."""
    sel, chk, opts, i = [], [], {}, 0
    while i < len(args):
        name, eq, val = args[i].partition("=")
        if name in VALUED and not eq:
            i += 1
            val = args[i]
        if name in SELECTION:
            sel += [name, val]
        elif name in CHECKER:
            chk.append(name)
        elif name in VALUED:
            opts[name] = val
        i += 1
    return sel, chk, opts


def tracekit(tk, *args, ok=(0,)):
    p = subprocess.run([tk, *args], capture_output=True, text=True)
    if p.returncode not in ok:
        sys.exit("compare: %s %s exited %d: %s" % (tk, " ".join(args), p.returncode, p.stderr))
    return p


def num(v, type_):
    """tables.mjs writes integers past 2^53 as decimal strings."""
    return int(v) if isinstance(v, str) and type_.endswith("INT") else v


def check_schema(name, table, cols, trace_id):
    want = [list(c) for c in cols] + ([["trace_id", "VARCHAR"]] if trace_id is not None else [])
    if table["columns"] != want:
        problem("%s: columns %r, documented %r" % (name, table["columns"], want))
        return False
    return True


def rows_as_dicts(table):
    cols = table["columns"]
    return [{c[0]: num(v, c[1]) for c, v in zip(cols, row)} for row in table["rows"]]


def check_events(table, recs, trace_id):
    rows = rows_as_dicts(table)
    if len(rows) != len(recs):
        problem("events: %d rows, dump has %d records" % (len(rows), len(recs)))
    names = [c[0] for c in EVENTS]
    for row, rec in zip(rows, recs):
        want = {n: None for n in names}
        for k, v in rec.items():
            key = "index" if k == "record" else k
            if key not in want:
                problem("record %d: dump's member %r has no column" % (rec["record"], k))
            want[key] = v
        if trace_id is not None:
            want["trace_id"] = trace_id
        if row != want:
            diff = {k: (row.get(k), want.get(k)) for k in set(row) | set(want)
                    if row.get(k) != want.get(k)}
            problem("events row %d: (parquet, dump) differ: %r" % (rec["record"], diff))


def check_violations(table, tk, trace, chk, all_ids, trace_id):
    rows = rows_as_dicts(table)
    p = tracekit(tk, "bbm", "--json", *chk, trace, ok=(0, 1, 2))
    if p.returncode == 2:  # the model gave up: where, and why
        m = re.search(r"\(record (\d+)\): (.*)$", p.stderr.strip())
        got = [(r["code"], r["record"], r["message"]) for r in rows]
        if not m or got != [("not_checked", int(m.group(1)), m.group(2))]:
            problem("bbm gave up (%s), violations %r" % (p.stderr.strip(), got))
        return ["not_checked"]
    v = json.loads(p.stdout)["violation"]
    if v is None:
        if rows:
            problem("bbm passes, the violations table holds %r" % rows)
        return []
    if len(rows) != 1:
        problem("bbm found 1 violation, the violations table holds %d rows" % len(rows))
        return [v["code"]]
    r = rows[0]
    for k in ("code", "message", "record", "line", "id", "thread"):
        if r[k] != v[k]:
            problem("violation %s: %r, bbm says %r" % (k, r[k], v[k]))
    if (r["src"], r["src_id"]) != (v.get("src"), v.get("src_id")):
        problem("violation src %r, bbm says %r" % ((r["src"], r["src_id"]),
                                                   (v.get("src"), v.get("src_id"))))
    ids = [int(x) for x in (r["related_ids"] or "").split(",") if x]
    if not ids or ids[0] != v["id"] or len(set(ids)) != len(ids) or not set(ids) <= all_ids:
        problem("related_ids %r: not the violating id %d then other ids of the log" %
                (r["related_ids"], v["id"]))
    if trace_id is not None and r["trace_id"] != trace_id:
        problem("violation trace_id %r, wanted %r" % (r["trace_id"], trace_id))
    return [v["code"]]


def check_queries(q, recs, report, codes, sel):
    kinds = collections.Counter(r["kind"] for r in recs)
    by_kind = sorted([k, n] for k, n in kinds.items())
    if report is not None:
        rep = sorted([k["kind"], k["count"]] for k in report["by_kind"])
        if rep != by_kind:
            problem("dump's counts by kind %r are not report's %r" % (by_kind, rep))
        if q["threads"] != [[report["thread_count"]]]:
            problem("SQL threads %r, report's thread_count %d" % (q["threads"],
                                                                   report["thread_count"]))
    if q["by_kind"] != by_kind:
        problem("SQL counts by kind %r, %s %r" % (q["by_kind"], "dump" if sel else "report",
                                                  by_kind))
    n = len(recs)
    want = [[n, recs[0]["record"], recs[-1]["record"]]] if n else [[0, None, None]]
    if q["records"] != want:
        problem("SQL count, min, max of index %r, dump %r" % (q["records"], want))
    if q["codes"] != [[c, 1] for c in codes]:
        problem("SQL violation codes %r, bbm %r" % (q["codes"], codes))


def check_layout(d, tables, per_file):
    for t, data in tables.items():
        n = len(data["rows"])
        if per_file is None:
            ok = os.path.isfile(os.path.join(d, t + ".parquet"))
            parts = None
        else:
            parts = sorted(os.listdir(os.path.join(d, t))) if os.path.isdir(os.path.join(d, t)) else []
            want = max(1, -(-n // int(per_file)))
            ok = parts == ["part-%05d.parquet" % i for i in range(want)]
        if not ok:
            problem("%s: %d rows, files %r (--rows-per-file %s)" % (t, n, parts, per_file))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tracekit", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--tables", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--hive")
    ap.add_argument("convert_args", nargs="*")
    o = ap.parse_args()
    sel, chk, opts = split_args(o.convert_args)
    with open(o.tables) as f:
        got = json.load(f)
    tables, q = got["tables"], got["queries"]
    trace_id = None if o.hive else opts.get("--trace-id", os.path.basename(o.trace))
    if sorted(tables) != ["events", "violations"]:
        sys.exit("compare: tables %r, wanted events and violations" % sorted(tables))
    all_recs = [json.loads(l) for l in tracekit(o.tracekit, "dump", "--json",
                                                o.trace).stdout.splitlines() if l.strip()]
    recs = all_recs
    if sel:
        recs = [json.loads(l) for l in tracekit(o.tracekit, "dump", "--json", *sel,
                                                o.trace).stdout.splitlines() if l.strip()]
    report = None if sel else json.loads(tracekit(o.tracekit, "report", "--json",
                                                  o.trace).stdout)
    codes = []
    if check_schema("events", tables["events"], EVENTS, trace_id):
        check_events(tables["events"], recs, trace_id)
    if check_schema("violations", tables["violations"], VIOLATIONS, trace_id):
        codes = check_violations(tables["violations"], o.tracekit, o.trace, chk,
                                 {r["id"] for r in all_recs}, trace_id)
    check_queries(q, recs, report, codes, sel)
    if o.hive:
        for t in ("events", "violations"):
            want = [[o.hive]] if tables[t]["rows"] else []
            if q.get("hive_" + t) != want:
                problem("hive_partitioning reads trace_id %r from %s, wanted %r" %
                        (q.get("hive_" + t), t, want))
    check_layout(o.dir, tables, opts.get("--rows-per-file"))
    for p in problems[:20]:
        print("compare: " + p)
    if problems:
        print("compare: %d problems" % len(problems))
        return 1
    print("compare: %d events, violations %r: as tracekit's dump, report and bbm" %
          (len(recs), codes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
