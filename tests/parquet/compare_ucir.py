#!/usr/bin/python3
"""Compares a UCIR trace's Parquet tables with tracekit's own analyses.

Usage (tests/parquet/run_ucir.sh runs it after tables.mjs):
  compare_ucir.py --tracekit TK --trace FILE --tables TABLES.json --dir DIR
                  [--hive ID] -- [convert args...]

Asserts (docs/formats/ucir.md, "Parquet tables"), with `dump --json`,
`report --json` and `info --json` of the same trace:
 - the five tables and nothing else, each with its documented columns and
   DuckDB types (trace_id VARCHAR last; absent in a trace_id=ID directory);
   the layout (DIR/T.parquet, or DIR/T/part-NNNNN.parquet with
   --rows-per-file N, ceil(rows / N) parts);
 - every row equal to dump's records, record by record: memory (mem_read,
   mem_write), registers (reg_change, spreg_change), syscalls, maps
   (mem_map, mem_unmap, mem_prot), each with dump's "insn"; instructions
   from the records that start one (dump's "pc"), their size (spec: the
   EXEC's; .uc: the STEP's that ends it) and their bytes, from a model of
   memory built here from dump's records (present iff every byte is known;
   dump's disassembly implies them). The records of later keyframes have no
   rows, as the replay skips them; report's and info's counts include them,
   so those are taken off (dump tells them);
 - syscall names: one per number, golden for x86_64;
 - trace_id: --trace-id, else the file's base name;
 - the SQL queries (ucir.sql): syscalls per number == report's, instructions
   == report's, distinct pcs == report's unique_code_addresses, bytes
   written and read == info's, and with --hive DuckDB's hive_partitioning
   gives the id back.
Exit 0 when all hold, 1 otherwise (the differences printed).
"""
import argparse
import collections
import json
import os
import subprocess
import sys

problems = []
X86_64_NAMES = {0: "read", 1: "write", 9: "mmap", 10: "mprotect", 11: "munmap",
                60: "exit", 231: "exit_group"}
CODE_MAX = 64
NARGS = 6
COMMON = [("insn", "UBIGINT"), ("record", "UBIGINT"), ("depth", "UTINYINT")]
COLUMNS = {
    "instructions": [("insn", "UBIGINT"), ("record", "UBIGINT"), ("pc", "UBIGINT"),
                     ("size", "UINTEGER"), ("bytes", "BLOB")],
    "memory": COMMON + [("kind", "VARCHAR"), ("addr", "UBIGINT"), ("size", "UBIGINT"),
                        ("data", "BLOB")],
    "registers": COMMON + [("reg", "VARCHAR"), ("reg_num", "USMALLINT"), ("value", "UBIGINT"),
                           ("data", "BLOB")],
    "syscalls": COMMON + [("pc", "UBIGINT"), ("num", "UINTEGER"), ("name", "VARCHAR"),
                          ("ret", "UBIGINT"), ("argc", "USMALLINT")]
    + [("arg%d" % i, "UBIGINT") for i in range(NARGS)]
    + [("more_args", "VARCHAR"), ("op_count", "USMALLINT")],
    "maps": COMMON + [("kind", "VARCHAR"), ("addr", "UBIGINT"), ("size", "UBIGINT"),
                      ("prot", "UTINYINT"), ("perms", "VARCHAR"), ("desc", "VARCHAR"),
                      ("file", "VARCHAR"), ("file_offset", "UBIGINT"),
                      ("file_size", "UBIGINT")],
}


def problem(msg):
    problems.append(msg)


