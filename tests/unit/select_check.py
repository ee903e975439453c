#!/usr/bin/env python3
"""The selection test's other side (select_test.sh): traces made here, and
what a selection keeps of them computed here from the documented rules
(docs/formats/*.md, "Selection"), independently of tracekit's code.

usage: select_check.py COMMAND ARGS...
  gen-cacheray OUT | gen-casemate OUT | gen-xray OUT MAP
  expect-cacheray TRACE SPEC | expect-casemate LOG SPEC | expect-xray TRACE SPEC
      print the indexes (casemate: ids) the selection keeps, one a line
  cut-cacheray TRACE SPEC OUT | cut-xray TRACE SPEC OUT
      write the selection as a trace of its own
  xray-edge TRACE K        times (ns) at and just past record K's
  indexes < JSONL          the record index of each JSON line
  ids < JSONL              the id of each JSON line
  ucir-window FROM TO < JSONL, ucir-addr LO HI < JSONL, ucir-raw FROM TO < JSONL
      the lines of a full UCIR `dump --json` a selection keeps
  warm FULL FIRST|none     per-level, thread and type counts: FULL - FIRST
  strip-file < JSON        a document without its "file" member
SPEC: options joined by ';': thread=1,5-9  range=FROM:TO  addr=LO-HI
  func=ID (numbers as tracekit takes them; times in ns, us, ms, s).
"""
import json
import random
import struct
import sys

# ---- the selection grammar (the subset the tests use)


def num(s):
    shift = {"k": 10, "m": 20, "g": 30}.get(s[-1:].lower(), 0)
    s = s[:-1] if shift else s
    return (int(s, 16) if s.lower().startswith("0x") else int(s)) << shift


