#!/usr/bin/env python3
"""Compare Cacheray's Parquet tables (read back by tables.mjs) with tracekit's
own outputs on the same trace (docs/formats/cacheray.md, "Parquet tables").

  compare_cacheray.py --tracekit T --trace F --tables OUT.json --dir DIR
                      [--trace-id ID | --hive ID] -- CONVERT_ARGS...

Checked: both tables' schemas (names and DuckDB types); every accesses row
equal to `dump --json` (with the convert's selection) and its region columns
to an independent model of the live-region rule below, fed with `dump --json`
of the whole trace; every regions row equal to the selected RTTA_ADDs of
dump and their ends to the same model; the trace_id column; --rows-per-file's
parts; and the SQL queries of cacheray.sql equal to report --json's per-type
and per-thread counts and info --json's counts by kind and by RTTA type.

The model (written from the docs, not the C): a region [addr, addr + bytes)
ends at the RTTA_REMOVE of its start, at an RTTA_ADD that starts at the same
address or (both non-empty) overlaps it, or after the last record read;
an access is in the live non-empty region holding its address. With a
selection, every RTTA record before the window's end changes the live set
(context), only selected RTTA_ADDs are rows. Exit 0 pass, 1 fail."""
import argparse
import json
import os
import subprocess
import sys

U64 = (1 << 64) - 1
PQ_ONLY = {"--rows-per-file", "--trace-id", "--compression", "--row-group-rows"}
SELECT = {"--thread", "--range", "--addr"}

ACCESS_COLS = [["index", "UBIGINT"], ["kind", "VARCHAR"], ["atomic", "BOOLEAN"],
               ["unaligned", "BOOLEAN"], ["addr", "UBIGINT"], ["size", "UTINYINT"],
               ["thread", "UBIGINT"], ["type_name", "VARCHAR"],
               ["region_offset", "UBIGINT"]]
REGION_COLS = [["type_name", "VARCHAR"], ["addr", "UBIGINT"], ["elem_size", "UINTEGER"],
               ["elem_count", "UINTEGER"], ["bytes", "UBIGINT"], ["thread", "UBIGINT"],
               ["first_index", "UBIGINT"], ["last_index", "UBIGINT"], ["ended_by", "VARCHAR"]]

failures = 0


def fail(msg):
    global failures
    failures += 1
    if failures <= 20:
        print("FAIL: " + msg)


def split_args(args):
    """(format args for every command, selection args, rows-per-file)."""
    common, sel, rpf, i = [], [], None, 0
    while i < len(args):
        a = args[i]
        key, eq, val = a.partition("=")
        takes = not eq and i + 1 < len(args)
        value = val if eq else (args[i + 1] if takes else None)
        n = 1 if eq else 2
        if key in PQ_ONLY:
            if key == "--rows-per-file":
                rpf = int(value)
            i += n
        elif key in SELECT:
            sel += args[i:i + n]
            i += n
        elif key in ("--format", "--endian"):
            common += args[i:i + n]
            i += n
        else:
            common.append(a)
            i += 1
    return common, sel, rpf


def run_json(cmd, lines=False):
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout.decode()
    if lines:
        return [json.loads(l) for l in out.splitlines() if l.strip()]
    return json.loads(out)


def num(s):
    mult = {"K": 1000, "M": 1000**2, "G": 1000**3}
    s = s.strip()
    if s and s[-1].upper() in mult:
        return int(s[:-1]) * mult[s[-1].upper()]
    return int(s, 0)


def stop_of(sel):
    """The window's end: reading stops before this record index."""
    for i in range(0, len(sel), 2):
        key, eq, val = sel[i].partition("=")
        value = val if eq else sel[i + 1]
        if key == "--range":
            to = value.split(":", 1)[1]
            return num(to) if to else None
    return None


class Live:
    """The live RTTA regions, by the documented rules (a plain dict)."""

    def __init__(self):
        self.regions = {}  # start -> dict

    def _end(self, starts, idx, why, out):
        for s in sorted(starts):
            r = self.regions.pop(s)
            r["last_index"], r["end"] = idx, why
            out.append(r)

    def add(self, rec, idx, selected, out):
        start = rec["addr"]
        size = rec["elem_size"] * rec["elem_count"]
        last = min(start + size - 1, U64) if size else start
        ended = [s for s, r in self.regions.items()
                 if s == start or (size and not r["empty"] and s <= last and start <= r["last"])]
        self._end(ended, idx, "overlap", out)
        self.regions[start] = {"start": start, "last": last, "empty": size == 0,
                               "rec": rec, "first_index": idx, "selected": selected}

    def remove(self, addr, idx, out):
        if addr in self.regions:
            self._end([addr], idx, "remove", out)

    def find(self, addr):
        for r in self.regions.values():
            if not r["empty"] and r["start"] <= addr <= r["last"]:
                return r
        return None


