#!/usr/bin/env python3
"""Runs the examples of examples/api/, built by examples_test.sh once shared
and once static (BIN/NAME-shared, BIN/NAME-static), and checks what they
print against the tracekit command on the same traces:

  count_kinds  the counts by kind == `info --json`'s by_kind (those not 0)
  to_jsonl     each line's fields == the same fields of `convert --to
               jsonl`'s line, with and without a selection
  cachesim     totals, levels and types == `cachesim --json`
  replay       instruction, pc, registers, maps, memory == `replay --json`

and that both builds print the same bytes.
Usage: examples_check.py TRACEKIT SOURCE_DIR BIN
"""
import glob
import json
import os
import re
import subprocess
import sys

PROBLEMS = []


def problem(what, msg):
    PROBLEMS.append("%s: %s" % (what, msg))


def run(argv, ok=(0,)):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if p.returncode not in ok:
        problem(" ".join(argv), "exit %d: %s" % (p.returncode, p.stderr.strip()))
    return p.stdout


class Example:
    def __init__(self, bin_dir, name):
        self.shared = os.path.join(bin_dir, name + "-shared")
        self.static = os.path.join(bin_dir, name + "-static")

    def run(self, args, ok=(0,)):
        """The shared build's output, after checking the static one's is the same."""
        out = run([self.shared] + args, ok)
        if run([self.static] + args, ok) != out:
            problem("%s %s" % (os.path.basename(self.shared), " ".join(args)),
                    "the static build prints something else")
        return out


def cli_json(tk, args):
    return json.loads(run([tk] + args) or "null")


def check_count(ex, tk, trace):
    got = {}
    for line in ex.run([trace]).splitlines():
        kind, count = line.split()
        got[kind] = int(count)
    info = cli_json(tk, ["info", "--json", trace])
    want = {k["kind"]: k["count"] for k in info["by_kind"] if k["count"]}
    if got != want:
        problem("count_kinds " + trace, "%s, info says %s" % (got, want))
    if sum(got.values()) != info["records"]:
        problem("count_kinds " + trace, "%d records, info says %d" % (sum(got.values()), info["records"]))


def check_jsonl(ex, tk, trace, options=()):
    what = "to_jsonl %s %s" % (trace, " ".join(options))
    got = [json.loads(x) for x in ex.run([trace] + list(options)).splitlines()]
    flags = ["--" + o for o in options]  # thread=1001: --thread=1001
    want = [json.loads(x) for x in run([tk, "convert", "--to", "jsonl"] + flags + [trace]).splitlines()]
    if len(got) != len(want) or not got:
        problem(what, "%d records, convert --to jsonl %d" % (len(got), len(want)))
    for g, w in zip(got, want):
        diff = {k: (v, w.get(k, "(none)")) for k, v in g.items() if w.get(k) != v}
        if diff:
            problem(what, "record %s: %s (example, convert)" % (g.get("record"), diff))
            break


def parse_kv(text):
    return {k: v for k, v in re.findall(r"(\w+)=(\S+)", text)}


def check_cachesim(ex, tk, trace, levels=()):
    what = "cachesim %s %s" % (trace, " ".join(levels))
    out = ex.run([trace] + list(levels)).splitlines()
    want = cli_json(tk, ["cachesim", "--json"] + [a for lv in levels for a in ("-l", lv)] + [trace])
    total = parse_kv(out[0])
    for k in ("records", "accesses", "reads", "writes"):
        if int(total[k]) != want[k]:
            problem(what, "%s %s, cachesim --json %s" % (k, total[k], want[k]))
    got_levels = [ln.split(None, 2)[1:] for ln in out if ln.startswith("level ")]
    if len(got_levels) != len(want["levels"]):
        problem(what, "%d levels, cachesim --json %d" % (len(got_levels), len(want["levels"])))
    for (name, rest), w in zip(got_levels, want["levels"]):
        kv = parse_kv(rest)
        for k in ("reads", "writes", "read_misses", "write_misses", "writebacks"):
            if name != w["name"] or int(kv[k]) != w[k]:
                problem(what, "level %s %s=%s, cachesim --json %s %s" % (name, k, kv[k], w["name"], w[k]))
        if abs(float(kv["miss_rate"]) - w["miss_rate"]) > 5e-5:
            problem(what, "level %s miss_rate %s, cachesim --json %s" % (name, kv["miss_rate"], w["miss_rate"]))
    types = {}
    for ln in out:
        m = re.match(r"type accesses=(\d+) L1_misses=(\d+) name=(.*)$", ln)
        if m and int(m.group(1)):
            types[m.group(3)] = (int(m.group(1)), int(m.group(2)))
    want_types = {t["name"]: (t["accesses"], t["misses"][0]) for t in want["types"] if t["accesses"]}
    if types != want_types:
        problem(what, "types %s, cachesim --json %s" % (types, want_types))


