#!/usr/bin/env python3
"""Every --json and --json-hex output of every command, on every example
trace (and the fuzz seeds, the XRay YAML traces and a few made here for
warnings), validates against its schema in docs/schema/. Each output is
checked twice: against the schema as published (numbers or "0x..."
strings), and against a stricter copy for its mode (--json: numbers only;
--json-hex: addresses as strings, other integers numbers up to 2^53). Across
all outputs one name has one type (docs/json.md). The schemas must reject a
renamed or retyped member of a valid output.

usage: schema_test.py TRACEKIT SOURCE_DIR [MKTRACE FIXTURE]
  MKTRACE, FIXTURE: tests/cachesim's trace writer and DWARF fixture, for
  cachesim's false sharing and per-field output."""
import concurrent.futures
import copy
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import jsonschema

TWO53 = 2 ** 53
# magnitudes past 2^53, as --json-hex writes them (no leading zeros)
BIG_HEX = "0x([2-9a-f][0-9a-f]{13}|[1-9a-f][0-9a-f]{14,15})"
STRICT = {
    "json": {"uint": {"type": "integer", "minimum": 0},
             "int": {"type": "integer"},
             "addr": {"type": "integer", "minimum": 0}},
    "hex": {"uint": {"anyOf": [{"type": "integer", "minimum": 0, "maximum": TWO53},
                               {"type": "string", "pattern": "^" + BIG_HEX + "$"}]},
            "int": {"anyOf": [{"type": "integer", "minimum": -TWO53, "maximum": TWO53},
                              {"type": "string", "pattern": "^-?" + BIG_HEX + "$"}]},
            "addr": {"$ref": "#/$defs/hex"}},
}
ONE, LINES = "one", "lines"  # one JSON document, or JSON Lines


def load_schemas(src):
    schemas = {}
    for path in sorted(glob.glob(os.path.join(src, "docs", "schema", "*.json"))):
        with open(path) as f:
            s = json.load(f)
        jsonschema.Draft202012Validator.check_schema(s)
        name = os.path.basename(path)[:-5]
        schemas[name] = {"published": jsonschema.Draft202012Validator(s)}
        for mode, defs in STRICT.items():
            strict = copy.deepcopy(s)
            strict["$defs"].update(defs)
            schemas[name][mode] = jsonschema.Draft202012Validator(strict)
    return schemas


class Runner:
    def __init__(self, tk, tmp):
        self.tk, self.env = tk, dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))

    def run(self, args):
        p = subprocess.run([self.tk] + args, capture_output=True, env=self.env)
        return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8", "replace")


def plan_trace(r, trace, full):
    """The runs for one trace: (schema, shape, args, both modes)."""
    rc, out, _ = r.run(["info", "--json", trace])
    fmt = json.loads(out)["format"] if rc == 0 and out else None
    if not fmt and not full:  # a malformed seed: only validate's summary is JSON
        return [("validate", LINES, ["validate", trace], False)]
    runs = [("info", ONE, ["info"]), ("dump", LINES, ["dump"]),
            ("validate", LINES, ["validate"]), ("report", ONE, ["report"])]
    if fmt == "xray":
        runs.append(("dump", LINES, ["dump", "--records", "logical"]))
    if fmt in ("ucir", "usercorn"):
        runs.append(("dump", LINES, ["dump", "--records", "raw"]))
    if full:
        runs += [("dump", LINES, ["convert", "--to", "jsonl", "-o", "-"])]
        runs += analyses(r, trace, fmt)
    return [(s, shape, args + [trace], full) for s, shape, args in runs]


def analyses(r, trace, fmt):
    if fmt == "xray":
        return [("account", ONE, ["account"]), ("stack", LINES, ["stack"]),
                ("stack", LINES, ["stack", "--per-thread-stacks"]),
                ("stack", LINES, ["stack", "--aggregate-threads"]), ("graph", ONE, ["graph"]),
                ("diff", ONE, ["diff", "--stacks", "--fail-if", "p90>+1%", trace])] + [
                    ("diff", ONE, ["diff", "--stacks", other])
                    for other in glob.glob(os.path.join(os.path.dirname(trace), "*.xray"))
                    if other != trace] + [
                    ("graph-diff", ONE, ["graph-diff", "-k", other])
                    for other in glob.glob(os.path.join(os.path.dirname(trace), "*.xray"))]
    if fmt == "casemate":
        return [("bbm", ONE, ["bbm"])]
    if fmt == "cacheray":
        return [("cachesim", ONE, ["cachesim"]), ("cachesim", ONE, ["cachesim", "--reuse", "--no-3c"]),
                ("mrc", ONE, ["mrc"]),
                ("mrc", ONE, ["mrc", "--sample", "0.5", "--exact", "--ways", "2", "--sizes", "256,512"]),
                ("validate", LINES, ["validate", "--max-warnings", "1"])]
    if fmt in ("ucir", "usercorn"):
        rc, out, _ = r.run(["replay", "--json", trace])
        state = json.loads(out) if rc == 0 else {"maps": [], "registers": []}
        runs = [("replay", ONE, ["replay"]), ("replay", ONE, ["replay", "--at", "0"])]
        for m in state["maps"][:1]:
            runs += [("replay", ONE, ["replay", "--at", "3", "--mem", "%#x:16" % m["addr"]]),
                     ("replay", LINES, ["replay", "--history", "%#x:4096" % m["addr"]])]
        for reg in state["registers"][:1]:
            runs.append(("replay", LINES, ["replay", "--reg", reg["reg"]]))
        return runs
    return []


