#!/usr/bin/python3
"""Compares a UCIR trace's Perfetto timeline with tracekit's own analyses.

Usage (tests/perfetto/run_check.sh runs it after check.py):
  compare_ucir.py --tracekit TK --trace FILE --summary S.json
                  --events E.jsonl -- [convert args...]
  compare_ucir.py --make-uc OUT [--instructions N]
      writes a usercorn .uc trace (x86_64 linux; uncompressed Snappy
      chunks) with what the example lacks: two code regions, one mapped,
      protected and unmapped by syscalls, named and unnamed syscalls, an
      error return, 18 arguments, memory writes, a trailing EXIT.

Asserts (docs/formats/ucir.md, "Perfetto timeline"), with `report --json`,
`info --json` and `dump --json` of the same trace. The timeline leaves out
the records of later keyframes, as the replay does; report's syscall counts
and info's counts include them, so those are taken off (dump tells them):
 - syscall slices on "syscalls": per number (annotation "num") == report's
   syscall counts; each begins at its record's instruction (dump's
   "insn", 0 for the setup), lasts 1 ns unless the next syscall is in the
   same instruction, and its name is one per number (x86_64: golden names);
 - instants on "memory map": dump's map/unmap/protect records one by one
   (name, addr, size, time);
 - instruction counters: values summed == report's instructions (== info's,
   which for .uc counts STEPs: effects after the last one are one more);
   per window end the sum over the tracks == the instructions in that
   window (--window, default 10000); per region track (when no two maps
   overlap) == dump's instructions whose pc is in that map, the rest on
   "instructions: unknown address";
 - "bytes written" summed == the sizes of dump's mem_write records (== info's
   bytes_written).
Exit 0 when all hold, 1 otherwise (the differences printed).
"""
import argparse
import collections
import json
import re
import struct
import subprocess
import sys

problems = []
X86_64_NAMES = {0: "read", 1: "write", 9: "mmap", 10: "mprotect", 11: "munmap",
                60: "exit", 231: "exit_group"}


def problem(msg):
    problems.append(msg)