def expected(full, selected, stop):
    """(access rows, region rows) from the whole trace's records."""
    sel_idx = {r["record"]: r for r in selected}
    live, ended, accesses = Live(), [], []
    last_read = None
    for rec in full:
        idx = rec["record"]
        if stop is not None and idx >= stop:
            break
        kind = rec["kind"]
        if idx not in sel_idx and kind in ("read", "write"):
            continue
        last_read = idx
        if kind == "rtta_add":
            live.add(rec, idx, idx in sel_idx, ended)
        elif kind == "rtta_remove":
            live.remove(rec["addr"], idx, ended)
        else:
            r = live.find(rec["addr"])
            accesses.append([idx, kind, rec["atomic"], rec["unaligned"], rec["addr"],
                             rec["size"], rec["thread"],
                             r["rec"]["type_name"] if r else None,
                             rec["addr"] - r["start"] if r else None])
    if last_read is not None:
        live._end(list(live.regions), last_read + 1, "trace_end", ended)
    regions = [[r["rec"]["type_name"], r["start"], r["rec"]["elem_size"],
                r["rec"]["elem_count"], r["rec"]["elem_size"] * r["rec"]["elem_count"],
                r["rec"]["thread"], r["first_index"], r["last_index"], r["end"]]
               for r in ended if r["selected"]]
    return accesses, regions


def big(v):
    """tables.mjs gives integers past 2^53 as decimal strings."""
    return int(v) if isinstance(v, str) and v.isdigit() else v


def compare_table(name, got, cols, want, trace_id):
    names = [c[0] for c in got["columns"]]
    exp_cols = cols + ([["trace_id", "VARCHAR"]] if trace_id is not None else [])
    if got["columns"] != exp_cols:
        fail(f"{name}: columns {got['columns']}, expected {exp_cols}")
        return
    rows = [[big(v) for v in row] for row in got["rows"]]
    if len(rows) != len(want):
        fail(f"{name}: {len(rows)} rows, expected {len(want)}")
    for i, (g, w) in enumerate(zip(rows, want)):
        w = w + ([trace_id] if trace_id is not None else [])
        if g != w:
            fail(f"{name} row {i}: {dict(zip(names, g))}, expected {dict(zip(names, w))}")


def check_queries(q, common, sel, trace, tk, whole):
    info = run_json([tk, "info", "--json"] + common + sel + [trace])
    report = run_json([tk, "report", "--json"] + common + sel + [trace])
    want = sorted([t["thread"], t["reads"], t["writes"], t["bytes"]]
                  for t in report["threads"] if t["accesses"])
    got = sorted([big(v) for v in r] for r in q["per_thread"])
    if got != want:
        fail(f"per_thread SQL {got} != report --json threads {want}")
    want = sorted([t["name"], t["reads"], t["writes"], t["bytes"]]
                  for t in report["types"] if t["accesses"])
    got = sorted([big(v) for v in r] for r in q["per_type"])
    if got != want:
        fail(f"per_type SQL {got} != report --json types {want}")
    want = sorted([k["kind"], k["count"], k["atomic_count"], k["unaligned_count"], k["bytes"]]
                  for k in info["by_kind"] if k["kind"] in ("read", "write") and k["count"])
    got = sorted([big(v) for v in r] for r in q["by_kind"])
    if got != want:
        fail(f"by_kind SQL {got} != info --json by_kind {want}")
    want = sorted([t["name"], t["regions"], t["elements"], t["bytes"]]
                  for t in info["rtta_types"])
    got = sorted([big(v) for v in r] for r in q["rtta_types"])
    if got != want:
        fail(f"rtta_types SQL {got} != info --json rtta_types {want}")
    if whole and q["live_at_end"] != [[info["live_regions_at_end"]]]:
        fail(f"live_at_end SQL {q['live_at_end']} != info's {info['live_regions_at_end']}")


def check_parts(d, table, rows, rpf):
    if rpf is None:
        if not os.path.isfile(os.path.join(d, table + ".parquet")):
            fail(f"no {table}.parquet in {d}")
        return
    parts = sorted(f for f in os.listdir(os.path.join(d, table)) if f.startswith("part-"))
    want = max(1, -(-rows // rpf))
    if len(parts) != want:
        fail(f"{table}: {len(parts)} parts for {rows} rows of {rpf}, expected {want}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tracekit", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--tables", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--trace-id")
    ap.add_argument("--hive")
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()
    common, sel, rpf = split_args(a.args)
    tk = a.tracekit
    full = run_json([tk, "dump", "--json"] + common + [a.trace], lines=True)
    selected = run_json([tk, "dump", "--json"] + common + sel + [a.trace], lines=True)
    got = json.load(open(a.tables))
    accesses, regions = expected(full, selected, stop_of(sel))
    tid = None if a.hive else a.trace_id
    compare_table("accesses", got["tables"]["accesses"], ACCESS_COLS, accesses, tid)
    compare_table("regions", got["tables"]["regions"], REGION_COLS, regions, tid)
    q = got["queries"]
    check_queries(q, common, sel, a.trace, tk, not sel)
    if a.hive and q.get("hive_ids") != [[a.hive]] * (1 if accesses or regions else 0):
        fail(f"hive_partitioning trace_id {q.get('hive_ids')}, expected {a.hive}")
    check_parts(a.dir, "accesses", len(accesses), rpf)
    check_parts(a.dir, "regions", len(regions), rpf)
    if failures:
        print(f"FAIL: {failures} differences")
        return 1
    print(f"ok: {len(accesses)} accesses, {len(regions)} regions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