def made_traces(tmp, mktrace, fixture):
    """Traces with warnings (and cachesim's false sharing and fields)."""
    runs = []
    zero = os.path.join(tmp, "zero.trace")
    with open(zero, "wb") as f:  # 25 reads of 0 bytes, 5 removals of no region
        f.write(bytes(450) + (b"\x03\x10" + bytes(14)) * 5)
    runs.append(("validate", LINES, ["validate", "--format", "cacheray", zero], True))
    runs.append(("dump", LINES, ["dump", "--format", "cacheray", zero], True))
    warn = os.path.join(tmp, "warn.log")
    with open(warn, "w") as f:
        f.write("(lock 5 0 1)\n(unlock 5 0 1)\n(mem-set 6 0 1004 10 0)\n(lock 7 0 1 17)\n")
    runs += [(s, sh, a + [warn], True) for s, sh, a in
             [("validate", LINES, ["validate"]), ("dump", LINES, ["dump"]), ("bbm", ONE, ["bbm"]),
              ("report", ONE, ["report"])]]
    xmap = os.path.join(tmp, "map.yaml")  # extract reads maps as well as binaries
    with open(xmap, "w") as f:
        f.write("---\n- { id: 1, address: 0x401000, function: 0x401000, kind: function-enter, "
                "always-instrument: true, function-name: main, version: 2 }\n"
                "- { id: 1, address: 0xFFFFFFFFFFFF0010, function: 0x401000, kind: function-exit, "
                "always-instrument: false, function-name: main, version: 2 }\n...\n")
    runs += [("extract", LINES, ["extract", xmap], True),
             ("extract", LINES, ["extract", "-s", xmap], True)]
    if mktrace and fixture:
        shared = os.path.join(tmp, "shared.trace")
        subprocess.run([mktrace, "shared", shared], check=True)
        runs += [("cachesim", ONE, ["cachesim", "-g", fixture, "--reuse", shared], True),
                 ("cachesim", ONE, ["cachesim", "--level", "L1:1K:2:64", shared], True)]
    return runs


def shape_of(v):
    """What validation depends on: the members, the JSON types, the values
    of names from fixed sets, and which strings and integers --json-hex
    treats apart. Documents of one shape are validated once."""
    if isinstance(v, dict):
        return tuple((k, v[k] if k in NAMED else shape_of(v[k])) for k in v)
    if isinstance(v, list):
        return ("[",) + tuple(sorted(set(shape_of(x) for x in v), key=repr))
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        return "int" if abs(v) <= TWO53 else "big" + ("-" if v < 0 else "")
    if isinstance(v, str):
        return "hex" if re.fullmatch("-?0x[0-9a-f]+", v) else "bytes" if re.fullmatch("([0-9a-f?]{2})*", v) else "str"
    return type(v).__name__


NAMED = {"kind", "code", "action", "format", "verdict", "severity", "barrier", "mode", "policy"}


def check_output(schemas, name, shape, mode, out, shapes):
    """Validate stdout; returns (documents, errors)."""
    lines = [x for x in out.split("\n") if x]
    if shape == ONE and len(lines) != 1:
        return [], ["%d lines, wanted one JSON document" % len(lines)]
    docs, errors = [], []
    for line in lines:
        try:
            doc = json.loads(line)
        except ValueError as e:
            errors.append("not JSON: %s: %s" % (e, line[:200]))
            continue
        docs.append(doc)
        sig = (name, mode, shape_of(doc))
        if sig in shapes:
            continue
        shapes.add(sig)
        for which in ("published", mode):
            for e in schemas[name][which].iter_errors(doc):
                errors.append("%s schema: %s at %s" % (which, e.message[:300],
                                                       "/".join(map(str, e.absolute_path))))
    return docs, errors