def tracekit(tk, *args):
    p = subprocess.run([tk, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("compare: %s %s exited %d: %s" % (tk, " ".join(args), p.returncode, p.stderr))
    return p.stdout


def window_of(args):
    for i, a in enumerate(args):
        if a.startswith("--window="):
            return int(a.split("=", 1)[1])
        if a == "--window" and i + 1 < len(args):
            return int(args[i + 1])
    return 10000


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


def track_by_name(summary, name):
    return [u for u, t in summary["tracks"].items() if t["name"] == name]


def check_syscalls(summary, events, report, records, skipped, arch):
    uuids = track_by_name(summary, "syscalls")
    if len(uuids) != 1:
        problem("expected one \"syscalls\" track, got %d" % len(uuids))
        return
    sc = uuids[0]
    begins = [e for e in events if e["track"] == sc and e["type"] == "begin"]
    ends = [e for e in events if e["track"] == sc and e["type"] == "end"]
    per_num = collections.Counter(e["args"].get("num") for e in begins)
    # report counts the syscalls of every record, later keyframes' too
    want = collections.Counter({s["num"]: s["count"] for s in report["syscalls"]})
    want.subtract(r["num"] for r in skipped if r["kind"] == "syscall")
    want = dict(+want)
    if dict(per_num) != want:
        problem("syscall slices per number %s != report's %s" % (dict(per_num), want))
    total = sum(summary["slices"].get(sc, {}).values())
    if total != sum(want.values()):
        problem("completed syscall slices %d != report's %d" % (total, sum(want.values())))
    names = collections.defaultdict(set)
    for e in begins:
        names[e["args"].get("num")].add(e["name"])
    for num, ns in names.items():
        if len(ns) != 1:
            problem("syscall %s has several names %s" % (num, ns))
        elif arch == "x86_64" and num in X86_64_NAMES and ns != {X86_64_NAMES[num]}:
            problem("syscall %d named %s, not %s" % (num, ns, X86_64_NAMES[num]))
    calls = [r for r in records if r["kind"] == "syscall"]
    got = [(e["ts"], e["args"].get("num"), e["args"].get("ret")) for e in begins]
    exp = [(r["insn"] or 0, r["num"], "0x%x" % r["ret"]) for r in calls]
    if got != exp:
        problem("syscall slices (ts, num, ret) %s != dump's %s" % (got[:8], exp[:8]))
    # a slice ends where the next instruction starts (the setup's: at 0),
    # or where the next syscall of the same instruction begins
    for i, (b, e) in enumerate(zip(begins, ends)):
        insn = calls[i]["insn"] if i < len(calls) else None
        same = i + 1 < len(calls) and calls[i + 1]["insn"] == insn
        want = b["ts"] if same else 0 if insn is None else insn + 1
        if e["ts"] != want:
            problem("syscall slice %d: %d..%d, not ..%d" % (i, b["ts"], e["ts"], want))
            break


def check_maps(summary, events, records):
    uuids = track_by_name(summary, "memory map")
    if len(uuids) != 1:
        problem("expected one \"memory map\" track, got %d" % len(uuids))
        return
    names = {"mem_map": "map", "mem_unmap": "unmap", "mem_prot": "protect"}
    exp = [(names[r["kind"]], r["insn"] or 0, "0x%x" % r["addr"], r["size"])
           for r in records if r["kind"] in names]
    got = [(e["name"], e["ts"], e["args"].get("addr"), e["args"].get("size"))
           for e in events if e["track"] == uuids[0]]
    if got != exp:
        problem("memory map instants %s != dump's %s" % (got[:8], exp[:8]))
    counts = collections.Counter(n for n, _, _, _ in exp)
    if summary["instants"].get(uuids[0], {}) != dict(counts):
        problem("memory map instants %s != dump's counts %s"
                % (summary["instants"].get(uuids[0]), dict(counts)))


def trailing_effects(records):
    """.uc: records after the last STEP (an instruction never ended)."""
    steps = [r["insn"] for r in records if r["kind"] == "step" and r["insn"] is not None]
    insns = [r["insn"] for r in records if r["insn"] is not None]
    return bool(steps) and max(insns) > steps[-1]


def check_instructions(summary, events, report, info, records, skipped, window):
    ctrs = {u for u, t in summary["tracks"].items()
            if t["kind"] == "counter" and t["name"].startswith("instructions: ")}
    n = report["instructions"]
    # .uc: info counts STEPs, the replay also effects after the last STEP
    # info counts the EXEC (.uc: STEP) records, later keyframes' too; a .uc
    # instruction is its effects and the STEP ending it, so effects after
    # the last STEP are one more (checked on traces whose STEPs all end an
    # instruction: none in the setup, none nested)
    uc = info["format"] == "usercorn"
    if not uc or all(r["insn"] is not None and r["depth"] == 0
                     for r in records if r["kind"] == "step"):
        steps = n - (1 if uc and trailing_effects(records) else 0)
        steps += sum(1 for r in skipped if r["kind"] in ("exec_abs", "exec_rel", "step"))
        steps += sum(1 for r in records if r["kind"] in ("exec_abs", "exec_rel") and r["depth"])
        if info["instructions"] != steps:
            problem("info's instructions %d != %d" % (info["instructions"], steps))
    total = sum(summary["counters"][u]["sum"] for u in ctrs)
    if total != n:
        problem("instruction counters sum to %s, report has %d" % (total, n))
    at = collections.Counter()
    for e in events:
        if e["track"] in ctrs:
            at[e["ts"]] += e["value"]
    exp = collections.Counter()
    for k in range(0, n, window):
        exp[min(k + window, n)] = min(window, n - k)
    if +at != +exp:
        problem("instructions per window %s != %s" % (sorted(at.items())[:6],
                                                       sorted(exp.items())[:6]))
    check_regions(summary, ctrs, records)


def check_regions(summary, ctrs, records):
    """Per region track: dump's instructions whose pc is in that MEM_MAP's
    range (the rest on "unknown address"), when no map overlaps another
    (then the pcs alone cannot tell which map an instruction ran in)."""
    maps = sorted({(r["addr"], r["addr"] + r["size"]) for r in records if r["kind"] == "mem_map"})
    if any(a[1] > b[0] for a, b in zip(maps, maps[1:])):
        return
    want = collections.Counter()
    for r in records:
        if r["insn"] is None or "pc" not in r:
            continue
        pc = r["pc"]
        want[next(("0x%x-0x%x" % m for m in maps if pc is not None and m[0] <= pc < m[1]),
                  "unknown address")] += 1
    got = collections.Counter()
    for u in ctrs:
        name = summary["tracks"][u]["name"][len("instructions: "):]
        got[name.split(" ")[0] if name.startswith("0x") else name] += \
            summary["counters"][u]["sum"]
    if +got != +want:
        problem("instructions per region %s != dump's pcs in the maps %s"
                % (dict(got), dict(want)))


def check_written(summary, records, skipped, info):
    want = sum(r["size"] for r in records if r["kind"] == "mem_write")
    also = sum(r["size"] for r in skipped if r["kind"] == "mem_write")
    uuids = track_by_name(summary, "bytes written")
    got = summary["counters"][uuids[0]]["sum"] if uuids else 0
    if got != want:
        problem("bytes written counter sums to %s, dump's mem_write records %d" % (got, want))
    if info["bytes_written"] != want + also:
        problem("info's bytes_written %d != %d + %d in later keyframes"
                % (info["bytes_written"], want, also))


def compare(a):
    with open(a.summary) as f:
        summary = json.load(f)
    with open(a.events) as f:
        events = [json.loads(line) for line in f if line.strip()]
    report = json.loads(tracekit(a.tracekit, "report", "--json", a.trace))
    info = json.loads(tracekit(a.tracekit, "info", "--json", a.trace))
    dump = tracekit(a.tracekit, "dump", "--json", a.trace)
    records, skipped = replayed([json.loads(line) for line in dump.splitlines() if line.strip()])
    if summary["sequences"] != 1:
        problem("%d packet sequences, not one" % summary["sequences"])
    check_syscalls(summary, events, report, records, skipped, report["arch"])
    check_maps(summary, events, records)
    check_instructions(summary, events, report, info, records, skipped, window_of(a.args))
    check_written(summary, records, skipped, info)
    for p in problems:
        print("compare_ucir: " + p)
    return 1 if problems else 0


# ---------------------------------------------------------------- .uc writer

def crc32c(data, table=[]):
    if not table:
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            table.append(c)
    c = 0xFFFFFFFF
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def snappy_stream(data):
    out = bytearray(b"\xff\x06\x00\x00sNaPpY")
    for i in range(0, len(data), 65536):
        chunk = data[i:i + 65536]
        c = crc32c(chunk)
        masked = (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF
        out += bytes([1]) + struct.pack("<I", len(chunk) + 4)[:3] + struct.pack("<I", masked)
        out += chunk
    return bytes(out)


class Uc:
    """Top-level ops grouped into frames of at most 500."""

    def __init__(self):
        self.frames, self.ops = [], []

    def op(self, b):
        self.ops.append(b)
        if len(self.ops) == 500:
            self.flush()

    def flush(self, key=False):
        if self.ops:
            self.frames.append(struct.pack("<BQI", 2 if key else 1, 42, len(self.ops))
                               + b"".join(self.ops))
            self.ops = []

    def mem_map(self, addr, size, prot, desc=b"", path=b""):
        return struct.pack("<BQQBQQHH", 9, addr, size, prot, 0, size if path else 0,
                           len(desc), len(path)) + desc + path

    def syscall(self, num, ret, args, nested=()):
        self.op(struct.pack("<BIQBH", 12, num, ret & (2**64 - 1), len(args), len(nested))
                + b"".join(struct.pack("<Q", x) for x in args) + b"".join(nested))


def make_uc(path, n):
    u = Uc()
    code, jit, stack = 0x400000, 0x7F0000000000, 0x7FFFFFFDE000
    # the setup: binary, stack, rsp
    u.op(u.mem_map(code, 0x1000, 5, b"", b"/usr/bin/demo"))
    u.op(struct.pack("<BQI", 8, code, 16) + bytes(range(16)))
    u.op(u.mem_map(stack, 0x22000, 3, b"[stack]"))
    u.op(struct.pack("<BHQ", 5, 44, stack + 0x21000))
    u.flush(key=True)
    pc, base = code, code
    u.op(struct.pack("<BQI", 3, pc, 64))
    for i in range(n):
        if i == n // 4:  # mmap: a second code region, jumped into
            u.syscall(9, jit, [0, 0x2000, 7, 0x22, 0xFFFFFFFFFFFFFFFF, 0],
                      [u.mem_map(jit, 0x2000, 7), struct.pack("<BHQ", 5, 35, jit)])
            pc = base = jit
            u.op(struct.pack("<BQI", 3, pc, 64))
        if i == n // 2:  # back to the binary, then mprotect and munmap
            u.syscall(10, 0, [jit, 0x2000, 5], [struct.pack("<BQQB", 11, jit, 0x2000, 5)])
            pc = base = code
            u.op(struct.pack("<BQI", 3, pc, 64))
            u.syscall(11, 0, [jit, 0x2000], [struct.pack("<BQQ", 10, jit, 0x2000)])
        if i % 5 == 0:
            u.op(struct.pack("<BHQ", 5, 35 + i % 3, i))
        if i % 7 == 0:
            u.op(struct.pack("<BQI", 8, stack + 0x100 + i % 64, 8) + struct.pack("<Q", i))
        if i % 11 == 0:
            u.op(struct.pack("<BQI", 7, stack + 0x200, 4))
        u.op(struct.pack("<BB", 4, 4))
        pc += 4
        if pc - base >= 64:  # the loop's branch back
            pc = base
            u.op(struct.pack("<BQI", 3, pc, 64))
        if i % 3000 == 2999:  # write(1, buf, 5) reading the buffer
            u.syscall(1, 5, [1, stack + 0x300, 5],
                      [struct.pack("<BQI", 7, stack + 0x300, 5), struct.pack("<BHQ", 5, 35, 5)])
        if i == n - 100:  # an unknown number with 18 arguments, failing
            u.syscall(5000, -38, list(range(18)))
            u.syscall(0, 3, [0, stack + 0x400, 3], [struct.pack("<BQI", 8, stack + 0x400, 3)
                                                    + b"abc"])
    u.syscall(231, 0, [0], [bytes([13])])
    u.op(bytes([13]))  # usercorn's EXIT after the last STEP
    u.flush()
    header = b"UCIR" + struct.pack(">I", 1) + b"x86_64".ljust(32, b"\0") \
        + b"linux".ljust(32, b"\0") + b"\0\0"
    with open(path, "wb") as f:
        f.write(header + snappy_stream(b"".join(u.frames)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tracekit")
    p.add_argument("--trace")
    p.add_argument("--summary")
    p.add_argument("--events")
    p.add_argument("--make-uc")
    p.add_argument("--instructions", type=int, default=23456)
    p.add_argument("args", nargs="*")
    a = p.parse_args()
    if a.make_uc:
        make_uc(a.make_uc, a.instructions)
        return 0
    if not (a.tracekit and a.trace and a.summary and a.events):
        p.error("--tracekit, --trace, --summary and --events are needed")
    return compare(a)


if __name__ == "__main__":
    sys.exit(main())