def tracekit(tk, *args):
    p = subprocess.run([tk, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("compare: %s %s exited %d: %s" % (tk, " ".join(args), p.returncode, p.stderr))
    return p.stdout


def option(args, name):
    for i, a in enumerate(args):
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
        if a == name and i + 1 < len(args):
            return args[i + 1]
    return None


def replayed(records):
    """dump's records split into those the replay applies and those of
    later keyframes, which it skips (every keyframe after the first)."""
    out, skipped, seen_key, skipping = [], [], False, False
    for r in records:
        if r["kind"] == "frame":
            skipping = r["keyframe"] and seen_key
            seen_key = seen_key or r["keyframe"]
            continue
        (skipped if skipping else out).append(r)
    return out, skipped


def perms(prot):
    return "%s%s%s%s" % ("r" if prot & 1 else "-", "w" if prot & 2 else "-",
                         "x" if prot & 4 else "-", "+" if prot & ~7 else "")


class Memory:
    """Memory values as the replay knows them: read and write data,
    forgotten by unmaps."""

    def __init__(self):
        self.b = {}

    def record(self, r):
        if r["kind"] in ("mem_read", "mem_write") and r.get("data"):
            for i, v in enumerate(bytes.fromhex(r["data"])):
                self.b[r["addr"] + i] = v
        elif r["kind"] == "mem_unmap":
            lo, hi = r["addr"], r["addr"] + r["size"]
            for a in [a for a in self.b if lo <= a < hi]:
                del self.b[a]

    def get(self, addr, n):
        return [self.b.get(addr + i) for i in range(n)]


def expected_instructions(records, uc):
    """Rows of `instructions`, from the records that start one."""
    mem, rows, disasm = Memory(), {}, {}
    for r in records:
        mem.record(r)
        if "pc" in r:
            size = None if uc else r["size"]
            snap = mem.get(r["pc"], CODE_MAX) if r["pc"] is not None else None
            rows[r["insn"]] = [r["insn"], r["record"], r["pc"], size, snap]
            disasm[r["insn"]] = r["disasm"]
        if (uc and r["kind"] == "step" and r["depth"] == 0 and r["insn"] is not None
              and rows[r["insn"]][3] is None):
            rows[r["insn"]][3] = r["size"]
    out = []
    for insn in sorted(rows):
        row = rows[insn]
        size, snap = row[3], row[4]
        code = snap[:size] if snap is not None and size and size <= CODE_MAX else None
        row[4] = bytes(code).hex() if code is not None and None not in code else None
        # spec: dump disassembles only an instruction whose bytes it has
        # (.uc: capstone's length, maybe shorter than the STEP's)
        if not uc and disasm[insn] is not None and row[4] is None:
            problem("instruction %d: dump disassembles it, the table has no bytes" % insn)
        out.append(row)
    return out


def expected_rows(records, uc, insn_pc):
    t = collections.defaultdict(list)
    for r in records:
        k, at = r["kind"], [r["insn"], r["record"], r["depth"]]
        if k in ("mem_read", "mem_write"):
            t["memory"].append(at + [k[4:], r["addr"], r["size"], r.get("data")])
        elif k in ("reg_change", "spreg_change"):
            t["registers"].append(at + [r["reg"], r["reg_num"], r.get("value"), r.get("data")])
        elif k == "syscall":
            args = r["args"]
            more = ",".join("0x%x" % a for a in args[NARGS:]) or None
            pc = insn_pc.get(r["insn"]) if r["insn"] is not None else None
            t["syscalls"].append(at + [pc, r["num"], "?", r["ret"], len(args)]
                                 + [args[i] if i < len(args) else None for i in range(NARGS)]
                                 + [more, r["op_count"]])
        elif k in ("mem_map", "mem_unmap", "mem_prot"):
            name = {"mem_map": "map", "mem_unmap": "unmap", "mem_prot": "protect"}[k]
            prot = r.get("prot")
            fields = [r.get("desc"), r.get("map_file"), r.get("map_offset"), r.get("map_size")]
            t["maps"].append(at + [name, r["addr"], r["size"], prot,
                                   perms(prot) if prot is not None else None] + fields)
    return t


def normalise(table, rows):
    """Integers read back as strings past 2^53 become ints again."""
    ints = [i for i, (_, ty) in enumerate(COLUMNS[table]) if "INT" in ty]
    for row in rows:
        for i in ints:
            if isinstance(row[i], str):
                row[i] = int(row[i])
    return rows


def check_names(got, arch):
    names = collections.defaultdict(set)
    for row in got:
        names[row[4]].add(row[5])
    for num, ns in names.items():
        if len(ns) != 1:
            problem("syscall %d has several names %s" % (num, ns))
        elif arch == "x86_64" and num in X86_64_NAMES and ns != {X86_64_NAMES[num]}:
            problem("syscall %d named %s, not %s" % (num, ns, X86_64_NAMES[num]))
        elif arch == "x86_64" and num >= 1000 and ns != {None}:
            problem("syscall %d has no Linux name, the table says %s" % (num, ns))
    for row in got:
        row[5] = "?"


def check_table(name, tab, want, trace_id):
    cols = [tuple(c) for c in tab["columns"]]
    exp_cols = COLUMNS[name] + ([("trace_id", "VARCHAR")] if trace_id is not None else [])
    if cols != exp_cols:
        problem("%s: columns %s, not %s" % (name, cols, exp_cols))
        return None
    rows = tab["rows"]
    if trace_id is not None:
        ids = {r[-1] for r in rows}
        if ids and ids != {trace_id}:
            problem("%s: trace_id %s, not %r" % (name, ids, trace_id))
        rows = [r[:-1] for r in rows]
    rows = normalise(name, rows)
    if len(rows) != len(want):
        problem("%s: %d rows, dump has %d" % (name, len(rows), len(want)))
    for i, (g, w) in enumerate(zip(rows, want)):
        if g != w:
            problem("%s row %d: %s, dump says %s" % (name, i, g, w))
            break
    return rows


def check_layout(d, tables, args):
    per = option(args, "--rows-per-file")
    for name, tab in tables.items():
        n = len(tab["rows"])
        single = os.path.isfile(os.path.join(d, name + ".parquet"))
        sub = os.path.join(d, name)
        parts = sorted(os.listdir(sub)) if os.path.isdir(sub) else []
        if per is None:
            if not single or parts:
                problem("%s: not written as %s.parquet alone" % (name, name))
            continue
        want = max(1, -(-n // int(per)))
        names = ["part-%05d.parquet" % i for i in range(want)]
        if single or parts != names:
            problem("%s: %d rows in parts %s, not %s" % (name, n, parts, names))


def check_queries(q, report, info, records, skipped, rows, hive):
    want = collections.Counter({s["num"]: s["count"] for s in report["syscalls"]})
    want.subtract(r["num"] for r in skipped if r["kind"] == "syscall")
    want = sorted([k, v] for k, v in want.items() if v)
    if q["syscalls_per_num"] != want:
        problem("SQL syscalls per number %s != report's %s" % (q["syscalls_per_num"], want))
    names = collections.Counter(r[5] if r[5] is not None else "syscall %d" % r[4]
                                for r in rows["syscalls_named"])
    if q["syscalls_per_name"] != sorted([k, v] for k, v in names.items()):
        problem("SQL syscalls per name %s != %s" % (q["syscalls_per_name"], names))
    n = report["instructions"]
    if q["instructions"] != [[n, n, n]]:
        problem("SQL instructions %s != report's %d" % (q["instructions"], n))
    if q["unique_code_addresses"] != [[report["unique_code_addresses"]]]:
        problem("SQL distinct pcs %s != report's unique_code_addresses %d"
                % (q["unique_code_addresses"], report["unique_code_addresses"]))
    for kind, key in (("mem_write", "bytes_written"), ("mem_read", "bytes_read")):
        w = info[key] - sum(r["size"] for r in skipped if r["kind"] == kind)
        got = q[key][0][0]
        if int(got) != w:
            problem("SQL %s %s != info's %d (later keyframes' taken off)" % (key, got, w))
    per = collections.Counter(r["insn"] for r in records
                              if r["kind"] in ("mem_read", "mem_write") and r["insn"] is not None)
    exp = [[i, per[i]] for i in range(min(5, n))]
    if q["records_per_instruction"] != exp:
        problem("SQL memory records per instruction %s != dump's %s"
                % (q["records_per_instruction"], exp))
    if hive is not None and q.get("hive") != [[hive, n]]:
        problem("hive_partitioning: %s, not [[%r, %d]]" % (q.get("hive"), hive, n))


def compare(a):
    with open(a.tables) as f:
        got = json.load(f)
    report = json.loads(tracekit(a.tracekit, "report", "--json", a.trace))
    info = json.loads(tracekit(a.tracekit, "info", "--json", a.trace))
    dump = tracekit(a.tracekit, "dump", "--json", a.trace)
    records, skipped = replayed([json.loads(line) for line in dump.splitlines() if line.strip()])
    uc = info["format"] == "usercorn"
    tables = got["tables"]
    if sorted(tables) != sorted(COLUMNS):
        problem("tables %s, not %s" % (sorted(tables), sorted(COLUMNS)))
        return
    trace_id = None if a.hive is not None else \
        option(a.args, "--trace-id") or os.path.basename(a.trace)
    check_layout(a.dir, tables, a.args)
    want = expected_rows(records, uc, {})
    want["instructions"] = expected_instructions(records, uc)
    insn_pc = {r[0]: r[2] for r in want["instructions"]}
    want["syscalls"] = expected_rows(records, uc, insn_pc)["syscalls"]
    rows = {}
    for name in COLUMNS:
        tab = tables[name]
        if name == "syscalls" and [tuple(c) for c in tab["columns"][:len(COLUMNS[name])]] \
                == COLUMNS[name]:
            named = normalise(name, [list(r) for r in tab["rows"]])
            rows["syscalls_named"] = [list(r) for r in named]
            check_names(named, report["arch"])
            tab = dict(tab, rows=named)
        rows[name] = check_table(name, tab, want[name], trace_id)
    if "syscalls_named" in rows:
        check_queries(got["queries"], report, info, records, skipped, rows, a.hive)
    print("compare_ucir: %s: %s" % (os.path.basename(a.trace), ", ".join(
        "%s %d" % (t, len(tables[t]["rows"])) for t in COLUMNS)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tracekit", required=True)
    p.add_argument("--trace", required=True)
    p.add_argument("--tables", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--hive")
    p.add_argument("args", nargs="*")
    a = p.parse_args()
    compare(a)
    for msg in problems[:20]:
        print("compare_ucir: " + msg)
    if len(problems) > 20:
        print("compare_ucir: ... %d more" % (len(problems) - 20))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