def categories(doc, seen, where):
    """Note each member name's JSON type (null aside) and its spelling."""
    if isinstance(doc, list):
        for x in doc:
            categories(x, seen, where)
    elif isinstance(doc, dict):
        for k, v in doc.items():
            t = ("object" if isinstance(v, dict) else "array" if isinstance(v, list)
                 else "bool" if isinstance(v, bool) else "number" if isinstance(v, (int, float))
                 else "string" if isinstance(v, str) else None)
            if t:
                seen.setdefault(k, {}).setdefault(t, where)
            categories(v, seen, where)


def mutants(doc):
    """A member renamed, and a member retyped: both must fail."""
    row = doc[0] if isinstance(doc, list) and doc else doc
    if not isinstance(row, dict) or not row:
        return []
    key = next(iter(row))
    renamed = dict((k + "_renamed" if k == key else k, v) for k, v in row.items())
    retyped = dict(row)
    retyped[key] = [] if not isinstance(row[key], list) else 0
    wrap = (lambda r: [r] + doc[1:]) if isinstance(doc, list) else (lambda r: r)
    return [("renamed " + key, wrap(renamed)), ("retyped " + key, wrap(retyped))]


def main():
    if len(sys.argv) not in (3, 5):
        print(__doc__)
        return 2
    tk, src = sys.argv[1], sys.argv[2]
    mktrace, fixture = (sys.argv[3], sys.argv[4]) if len(sys.argv) == 5 else (None, None)
    schemas = load_schemas(src)
    tmp = tempfile.mkdtemp(prefix="tk-schema-")
    r = Runner(tk, tmp)
    traces = [(t, True) for t in sorted(glob.glob(os.path.join(src, "examples", "*", "*")))
              if os.path.isfile(t) and not t.endswith((".c", ".md"))]
    traces += [(t, True) for t in sorted(glob.glob(os.path.join(src, "tests", "xray", "yaml", "*.yaml")))]
    for fmt in ("cacheray", "casemate", "ucir", "xray"):
        traces += [(t, False) for t in sorted(glob.glob(os.path.join(src, "tests", "fuzz", "corpus", fmt, "*")))]
    runs = made_traces(tmp, mktrace, fixture)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for plan in pool.map(lambda t: plan_trace(r, t[0], t[1]), traces):
            runs += plan
        jobs = []
        for name, shape, args, both in runs:
            for mode in ("json", "hex") if both else ("json",):
                flag = {"json": ["--json"], "hex": ["--json-hex"]}[mode]
                if args[0] == "convert" and mode == "json":
                    flag = []  # --to jsonl is --json's output already
                jobs.append((name, shape, mode, args[:1] + flag + args[1:]))
        results = list(pool.map(lambda j: (j, r.run(j[3])), jobs))
    failures, validated, documents, seen, first, shapes = [], 0, 0, {}, {}, set()
    for (name, shape, mode, args), (rc, out, err) in results:
        what = "tracekit " + " ".join(args)
        if rc not in (0, 1) or (rc == 0 and not out and shape == ONE):
            if rc != 2 or out:  # usage errors (e.g. replay past the end) print nothing
                failures.append("%s: exit %d, %d bytes out: %s" % (what, rc, len(out), err.strip()[:200]))
            continue
        if rc == 1 and not out:  # a malformed trace: the error is on stderr
            continue
        docs, errors = check_output(schemas, name, shape, mode, out, shapes)
        failures += ["%s: %s" % (what, e) for e in errors[:5]]
        validated += 1
        documents += len(docs)
        for d in docs:
            if mode == "json":
                categories(d, seen, what)
            first.setdefault(name, d)
    for k, types in sorted(seen.items()):
        if not re.fullmatch(r"[a-z][a-z0-9_]*", k):
            failures.append("member '%s' is not snake_case (%s)" % (k, next(iter(types.values()))))
        if len(types) > 1:
            failures.append("member '%s' has several types: %s" % (k, types))
    for name in schemas:
        if name not in first:
            failures.append("no output validated against docs/schema/%s.json" % name)
            continue
        for how, bad in mutants(first[name]):
            if schemas[name]["published"].is_valid(bad):
                failures.append("docs/schema/%s.json accepts a %s member" % (name, how))
    for f in failures:
        print("FAIL: " + f)
    print("%d outputs (%d JSON documents, %d shapes) of %d runs validated against %d schemas; "
          "%d failures" % (validated, documents, len(shapes), len(results), len(schemas), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