def time_ns(s):
    for unit, scale in (("ns", 1), ("us", 1000), ("ms", 10**6), ("s", 10**9)):
        if s.endswith(unit):
            whole, _, frac = s[: -len(unit)].partition(".")
            return int(whole) * scale + (int(frac.ljust(9, "0")[:9]) * scale // 10**9 if frac else 0)
    return int(s)


def parse(spec):
    sel = {}
    for part in filter(None, spec.split(";")):
        key, _, value = part.partition("=")
        if key == "thread":
            sel["thread"] = [tuple(map(num, (x.split("-") * 2)[:2])) for x in value.split(",")]
        elif key == "addr":
            spans = []
            for x in value.split(","):
                if "-" in x:
                    lo, hi = map(num, x.split("-"))
                    spans.append((lo, hi - 1))
                elif "+" in x:
                    lo, n = map(num, x.split("+"))
                    spans.append((lo, lo + n - 1))
                else:
                    spans.append((num(x), num(x)))
            sel["addr"] = spans
        elif key == "range":
            a, b = value.split(":")
            sel["range"] = (a, b)
        elif key == "func":
            sel["func"] = num(value)
    return sel


def thread_ok(sel, t):
    return "thread" not in sel or any(lo <= t <= hi for lo, hi in sel["thread"])


def addr_ok(sel, addr, size):
    last = addr + max(size, 1) - 1
    return "addr" not in sel or any(lo <= last and addr <= hi for lo, hi in sel["addr"])


def count_range(sel):
    if "range" not in sel:
        return 0, 2**64
    a, b = sel["range"]
    return (num(a) if a else 0), (num(b) if b else 2**64)


# ---- Cacheray

def gen_cacheray(out):
    rng = random.Random(17)
    recs, live = [], []
    for i in range(6000):
        r = rng.random()
        thread = rng.choice([1, 2, 3, 7])
        if r < 0.03:
            addr = 0x10000 * rng.randrange(1, 10)
            size, count = rng.choice([8, 16, 24]), rng.randrange(0, 64)
            name = rng.choice([b"int", b"struct.node", b"double"])
            recs.append(struct.pack("<BQQIII", 2, addr, thread, size, count, len(name)) + name)
            live.append(addr)
        elif r < 0.05 and live:
            recs.append(struct.pack("<BQQ", 3, live.pop(rng.randrange(len(live))), thread))
        else:
            tag = rng.choice([0, 1]) | rng.choice([0, 0, 0, 0x40])
            addr = 0x10000 * rng.randrange(1, 10) + rng.randrange(0, 0x400)
            recs.append(struct.pack("<BQBQ", tag, addr, rng.choice([0, 1, 4, 8, 8, 16]), thread))
    with open(out, "wb") as f:
        f.write(b"".join(recs))


def read_cacheray(path):
    data, i, recs = open(path, "rb").read(), 0, []
    while i < len(data):
        base = data[i] & 0x3F
        if base <= 1:
            _, addr, size, thread = struct.unpack_from("<BQBQ", data, i)
            recs.append(dict(kind=base, addr=addr, size=size, thread=thread, raw=data[i:i + 18]))
            i += 18
        elif base == 2:
            _, addr, thread, es, ec, n = struct.unpack_from("<BQQIII", data, i)
            recs.append(dict(kind=2, addr=addr, size=es * ec, thread=thread, raw=data[i:i + 29 + n]))
            i += 29 + n
        else:
            _, addr, thread = struct.unpack_from("<BQQ", data, i)
            recs.append(dict(kind=3, addr=addr, size=0, thread=thread, raw=data[i:i + 17]))
            i += 17
    return recs


def cacheray_kept(path, spec):
    """(index, kept, context) of each record up to the window's end."""
    sel, recs = parse(spec), read_cacheray(path)
    lo, hi = count_range(sel)
    for i, r in enumerate(recs[:hi]):
        kept = i >= lo and thread_ok(sel, r["thread"]) and addr_ok(sel, r["addr"], r["size"])
        yield i, r, kept, not kept and r["kind"] >= 2


# ---- casemate

def gen_casemate(out):
    rng = random.Random(5)
    lines, ident = [], 100
    for _ in range(3000):
        ident += rng.choice([1, 1, 2, 5])
        tid = rng.choice([0, 1, 2, 9])
        addr = 0x80000 + 8 * rng.randrange(0, 1024)
        kind = rng.randrange(8)
        if kind == 0:
            lines.append("(mem-write %d %d plain %x %x)" % (ident, tid, addr, rng.randrange(1 << 40)))
        elif kind == 1:
            lines.append("(mem-read %d %d %x %x)" % (ident, tid, addr, rng.randrange(1 << 40)))
        elif kind == 2:
            lines.append("(mem-init %d %d %x %x)" % (ident, tid, addr & ~0xfff, rng.choice([0x1000, 0x40])))
        elif kind == 3:
            lines.append("(barrier %d %d dsb ish)" % (ident, tid))
        elif kind == 4:
            lines.append("(lock %d %d %x)" % (ident, tid, addr))
        elif kind == 5:
            lines.append("(hint %d %d set_root_lock %x 90000)" % (ident, tid, addr))
        elif kind == 6:
            lines.append("(sysreg-write %d %d vttbr_el2 %x)" % (ident, tid, addr))
        else:
            lines.append("(mem-set %d %d %x 10 0)" % (ident, tid, addr))
    lines.append("! BBM ok")
    open(out, "w").write("\n".join(lines) + "\n")


def expect_casemate(path, spec):
    sel = parse(spec)
    lo, hi = count_range(sel)
    for line in open(path):
        w = line.strip("()\n").split()
        if not w or w[0] == "!":
            continue
        kind, ident, tid = w[0], int(w[1]), int(w[2])
        loc = {"mem-write": (4, None), "mem-read": (3, None), "lock": (3, None), "hint": (4, None),
               "mem-init": (3, 4), "mem-set": (3, 4)}.get(kind)
        ok = lo <= ident < hi and thread_ok(sel, tid)
        if "addr" in sel:
            size = int(w[loc[1]], 16) if loc and loc[1] else 8
            ok = ok and loc is not None and addr_ok(sel, int(w[loc[0]], 16), size)
        if ok:
            print(ident)


# ---- XRay (basic mode v3)

FREQ = 2400000007  # not a round number: ns <-> ticks conversions matter
FUNCS = {1: "main", 2: "parse", 3: "eval", 4: "leaf", 5: "print"}


def gen_xray(out, map_out):
    rng = random.Random(3)
    events, base = [], 1 << 40
    for tid in (11, 12, 13):
        t = base + rng.randrange(0, 5000)

        def call(f, depth):
            nonlocal t
            events.append((t, 0, f, tid))
            t += rng.randrange(1, 900)
            for _ in range(rng.randrange(0, 4) if depth < 4 else 0):
                call(rng.choice([2, 3, 4, 5]), depth + 1)
                t += rng.randrange(1, 900)
            events.append((t, 1, f, tid))

        for _ in range(60):
            call(rng.choice([1, 2, 3]), 0)
            t += rng.randrange(1, 3000)
    events.sort(key=lambda e: e[0])  # threads interleave in time
    write_xray(out, events)
    with open(map_out, "w") as f:
        f.write("---\n")
        for fid, name in FUNCS.items():
            for kind, off in (("function-enter", 0), ("function-exit", 8)):
                f.write("- { id: %d, address: 0x%x, function: 0x%x, kind: %s, always-instrument: false, "
                        "function-name: %s, version: 2 }\n" % (fid, 0x1000 * fid + off, 0x1000 * fid, kind, name))
        f.write("...\n")


def write_xray(out, events):
    with open(out, "wb") as f:
        f.write(struct.pack("<HHIQQQ", 3, 0, 3, FREQ, 0, 0))
        for tsc, kind, func, tid in events:
            f.write(struct.pack("<HBBiQIIQ", 0, 0, kind, func, tsc, tid, 1, 0))


def read_xray(path):
    data = open(path, "rb").read()
    return [struct.unpack_from("<HBBiQIIQ", data, i)[2:6] for i in range(32, len(data), 32)]


def xray_kept(path, spec):
    """Indexes the selection keeps: calls entered in the window (and of the
    function), each whole with what it calls; exits of calls entered
    before it are left out."""
    sel, recs = parse(spec), read_xray(path)
    base = min(r[2] for r in recs)
    lo, hi = 0, None
    if "range" in sel:
        a, b = sel["range"]
        lo = -(-time_ns(a) * FREQ // 10**9) if a else 0
        hi = -(-time_ns(b) * FREQ // 10**9) if b else None
    calls = "range" in sel or "func" in sel
    stacks, kept = {}, []
    for i, (kind, func, tsc, tid) in enumerate(recs):
        if not thread_ok(sel, tid):
            continue
        if not calls:
            kept.append(i)
            continue
        st = stacks.setdefault(tid, [])
        in_window = tsc - base >= lo and (hi is None or tsc - base < hi)
        if kind == 0:
            if st or (in_window and sel.get("func", func) == func):
                st.append(func)
                kept.append(i)
        elif st:
            if func in st:
                del st[len(st) - 1 - st[::-1].index(func):]
            kept.append(i)
    return recs, kept


def cut_xray(path, spec, out):
    recs, kept = xray_kept(path, spec)
    write_xray(out, [(recs[i][2], recs[i][0], recs[i][1], recs[i][3]) for i in kept])


# ---- JSON outputs

def index_of(r):
    return r["record"] if "record" in r else r["i"]


def insn_of(r):
    return r.get("insn", r.get("instruction"))


def ucir_window(lo, hi):
    """Full listing JSON lines from instruction lo's first record up to
    instruction hi's (the setup before instruction 0 in a window from 0)."""
    lines = sys.stdin.read().splitlines()
    insns = [insn_of(json.loads(x)) for x in lines]
    start = 0 if lo == 0 else insns.index(lo)
    end = insns.index(hi) if hi in insns else len(lines)
    print("\n".join(lines[start:end]))


def ucir_addr(lo, hi):
    for line in sys.stdin.read().splitlines():
        r = json.loads(line)
        if r["kind"] in ("mem_read", "mem_write") and r["addr"] < hi and r["addr"] + max(r["size"], 1) > lo:
            print(line)


def ucir_raw(lo, hi):
    """Record indexes of the instructions [lo, hi) (and of the setup, from
    0): a full listing's records that belong to one."""
    started = False
    for line in sys.stdin.read().splitlines():
        r = json.loads(line)
        insn = insn_of(r)
        started = started or insn is not None
        if insn is None and (started or r["kind"] == "frame"):
            continue
        if (insn is None and lo == 0) or (insn is not None and lo <= insn < hi):
            print(index_of(r))


def warm(full_path, first_path):
    """FULL minus FIRST (none: nothing) for every additive count of a
    cachesim document."""
    full = json.load(open(full_path))
    first = json.load(open(first_path)) if first_path != "none" else \
        {"levels": [{}] * len(full["levels"]), "threads": [], "types": []}

    def sub(a, b):
        if b is None:
            return a
        if isinstance(a, dict):
            return {k: sub(v, b.get(k)) if k not in ("name", "thread") else v for k, v in a.items()}
        if isinstance(a, list):
            return [sub(x, y) for x, y in zip(a, b)]
        if isinstance(a, int) and not isinstance(a, bool) and isinstance(b, int):
            return a - b
        return a

    out = {}
    for key in ("levels", "threads", "types"):
        if key == "levels":
            strip = lambda L: {k: v for k, v in L.items() if k not in ("size", "line_size", "line", "ways", "sets", "miss_rate")}
            out[key] = [sub(strip(a), strip(b)) for a, b in zip(full[key], first[key])]
        else:
            names = {x.get("name", x.get("thread")): x for x in first[key]}
            rows = [sub(x, names.get(x.get("name", x.get("thread")), {})) for x in full[key]]
            out[key] = sorted((r for r in rows if r.get("accesses")), key=lambda r: str(r.get("name", r.get("thread"))))
            for r in out[key]:
                for k in ("regions", "live", "peak_live", "layout"):
                    r.pop(k, None)
    return out


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "gen-cacheray":
        gen_cacheray(args[0])
    elif cmd == "gen-casemate":
        gen_casemate(args[0])
    elif cmd == "gen-xray":
        gen_xray(args[0], args[1])
    elif cmd == "expect-cacheray":
        for i, _, kept, _ in cacheray_kept(args[0], args[1]):
            if kept:
                print(i)
    elif cmd == "cut-cacheray":
        with open(args[2], "wb") as f:
            for _, r, kept, context in cacheray_kept(args[0], args[1]):
                if kept or context:
                    f.write(r["raw"])
    elif cmd == "expect-casemate":
        expect_casemate(args[0], args[1])
    elif cmd == "expect-xray":
        print("\n".join(map(str, xray_kept(args[0], args[1])[1])))
    elif cmd == "xray-edge":  # ns just at and just past record K's time
        recs = read_xray(args[0])
        ns = (recs[int(args[1])][2] - min(r[2] for r in recs)) * 10**9 // FREQ
        print(ns, ns + 1)
    elif cmd == "cut-xray":
        cut_xray(args[0], args[1], args[2])
    elif cmd == "indexes":
        for line in sys.stdin:
            print(index_of(json.loads(line)))
    elif cmd == "ids":
        for line in sys.stdin:
            print(json.loads(line)["id"])
    elif cmd == "ucir-window":
        ucir_window(int(args[0]), int(args[1]))
    elif cmd == "ucir-addr":
        ucir_addr(num(args[0]), num(args[1]))
    elif cmd == "ucir-raw":
        ucir_raw(int(args[0]), int(args[1]))
    elif cmd == "warm":
        print(json.dumps(warm(args[0], args[1]), sort_keys=True))
    elif cmd == "strip-file":
        doc = json.load(sys.stdin)
        doc.pop("file", None)
        print(json.dumps(doc, sort_keys=True))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