def check_replay(ex, tk, trace, n, mem):
    what = "replay %s %d %s" % (trace, n, mem)
    out = ex.run([trace, str(n), mem]).splitlines()
    want = cli_json(tk, ["replay", "--no-index", "--at", str(n), "--mem", mem, "--json", trace])
    got = {"insn": None, "registers": [], "maps": [], "memory": None}
    for ln in out:
        f = ln.split()
        if f[0] == "instruction":
            got["insn"], got["pc"] = int(f[1]), int(f[2].split("=")[1], 16)
        elif f[0] == "reg":
            got["registers"].append({"reg": f[1], "value": int(f[2], 16)})
        elif f[0] == "map":
            got["maps"].append({"addr": int(f[1], 16), "size": int(f[2].split("=")[1], 16),
                                "perms": f[3]})
        elif f[0] == "mem":
            got["memory"] = "".join(f[2:])
    expect = {"insn": want["insn"], "pc": want["pc"], "registers": want["registers"],
              "maps": [{k: m[k] for k in ("addr", "size", "perms")} for m in want["maps"]],
              "memory": want["memory"][0]["data"]}
    for k, v in expect.items():
        if got.get(k) != v:
            problem(what, "%s %s, replay --json %s" % (k, got.get(k), v))


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[-1])
        return 2
    tk, src, bin_dir = sys.argv[1:]
    os.chdir(src)
    traces = sorted(t for t in glob.glob("examples/*/*")
                    if os.path.isfile(t) and not t.startswith("examples/api/")
                    and not t.endswith((".c", ".md")))
    ex = {n: Example(bin_dir, n) for n in ("count_kinds", "to_jsonl", "cachesim", "replay")}
    for t in traces:
        check_count(ex["count_kinds"], tk, t)
        check_jsonl(ex["to_jsonl"], tk, t)
    # the reader applies a selection as the commands do
    check_jsonl(ex["to_jsonl"], tk, "examples/cacheray/heap.trace", ["thread=1001"])
    check_jsonl(ex["to_jsonl"], tk, "examples/casemate/bbm.log", ["thread=1"])
    check_jsonl(ex["to_jsonl"], tk, "examples/ucir/hello.ucir", ["range=2:5"])
    check_jsonl(ex["to_jsonl"], tk, "examples/xray/basic-v3.xray", ["func=2"])
    for t in glob.glob("examples/cacheray/*.trace"):
        check_cachesim(ex["cachesim"], tk, t)
        check_cachesim(ex["cachesim"], tk, t, ["L1:16K:4:64", "L2:256K:8:64:plru"])
    if "a ucir trace" not in subprocess.run([ex["cachesim"].shared, "examples/ucir/hello.ucir"],
                                           capture_output=True, text=True).stderr:
        problem("cachesim examples/ucir/hello.ucir", "no 'a ucir trace' error")
    for n, mem in ((0, "0x3ffff0:20"), (8, "0x401000:32"), (16, "0x7fffeff0:16")):
        check_replay(ex["replay"], tk, "examples/ucir/hello.ucir", n, mem)
    for p in PROBLEMS:
        print("FAIL:", p)
    print("%d traces, 4 examples, shared and static: %s"
          % (len(traces), "%d problems" % len(PROBLEMS) if PROBLEMS else "ok"))
    return 1 if PROBLEMS else 0


if __name__ == "__main__":
    sys.exit(main())
