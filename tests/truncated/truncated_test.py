#!/usr/bin/env python3
"""--allow-truncated on every format (issue 23, item 3).

Each example trace is cut at every byte inside its last records. Without
the option every command fails as before (exit 1, the reader's error);
with it `validate` passes with exactly one warning naming the offset of
the cut record and the bytes dropped, and `dump --json` / `info --json`
read exactly what the trace cut at the last whole record boundary gives
(that prefix is built here from record sizes parsed independently of
tracekit). Damage that is not a missing tail still fails with the option.

usage: truncated_test.py TRACEKIT SOURCE_DIR SCRATCH_DIR
"""
import json
import os
import struct
import subprocess
import sys

TK, SRC, TMP = (os.path.abspath(a) for a in sys.argv[1:4])
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


ENV = dict(os.environ, XDG_CACHE_HOME=os.path.join(TMP, "cache"))


def run(args, data=None, cwd=None):
    p = subprocess.run([TK] + args, input=data, capture_output=True, cwd=cwd, timeout=60,
                       env=ENV)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def put(name, data):
    path = os.path.join(TMP, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return path


# ---- record boundaries, parsed here (not by tracekit)

def xray_basic_records(b):
    return [(o, 32) for o in range(32, len(b), 32)]


def xray_fdr_records(b):
    out, o = [], 32
    while o < len(b):
        if b[o] & 1 == 0:
            n = 8
        else:
            kind = b[o] >> 1
            n = 16
            if kind in (5, 8):  # custom and typed events carry a payload
                n += struct.unpack_from("<i", b, o + 1)[0]
        out.append((o, n))
        o += n
    return out


def cacheray_records(b, big=False):
    out, o, e = [], 0, ">" if big else "<"
    while o < len(b):
        base = b[o] & ~0xC0 & 0xFF
        if base in (0, 1):
            n = 18
        elif base == 3:
            n = 17
        elif base == 2:
            n = 29 + struct.unpack_from(e + "I", b, o + 25)[0]
        else:
            raise ValueError("tag 0x%02x at %d" % (b[o], o))
        out.append((o, n))
        o += n
    return out


def casemate_records(b):
    """Lines starting with '(' (the examples hold one record a line)."""
    out, o = [], 0
    for line in b.split(b"\n"):
        if line.startswith(b"("):
            out.append((o, len(line)))
        o += len(line) + 1
    return out


def ucir_frames(b):
    out, o = [], 80
    while o < len(b):
        n = 10 + struct.unpack_from(">I", b, o + 6)[0]
        out.append((o, n))
        o += n
    return out


# ---- the checks

def strip_info(text, keys=("file", "size", "lines")):
    d = json.loads(text)
    for k in keys:
        d.pop(k, None)
    return d


whole_cache = {}


def check_cut(fmt, name, full, off, keep, warn_what, old_err, whole_needs_option=False,
              label=None, suffix=""):
    """`full` cut to off + keep bytes (inside the record at `off`)."""
    label = label or "%s cut at 0x%x+%d" % (name, off, keep)
    cut = full[:off + keep]
    path = put("cut/" + name, cut)
    prefix = os.path.join(TMP, "whole", name)
    dropped = keep
    rc, out, err = run(["validate", os.path.basename(path)], cwd=os.path.dirname(path))
    if rc != 1 or (old_err and old_err not in err):
        fail("%s: without --allow-truncated: exit %d, stderr %r (wanted 1, %r)"
             % (label, rc, err, old_err))
    want = "tracekit: warning: %s: truncated tail: dropped %d byte%s of %s at offset 0x%x" % (
        name, dropped, "" if dropped == 1 else "s", warn_what, off) + suffix
    rc, out, err = run(["validate", "--allow-truncated", name], cwd=os.path.dirname(path))
    if rc != 0 or err.rstrip("\n").split("\n")[0] != want or err.count("\n") != 1:
        fail("%s: validate --allow-truncated: exit %d, stderr %r, wanted %r" % (label, rc, err, want))
    if (name, "strict") not in whole_cache:  # once per trace: --strict counts the cut
        whole_cache[(name, "strict")] = 1
        rc, out, err = run(["validate", "--strict", "--allow-truncated", name],
                           cwd=os.path.dirname(path))
        if rc != 1 or "(--strict)" not in err:
            fail("%s: validate --strict --allow-truncated: exit %d, %r" % (label, rc, err))
    opt = ["--allow-truncated"] if whole_needs_option else []
    for cmd in (["dump", "--json"], ["info", "--json"]):
        rc1, out1, err1 = run(cmd + ["--allow-truncated", name], cwd=os.path.dirname(path))
        key = (name, off, cmd[0])
        if key not in whole_cache:  # the prefix is the same for every cut of a record
            put("whole/" + name, full[:off])
            whole_cache[key] = run(cmd + opt + [name], cwd=os.path.dirname(prefix))
        rc2, out2, err2 = whole_cache[key]
        if rc1 != 0 or rc2 != 0:
            fail("%s: %s: exit %d / %d (%s / %s)" % (label, cmd[0], rc1, rc2, err1, err2))
            continue
        same = out1 == out2 if cmd[0] == "dump" else strip_info(out1) == strip_info(out2)
        if not same:
            fail("%s: %s --json differs from the trace cut at 0x%x" % (label, cmd[0], off))
        if err1.count("\n") != 1 or "truncated tail" not in err1:
            fail("%s: %s: stderr %r (one warning wanted)" % (label, cmd[0], err1))


def some(n):
    """Cut points inside a record of n bytes: every one of a small record,
    of a larger one the first 12, every 5th and the last."""
    return range(1, n) if n <= 40 else sorted(set(range(1, 13)) | set(range(13, n, 5)) | {n - 1})


def check_format(fmt, name, full, records, last, what_of, old_err_of, **kw):
    for off, n in records[-last:]:
        for keep in some(n):
            check_cut(fmt, name, full, off, keep, what_of(full, off), old_err_of(full, off, keep),
                      **kw)


def read(rel):
    with open(os.path.join(SRC, rel), "rb") as f:
        return f.read()


def xray_basic():
    full = read("examples/xray/basic-v3.xray")
    recs = xray_basic_records(full)
    check_format("xray", "b.xray", full, recs, 1, lambda b, o: "a function record",
                 lambda b, o, k: "offset 0x%x (record %d): truncated basic-mode record: "
                 "needs 32 bytes, %d left" % (o, (o - 32) // 32, k))


def xray_fdr():
    full = read("examples/xray/fdr-v5.xray")
    recs = xray_fdr_records(full)
    names = {2: "new-cpu", 3: "tsc-wrap", 4: "walltime", 6: "call-argument", 9: "pid"}

    def what(b, o):
        return "a function record" if b[o] & 1 == 0 else \
            "a %s metadata record" % names.get(b[o] >> 1, "?")
    # the trace cut at a record boundary inside a buffer is truncated too:
    # compared with that cut read with the option
    check_format("xray", "f.xray", full, recs, 3, what,
                 lambda b, o, k: "offset 0x%x" % o, whole_needs_option=True)
    # a cut at a record boundary: the buffer's missing bytes are named
    off = recs[-1][0]
    path = put("cut/f2.xray", full[:off])
    rc, out, err = run(["validate", "f2.xray"], cwd=os.path.dirname(path))
    if rc != 1 or "trace ends inside a buffer: %d of its bytes are missing" % recs[-1][1] not in err:
        fail("fdr boundary cut without the option: %d %r" % (rc, err))
    rc, out, err = run(["validate", "--allow-truncated", "f2.xray"], cwd=os.path.dirname(path))
    if rc != 0 or "truncated tail: the trace ends at offset 0x%x, %d bytes before the end of " \
            "the buffer" % (off, recs[-1][1]) not in err:
        fail("fdr boundary cut with the option: %d %r" % (rc, err))


def cacheray(rel, name, big):
    full = read(rel)
    recs = cacheray_records(full, big)
    labels = {0: "a read record", 1: "a write record", 2: "an rtta_add record",
              3: "an rtta_remove record"}
    # the RTTA records come first in the examples: cut one too (not the
    # first: detection wants a whole record)
    first_add = [r for r in recs if full[r[0]] == 2][-1]
    for off, n in recs[-1:]:
        for keep in range(1, n):
            check_cut("cacheray", name, full, off, keep, labels[full[off] & 0x3F], None)
    # an rtta_add whose name is cut: everything after it is dropped
    off, n = first_add
    for keep in (1, 28, 29, n - 1):
        check_cut("cacheray", name, full, off, keep, "an rtta_add record", None)


def casemate(rel, name):
    full = read(rel)
    recs = casemate_records(full)
    off, n = recs[-1]
    for keep in some(n):
        cut = full[:off + keep]
        if cut.rstrip().endswith(b")") and cut.count(b"(", off) == cut.count(b")", off):
            continue  # a whole record
        line = full[:off].count(b"\n") + 1
        check_cut("casemate", name, full, off, keep, "a record", ":%d:" % line,
                  label="%s cut at line %d + %d" % (name, line, keep),
                  suffix=" (line %d)" % line)


def ucir():
    full = read("examples/ucir/hello.ucir")
    frames = ucir_frames(full)
    off, n = frames[-1]
    for keep in some(n):
        check_cut("ucir", "h.ucir", full, off, keep, "an OP_FRAME (frame %d)" % (len(frames) - 1),
                  "offset 0x%x (record" % off)


# ---- what is not a missing tail still fails

def damaged():
    basic = bytearray(read("examples/xray/basic-v3.xray"))
    cases = []
    b = bytearray(basic[:-5])
    b[32 * 3] = 9  # an unknown record type well before the cut
    cases.append(("d1.xray", bytes(b), "unknown basic-mode record type 9"))
    b = bytearray(basic[:-5])
    b[len(b) - 27] = 7  # the cut record's own type is not a record's
    cases.append(("d2.xray", bytes(b), "truncated basic-mode record"))
    cr = bytearray(read("examples/cacheray/heap.trace")[:-5])
    cr[len(cr) - 13] = 0x17  # the cut record's tag is no tag
    cases.append(("d3.trace", bytes(cr), "unknown record tag 0x17"))
    cm = read("examples/casemate/bbm.log")
    cm = cm.replace(b"(barrier (id 17)", b"(barrier (idx 17)")[:-10]
    cases.append(("d4.log", cm, "expected"))
    cm = read("examples/casemate/bbm.log")[:-30] + b"0 @"  # no record goes on so
    cases.append(("d5.log", cm, "expected"))
    uc = bytearray(read("examples/ucir/hello.ucir")[:-20])
    uc[ucir_frames(bytes(read("examples/ucir/hello.ucir")))[-1][0] + 10] = 0x79  # not zlib's CMF
    cases.append(("d6.ucir", bytes(uc), "truncated: OP_FRAME needs"))
    fdr = bytearray(read("examples/xray/fdr-v5.xray")[:-3])
    fdr[len(fdr) - 5] = 0x0F  # a BufferExtents inside a buffer
    cases.append(("d7.xray", bytes(fdr), "truncated metadata record"))
    for name, data, msg in cases:
        path = put("bad/" + name, data)
        rc, out, err = run(["validate", "--allow-truncated", name], cwd=os.path.dirname(path))
        if rc != 1 or msg not in err or "warning" in err:
            fail("%s: damage with --allow-truncated: exit %d, stderr %r (wanted 1, %r)"
                 % (name, rc, err, msg))


# ---- every command that reads, files and pipes

def commands():
    cases = [
        ("examples/xray/basic-v3.xray", 37, ["account", "stack", "graph", "report"],
         ["--to", "yaml"]),
        ("examples/xray/fdr-v5.xray", 3, ["account", "stack", "graph", "report"],
         ["--to", "jsonl"]),
        ("examples/cacheray/heap.trace", 5, ["cachesim", "report"], ["--to", "jsonl"]),
        ("examples/casemate/bbm.log", 9, ["bbm", "report"], ["--to", "casemate-compact"]),
        ("examples/ucir/hello.ucir", 20, ["replay", "report"], ["--to", "jsonl"]),
    ]
    for rel, cut, cmds, conv in cases:
        data = read(rel)[:-cut]
        name = os.path.basename(rel)
        path = put("cmd/" + name, data)
        d = os.path.dirname(path)
        for cmd in [["info"], ["dump"], ["validate"], ["convert"] + conv + ["-o", "-"]] + \
                [[c] for c in cmds]:
            rc0, out0, err0 = run(cmd + [name], cwd=d)
            rc, out, err = run(cmd + ["--allow-truncated", name], cwd=d)
            rcp, outp, errp = run(cmd + ["--allow-truncated", "-"], data=data, cwd=d)
            lines = err.rstrip("\n").split("\n")
            if rc0 != 1 or "warning" in err0:
                fail("%s %s: without the option exit %d (%r)" % (" ".join(cmd), name, rc0, err0))
            if rc != 0 or len(lines) != 1 or "truncated tail: dropped" not in lines[0]:
                fail("%s --allow-truncated %s: exit %d, stderr %r" % (" ".join(cmd), name, rc, err))
            if rcp != 0 or errp != err.replace(name, "<stdin>") or (
                    cmd[0] == "dump" and outp != out):
                fail("%s --allow-truncated - (a pipe) %s: exit %d, stderr %r"
                     % (" ".join(cmd), name, rcp, errp))


def main():
    os.makedirs(TMP, exist_ok=True)
    xray_basic()
    xray_fdr()
    cacheray("examples/cacheray/heap.trace", "h.trace", False)
    cacheray("examples/cacheray/heap-be.trace", "hb.trace", True)
    casemate("examples/casemate/bbm.log", "m.log")
    casemate("examples/casemate/missing-tlbi.log", "t.log")
    ucir()
    damaged()
    commands()
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
